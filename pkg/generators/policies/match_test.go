/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package policies

import (
	"strings"
	"testing"
)

// TestMatchCondition checks the mutating policy's match condition: the policy runs where the
// write sends or changes a value at a path whose gates may be off, and is skipped where the
// mutations would have nothing to do, its own second run included.
func TestMatchCondition(t *testing.T) {
	crd := strings.Replace(flatCRD(t, 4), "{name: G003, preRelease: alpha,", "{name: G003, preRelease: alpha, requires: [G000],", 1)
	res, err := Generate(mustCRD(t, crd))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Mutating.Spec.MatchConditions); n != 1 {
		t.Fatalf("%d match conditions, want 1", n)
	}
	matches := compileMatch(t, res.Mutating.Spec.MatchConditions)
	mutate := compileMutating(t, res.Mutating)
	param := withStates(res, "G000", "G003") // G001 and G002 off; G003 on, but it needs G000
	spec := func(kv ...string) map[string]interface{} {
		s := map[string]interface{}{}
		for i := 0; i+1 < len(kv); i += 2 {
			s[kv[i]] = kv[i+1]
		}
		return map[string]interface{}{"apiVersion": "t.example.com/v1", "kind": "Flat",
			"metadata": map[string]interface{}{"name": "x", "namespace": "default"}, "spec": s}
	}
	stored := spec("u000", "a", "f000", "a", "f002", "a")
	sentF001 := spec("u000", "a", "f000", "a", "f001", "new", "f002", "a")
	kept, err := mutate(param, sentF001, stored)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		obj, old map[string]interface{}
		want     bool
	}{
		{"create without gated fields", spec("u000", "a"), nil, false},
		{"create with a field of an enabled gate", spec("f000", "a"), nil, false},
		{"create with a field of a disabled gate", spec("f001", "a"), nil, true},
		{"create with a field of a gate that needs another", spec("f003", "a"), nil, true},
		{"update of an ungated field", spec("u000", "b", "f000", "a", "f002", "a"), stored, false},
		{"update of a field of an enabled gate", spec("u000", "a", "f000", "b", "f002", "a"), stored, false},
		{"update that sends a field of a disabled gate", sentF001, stored, true},
		{"update that leaves out a stored field of a disabled gate", spec("u000", "a", "f000", "a"), stored, true},
		{"the policy's second run on its own result", kept, stored, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := matches(param, c.obj, c.old, "")
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("the match condition is %v, want %v", got, c.want)
			}
		})
	}
	if _, has := kept["spec"].(map[string]interface{})["f001"]; has {
		t.Fatalf("the policy kept f001, sent while its gate is off: %v", kept)
	}

	// A gate missing from the parameter object is off (not being stable): a value sent at its
	// path matches, and the policy drops it.
	missing := withStates(res, "G000", "G001", "G002", "G003")
	for i, g := range missing.Spec.FeatureGates {
		if g.Name == "G002" {
			missing.Spec.FeatureGates = append(missing.Spec.FeatureGates[:i], missing.Spec.FeatureGates[i+1:]...)
			break
		}
	}
	for _, old := range []map[string]interface{}{nil, stored} {
		sent := spec("u000", "a", "f000", "a", "f002", "new")
		got, err := matches(missing, sent, old, "")
		if err != nil {
			t.Fatal(err)
		}
		if !got {
			t.Errorf("with G002 missing from the parameter object, a write of f002 (stored: %v) does not match", old != nil)
		}
		out, err := mutate(missing, sent, old)
		if err != nil {
			t.Fatal(err)
		}
		if v, want := out["spec"].(map[string]interface{})["f002"], old["spec"]; old == nil && v != nil || old != nil && v != want.(map[string]interface{})["f002"] {
			t.Errorf("with G002 missing from the parameter object, f002 is %v after the policy (stored: %v)", v, old != nil)
		}
	}

	// A default below a gated path applies to a value the write did not send: no condition.
	withDefault := strings.Replace(crd, "f000: {type: string}", "f000: {type: string, default: d}", 1)
	res, err = Generate(mustCRD(t, withDefault))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Mutating.Spec.MatchConditions); n != 0 {
		t.Fatalf("with a default below a gated path, %d match conditions, want none", n)
	}
}

