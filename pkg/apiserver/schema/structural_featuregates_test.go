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

package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// x-kubernetes-feature-gated-validations reach the structural schema (in v1 form, as
// x-kubernetes-validations do), the kube-openapi schema, and are forbidden inside allOf,
// anyOf, oneOf and not.
func TestStructuralFeatureGatedValidations(t *testing.T) {
	entries := []apiextensions.FeatureGatedValidation{{FeatureGate: "G", Enabled: true, Pattern: "^a$", MaxLength: ptr.To[int64](3), Enum: []apiextensions.JSON{"a"}}}
	want := []apiextensionsv1.FeatureGatedValidation{{FeatureGate: "G", Enabled: true, Pattern: "^a$", MaxLength: ptr.To[int64](3), Enum: []apiextensionsv1.JSON{{Raw: []byte(`"a"`)}}}}
	s := &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
		"a": {Type: "string", XFeatureGatedValidations: entries},
	}}
	ss, err := NewStructural(s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, ss.Properties["a"].XFeatureGatedValidations); diff != "" {
		t.Errorf("structural (-want +got):\n%s", diff)
	}
	if errs := ValidateStructural(nil, ss); len(errs) > 0 {
		t.Errorf("a property's entries are structural: %v", errs)
	}
	prop := ss.ToKubeOpenAPI().Properties["a"]
	if got, ok := prop.Extensions["x-kubernetes-feature-gated-validations"]; !ok || !cmp.Equal(got, want) {
		t.Errorf("kube-openapi extension: %v (present: %v), want %v", got, ok, want)
	}

	for _, quantifier := range []string{"allOf", "anyOf", "oneOf", "not"} {
		t.Run(quantifier, func(t *testing.T) {
			nested := apiextensions.JSONSchemaProps{Properties: map[string]apiextensions.JSONSchemaProps{"a": {XFeatureGatedValidations: entries}}}
			spec := apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"a": {Type: "string"}}}
			at := field.NewPath("properties").Key("spec")
			switch quantifier {
			case "allOf":
				spec.AllOf, at = []apiextensions.JSONSchemaProps{nested}, at.Child("allOf").Index(0)
			case "anyOf":
				spec.AnyOf, at = []apiextensions.JSONSchemaProps{nested}, at.Child("anyOf").Index(0)
			case "oneOf":
				spec.OneOf, at = []apiextensions.JSONSchemaProps{nested}, at.Child("oneOf").Index(0)
			case "not":
				spec.Not, at = &nested, at.Child("not")
			}
			ss, err := NewStructural(&apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"spec": spec}})
			if err != nil {
				t.Fatal(err)
			}
			wantErr := field.Forbidden(at.Child("properties").Key("a").Child("x-kubernetes-feature-gated-validations"), "must be undefined to be structural")
			found := false
			for _, e := range ValidateStructural(nil, ss) {
				if e.Type == wantErr.Type && e.Field == wantErr.Field && e.Detail == wantErr.Detail {
					found = true
				}
			}
			if !found {
				t.Errorf("want %v, got %v", wantErr, ValidateStructural(nil, ss))
			}
		})
	}
}
