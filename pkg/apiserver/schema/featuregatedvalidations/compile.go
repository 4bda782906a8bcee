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

// Package featuregatedvalidations compiles the x-kubernetes-feature-gated-validations of a
// CRD schema (KEP-2608) into the schema's own keywords, for the gate states of one CRD
// revision.
//
// An entry applies while the state of its gate equals its enabled. While it applies, its
// keywords hold in addition to the node's own, so the effective schema of a node is its own
// keywords combined with those of every applying entry:
//   - a keyword the node does not have is set to the entry's;
//   - bounds take the tightest (the smaller maximum, maxLength, maxItems and maxProperties,
//     the larger minimum, minLength, minItems and minProperties; at an equal numeric bound,
//     exclusive wins);
//   - enums intersect, in the entry's order (so the message of a value outside the enum
//     lists the values allowed now); an empty intersection is kept as an allOf item with
//     the entry's enum, which no value can satisfy together with the node's;
//   - required lists add up;
//   - a second pattern, format or multipleOf is an allOf item, so both must hold.
//
// Gate states change only with a CRD update, after which the API server rebuilds the CRD's
// serving state: so the server compiles once per revision, and its stock schema validator
// enforces the result with its own messages and at the cost of the keywords themselves.
// CEL cost estimation keeps reading the uncompiled schema, whose own bounds are the loosest.
package featuregatedvalidations

import (
	"encoding/json"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

// Applies reports whether entry applies while the gates have the given states. A gate that
// states does not hold (which CRD validation does not let an entry name) counts as disabled.
func Applies(entry *apiextensions.FeatureGatedValidation, states map[string]bool) bool {
	return states[entry.FeatureGate] == entry.Enabled
}

// Has reports whether s, or any schema below it, has x-kubernetes-feature-gated-validations.
func Has(s *apiextensions.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.XFeatureGatedValidations) > 0 {
		return true
	}
	for _, m := range []map[string]apiextensions.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for _, p := range m {
			if Has(&p) {
				return true
			}
		}
	}
	for _, d := range s.Dependencies {
		if Has(d.Schema) {
			return true
		}
	}
	if s.Items != nil {
		if Has(s.Items.Schema) {
			return true
		}
		for i := range s.Items.JSONSchemas {
			if Has(&s.Items.JSONSchemas[i]) {
				return true
			}
		}
	}
	if s.AdditionalProperties != nil && Has(s.AdditionalProperties.Schema) {
		return true
	}
	if s.AdditionalItems != nil && Has(s.AdditionalItems.Schema) {
		return true
	}
	for _, list := range [][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			if Has(&list[i]) {
				return true
			}
		}
	}
	return Has(s.Not)
}

// CompileCRDValidation returns v, the validation of a version of crd, compiled (Compile)
// for the states of crd's declared gates (featuregates.States: what CEL rules read as
// featureGates). It returns v itself when its schema has no entry.
func CompileCRDValidation(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensions.CustomResourceValidation) *apiextensions.CustomResourceValidation {
	if v == nil || !Has(v.OpenAPIV3Schema) {
		return v
	}
	states := featuregates.States(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates))
	return &apiextensions.CustomResourceValidation{OpenAPIV3Schema: Compile(v.OpenAPIV3Schema, states)}
}

// Compile returns the effective schema of s for the gate states: a copy of s in which every
// node holds its own keywords combined with those of each applying entry (see the package
// documentation), and no x-kubernetes-feature-gated-validations. It returns s itself when
// s has no entry, and never changes s.
func Compile(s *apiextensions.JSONSchemaProps, states map[string]bool) *apiextensions.JSONSchemaProps {
	if s == nil || !Has(s) {
		return s
	}
	out := s.DeepCopy()
	walk(out, func(n *apiextensions.JSONSchemaProps) {
		entries := n.XFeatureGatedValidations
		n.XFeatureGatedValidations = nil
		for i := range entries {
			if Applies(&entries[i], states) {
				apply(n, &entries[i])
			}
		}
	})
	return out
}

