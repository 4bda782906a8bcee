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

package validation

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// keywordsCRD is a CRD with one version, v1, whose schema (spec.validation, in the internal
// form of a single version) has a spec of every type: a
// string, an integer, an int-or-string, an array of strings, an object with properties and
// a list of lists of lists of maxLength 4096 strings (Gateway API's header values). mutate
// adds entries. It declares the gates ValueGate and OtherGate.
func keywordsCRD(mutate func(root, spec *apiextensions.JSONSchemaProps)) *apiextensions.CustomResourceDefinition {
	str := func() *apiextensions.JSONSchemaProps {
		return &apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](4096)}
	}
	list := func(items *apiextensions.JSONSchemaProps) apiextensions.JSONSchemaProps {
		return apiextensions.JSONSchemaProps{Type: "array", MaxItems: ptr.To[int64](16), Items: &apiextensions.JSONSchemaPropsOrArray{Schema: items}}
	}
	values := list(str())
	middle := list(&values)
	rules := list(&middle)
	spec := apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
		"name":        {Type: "string"},
		"nullable":    {Type: "string", Nullable: true},
		"port":        {Type: "integer"},
		"ratio":       {Type: "number"},
		"intOrString": {XIntOrString: true, AnyOf: []apiextensions.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
		"tags":        list(&apiextensions.JSONSchemaProps{Type: "string"}),
		"backup":      {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"schedule": {Type: "string"}, "target": {Type: "string"}}},
		"rules":       rules,
	}}
	root := &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
		"spec":     spec,
		"metadata": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"name": {Type: "string"}}},
	}}
	s := root.Properties["spec"]
	if mutate != nil {
		mutate(root, &s)
	}
	root.Properties["spec"] = s
	return &apiextensions.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", ResourceVersion: "1"},
		Spec: apiextensions.CustomResourceDefinitionSpec{
			Group:                 "example.com",
			Scope:                 apiextensions.NamespaceScoped,
			Names:                 apiextensions.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			PreserveUnknownFields: ptr.To(false),
			Conversion:            &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter},
			Version:               "v1",
			Versions:              []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
			Validation:            &apiextensions.CustomResourceValidation{OpenAPIV3Schema: root},
			CustomFeatureGates: &apiextensions.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensions.CustomResourceDefinitionFeatureGate{
				{Name: "ValueGate", PreRelease: apiextensions.CustomFeatureGateAlpha},
				{Name: "OtherGate", PreRelease: apiextensions.CustomFeatureGateBeta},
			}},
		},
		Status: apiextensions.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
}

// gated sets the entries of spec's property name (a path of property names and "items").
func gated(spec *apiextensions.JSONSchemaProps, entries []apiextensions.FeatureGatedValidation, path ...string) {
	var set func(s *apiextensions.JSONSchemaProps, path []string)
	set = func(s *apiextensions.JSONSchemaProps, path []string) {
		if len(path) == 0 {
			s.XFeatureGatedValidations = entries
			return
		}
		if path[0] == "items" {
			set(s.Items.Schema, path[1:])
			return
		}
		p := s.Properties[path[0]]
		set(&p, path[1:])
		s.Properties[path[0]] = p
	}
	set(spec, path)
}

func on(set func(e *apiextensions.FeatureGatedValidation)) []apiextensions.FeatureGatedValidation {
	e := apiextensions.FeatureGatedValidation{FeatureGate: "ValueGate", Enabled: true}
	set(&e)
	return []apiextensions.FeatureGatedValidation{e}
}

