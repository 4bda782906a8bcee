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

const replicasDefaultWarning = "spec.customFeatureGates.featureGates[0].fieldPaths[0]: .spec.replicas has a schema default; while feature gate ReplicasFeatureGate is disabled, the default is filled in and then dropped on writes (with a warning), and reads still show it. Add the default when the gate goes stable."

func defaultedGatedCRD() *apiextensions.CustomResourceDefinition {
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

func TestCustomFeatureGateDefaultWarningsInStrategy(t *testing.T) {
	for _, tc := range []struct {
		name        string
		gateEnabled bool
		want        bool
	}{
		{name: "CRDFieldLevelVersioning on: warned", gateEnabled: true, want: true},
		{name: "CRDFieldLevelVersioning off: not warned", gateEnabled: false, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, tc.gateEnabled)
			s := NewStrategy(nil)

			onCreate := s.WarningsOnCreate(context.Background(), defaultedGatedCRD())
			if got := slices.Contains(onCreate, replicasDefaultWarning); got != tc.want {
				t.Errorf("WarningsOnCreate contains the default warning = %v, want %v; warnings: %q", got, tc.want, onCreate)
			}

			// On update the warning is given whenever the condition holds: the new CRD is
			// the author's current manifest, even if the old one had the same default.
			onUpdate := s.WarningsOnUpdate(context.Background(), defaultedGatedCRD(), defaultedGatedCRD())
			if got := slices.Contains(onUpdate, replicasDefaultWarning); got != tc.want {
				t.Errorf("WarningsOnUpdate contains the default warning = %v, want %v; warnings: %q", got, tc.want, onUpdate)
			}
		})
	}
}

// TestCustomFeatureGateDefaultWarningsAfterPrepareForCreate runs the create path as the
// registry does: PrepareForCreate, then WarningsOnCreate.
func TestCustomFeatureGateDefaultWarningsAfterPrepareForCreate(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	s := NewStrategy(nil)
	crd := defaultedGatedCRD()
	s.PrepareForCreate(context.Background(), crd)
	if warnings := s.WarningsOnCreate(context.Background(), crd); !slices.Contains(warnings, replicasDefaultWarning) {
		t.Errorf("WarningsOnCreate after PrepareForCreate lacks the default warning; warnings: %q", warnings)
	}
}