// apply adds the keywords of entry e to node n.
func apply(n *apiextensions.JSONSchemaProps, e *apiextensions.FeatureGatedValidation) {
	if e.Pattern != "" {
		switch {
		case n.Pattern == "":
			n.Pattern = e.Pattern
		case n.Pattern != e.Pattern:
			n.AllOf = append(n.AllOf, apiextensions.JSONSchemaProps{Pattern: e.Pattern})
		}
	}
	if e.Format != "" {
		switch {
		case n.Format == "":
			n.Format = e.Format
		case n.Format != e.Format:
			n.AllOf = append(n.AllOf, apiextensions.JSONSchemaProps{Format: e.Format})
		}
	}
	if e.MultipleOf != nil {
		switch {
		case n.MultipleOf == nil:
			n.MultipleOf = float64Ptr(*e.MultipleOf)
		case *n.MultipleOf != *e.MultipleOf:
			n.AllOf = append(n.AllOf, apiextensions.JSONSchemaProps{MultipleOf: float64Ptr(*e.MultipleOf)})
		}
	}
	if len(e.Enum) > 0 {
		applyEnum(n, e.Enum)
	}

	n.MaxLength = tighterInt(n.MaxLength, e.MaxLength, true)
	n.MinLength = tighterInt(n.MinLength, e.MinLength, false)
	n.MaxItems = tighterInt(n.MaxItems, e.MaxItems, true)
	n.MinItems = tighterInt(n.MinItems, e.MinItems, false)
	n.MaxProperties = tighterInt(n.MaxProperties, e.MaxProperties, true)
	n.MinProperties = tighterInt(n.MinProperties, e.MinProperties, false)
	n.Maximum, n.ExclusiveMaximum = tighterNumber(n.Maximum, n.ExclusiveMaximum, e.Maximum, e.ExclusiveMaximum, true)
	n.Minimum, n.ExclusiveMinimum = tighterNumber(n.Minimum, n.ExclusiveMinimum, e.Minimum, e.ExclusiveMinimum, false)

	for _, r := range e.Required {
		if !containsString(n.Required, r) {
			n.Required = append(n.Required, r)
		}
	}
}

// applyEnum intersects n's enum with values: the values of the entry that the node allows,
// in the entry's order. Without an enum on the node, the entry's enum is the node's. When
// no value is in both, the entry's enum becomes an allOf item: an empty enum would allow
// every value, and with the item no value is valid, as the two enums say.
func applyEnum(n *apiextensions.JSONSchemaProps, values []apiextensions.JSON) {
	if len(n.Enum) == 0 {
		n.Enum = copyEnum(values)
		return
	}
	allowed := map[string]bool{}
	for _, v := range n.Enum {
		allowed[jsonKey(v)] = true
	}
	var both []apiextensions.JSON
	for _, v := range values {
		if allowed[jsonKey(v)] {
			both = append(both, v)
		}
	}
	if len(both) == 0 {
		n.AllOf = append(n.AllOf, apiextensions.JSONSchemaProps{Enum: copyEnum(values)})
		return
	}
	n.Enum = copyEnum(both)
}

func copyEnum(values []apiextensions.JSON) []apiextensions.JSON {
	s := apiextensions.JSONSchemaProps{Enum: values}
	return s.DeepCopy().Enum
}

// jsonKey is v's JSON encoding: two values are the same enum value when their encodings
// are equal (the float64 3 and the int64 3 both encode as 3).
func jsonKey(v apiextensions.JSON) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// tighterInt is the tighter of two optional bounds: the smaller for a maximum (max), the
// larger for a minimum.
func tighterInt(node, entry *int64, max bool) *int64 {
	switch {
	case entry == nil:
		return node
	case node == nil, max && *entry < *node, !max && *entry > *node:
		v := *entry
		return &v
	}
	return node
}

// tighterNumber is the tighter of two optional numeric bounds with their exclusive flags:
// the smaller maximum (max) or the larger minimum; at an equal value, exclusive if either is.
func tighterNumber(node *float64, nodeExclusive bool, entry *float64, entryExclusive bool, max bool) (*float64, bool) {
	switch {
	case entry == nil:
		return node, nodeExclusive
	case node == nil, max && *entry < *node, !max && *entry > *node:
		return float64Ptr(*entry), entryExclusive
	case *entry == *node:
		return node, nodeExclusive || entryExclusive
	}
	return node, nodeExclusive
}

func float64Ptr(v float64) *float64 { return &v }

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// walk calls f with s and every schema below it: properties, items, additionalProperties,
// allOf, anyOf, oneOf, not, patternProperties, definitions, dependencies and
// additionalItems. f may change the node it is given; map values are written back, so s
// must be a schema of the caller's own (a copy).
func walk(s *apiextensions.JSONSchemaProps, f func(*apiextensions.JSONSchemaProps)) {
	if s == nil {
		return
	}
	f(s)
	for _, m := range []map[string]apiextensions.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k, p := range m {
			walk(&p, f)
			m[k] = p
		}
	}
	for k, d := range s.Dependencies {
		if d.Schema != nil {
			walk(d.Schema, f)
			s.Dependencies[k] = d
		}
	}
	if s.Items != nil {
		walk(s.Items.Schema, f)
		for i := range s.Items.JSONSchemas {
			walk(&s.Items.JSONSchemas[i], f)
		}
	}
	if s.AdditionalProperties != nil {
		walk(s.AdditionalProperties.Schema, f)
	}
	if s.AdditionalItems != nil {
		walk(s.AdditionalItems.Schema, f)
	}
	for _, list := range [][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			walk(&list[i], f)
		}
	}
	walk(s.Not, f)
}

// Drop removes the x-kubernetes-feature-gated-validations of s and of every schema below it,
// in place.
func Drop(s *apiextensions.JSONSchemaProps) {
	if !Has(s) {
		return
	}
	walk(s, func(n *apiextensions.JSONSchemaProps) { n.XFeatureGatedValidations = nil })
}
