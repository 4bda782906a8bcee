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
	"fmt"
	"math"
	"regexp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregatedvalidations"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// featureGatedValidationsKey is the schema key of gated keywords.
const featureGatedValidationsKey = "x-kubernetes-feature-gated-validations"

// reservedRootProperties are the properties of the root that gated keywords may not be on,
// or below: the object's metadata and type.
var reservedRootProperties = map[string]bool{"metadata": true, "apiVersion": true, "kind": true}

// validateFeatureGatedValidations validates the x-kubernetes-feature-gated-validations of
// every version's schema (fldPath is the CRD's spec), at the exact schema path of each
// problem:
//   - not on the root, nor on or below metadata, apiVersion or kind;
//   - each entry names a gate declared in spec.customFeatureGates, a gate and state
//     (featureGate, enabled) appears once per node, and an entry sets a keyword;
//   - each keyword fits the node's type, a pattern compiles, a format is one the server
//     validates for the type, enum values have the node's type, bounds are not negative and
//     an entry's minimum does not exceed its maximum, multipleOf is positive, an exclusive
//     bound comes with its bound, and required names properties of the node, once each.
//
// Entries inside allOf, anyOf, oneOf and not are rejected by the structural schema check.
// A schema that every version shares (spec.validation) is checked once.
func validateFeatureGatedValidations(spec *apiextensions.CustomResourceDefinitionSpec, fldPath *field.Path) field.ErrorList {
	declared := map[string]bool{}
	if spec.CustomFeatureGates != nil {
		for _, g := range spec.CustomFeatureGates.FeatureGates {
			declared[g.Name] = true
		}
	}
	var allErrs field.ErrorList
	checked := map[*apiextensions.JSONSchemaProps]bool{}
	for _, vs := range versionSchemas(spec, fldPath) {
		if checked[vs.props] {
			continue
		}
		checked[vs.props] = true
		forEachGatedNode(vs.props, vs.path, true, false, func(s *apiextensions.JSONSchemaProps, path *field.Path, root, reserved bool) {
			keyPath := path.Child(featureGatedValidationsKey)
			switch {
			case root:
				allErrs = append(allErrs, field.Forbidden(keyPath, "must not be set on the root of the schema"))
			case reserved:
				allErrs = append(allErrs, field.Forbidden(keyPath, "must not be set on or below metadata, apiVersion or kind"))
			default:
				allErrs = append(allErrs, validateFeatureGatedValidationEntries(s, keyPath, declared)...)
			}
		})
	}
	return allErrs
}

// forEachGatedNode calls f with every node of s, at or below it, that has
// x-kubernetes-feature-gated-validations: with its path, whether it is the root, and whether
// it is on or below metadata, apiVersion or kind. It follows properties, items and
// additionalProperties, the places of a structural schema.
func forEachGatedNode(s *apiextensions.JSONSchemaProps, path *field.Path, root, reserved bool, f func(s *apiextensions.JSONSchemaProps, path *field.Path, root, reserved bool)) {
	if s == nil {
		return
	}
	if len(s.XFeatureGatedValidations) > 0 {
		f(s, path, root, reserved)
	}
	for name := range s.Properties {
		p := s.Properties[name]
		forEachGatedNode(&p, path.Child("properties").Key(name), false, reserved || (root && reservedRootProperties[name]), f)
	}
	if s.Items != nil {
		forEachGatedNode(s.Items.Schema, path.Child("items"), false, reserved, f)
	}
	if s.AdditionalProperties != nil {
		forEachGatedNode(s.AdditionalProperties.Schema, path.Child("additionalProperties"), false, reserved, f)
	}
}

// validateFeatureGatedValidationEntries validates the entries of node s, at keyPath.
func validateFeatureGatedValidationEntries(s *apiextensions.JSONSchemaProps, keyPath *field.Path, declared map[string]bool) field.ErrorList {
	var allErrs field.ErrorList
	type gateState struct {
		gate    string
		enabled bool
	}
	seen := map[gateState]bool{}
	for i := range s.XFeatureGatedValidations {
		e := &s.XFeatureGatedValidations[i]
		p := keyPath.Index(i)
		switch {
		case e.FeatureGate == "":
			allErrs = append(allErrs, field.Required(p.Child("featureGate"), "must name a feature gate declared in spec.customFeatureGates.featureGates"))
		case !declared[e.FeatureGate]:
			allErrs = append(allErrs, field.Invalid(p.Child("featureGate"), e.FeatureGate, "must name a feature gate declared in spec.customFeatureGates.featureGates"))
		}
		key := gateState{e.FeatureGate, e.Enabled}
		if seen[key] {
			allErrs = append(allErrs, field.Duplicate(p, fmt.Sprintf("featureGate: %s, enabled: %t", e.FeatureGate, e.Enabled)))
		}
		seen[key] = true
		if !hasGatedKeyword(e) {
			allErrs = append(allErrs, field.Required(p, "must set at least one validation keyword"))
			continue
		}
		allErrs = append(allErrs, validateGatedKeywords(s, e, p)...)
	}
	return allErrs
}

