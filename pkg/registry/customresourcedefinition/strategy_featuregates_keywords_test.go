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
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

// With CRDFieldLevelVersioning off, x-kubernetes-feature-gated-validations are dropped on
// create, and on an update unless the old CRD already has some.
func TestDropDisabledFeatureGatedValidations(t *testing.T) {
	crd := func(gated bool) *apiextensions.CustomResourceDefinition {
		value := apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](4096)}
		if gated {
			value.XFeatureGatedValidations = []apiextensions.FeatureGatedValidation{{FeatureGate: "ValueGate", Enabled: true, Pattern: "^[a-z]+$"}}
		}
		return &apiextensions.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", ResourceVersion: "1", Generation: 1},
			Spec: apiextensions.CustomResourceDefinitionSpec{
				Group: "example.com",
				Versions: []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{
						Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
							"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
								"values": {Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &value}},
							}},
						}}}}},
			},
		}
	}
	gated := func(c *apiextensions.CustomResourceDefinition) bool {
		return c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["values"].Items.Schema.XFeatureGatedValidations != nil
	}
	for _, tc := range []struct {
		name    string
		feature bool
		old     *bool // nil: a create
		want    bool
	}{
		{name: "create, feature off: dropped", want: false},
		{name: "create, feature on: kept", feature: true, want: true},
		{name: "update, feature off, old without entries: dropped", old: ptr.To(false), want: false},
		{name: "update, feature off, old with entries: kept", old: ptr.To(true), want: true},
		{name: "update, feature on: kept", feature: true, old: ptr.To(false), want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, tc.feature)
			s := NewStrategy(nil)
			newCRD := crd(true)
			if tc.old == nil {
				s.PrepareForCreate(context.Background(), newCRD)
			} else {
				s.PrepareForUpdate(context.Background(), newCRD, crd(*tc.old))
			}
			if got := gated(newCRD); got != tc.want {
				t.Errorf("the entries are kept: %t, want %t", got, tc.want)
			}
		})
	}
}
