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

package channels

import (
	"fmt"
	"reflect"
	"slices"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apimachinery/pkg/util/sets"
)

// schema merges the standard node s into the experimental node e (a node of the output CRD,
// changed in place). path is the node's gate path ("" for the root).
func (m *merger) schema(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	at := path
	if at == "" {
		at = "."
	}
	if s.Type != e.Type || s.Nullable != e.Nullable ||
		!reflect.DeepEqual(s.XIntOrString, e.XIntOrString) || !reflect.DeepEqual(s.XPreserveUnknownFields, e.XPreserveUnknownFields) ||
		!reflect.DeepEqual(s.XEmbeddedResource, e.XEmbeddedResource) || !reflect.DeepEqual(s.XListType, e.XListType) ||
		!reflect.DeepEqual(s.XListMapKeys, e.XListMapKeys) || !reflect.DeepEqual(s.XMapType, e.XMapType) {
		m.note("%s: the type, nullable or x-kubernetes-* list, map or embedding semantics differ; cannot be gated, the experimental channel's are kept", at)
	}
	if !reflect.DeepEqual(s.Default, e.Default) {
		m.note("%s: the default differs; defaults cannot be gated (a default below a gated field follows its gate), the experimental channel's is kept", at)
	}
	if !reflect.DeepEqual(s.AllOf, e.AllOf) || !reflect.DeepEqual(s.AnyOf, e.AnyOf) || !reflect.DeepEqual(s.OneOf, e.OneOf) || !reflect.DeepEqual(s.Not, e.Not) ||
		s.UniqueItems != e.UniqueItems || !reflect.DeepEqual(s.MultipleOf, e.MultipleOf) ||
		s.ExclusiveMaximum != e.ExclusiveMaximum || s.ExclusiveMinimum != e.ExclusiveMinimum {
		m.note("%s: allOf, anyOf, oneOf, not, uniqueItems, multipleOf or an exclusive bound differs; cannot be gated, the experimental channel's is kept", at)
	}

	// Fields.
	for _, name := range sortedKeys(e.Properties) {
		child := path + "." + name
		sp, ok := s.Properties[name]
		if !ok {
			m.gateField(child)
			continue
		}
		ep := e.Properties[name]
		m.schema(&sp, &ep, child)
		e.Properties[name] = ep
	}
	for _, name := range sortedKeys(s.Properties) {
		if _, ok := e.Properties[name]; !ok {
			m.note("%s.%s: only in the standard channel; kept, ungated", path, name)
			if e.Properties == nil {
				e.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
			}
			sp := s.Properties[name]
			e.Properties[name] = *sp.DeepCopy()
		}
	}
	// Items and map values.
	switch {
	case s.Items != nil && e.Items != nil && s.Items.Schema != nil && e.Items.Schema != nil:
		m.schema(s.Items.Schema, e.Items.Schema, path+"[*]")
	case !reflect.DeepEqual(s.Items, e.Items):
		m.note("%s: items differ in form; the experimental channel's are kept", at)
	}
	switch {
	case s.AdditionalProperties != nil && e.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && e.AdditionalProperties.Schema != nil:
		m.schema(s.AdditionalProperties.Schema, e.AdditionalProperties.Schema, path+"[*]")
	case !reflect.DeepEqual(s.AdditionalProperties, e.AdditionalProperties):
		m.note("%s: additionalProperties differ in form; the experimental channel's are kept", at)
	}

	// The channels' own rules stay rules (gated by CEL); the keywords that differ become
	// gated keywords (x-kubernetes-feature-gated-validations).
	m.rules(s, e, path)
	if !crdmerge.CanGateKeywords(path) {
		if s.Format != e.Format || !sets.New(s.Required...).Equal(sets.New(e.Required...)) || !crdmerge.EnumSet(s.Enum).Equal(crdmerge.EnumSet(e.Enum)) ||
			s.Pattern != e.Pattern || !reflect.DeepEqual(s.MaxLength, e.MaxLength) || !reflect.DeepEqual(s.MinLength, e.MinLength) ||
			!reflect.DeepEqual(s.MaxItems, e.MaxItems) || !reflect.DeepEqual(s.MinItems, e.MinItems) ||
			!reflect.DeepEqual(s.MaxProperties, e.MaxProperties) || !reflect.DeepEqual(s.MinProperties, e.MinProperties) ||
			!reflect.DeepEqual(s.Maximum, e.Maximum) || !reflect.DeepEqual(s.Minimum, e.Minimum) {
			m.note("%s: a validation keyword differs at the root or in metadata, apiVersion or kind, where keywords cannot be gated; the experimental channel's is kept", at)
		}
		return
	}
	m.format(s, e, path)
	m.required(s, e, path)
	m.enum(s, e, path)
	m.bounds(s, e, path)
	sort.SliceStable(e.XFeatureGatedValidations, func(i, j int) bool {
		a, b := e.XFeatureGatedValidations[i], e.XFeatureGatedValidations[j]
		if a.FeatureGate != b.FeatureGate {
			return a.FeatureGate < b.FeatureGate
		}
		return !a.Enabled && b.Enabled
	})
}