// hasGatedKeyword reports whether e sets a keyword (exclusiveMinimum and exclusiveMaximum
// only qualify a bound).
func hasGatedKeyword(e *apiextensions.FeatureGatedValidation) bool {
	return e.Pattern != "" || e.Format != "" || len(e.Enum) > 0 || len(e.Required) > 0 ||
		e.MinLength != nil || e.MaxLength != nil || e.MinItems != nil || e.MaxItems != nil ||
		e.MinProperties != nil || e.MaxProperties != nil || e.Minimum != nil || e.Maximum != nil ||
		e.MultipleOf != nil || e.ExclusiveMinimum || e.ExclusiveMaximum
}

// validateGatedKeywords validates the keywords of entry e of node s, at p.
func validateGatedKeywords(s *apiextensions.JSONSchemaProps, e *apiextensions.FeatureGatedValidation, p *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	isString := s.Type == "string" || s.XIntOrString
	isNumber := s.Type == "integer" || s.Type == "number" || s.XIntOrString
	wrongType := func(keyword string, value interface{}, want string) {
		allErrs = append(allErrs, field.Invalid(p.Child(keyword), value, fmt.Sprintf("must only be set on a node of type %s, not %s", want, describeType(s))))
	}

	// Strings.
	if e.Pattern != "" {
		if !isString {
			wrongType("pattern", e.Pattern, "string")
		} else if _, err := regexp.Compile(e.Pattern); err != nil {
			allErrs = append(allErrs, field.Invalid(p.Child("pattern"), e.Pattern, "must be a valid regular expression: "+err.Error()))
		}
	}
	if e.Format != "" {
		switch {
		case !isString && !isNumber:
			wrongType("format", e.Format, "string, integer or number")
		case !formatSupported(s, e.Format):
			allErrs = append(allErrs, field.Invalid(p.Child("format"), e.Format, fmt.Sprintf("must be a format the API server validates for %s", describeType(s))))
		}
	}
	for _, b := range []struct {
		name string
		v    *int64
	}{{"minLength", e.MinLength}, {"maxLength", e.MaxLength}} {
		if b.v != nil && !isString {
			wrongType(b.name, *b.v, "string")
		}
	}
	// Numbers.
	for _, b := range []struct {
		name string
		v    *float64
	}{{"minimum", e.Minimum}, {"maximum", e.Maximum}, {"multipleOf", e.MultipleOf}} {
		if b.v == nil {
			continue
		}
		if !isNumber {
			wrongType(b.name, *b.v, "integer or number")
		} else if math.IsNaN(*b.v) || math.IsInf(*b.v, 0) {
			allErrs = append(allErrs, field.Invalid(p.Child(b.name), *b.v, "must be a finite number"))
		}
	}
	if e.ExclusiveMinimum && e.Minimum == nil {
		allErrs = append(allErrs, field.Required(p.Child("minimum"), "must be set when exclusiveMinimum is true"))
	}
	if e.ExclusiveMaximum && e.Maximum == nil {
		allErrs = append(allErrs, field.Required(p.Child("maximum"), "must be set when exclusiveMaximum is true"))
	}
	if e.MultipleOf != nil && isNumber && *e.MultipleOf <= 0 {
		allErrs = append(allErrs, field.Invalid(p.Child("multipleOf"), *e.MultipleOf, "must be greater than 0"))
	}
	if e.Minimum != nil && e.Maximum != nil && isNumber && *e.Minimum > *e.Maximum {
		allErrs = append(allErrs, field.Invalid(p.Child("minimum"), *e.Minimum, "must not be greater than maximum"))
	}
	// Arrays and objects.
	for _, b := range []struct {
		name string
		v    *int64
		want string
	}{{"minItems", e.MinItems, "array"}, {"maxItems", e.MaxItems, "array"}, {"minProperties", e.MinProperties, "object"}, {"maxProperties", e.MaxProperties, "object"}} {
		if b.v != nil && s.Type != b.want {
			wrongType(b.name, *b.v, b.want)
		}
	}
	// Bounds on sizes.
	for _, b := range []struct {
		min, max       string
		minVal, maxVal *int64
	}{{"minLength", "maxLength", e.MinLength, e.MaxLength}, {"minItems", "maxItems", e.MinItems, e.MaxItems}, {"minProperties", "maxProperties", e.MinProperties, e.MaxProperties}} {
		for _, v := range []struct {
			name string
			v    *int64
		}{{b.min, b.minVal}, {b.max, b.maxVal}} {
			if v.v != nil && *v.v < 0 {
				allErrs = append(allErrs, field.Invalid(p.Child(v.name), *v.v, "must not be negative"))
			}
		}
		if b.minVal != nil && b.maxVal != nil && *b.minVal > *b.maxVal {
			allErrs = append(allErrs, field.Invalid(p.Child(b.min), *b.minVal, "must not be greater than "+b.max))
		}
	}
	// Enum values.
	for j, v := range e.Enum {
		if msg := enumValueMismatch(s, v); msg != "" {
			allErrs = append(allErrs, field.Invalid(p.Child("enum").Index(j), v, msg))
		}
	}
	// Required properties.
	if len(e.Required) > 0 {
		if s.Type != "object" {
			wrongType("required", e.Required, "object")
		} else {
			names := map[string]bool{}
			for j, name := range e.Required {
				switch _, ok := s.Properties[name]; {
				case names[name]:
					allErrs = append(allErrs, field.Duplicate(p.Child("required").Index(j), name))
				case !ok:
					allErrs = append(allErrs, field.Invalid(p.Child("required").Index(j), name, "must be a property of this node"))
				}
				names[name] = true
			}
		}
	}
	return allErrs
}

