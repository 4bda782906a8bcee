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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestSpecsFromV1(t *testing.T) {
	tests := []struct {
		name  string
		gates *apiextensionsv1.CustomResourceDefinitionFeatureGates
		want  []GateSpec
	}{
		{name: "nil"},
		{name: "no gates", gates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{Component: ptr.To("istio")}},
		{
			name: "every field",
			gates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				Component: ptr.To("istio"),
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
					{Name: "ReplicasFeatureGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), Default: ptr.To(false), FieldPaths: []string{".spec.replicas"}},
					{Name: "OldGate", PreRelease: apiextensionsv1.CustomFeatureGateDeprecated, Default: ptr.To(true), FieldDeprecationWarning: ptr.To("use .spec.new"), FieldPaths: []string{".spec.old", ".spec.older[*]"}},
				},
			},
			want: []GateSpec{
				{Name: "ReplicasFeatureGate", PreRelease: Alpha, Enabled: ptr.To(true), Default: ptr.To(false), FieldPaths: []string{".spec.replicas"}},
				{Name: "OldGate", PreRelease: Deprecated, Default: ptr.To(true), DeprecationWarning: ptr.To("use .spec.new"), FieldPaths: []string{".spec.old", ".spec.older[*]"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, SpecsFromV1(tc.gates)); diff != "" {
				t.Errorf("SpecsFromV1 (-want +got):\n%s", diff)
			}
		})
	}
}