// format gates a format that differs: the node has none, and an entry per channel holds its
// format while that channel's gate state holds.
func (m *merger) format(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	if s.Format == e.Format {
		return
	}
	if crdmerge.CELTypedFormats.Has(s.Format) || crdmerge.CELTypedFormats.Has(e.Format) {
		m.note("%s: the format differs, and %q or %q gives the value a CEL type; cannot be gated, the experimental channel's is kept", nodePath(path), s.Format, e.Format)
		return
	}
	gate := m.nodeGate(nodePath(path), "format", nil, nil)
	ef := e.Format
	e.Format = ""
	if s.Format != "" {
		crdmerge.GatedEntry(e, gate, false).Format = s.Format
	}
	if ef != "" {
		crdmerge.GatedEntry(e, gate, true).Format = ef
	}
}

// required gates the required fields that only one channel requires: the native list keeps
// the fields both require, and an entry per gate and channel requires the others while
// that channel's gate state holds.
func (m *merger) required(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	std, exp := sets.New(s.Required...), sets.New(e.Required...)
	if std.Equal(exp) {
		return
	}
	var both []string
	for _, f := range e.Required {
		if std.Has(f) {
			both = append(both, f)
		}
	}
	e.Required = both
	for _, c := range []struct {
		only    []string
		enabled bool
	}{{sets.List(std.Difference(exp)), false}, {sets.List(exp.Difference(std)), true}} {
		for _, f := range c.only {
			if _, ok := e.Properties[f]; !ok {
				m.note("%s.%s: required in one channel only, but not a property of the node; not gated, only the fields both channels require are required", path, f)
				continue
			}
			g := crdmerge.GatedEntry(e, m.requiredGate(path, f, s, e), c.enabled)
			g.Required = append(g.Required, f)
		}
	}
}

// requiredGate is the gate of a required-field difference, declared: the field's own gate
// when the field is experimental only, else the node's.
func (m *merger) requiredGate(path, field string, s, e *apiextensionsv1.JSONSchemaProps) string {
	_, inStd := s.Properties[field]
	_, inExp := e.Properties[field]
	if inExp && !inStd {
		name, stage := m.fieldGate(path + "." + field)
		m.declare(name, stage, path+"."+field, "required")
		return name
	}
	return m.nodeGate(nodePath(path), "required", nil, nil)
}

func nodePath(path string) string {
	if path == "" {
		return "."
	}
	return path
}

