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

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

const gatesCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gs.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: gs, singular: g, kind: G}
  customFeatureGates:
    featureGates:
GATES
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {type: string}
              b: {type: string}
`

// TestGenerateRefusesWhatTheServerRefuses: a CRD our server refuses gives no policies (a
// stock server would refuse them, and a partial install would serve the kind ungated); the
// error names the CRD and the field.
func TestGenerateRefusesWhatTheServerRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, gates, want string
	}{
		{name: "requires cycle", gates: `
    - {name: A, preRelease: alpha, fieldPaths: ['.spec.a'], requires: [B]}
    - {name: B, preRelease: alpha, fieldPaths: ['.spec.b'], requires: [A]}`, want: "requires must not form a cycle"},
		{name: "requires an undeclared gate", gates: `
    - {name: A, preRelease: alpha, fieldPaths: ['.spec.a'], requires: [Missing]}`, want: "Missing"},
		{name: "requiresAnyOf an undeclared gate", gates: `
    - {name: A, preRelease: alpha, fieldPaths: ['.spec.a'], requiresAnyOf: [Missing]}`, want: "Missing"},
		{name: "a path that does not resolve", gates: `
    - {name: A, preRelease: alpha, fieldPaths: ['.spec.nothere']}`, want: "fieldPaths"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Generate(mustCRD(t, strings.Replace(gatesCRD, "GATES", strings.TrimPrefix(tc.gates, "\n"), 1)))
			if err == nil {
				t.Fatal("generated policies; want an error")
			}
			if !strings.Contains(err.Error(), "gs.t.example.com") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q; want it to name the CRD and %q", err, tc.want)
			}
		})
	}
	if _, err := Generate(mustCRD(t, strings.Replace(gatesCRD, "GATES", `    - {name: A, preRelease: alpha, fieldPaths: ['.spec.a'], requires: [B]}
    - {name: B, preRelease: beta, fieldPaths: ['.spec.b']}`, 1))); err != nil {
		t.Errorf("a valid CRD: %v", err)
	}
}

// TestStableGateStaysOn: a stable gate is on whatever its parameter object's entry says,
// and with the entry deleted.
func TestStableGateStaysOn(t *testing.T) {
	res, err := Generate(mustCRD(t, strings.Replace(gatesCRD, "GATES", `    - {name: A, preRelease: stable, fieldPaths: ['.spec.a']}
    - {name: B, preRelease: alpha, fieldPaths: ['.spec.b']}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	run := compileMutating(t, res.Mutating)
	obj := mustObj(t, "{apiVersion: t.example.com/v1, kind: G, metadata: {name: x, namespace: default}, spec: {a: x, b: y}}")
	param := withStates(res)
	for name, drop := range map[string]func(){
		"entry present": func() {},
		"entry deleted": func() { param.Spec.FeatureGates = param.Spec.FeatureGates[1:] },
	} {
		drop()
		got, err := run(param, obj, nil)
		if err != nil {
			t.Fatal(err)
		}
		if spec := got["spec"].(map[string]interface{}); spec["a"] != "x" || spec["b"] != nil {
			t.Errorf("%s: spec %v; want a kept (stable gate) and b dropped", name, spec)
		}
	}
}

