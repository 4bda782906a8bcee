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

package openshift

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apimachinery/pkg/util/sets"
)

// TestMergeAnyOf checks a field that each of two gates adds on its own (OpenShift's
// authentications: one +openshift:enable:FeatureGate marker per gate): the merged CRD marks it
// with a stable gate that requires any of them, declares that gate, and a child that is in
// every file with the field needs no gate of its own.
func TestMergeAnyOf(t *testing.T) {
	const crdDir = "example/v1/zz_generated.featuregated-crd-manifests/widgets.example.openshift.io"
	tmp := t.TempDir()
	copyTree(t, filepath.Join("testdata", "api"), tmp)
	path := filepath.Join(tmp, crdDir, "Alpha.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "              name:\n", "              owner:\n                pattern: ^[a-z]+$\n                type: string\n              name:\n", 1)
	edited = strings.Replace(edited, "            required:\n            - mode\n", "            required:\n            - mode\n            - owner\n", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Merge(Options{Dir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("merge error: %v", e)
	}
	var content []byte
	for _, f := range res.Files {
		if f.Name == "example/v1/widgets.example.openshift.io.yaml" {
			content = f.Content
		}
	}
	if content == nil {
		t.Fatalf("the widgets CRD was not written; files: %v", res.Files)
	}
	crds, _, err := crdmerge.ReadCRDs("merged", content)
	if err != nil || len(crds) != 1 {
		t.Fatalf("reading the merged CRD: %v (%d CRDs)", err, len(crds))
	}
	crd := crds[0]
	const anyGate = "AlphaOrBeta"
	var found bool
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		if g.Name == anyGate {
			found = true
			if g.PreRelease != "stable" || !reflect.DeepEqual(g.RequiresAnyOf, []string{"Alpha", "Beta"}) || len(g.Requires) != 0 {
				t.Errorf("gate %s = %+v, want stable with requiresAnyOf [Alpha Beta]", anyGate, g)
			}
		}
	}
	if !found {
		t.Errorf("no gate %s in %+v", anyGate, crd.Spec.CustomFeatureGates.FeatureGates)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	owner := spec.Properties["owner"]
	if owner.XFeatureGate == nil || *owner.XFeatureGate != anyGate {
		t.Errorf(".spec.owner is marked %v, want %s", owner.XFeatureGate, anyGate)
	}
	if owner.Pattern != "^[a-z]+$" {
		t.Errorf(".spec.owner pattern = %q, want the one both files have", owner.Pattern)
	}
	// The gate rows name the gates it requires any of; the feature sets' states files list
	// only OpenShift's own gates.
	for _, g := range res.Gates {
		if g.Gate == anyGate && !reflect.DeepEqual(g.RequiresAnyOf, []string{"Alpha", "Beta"}) {
			t.Errorf("gate row %+v, want RequiresAnyOf [Alpha Beta]", g)
		}
	}
	for _, f := range res.Files {
		if strings.HasPrefix(f.Name, "featuresets/") && strings.Contains(string(f.Content), anyGate) {
			t.Errorf("%s sets %s, which no admin sets", f.Name, anyGate)
		}
	}
}

func TestMinimalGateSets(t *testing.T) {
	v := func(gates ...string) at { return at{v: &variant{gates: sets.New(gates...)}} }
	for _, tc := range []struct {
		name  string
		have  []at
		owner []string
		want  [][]string
	}{
		{name: "one gate", have: []at{v("A"), v("A", "B")}, want: [][]string{{"A"}}},
		{name: "either of two", have: []at{v("A"), v("B"), v("A", "B")}, want: [][]string{{"A"}, {"B"}}},
		{name: "a gate or a combination", have: []at{v("A"), v("B", "C"), v("A", "B", "C")}, want: [][]string{{"A"}, {"B", "C"}}},
		{name: "owner taken out", have: []at{v("O", "A"), v("O", "B")}, owner: []string{"O"}, want: [][]string{{"A"}, {"B"}}},
		{name: "the same set twice is one", have: []at{v(), v()}, want: [][]string{{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]string
			for _, s := range minimalGateSets(tc.have, sets.New(tc.owner...)) {
				got = append(got, sets.List(s))
			}
			for i := range tc.want {
				if tc.want[i] == nil {
					tc.want[i] = []string{}
				}
			}
			for i := range got {
				if got[i] == nil {
					got[i] = []string{}
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("minimalGateSets() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAnyOfName(t *testing.T) {
	if got, want := AnyOfName([]string{"Beta", "Alpha"}), "AlphaOrBeta"; got != want {
		t.Errorf("AnyOfName = %q, want %q", got, want)
	}
	long := AnyOfName([]string{"ExternalOIDC", "ExternalOIDCExternalClaimsSourcing", "ExternalOIDCWithUIDAndExtraClaimMappings"})
	if len(long) != 63 || !crdmerge.ValidGateName(long) {
		t.Errorf("AnyOfName of long names = %q (%d characters), want a valid name of 63", long, len(long))
	}
}
