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

package apihelpers_test

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// A controller reconciles spec.replicas only while the API server keeps it, and treats
// spec.autoscaling.behavior as absent while its parent's gate is off.
func ExampleIsFieldEnabled() {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	integer := apiextensionsv1.JSONSchemaProps{Type: "integer"}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"cronSpec": str,
							"image":    str,
							"replicas": integer,
							"autoscaling": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"maxReplicas": integer,
								"behavior":    {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"cooldownSeconds": integer}},
							}},
						}},
					},
				}},
			}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
					{Name: "ReplicasFeatureGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.replicas"}},
					{Name: "Autoscaling", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, FieldPaths: []string{".spec.autoscaling"}},
					{Name: "AutoscalingBehavior", PreRelease: apiextensionsv1.CustomFeatureGateBeta, FieldPaths: []string{".spec.autoscaling.behavior"}},
				},
			},
		},
	}

	for _, name := range []string{"ReplicasFeatureGate", "Autoscaling", "AutoscalingBehavior", "Missing"} {
		enabled, found := apihelpers.IsCustomFeatureGateEnabled(crd, name)
		fmt.Printf("gate %s: enabled=%t found=%t\n", name, enabled, found)
	}
	for _, path := range []string{".spec.image", ".spec.replicas", ".spec.autoscaling.behavior", ".spec.autoscaling.behavior.cooldownSeconds", ".spec.replica"} {
		enabled, err := apihelpers.IsFieldEnabled(crd, "v1", path)
		if err != nil {
			fmt.Printf("field %s: error: %v\n", path, err)
			continue
		}
		fmt.Printf("field %s: enabled=%t\n", path, enabled)
	}
	// Output:
	// gate ReplicasFeatureGate: enabled=true found=true
	// gate Autoscaling: enabled=false found=true
	// gate AutoscalingBehavior: enabled=true found=true
	// gate Missing: enabled=false found=false
	// field .spec.image: enabled=true
	// field .spec.replicas: enabled=true
	// field .spec.autoscaling.behavior: enabled=false
	// field .spec.autoscaling.behavior.cooldownSeconds: enabled=false
	// field .spec.replica: error: field path ".spec.replica" of version v1 of crontabs.stable.example.com: field "replica" is not in the schema at .spec
}
