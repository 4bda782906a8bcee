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

package apihelpers

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func withRequires(names ...string) gateOption {
	return func(g *apiextensionsv1.CustomResourceDefinitionFeatureGate) { g.Requires = names }
}

// TestRequires checks the helpers on a gate that requires others: OpenShift's
// Example+Example2, where .spec.replicas exists only while both are enabled, and
// .spec.advanced.level is a combination field nested in Example's own field.
func TestRequires(t *testing.T) {
	tests := []struct {
		name           string
		example        []gateOption
		example2Stage  apiextensionsv1.CustomFeatureGatePreRelease
		wantCombined   bool
		wantReplicas   bool
		wantLevel      bool
		wantExampleOn  bool
		wantExample2On bool
	}{
		{name: "both off", example2Stage: "alpha"},
		{name: "Example on alone", example: []gateOption{withEnabled(true)}, example2Stage: "alpha", wantExampleOn: true},
		{name: "Example2 promoted to stable alone", example2Stage: "stable", wantExample2On: true},
		{name: "both on", example: []gateOption{withEnabled(true)}, example2Stage: "stable", wantExampleOn: true, wantExample2On: true, wantCombined: true, wantReplicas: true, wantLevel: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := gatedCRD(
				customGate("Example", "alpha", []string{".spec.advanced"}, tc.example...),
				customGate("Example2", tc.example2Stage, nil),
				customGate("ExampleWithExample2", "stable", []string{".spec.replicas", ".spec.advanced.level"}, withRequires("Example", "Example2")),
			)
			for gate, want := range map[string]bool{"Example": tc.wantExampleOn, "Example2": tc.wantExample2On, "ExampleWithExample2": tc.wantCombined} {
				if got, found := IsCustomFeatureGateEnabled(crd, gate); !found || got != want {
					t.Errorf("IsCustomFeatureGateEnabled(%s) = %v, %v; want %v, true", gate, got, found, want)
				}
				if got := CustomFeatureGateStates(crd)[gate]; got != want {
					t.Errorf("CustomFeatureGateStates()[%s] = %v, want %v", gate, got, want)
				}
			}
			for path, want := range map[string]bool{".spec.replicas": tc.wantReplicas, ".spec.advanced.level": tc.wantLevel, ".spec.advanced": tc.wantExampleOn} {
				for _, version := range []string{"v1", "v1beta1"} {
					got, err := IsFieldEnabled(crd, version, path)
					if err != nil || got != want {
						t.Errorf("IsFieldEnabled(%s, %s) = %v, %v; want %v", version, path, got, err, want)
					}
				}
			}
		})
	}
}