// TestValidatingMatchCondition: where the validating policy holds only the last guard (and the
// scale and ambiguity checks), its match condition skips the writes that leave every value at
// a possibly disabled path as stored (the API server then evaluates one condition, not one
// check per gated path, and converts the parameter object once, not twice), and matches every
// write that a check refuses; every scale write matches where the CRD has a scale check. With
// gated keywords or rules, which judge values whatever the gates, there is no condition.
func TestValidatingMatchCondition(t *testing.T) {
	crd := strings.Replace(flatCRD(t, 3), "    storage: true\n", "    storage: true\n    subresources:\n      scale: {specReplicasPath: .spec.f000, statusReplicasPath: .status.r}\n", 1)
	crd = strings.Replace(crd, "f000: {type: string}", "f000: {type: integer}", 1)
	res, err := Generate(mustCRD(t, crd))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Validating.Spec.MatchConditions); n != 1 {
		t.Fatalf("%d match conditions, want 1", n)
	}
	matches := compileMatch(t, res.Validating.Spec.MatchConditions)
	validate := compileValidatingErr(t, res.Validating) // errs where the condition skips a write a check refuses
	param := withStates(res, "G002")                    // G000 and G001 off
	obj := func(kv ...interface{}) map[string]interface{} {
		s := map[string]interface{}{}
		for i := 0; i+1 < len(kv); i += 2 {
			s[kv[i].(string)] = kv[i+1]
		}
		return map[string]interface{}{"apiVersion": "t.example.com/v1", "kind": "Flat",
			"metadata": map[string]interface{}{"name": "x", "namespace": "default"}, "spec": s}
	}
	stored := obj("u000", "a", "f000", int64(3), "f001", "a")
	// On the scale subresource, admission sees autoscaling/v1 Scale objects.
	scale := func(replicas int64) map[string]interface{} {
		return map[string]interface{}{"apiVersion": "autoscaling/v1", "kind": "Scale",
			"metadata": map[string]interface{}{"name": "x", "namespace": "default"},
			"spec":     map[string]interface{}{"replicas": replicas}, "status": map[string]interface{}{"replicas": int64(0)}}
	}
	for _, c := range []struct {
		name        string
		obj, old    map[string]interface{}
		sub         string
		wantMatch   bool
		wantRefused bool
	}{
		{name: "create without gated fields", obj: obj("u000", "a")},
		{name: "create with a field of an enabled gate", obj: obj("f002", "a")},
		{name: "create with a field of a disabled gate", obj: obj("f001", "a"), wantMatch: true, wantRefused: true},
		{name: "update that keeps the stored values of disabled gates", obj: obj("u000", "b", "f000", int64(3), "f001", "a", "f002", "new"), old: stored},
		{name: "update that changes a stored value of a disabled gate", obj: obj("u000", "a", "f000", int64(3), "f001", "b"), old: stored, wantMatch: true, wantRefused: true},
		{name: "update that loses a stored value of a disabled gate", obj: obj("u000", "a", "f000", int64(3)), old: stored, wantMatch: true, wantRefused: true},
		{name: "scale write that changes the disabled replicas", obj: scale(4), old: scale(3), sub: "scale", wantMatch: true, wantRefused: true},
		{name: "scale write that keeps the disabled replicas", obj: scale(3), old: scale(3), sub: "scale", wantMatch: true},
		{name: "scale write that keeps replicas at 0", obj: scale(0), old: scale(0), sub: "scale", wantMatch: true, wantRefused: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := matches(param, c.obj, c.old, c.sub)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.wantMatch {
				t.Errorf("the match condition is %v, want %v", got, c.wantMatch)
			}
			failed, err := validate(param, c.obj, c.old, c.sub)
			if err != nil {
				t.Fatal(err)
			}
			if refused := len(failed) > 0; refused != c.wantRefused {
				t.Errorf("refused: %v (%q), want %v", refused, failed, c.wantRefused)
			}
		})
	}

	// A gated keyword judges a value whatever the gates: no condition.
	withKeyword := strings.Replace(crd, "u000: {type: string}", "u000: {type: string, x-kubernetes-feature-gated-validations: [{featureGate: G002, maxLength: 3}]}", 1)
	res, err = Generate(mustCRD(t, withKeyword))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Validating.Spec.MatchConditions); n != 0 {
		t.Fatalf("with a gated keyword, %d match conditions, want none", n)
	}
}
