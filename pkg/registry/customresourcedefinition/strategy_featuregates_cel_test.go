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

package customresourcedefinition

import (
	"context"
	"slices"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

const unusedGateWarning = "spec.customFeatureGates.featureGates[1]: feature gate FastMode has no fieldPaths, no schema marks it with x-kubernetes-feature-gate, and no x-kubernetes-validations rule reads featureGates.FastMode, so it has no effect"

// TestCustomFeatureGateUnusedWarningsInStrategy: a gate without fieldPaths that no rule
// reads draws a warning on CRD create and update; once a rule reads it, it does not.
func TestCustomFeatureGateUnusedWarningsInStrategy(t *testing.T) {
	withGate := func(rule string) *apiextensions.CustomResourceDefinition {
		crd := gatedCRD()
		crd.Spec.CustomFeatureGates.FeatureGates = append(crd.Spec.CustomFeatureGates.FeatureGates,
			apiextensions.CustomResourceDefinitionFeatureGate{Name: "FastMode", PreRelease: apiextensions.CustomFeatureGateAlpha})
		if rule != "" {
			spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			spec.XValidations = apiextensions.ValidationRules{{Rule: rule}}
			crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}
		return crd
	}
	for _, tc := range []struct {
		name    string
		feature bool
		rule    string
		want    bool
	}{
		{name: "unused gate", feature: true, want: true},
		{name: "gate read by a rule", feature: true, rule: "featureGates.FastMode || self.replicas < 3"},
		{name: "unused gate, CRDFieldLevelVersioning off", feature: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, tc.feature)
			s := NewStrategy(nil)
			if got := s.WarningsOnCreate(context.Background(), withGate(tc.rule)); slices.Contains(got, unusedGateWarning) != tc.want {
				t.Errorf("WarningsOnCreate = %q, want the unused-gate warning: %v", got, tc.want)
			}
			if got := s.WarningsOnUpdate(context.Background(), withGate(tc.rule), withGate(tc.rule)); slices.Contains(got, unusedGateWarning) != tc.want {
				t.Errorf("WarningsOnUpdate = %q, want the unused-gate warning: %v", got, tc.want)
			}
		})
	}
}

// gatedCRD has an alpha gate on .spec.replicas, which has a schema default.
func gatedCRD() *apiextensions.CustomResourceDefinition {
	one := apiextensions.JSON(int64(1))
	return &apiextensions.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", ResourceVersion: "1", Generation: 1},
		Spec: apiextensions.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Versions: []apiextensions.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensions.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
							"replicas": {Type: "integer", Default: &one},
						}},
					},
				}},
			}},
			CustomFeatureGates: &apiextensions.CustomResourceDefinitionFeatureGates{
				FeatureGates: []apiextensions.CustomResourceDefinitionFeatureGate{{
					Name:       "ReplicasFeatureGate",
					PreRelease: apiextensions.CustomFeatureGateAlpha,
					FieldPaths: []string{".spec.replicas"},
				}},
			},
		},
	}
}

// TestNoWarningForDefaultsOnGatedPaths: a schema default on a gated field path draws no CRD
// warning any more; the server applies no default at a disabled path.
func TestNoWarningForDefaultsOnGatedPaths(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	s := NewStrategy(nil)
	if got := s.WarningsOnCreate(context.Background(), gatedCRD()); len(got) != 0 {
		t.Errorf("WarningsOnCreate = %q, want none", got)
	}
	if got := s.WarningsOnUpdate(context.Background(), gatedCRD(), gatedCRD()); len(got) != 0 {
		t.Errorf("WarningsOnUpdate = %q, want none", got)
	}
}