// enum gates enum values that only one channel allows: the native enum is the union (or
// none, when one channel allows any value), and a rule checks each channel's values where
// the native enum does not. A value that names a new field beside the node (CORS, and a new
// field cors) belongs to that field's gate, so one enum can read several gates.
func (m *merger) enum(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	std, exp := crdmerge.EnumSet(s.Enum), crdmerge.EnumSet(e.Enum)
	if std.Equal(exp) {
		return
	}
	node := nodePath(path)
	// added are the values only the experimental channel allows, removed the ones only the
	// standard channel allows, by gate.
	added, removed := map[string][]apiextensionsv1.JSON{}, map[string][]apiextensionsv1.JSON{}
	gates := sets.New[string]()
	if len(s.Enum) == 0 || len(e.Enum) == 0 {
		// One channel allows any value: not a value's feature, the node's.
		gate := m.nodeGate(node, "enum", nil, nil)
		added[gate], removed[gate] = nil, nil
	} else {
		group := func(values []apiextensionsv1.JSON, other sets.Set[string], into map[string][]apiextensionsv1.JSON) {
			for _, v := range values {
				if other.Has(string(v.Raw)) {
					continue
				}
				name, stage := m.resolve(node, m.valueMentions(path, v.Raw), func() string { return "the enum value " + string(v.Raw) })
				if !gates.Has(name) {
					gates.Insert(name)
					m.declare(name, stage, node, "enum")
				}
				into[name] = append(into[name], v)
			}
		}
		group(e.Enum, std, added)
		group(s.Enum, exp, removed)
	}
	var union []apiextensionsv1.JSON
	if len(s.Enum) > 0 && len(e.Enum) > 0 {
		union = append(union, e.Enum...)
		for _, v := range s.Enum {
			if !exp.Has(string(v.Raw)) {
				union = append(union, v)
			}
		}
	}
	stdValues, expValues := s.Enum, e.Enum
	e.Enum = union
	// While a gate is off, its added values are not allowed; while it is on, its removed
	// values are not. Each entry lists the values it allows, the standard channel's first
	// (in its order) for a gate that is off, the experimental channel's first for one that is
	// on, so that with every gate off (on) a value outside the enum gets the message the
	// standard (experimental) channel gives.
	for _, gate := range sortedGates(added, removed) {
		if values := enumValues(stdValues, expValues, added[gate]); len(added[gate]) > 0 || len(union) == 0 && len(stdValues) > 0 {
			crdmerge.GatedEntry(e, gate, false).Enum = values
		}
		if values := enumValues(expValues, stdValues, removed[gate]); len(removed[gate]) > 0 || len(union) == 0 && len(expValues) > 0 {
			crdmerge.GatedEntry(e, gate, true).Enum = values
		}
	}
}

// enumValues are the values of first, then those of second that first does not have, without
// the values of without. With one channel's enum empty (it allows any value), the other's.
func enumValues(first, second, without []apiextensionsv1.JSON) []apiextensionsv1.JSON {
	if len(first) == 0 {
		return nil
	}
	skip := crdmerge.EnumSet(without)
	var out []apiextensionsv1.JSON
	if len(second) > 0 {
		for _, v := range first {
			skip.Insert(string(v.Raw))
			out = append(out, v)
		}
		for _, v := range second {
			if !skip.Has(string(v.Raw)) {
				skip.Insert(string(v.Raw))
				out = append(out, v)
			}
		}
		return out
	}
	return append(out, first...)
}

func sortedGates(maps ...map[string][]apiextensionsv1.JSON) []string {
	names := sets.New[string]()
	for _, m := range maps {
		for g := range m {
			names.Insert(g)
		}
	}
	return sets.List(names)
}

