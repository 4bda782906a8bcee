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

package featuregates

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
)

// anyOfGates are OpenShift's authentications story: .spec.oidc exists while any of OIDC,
// OIDCExtra and OIDCParity is on; .spec.oidc.extra only while OIDCExtra is.
func anyOfGates(oidc, extra, parity *bool) []GateSpec {
	return []GateSpec{
		{Name: "OIDC", PreRelease: Alpha, Enabled: oidc},
		{Name: "OIDCExtra", PreRelease: Alpha, Enabled: extra, FieldPaths: []string{".spec.oidc.extra"}},
		{Name: "OIDCParity", PreRelease: Alpha, Enabled: parity},
		{Name: "OIDCAny", PreRelease: Stable, RequiresAnyOf: []string{"OIDC", "OIDCExtra", "OIDCParity"}, FieldPaths: []string{".spec.oidc"}},
	}
}

// TestRequiresAnyOfWritePath checks the write path of a field that any of several gates
// enables: dropped on create while none is on, stored once any one is, kept on update when all
// are off again; and a child of its own gate is live only when that gate is on as well.
func TestRequiresAnyOfWritePath(t *testing.T) {
	on := ptr.To(true)
	for _, tc := range []struct {
		name                string
		oidc, extra, parity *bool
		want                string
	}{
		{name: "none on: dropped", want: `{"spec":{"replicas":1}}`},
		{name: "OIDC on: stored, extra dropped", oidc: on, want: `{"spec":{"replicas":1,"oidc":{"issuer":"x"}}}`},
		{name: "parity on alone: stored, extra dropped", parity: on, want: `{"spec":{"replicas":1,"oidc":{"issuer":"x"}}}`},
		{name: "extra on alone: both stored", extra: on, want: `{"spec":{"replicas":1,"oidc":{"issuer":"x","extra":"e"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := Compile(anyOfGates(tc.oidc, tc.extra, tc.parity), nil)
			newObj := obj(t, `{"spec":{"replicas":1,"oidc":{"issuer":"x","extra":"e"}}}`)
			ix.PrepareForCreate(newObj, ScopeAll)
			if diff := cmp.Diff(obj(t, tc.want), newObj); diff != "" {
				t.Errorf("create (-want +got):\n%s", diff)
			}
		})
	}
	// Stored while OIDC was on; every gate off again: an update keeps the stored value.
	ix := Compile(anyOfGates(nil, nil, nil), nil)
	newObj := obj(t, `{"spec":{"replicas":2,"oidc":{"issuer":"y"}}}`)
	changes, err := ix.PrepareForUpdate(newObj, obj(t, `{"spec":{"replicas":1,"oidc":{"issuer":"x"}}}`), ScopeAll)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(obj(t, `{"spec":{"replicas":2,"oidc":{"issuer":"x"}}}`), newObj); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]ChangeKind{".spec.oidc": NotApplied}, changeMap(changes)); diff != "" {
		t.Errorf("update changes (-want +got):\n%s", diff)
	}
}

// TestRequiresAnyOfTexts checks the warnings and stage notes that say why a gate that
// requires any of several gates is disabled.
func TestRequiresAnyOfTexts(t *testing.T) {
	ix := Compile(anyOfGates(nil, nil, nil), nil)
	var oidc *GatedPath
	for i := range ix.Paths() {
		if p := &ix.Paths()[i]; p.Path.String() == ".spec.oidc" {
			oidc = p
		}
	}
	if oidc == nil {
		t.Fatalf("no gated path .spec.oidc in %v", ix.Paths())
	}
	why := "requires OIDC, OIDCExtra or OIDCParity, which are disabled"
	if got, want := (Change{Kind: Dropped, Path: oidc}).Warning(), ".spec.oidc was dropped: feature gate OIDCAny (stable) is disabled: "+why; got != want {
		t.Errorf("Warning() = %q, want %q", got, want)
	}
	if got, want := oidc.StageNote(), "Stable (feature gate OIDCAny, disabled: "+why+")."; got != want {
		t.Errorf("StageNote() = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		unmet, anyOf []string
		want         string
	}{
		{want: ""},
		{unmet: []string{"A"}, want: "requires A, which is disabled"},
		{unmet: []string{"A", "B"}, want: "requires A and B, which are disabled"},
		{anyOf: []string{"C"}, want: "requires C, which is disabled"},
		{anyOf: []string{"C", "D"}, want: "requires C or D, which are disabled"},
		{unmet: []string{"A"}, anyOf: []string{"C", "D", "E"}, want: "requires A, which is disabled; requires C, D or E, which are disabled"},
	} {
		if got := UnmetText(tc.unmet, tc.anyOf); got != tc.want {
			t.Errorf("UnmetText(%v, %v) = %q, want %q", tc.unmet, tc.anyOf, got, tc.want)
		}
	}
}