// describeType names the type of node s for a message.
func describeType(s *apiextensions.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "x-kubernetes-int-or-string"
	case s.Type == "":
		return "a node without a type"
	}
	return "type " + s.Type
}

// formatSupported reports whether the API server validates format on values of node s:
// the formats it does not strip from a schema of that type
// (apiservervalidation.GetUnrecognizedFormats, at the default compatibility version).
func formatSupported(s *apiextensions.JSONSchemaProps, format string) bool {
	types := []string{s.Type}
	if s.XIntOrString {
		types = []string{"string", "integer"}
	}
	for _, t := range types {
		if len(apiservervalidation.GetUnrecognizedFormats(&spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{t}, Format: format}}, environment.DefaultCompatibilityVersion())) == 0 {
			return true
		}
	}
	return false
}

// enumValueMismatch returns why enum value v does not fit the type of node s, or "".
func enumValueMismatch(s *apiextensions.JSONSchemaProps, v apiextensions.JSON) string {
	if v == nil {
		if s.Nullable {
			return ""
		}
		return "must not be null unless the node is nullable"
	}
	whole := func(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }
	var ok bool
	switch s.Type {
	case "":
		if !s.XIntOrString {
			return "" // a node without a type accepts any value
		}
		switch x := v.(type) {
		case string, int64:
			ok = true
		case float64:
			ok = whole(x)
		}
		if !ok {
			return "must be a string or an integer"
		}
		return ""
	case "string":
		_, ok = v.(string)
	case "integer":
		switch x := v.(type) {
		case int64:
			ok = true
		case float64:
			ok = whole(x)
		}
	case "number":
		switch v.(type) {
		case int64, float64:
			ok = true
		}
	case "boolean":
		_, ok = v.(bool)
	case "object":
		_, ok = v.(map[string]interface{})
	case "array":
		_, ok = v.([]interface{})
	default:
		return ""
	}
	if !ok {
		return "must be of type " + s.Type
	}
	return ""
}

// HasFeatureGatedValidations reports whether any version's schema of spec has
// x-kubernetes-feature-gated-validations.
func HasFeatureGatedValidations(spec *apiextensions.CustomResourceDefinitionSpec) bool {
	for _, vs := range versionSchemas(spec, field.NewPath("spec")) {
		if featuregatedvalidations.Has(vs.props) {
			return true
		}
	}
	return false
}

// DropFeatureGatedValidations removes every x-kubernetes-feature-gated-validations from the
// schemas of spec.
func DropFeatureGatedValidations(spec *apiextensions.CustomResourceDefinitionSpec) {
	for _, vs := range versionSchemas(spec, field.NewPath("spec")) {
		featuregatedvalidations.Drop(vs.props)
	}
}

// featureGatedValidationNames returns the names of the gates that an
// x-kubernetes-feature-gated-validations entry of some version's schema names.
func featureGatedValidationNames(spec *apiextensions.CustomResourceDefinitionSpec) map[string]bool {
	names := map[string]bool{}
	for _, vs := range versionSchemas(spec, field.NewPath("spec")) {
		forEachSchema(vs.props, func(s *apiextensions.JSONSchemaProps) {
			for _, e := range s.XFeatureGatedValidations {
				names[e.FeatureGate] = true
			}
		})
	}
	return names
}