// bounds gates the bounds and the pattern that differ: the native keyword keeps the looser
// bound (no pattern, for a pattern), so that CEL cost estimates stay bounded, and an entry
// per channel holds that channel's stricter bound while its gate state holds.
func (m *merger) bounds(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	type bound struct {
		name     string
		std, exp **int64
		max      bool
		set      func(g *apiextensionsv1.FeatureGatedValidation, v *int64)
	}
	for _, b := range []bound{
		{"maxItems", &s.MaxItems, &e.MaxItems, true, func(g *apiextensionsv1.FeatureGatedValidation, v *int64) { g.MaxItems = v }},
		{"minItems", &s.MinItems, &e.MinItems, false, func(g *apiextensionsv1.FeatureGatedValidation, v *int64) { g.MinItems = v }},
		{"maxLength", &s.MaxLength, &e.MaxLength, true, func(g *apiextensionsv1.FeatureGatedValidation, v *int64) { g.MaxLength = v }},
		{"minLength", &s.MinLength, &e.MinLength, false, func(g *apiextensionsv1.FeatureGatedValidation, v *int64) { g.MinLength = v }},
		{"maxProperties", &s.MaxProperties, &e.MaxProperties, true, func(g *apiextensionsv1.FeatureGatedValidation, v *int64) { g.MaxProperties = v }},
		{"minProperties", &s.MinProperties, &e.MinProperties, false, func(g *apiextensionsv1.FeatureGatedValidation, v *int64) { g.MinProperties = v }},
	} {
		sv, ev := *b.std, *b.exp
		if reflect.DeepEqual(sv, ev) {
			continue
		}
		gate := m.nodeGate(nodePath(path), b.name, nil, nil)
		loose := crdmerge.Looser(sv, ev, b.max)
		*b.exp = loose
		if sv != nil && !reflect.DeepEqual(sv, loose) {
			v := *sv
			b.set(crdmerge.GatedEntry(e, gate, false), &v)
		}
		if ev != nil && !reflect.DeepEqual(ev, loose) {
			v := *ev
			b.set(crdmerge.GatedEntry(e, gate, true), &v)
		}
	}
	for _, b := range []struct {
		name     string
		std, exp **float64
		max      bool
		set      func(g *apiextensionsv1.FeatureGatedValidation, v *float64)
	}{
		{"maximum", &s.Maximum, &e.Maximum, true, func(g *apiextensionsv1.FeatureGatedValidation, v *float64) { g.Maximum = v }},
		{"minimum", &s.Minimum, &e.Minimum, false, func(g *apiextensionsv1.FeatureGatedValidation, v *float64) { g.Minimum = v }},
	} {
		sv, ev := *b.std, *b.exp
		if reflect.DeepEqual(sv, ev) {
			continue
		}
		gate := m.nodeGate(nodePath(path), b.name, nil, nil)
		var loose *float64
		if sv != nil && ev != nil {
			v := *sv
			if (b.max && *ev > v) || (!b.max && *ev < v) {
				v = *ev
			}
			loose = &v
		}
		*b.exp = loose
		if sv != nil && !reflect.DeepEqual(sv, loose) {
			v := *sv
			b.set(crdmerge.GatedEntry(e, gate, false), &v)
		}
		if ev != nil && !reflect.DeepEqual(ev, loose) {
			v := *ev
			b.set(crdmerge.GatedEntry(e, gate, true), &v)
		}
	}
	if s.Pattern != e.Pattern {
		gate := m.nodeGate(nodePath(path), "pattern", nil, nil)
		ep := e.Pattern
		e.Pattern = ""
		if s.Pattern != "" {
			crdmerge.GatedEntry(e, gate, false).Pattern = s.Pattern
		}
		if ep != "" {
			crdmerge.GatedEntry(e, gate, true).Pattern = ep
		}
	}
}

// rules gates the x-kubernetes-validations rules that only one channel has.
func (m *merger) rules(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	// A rule belongs to the feature whose new fields it mentions.
	gate := func(r apiextensionsv1.ValidationRule, channel string) string {
		return m.nodeGate(nodePath(path), "rule", m.ruleMentions(path, r.Rule), func() string {
			return fmt.Sprintf("the %s channel's rule %q", channel, r.Rule)
		})
	}
	var out apiextensionsv1.ValidationRules
	for _, r := range e.XValidations {
		if r.Rule != "" && !containsRule(s.XValidations, r) {
			r.Rule = onRule(gate(r, "experimental"), "("+r.Rule+")")
		}
		out = append(out, r)
	}
	for _, r := range s.XValidations {
		if !containsRule(e.XValidations, r) {
			r = *r.DeepCopy()
			r.Rule = offRule(gate(r, "standard"), "("+r.Rule+")")
			out = append(out, r)
		}
	}
	e.XValidations = out
}

// containsRule reports whether list has r, the same in every field.
func containsRule(list apiextensionsv1.ValidationRules, r apiextensionsv1.ValidationRule) bool {
	return slices.ContainsFunc(list, func(x apiextensionsv1.ValidationRule) bool { return reflect.DeepEqual(x, r) })
}

// nodeGate is the gate of a difference (what: "rule", "enum", "maxItems", ...) at node that
// mentions the new fields mentioned (see resolve), declared and recorded in the mapping.
func (m *merger) nodeGate(node, what string, mentioned []newField, describe func() string) string {
	name, stage := m.resolve(node, mentioned, describe)
	m.declare(name, stage, node, what)
	return name
}

// offRule is a rule that holds while gate is enabled and checks cond (the standard
// channel's rule) while it is disabled; onRule the reverse. Only the channels' own rules are
// gated this way: the keywords that differ are gated keywords.
func offRule(gate, cond string) string { return "featureGates." + gate + " || " + cond }
func onRule(gate, cond string) string  { return "!featureGates." + gate + " || " + cond }

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