func TestValidateFeatureGatedValidations(t *testing.T) {
	root := field.NewPath("spec", "validation", "openAPIV3Schema")
	at := func(props ...string) *field.Path {
		p := root
		for _, prop := range props {
			if prop == "items" {
				p = p.Child("items")
				continue
			}
			p = p.Child("properties").Key(prop)
		}
		return p.Child("x-kubernetes-feature-gated-validations")
	}
	entry0 := func(props ...string) *field.Path { return at(props...).Index(0) }
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring()
	for _, tc := range []struct {
		name   string
		mutate func(root, spec *apiextensions.JSONSchemaProps)
		want   field.ErrorList
	}{{
		name: "valid: a gated pattern on a maxLength 4096 string under three nested lists, and every keyword where it fits",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			gated(spec, []apiextensions.FeatureGatedValidation{
				{FeatureGate: "ValueGate", Enabled: true, Pattern: `^[!-~]+([\t ]?[!-~]+)*$`},
				{FeatureGate: "ValueGate", Enabled: false, MaxLength: ptr.To[int64](256), MinLength: ptr.To[int64](1)},
				{FeatureGate: "OtherGate", Enabled: true, Format: "uuid"},
			}, "rules", "items", "items", "items")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{"a", "b"} }), "name")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{"a", nil} }), "nullable")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.Minimum, e.ExclusiveMinimum, e.Maximum, e.MultipleOf = ptr.To(1.0), true, ptr.To(1024.0), ptr.To(2.0)
				e.Enum, e.Format = []apiextensions.JSON{int64(2), float64(4)}, "int32"
			}), "port")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Maximum, e.ExclusiveMaximum = ptr.To(0.5), true }), "ratio")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.Pattern, e.Maximum, e.Enum = "^[0-9]+%?$", ptr.To(100.0), []apiextensions.JSON{"50%", int64(50)}
			}), "intOrString")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.MaxItems, e.MinItems = ptr.To[int64](3), ptr.To[int64](1)
			}), "tags")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.Required, e.MinProperties, e.MaxProperties = []string{"schedule"}, ptr.To[int64](1), ptr.To[int64](2)
			}), "backup")
		},
	}, {
		name: "the gate: missing, undeclared; a gate and state twice; no keyword",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			gated(spec, []apiextensions.FeatureGatedValidation{
				{Pattern: "^a"},
				{FeatureGate: "NoSuchGate", Enabled: true, Pattern: "^a"},
				{FeatureGate: "ValueGate", Enabled: true, Pattern: "^a"},
				{FeatureGate: "ValueGate", Enabled: false, Pattern: "^b"},
				{FeatureGate: "ValueGate", Enabled: true, MaxLength: ptr.To[int64](3)},
				{FeatureGate: "OtherGate", Enabled: true},
			}, "name")
		},
		want: field.ErrorList{
			field.Required(at("spec", "name").Index(0).Child("featureGate"), "must name a feature gate declared"),
			field.Invalid(at("spec", "name").Index(1).Child("featureGate"), "NoSuchGate", "must name a feature gate declared in spec.customFeatureGates.featureGates"),
			field.Duplicate(at("spec", "name").Index(4), "featureGate: ValueGate, enabled: true"),
			field.Required(at("spec", "name").Index(5), "must set at least one validation keyword"),
		},
	}, {
		name: "not on the root, metadata or apiVersion",
		mutate: func(root, _ *apiextensions.JSONSchemaProps) {
			root.XFeatureGatedValidations = on(func(e *apiextensions.FeatureGatedValidation) { e.Required = []string{"spec"} })
			gated(root, on(func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a" }), "metadata", "name")
			root.Properties["apiVersion"] = apiextensions.JSONSchemaProps{Type: "string", XFeatureGatedValidations: on(func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a" })}
		},
		want: field.ErrorList{
			field.Forbidden(root.Child("x-kubernetes-feature-gated-validations"), "must not be set on the root of the schema"),
			field.Forbidden(at("metadata", "name"), "must not be set on or below metadata, apiVersion or kind"),
			field.Forbidden(at("apiVersion"), "must not be set on or below metadata, apiVersion or kind"),
		},
	}, {
		name: "not inside allOf",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			spec.AllOf = []apiextensions.JSONSchemaProps{{Properties: map[string]apiextensions.JSONSchemaProps{
				"name": {XFeatureGatedValidations: on(func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a" })}}}}
		},
		want: field.ErrorList{
			field.Forbidden(root.Child("properties").Key("spec").Child("allOf").Index(0).Child("properties").Key("name").Child("x-kubernetes-feature-gated-validations"), "must be undefined to be structural"),
		},
	}, {
		name: "keywords that do not fit the node's type",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.Pattern, e.MaxLength, e.MinItems, e.Required = "^1", ptr.To[int64](3), ptr.To[int64](1), []string{"x"}
			}), "port")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.Maximum, e.MultipleOf, e.MaxProperties, e.Format = ptr.To(3.0), ptr.To(1.0), ptr.To[int64](1), "int32"
			}), "name")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Format, e.MinLength = "uuid", ptr.To[int64](1) }), "tags")
		},
		want: field.ErrorList{
			field.Invalid(entry0("spec", "port").Child("pattern"), "^1", "must only be set on a node of type string, not type integer"),
			field.Invalid(entry0("spec", "port").Child("maxLength"), int64(3), "must only be set on a node of type string"),
			field.Invalid(entry0("spec", "port").Child("minItems"), int64(1), "must only be set on a node of type array"),
			field.Invalid(entry0("spec", "port").Child("required"), []string{"x"}, "must only be set on a node of type object"),
			field.Invalid(entry0("spec", "name").Child("maximum"), 3.0, "must only be set on a node of type integer or number, not type string"),
			field.Invalid(entry0("spec", "name").Child("multipleOf"), 1.0, "integer or number"),
			field.Invalid(entry0("spec", "name").Child("maxProperties"), int64(1), "must only be set on a node of type object"),
			field.Invalid(entry0("spec", "name").Child("format"), "int32", "must be a format the API server validates for type string"),
			field.Invalid(entry0("spec", "tags").Child("format"), "uuid", "must only be set on a node of type string, integer or number, not type array"),
			field.Invalid(entry0("spec", "tags").Child("minLength"), int64(1), "must only be set on a node of type string"),
		},
	}, {
		name: "a pattern that does not compile, a format the server does not know",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Pattern, e.Format = "^(a", "no-such-format" }), "rules", "items", "items", "items")
		},
		want: field.ErrorList{
			field.Invalid(entry0("spec", "rules", "items", "items", "items").Child("pattern"), "^(a", "must be a valid regular expression: error parsing regexp: missing closing )"),
			field.Invalid(entry0("spec", "rules", "items", "items", "items").Child("format"), "no-such-format", "must be a format the API server validates for type string"),
		},
	}, {
		name: "enum values of another type",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{"a", float64(1), nil} }), "name")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.Enum = []apiextensions.JSON{float64(1), float64(1.5), "2"}
			}), "port")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{"1", true} }), "intOrString")
		},
		want: field.ErrorList{
			field.Invalid(entry0("spec", "name").Child("enum").Index(1), float64(1), "must be of type string"),
			field.Invalid(entry0("spec", "name").Child("enum").Index(2), nil, "must not be null unless the node is nullable"),
			field.Invalid(entry0("spec", "port").Child("enum").Index(1), float64(1.5), "must be of type integer"),
			field.Invalid(entry0("spec", "port").Child("enum").Index(2), "2", "must be of type integer"),
			field.Invalid(entry0("spec", "intOrString").Child("enum").Index(1), true, "must be a string or an integer"),
		},
	}, {
		name: "bounds: negative, min above max, multipleOf not positive, an exclusive bound without its bound",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.MinLength, e.MaxLength = ptr.To[int64](5), ptr.To[int64](-1)
			}), "name")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.MinItems, e.MaxItems = ptr.To[int64](3), ptr.To[int64](2)
			}), "tags")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.MinProperties = ptr.To[int64](-2) }), "backup")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) {
				e.Minimum, e.Maximum, e.MultipleOf, e.ExclusiveMaximum = ptr.To(10.0), ptr.To(1.0), ptr.To(0.0), false
			}), "port")
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.ExclusiveMinimum, e.ExclusiveMaximum = true, true }), "ratio")
		},
		want: field.ErrorList{
			field.Invalid(entry0("spec", "name").Child("maxLength"), int64(-1), "must not be negative"),
			field.Invalid(entry0("spec", "name").Child("minLength"), int64(5), "must not be greater than maxLength"),
			field.Invalid(entry0("spec", "tags").Child("minItems"), int64(3), "must not be greater than maxItems"),
			field.Invalid(entry0("spec", "backup").Child("minProperties"), int64(-2), "must not be negative"),
			field.Invalid(entry0("spec", "port").Child("multipleOf"), 0.0, "must be greater than 0"),
			field.Invalid(entry0("spec", "port").Child("minimum"), 10.0, "must not be greater than maximum"),
			field.Required(entry0("spec", "ratio").Child("minimum"), "must be set when exclusiveMinimum is true"),
			field.Required(entry0("spec", "ratio").Child("maximum"), "must be set when exclusiveMaximum is true"),
		},
	}, {
		name: "required names properties of the node, once",
		mutate: func(_, spec *apiextensions.JSONSchemaProps) {
			gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Required = []string{"schedule", "nope", "schedule"} }), "backup")
		},
		want: field.ErrorList{
			field.Invalid(entry0("spec", "backup").Child("required").Index(1), "nope", "must be a property of this node"),
			field.Duplicate(entry0("spec", "backup").Child("required").Index(2), "schedule"),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateCustomResourceDefinition(context.Background(), keywordsCRD(tc.mutate))
			matcher.Test(t, tc.want, errs)
		})
	}
}

