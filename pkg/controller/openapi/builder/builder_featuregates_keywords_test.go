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
	"k8s.io/utils/ptr"
)

// The published documents carry the effective keywords of the current gate states, not the
// x-kubernetes-feature-gated-validations list: the gate on, the experimental pattern; off,
// the standard maxLength.
func TestBuildOpenAPIEffectiveKeywords(t *testing.T) {
	schema := `{"type":"object","properties":{"spec":{"type":"object","properties":{
	  "value":{"type":"string","maxLength":4096,"x-kubernetes-feature-gated-validations":[
	    {"featureGate":"HeaderValuePattern","enabled":true,"pattern":"^[a-z]+$"},
	    {"featureGate":"HeaderValuePattern","enabled":false,"maxLength":256}]}}}}}`
	for _, tc := range []struct {
		name          string
		enabled       bool
		wantPattern   string
		wantMaxLength int64
	}{
		{name: "gate on", enabled: true, wantPattern: "^[a-z]+$", wantMaxLength: 4096},
		{name: "gate off", enabled: false, wantMaxLength: 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props := &apiextensionsv1.JSONSchemaProps{}
			if err := json.Unmarshal([]byte(schema), props); err != nil {
				t.Fatal(err)
			}
			crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}}},
				CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
					{Name: "HeaderValuePattern", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(tc.enabled)},
				}},
			}}
			v3, err := BuildOpenAPIV3(crd, "v1", Options{})
			if err != nil {
				t.Fatal(err)
			}
			value := v3.Components.Schemas["com.example.v1.Widget"].Properties["spec"].Properties["value"]
			if value.Pattern != tc.wantPattern || value.MaxLength == nil || *value.MaxLength != tc.wantMaxLength {
				t.Errorf("v3 value: pattern %q, maxLength %v; want %q and %d", value.Pattern, value.MaxLength, tc.wantPattern, tc.wantMaxLength)
			}
			if _, ok := value.Extensions["x-kubernetes-feature-gated-validations"]; ok {
				t.Error("v3 publishes the entries; it publishes their effect")
			}
			v2, err := BuildOpenAPIV2(crd, "v1", Options{V2: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := v2.Definitions["com.example.v1.Widget"].Properties["spec"].Properties["value"].Extensions["x-kubernetes-feature-gated-validations"]; ok {
				t.Error("v2 publishes the entries")
			}
		})
	}
}
