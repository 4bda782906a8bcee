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

package builder

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/ptr"
)

// TestBuildOpenAPIFeatureGateDefaults: the default of an effectively disabled property is
// not published, because the server does not apply it; enabled ones are, as upstream.
func TestBuildOpenAPIFeatureGateDefaults(t *testing.T) {
	withDefaults := func(t *testing.T, gs *apiextensionsv1.CustomResourceDefinitionFeatureGates, webhook bool) *apiextensionsv1.CustomResourceDefinition {
		crd := gatedCRD(t, gs)
		for i := range crd.Spec.Versions {
			spec := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"]
			image := spec.Properties["image"]
			image.Default = &apiextensionsv1.JSON{Raw: []byte(`"busybox"`)}
			spec.Properties["image"] = image
			crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}
		if webhook {
			crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		}
		return crd
	}
	imageGate := func(enabled bool) *apiextensionsv1.CustomResourceDefinitionFeatureGates {
		return gates(gate("ImageGate", apiextensionsv1.CustomFeatureGateAlpha, ptr.To(enabled), nil, ".spec.image"))
	}
	tests := []struct {
		name       string
		gates      *apiextensionsv1.CustomResourceDefinitionFeatureGates
		webhook    bool
		featureOff bool
		// published says, by version, whether .spec.image has its default.
		published map[string]bool
	}{
		{name: "no gates", published: map[string]bool{"v1": true, "v1beta1": true}},
		{name: "enabled gate", gates: imageGate(true), published: map[string]bool{"v1": true, "v1beta1": true}},
		{name: "disabled gate", gates: imageGate(false), published: map[string]bool{"v1": false, "v1beta1": false}},
		{name: "disabled gate, conversion webhook: the storage version only", gates: imageGate(false), webhook: true, published: map[string]bool{"v1": false, "v1beta1": true}},
		{name: "disabled gate, feature off", gates: imageGate(false), featureOff: true, published: map[string]bool{"v1": true, "v1beta1": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, !tc.featureOff)
			crd := withDefaults(t, tc.gates, tc.webhook)
			for version, want := range tc.published {
				v3, err := BuildOpenAPIV3(crd, version, Options{})
				if err != nil {
					t.Fatal(err)
				}
				var openAPI spec3.OpenAPI
				roundTrip(t, v3, &openAPI)
				if got := publishedDefault(openAPI.Components.Schemas[gvkToModelName("bar.k8s.io", version, "Foo")]); got != want {
					t.Errorf("OpenAPI v3 of %s publishes the default of .spec.image: %t, want %t", version, got, want)
				}
				v2, err := BuildOpenAPIV2(crd, version, Options{V2: true})
				if err != nil {
					t.Fatal(err)
				}
				var swagger spec.Swagger
				roundTrip(t, v2, &swagger)
				def := swagger.Definitions[gvkToModelName("bar.k8s.io", version, "Foo")]
				if got := publishedDefault(&def); got != want {
					t.Errorf("OpenAPI v2 of %s publishes the default of .spec.image: %t, want %t", version, got, want)
				}
			}
			// The CRD's own schema is never changed.
			image := crd.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"].Properties["image"]
			if image.Default == nil || string(image.Default.Raw) != `"busybox"` {
				t.Errorf("the CRD's schema lost its default: %v", image.Default)
			}
		})
	}
}

func publishedDefault(s *spec.Schema) bool {
	if s == nil {
		return false
	}
	image := s.Properties["spec"].Properties["image"]
	if image.Default == nil {
		return false
	}
	b, _ := json.Marshal(image.Default)
	return string(b) == `"busybox"`
}