// TestUnservedStorageVersion: the policies match a version a stock server publishes: the
// storage version where it is served, else (conversion None) the first served one; with a
// conversion webhook, the difference is listed.
func TestUnservedStorageVersion(t *testing.T) {
	versions := `
  versions:
  - name: v1
    served: false
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}}
  - name: v2
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}}
`
	base := strings.Replace(gatesCRD, "GATES", "    - {name: A, preRelease: alpha, fieldPaths: ['.spec.a']}", 1)
	base = base[:strings.Index(base, "  versions:")] + strings.TrimPrefix(versions, "\n")
	res, err := Generate(mustCRD(t, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*admissionregistrationv1.MatchResources{res.Mutating.Spec.MatchConstraints, res.Validating.Spec.MatchConstraints} {
		if got := m.ResourceRules[0].APIVersions; len(got) != 1 || got[0] != "v2" {
			t.Errorf("the policies match %v; want [v2] (served, conversion None)", got)
		}
	}
	webhook := base + `  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {url: "https://conv.example.com/convert"}
`
	res, err = Generate(mustCRD(t, webhook))
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, d := range res.Differences {
		listed = listed || strings.Contains(d.What, "the storage version v1 is not served")
	}
	if !listed {
		t.Errorf("conversion webhook and an unserved storage version: no difference listed in %v", res.Differences)
	}
}

const twoVersionsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: tvs.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: tvs, singular: tv, kind: Tv}
  customFeatureGates:
    featureGates:
    - {name: Turbo, preRelease: alpha}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode:
                type: string
                x-kubernetes-feature-gated-validations:
                - {featureGate: Turbo, enabled: false, enum: [Slow, Fast]}
              size:
                type: integer
                x-kubernetes-validations:
                - {rule: "featureGates.Turbo || self <= 10", message: size above 10 needs Turbo}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode: {type: string}
              size:
                type: integer
                x-kubernetes-validations:
                - {rule: "featureGates.Turbo || self <= 100", message: size above 100 needs Turbo}
`

// TestVersionsKeywordsAndRules: with conversion None, each version's gated keywords and
// rules that read featureGates judge the writes sent in that version, as our server judges
// a write by the schema of its version: a keyword or rule that only v1beta1 has refuses a
// v1beta1 write and lets the same v1 write pass, and the reverse.
func TestVersionsKeywordsAndRules(t *testing.T) {
	res, err := Generate(mustCRD(t, twoVersionsCRD))
	if err != nil {
		t.Fatal(err)
	}
	obj := func(version, spec string) map[string]interface{} {
		return mustObj(t, "{apiVersion: t.example.com/"+version+", kind: Tv, metadata: {name: x, namespace: default}, spec: "+spec+"}")
	}
	for _, tc := range []struct {
		name, version, spec string
		want                []string
	}{
		{name: "v1beta1's gated enum, sent in v1beta1", version: "v1beta1", spec: "{mode: Turbo}", want: []string{"spec.mode: Invalid value: supported values"}},
		{name: "v1beta1's gated enum, sent in v1", version: "v1", spec: "{mode: Turbo}"},
		{name: "v1beta1's rule, sent in v1beta1", version: "v1beta1", spec: "{size: 50}", want: []string{"size above 10 needs Turbo"}},
		{name: "v1's rule, sent in v1", version: "v1", spec: "{size: 150}", want: []string{"size above 100 needs Turbo"}},
		{name: "v1's rule, sent in v1beta1", version: "v1beta1", spec: "{size: 5}"},
		{name: "v1's rule, a v1 write within its bound", version: "v1", spec: "{size: 50}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runValidating(t, res.Validating, withStates(res), obj(tc.version, tc.spec), nil, "")
			if len(got) != len(tc.want) {
				t.Fatalf("refused by %q; want %q", got, tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("refused by %q; want %q", got[i], tc.want[i])
				}
			}
		})
	}
	for _, d := range res.Differences {
		if strings.Contains(d.What, "v1beta1") {
			t.Errorf("difference listed: %s; the policies check v1beta1's keywords and rules", d.What)
		}
	}
}

// TestIntegerDifferences: a gated path that may hold an integer (an integer field, at or
// below it, int-or-string, or unknown fields) is listed as a difference, since the mutating
// policy cannot put back a stored integer beyond ±2^53; a path of strings is not.
func TestIntegerDifferences(t *testing.T) {
	schema := `              s: {type: string}
              num: {type: integer}
              o:
                type: object
                properties:
                  name: {type: string}
                  count: {type: integer}
              ios: {x-kubernetes-int-or-string: true}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
              names: {type: array, items: {type: string}}
`
	for _, tc := range []struct {
		path   string
		listed bool
	}{
		{".spec.s", false},
		{".spec.names", false},
		{".spec.num", true},
		{".spec.o", true},
		{".spec.o.name", false},
		{".spec.o.count", true},
		{".spec.ios", true},
		{".spec.free", true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			crd := strings.Replace(gatesCRD, "GATES", "    - {name: A, preRelease: alpha, fieldPaths: ['"+tc.path+"']}", 1)
			crd = strings.Replace(crd, "              a: {type: string}\n              b: {type: string}\n", schema, 1)
			res, err := Generate(mustCRD(t, crd))
			if err != nil {
				t.Fatal(err)
			}
			listed := false
			for _, d := range res.Differences {
				if strings.Contains(d.What, "beyond ±2^53") {
					listed = true
					if d.Path != tc.path || d.Gate != "A" {
						t.Errorf("difference at %q for gate %q, want %q and A", d.Path, d.Gate, tc.path)
					}
				}
			}
			if listed != tc.listed {
				t.Errorf("integer difference listed = %t, want %t; differences: %v", listed, tc.listed, res.Differences)
			}
		})
	}
}