// A CRD whose entries name no declared gate is rejected on update as on create (a gate
// removed while entries still name it).
func TestValidateFeatureGatedValidationsOnUpdate(t *testing.T) {
	mutate := func(_, spec *apiextensions.JSONSchemaProps) {
		gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a" }), "name")
	}
	old := keywordsCRD(mutate)
	crd := keywordsCRD(mutate)
	crd.Spec.CustomFeatureGates = nil
	want := field.ErrorList{field.Invalid(field.NewPath("spec", "validation", "openAPIV3Schema", "properties").Key("spec").
		Child("properties").Key("name").Child("x-kubernetes-feature-gated-validations").Index(0).Child("featureGate"), "ValueGate", "declared")}
	field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring().Test(t, want, ValidateCustomResourceDefinitionUpdate(context.Background(), crd, old))
}

func TestDropFeatureGatedValidations(t *testing.T) {
	crd := keywordsCRD(func(_, spec *apiextensions.JSONSchemaProps) {
		gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a" }), "rules", "items", "items", "items")
	})
	if !HasFeatureGatedValidations(&crd.Spec) {
		t.Fatal("HasFeatureGatedValidations = false before the drop")
	}
	DropFeatureGatedValidations(&crd.Spec)
	if HasFeatureGatedValidations(&crd.Spec) {
		t.Errorf("HasFeatureGatedValidations = true after the drop")
	}
	leaf := crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"].Properties["rules"].Items.Schema.Items.Schema.Items.Schema
	if leaf.Type != "string" || *leaf.MaxLength != 4096 {
		t.Errorf("the drop changed the node's own keywords: %+v", leaf)
	}
}

// A gate that only gated keywords name has an effect: no "unused gate" warning.
func TestUnusedGateWarningsCountFeatureGatedValidations(t *testing.T) {
	crd := keywordsCRD(func(_, spec *apiextensions.JSONSchemaProps) {
		gated(spec, on(func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a" }), "rules", "items", "items", "items")
	})
	warnings := UnusedGateWarnings(&crd.Spec)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "feature gate OtherGate has no fieldPaths") {
		t.Errorf("warnings = %q, want one for OtherGate only", warnings)
	}
}
