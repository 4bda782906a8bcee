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
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// schema merges the standard node s into the experimental node e (a node of the output CRD,
// changed in place). path is the node's gate path ("" for the root).
func (m *merger) schema(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	at := path
	if at == "" {
		at = "."
	}
	if s.Type != e.Type || s.Format != e.Format || s.Nullable != e.Nullable ||
		!reflect.DeepEqual(s.XIntOrString, e.XIntOrString) || !reflect.DeepEqual(s.XPreserveUnknownFields, e.XPreserveUnknownFields) ||
		!reflect.DeepEqual(s.XEmbeddedResource, e.XEmbeddedResource) || !reflect.DeepEqual(s.XListType, e.XListType) ||
		!reflect.DeepEqual(s.XListMapKeys, e.XListMapKeys) || !reflect.DeepEqual(s.XMapType, e.XMapType) {
		m.note("%s: the type, format, nullable or x-kubernetes-* list, map or embedding semantics differ; cannot be gated, the experimental channel's are kept", at)
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

	// The channels' own rules first, then the rules generated for the other differences.
	m.rules(s, e, path)
	m.required(s, e, path)
	m.enum(s, e, path)
	m.bounds(s, e, path)
}

// required gates the required fields that only one channel requires: the native list keeps
// the fields both require, and a rule per field checks the others.
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
	for _, f := range sets.List(std.Difference(exp)) {
		if cf := m.requiredField(path, f); cf != "" {
			gate := m.requiredGate(path, f, s, e)
			m.addRule(e, offRule(gate, "has(self."+cf+")"), "Required value", "."+f)
		}
	}
	for _, f := range sets.List(exp.Difference(std)) {
		if cf := m.requiredField(path, f); cf != "" {
			gate := m.requiredGate(path, f, s, e)
			m.addRule(e, onRule(gate, "has(self."+cf+")"), "Required value", "."+f)
		}
	}
}

// requiredField is f as CEL names it, or "" (with a note) when it cannot.
func (m *merger) requiredField(path, f string) string {
	cf := celField(f)
	if cf == "" {
		m.note("%s.%s: required in one channel only, but its name needs a CEL escape; not gated, only the fields both channels require are required", path, f)
	}
	return cf
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
	std, exp := enumSet(s.Enum), enumSet(e.Enum)
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
	expValues := e.Enum
	var union []apiextensionsv1.JSON
	if len(s.Enum) > 0 && len(e.Enum) > 0 {
		union = append(union, e.Enum...)
		for _, v := range s.Enum {
			if !exp.Has(string(v.Raw)) {
				union = append(union, v)
			}
		}
	}
	e.Enum = union
	native := enumSet(union)
	if len(s.Enum) > 0 && !std.Equal(native) {
		m.addEnumRule(e, true, added, s.Enum, e.Type)
	}
	if len(expValues) > 0 && !exp.Equal(native) {
		m.addEnumRule(e, false, removed, expValues, e.Type)
	}
}

func enumSet(values []apiextensionsv1.JSON) sets.Set[string] {
	out := sets.New[string]()
	for _, v := range values {
		out.Insert(string(v.Raw))
	}
	return out
}

// addEnumRule adds the rule that allows values, the channel's own, and each value of
// extra while its gate is on (on) or off (!on): with a single gate, "featureGates.G ||
// self in [values]" for the standard channel's values (on), "!featureGates.G || self in
// [values]" for the experimental channel's; with several, "(every gate on) || self in
// [values] || (featureGates.G1 && self in [extra of G1]) || ...". Its message is the one the
// stock server gives for a value outside an enum, with the values the gates allow now.
func (m *merger) addEnumRule(e *apiextensionsv1.JSONSchemaProps, on bool, extra map[string][]apiextensionsv1.JSON, values []apiextensionsv1.JSON, typ string) {
	gates := make([]string, 0, len(extra))
	for g := range extra {
		gates = append(gates, g)
	}
	sort.Strings(gates)
	ref := func(g string) string {
		if on {
			return "featureGates." + g
		}
		return "!featureGates." + g
	}
	list := func(values []apiextensionsv1.JSON) (lits, quoted string) {
		var l, q []string
		for _, v := range values {
			l = append(l, celLiteral(v.Raw))
			q = append(q, string(v.Raw))
		}
		return strings.Join(l, ", "), strings.Join(q, ", ")
	}
	lits, quoted := list(values)
	supported := "supported values: " + quoted
	r := apiextensionsv1.ValidationRule{Message: "Unsupported value: " + supported}
	if len(gates) == 1 {
		r.Rule = ref(gates[0]) + " || self in [" + lits + "]"
	} else {
		all := make([]string, 0, len(gates))
		for _, g := range gates {
			all = append(all, ref(g))
		}
		terms := []string{"(" + strings.Join(all, " && ") + ")", "self in [" + lits + "]"}
		for _, g := range gates {
			l, _ := list(extra[g])
			terms = append(terms, "("+ref(g)+" && self in ["+l+"])")
		}
		r.Rule = strings.Join(terms, " || ")
	}
	if typ == "string" {
		r.Message = ""
		r.MessageExpression = celString("Unsupported value: \"") + " + self + " + celString("\": "+supported)
		if len(gates) > 1 {
			for _, g := range gates {
				_, q := list(extra[g])
				r.MessageExpression += " + (" + ref(g) + " ? " + celString(", "+q) + " : '')"
			}
		}
	}
	e.XValidations = append(e.XValidations, r)
}

// bounds gates the bounds that differ: the native keyword keeps the looser bound, and a rule
// checks the stricter one while its channel's gate state holds.
func (m *merger) bounds(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	type bound struct {
		name      string
		std, exp  **int64
		max       bool
		cel, what string
	}
	for _, b := range []bound{
		{"maxItems", &s.MaxItems, &e.MaxItems, true, "size(self) <= %d", "Too many: must have at most %d items"},
		{"minItems", &s.MinItems, &e.MinItems, false, "size(self) >= %d", "Too few: must have at least %d items"},
		{"maxLength", &s.MaxLength, &e.MaxLength, true, "size(self) <= %d", "Too long: may not be more than %d bytes"},
		{"minLength", &s.MinLength, &e.MinLength, false, "size(self) >= %d", "should be at least %d chars long"},
		{"maxProperties", &s.MaxProperties, &e.MaxProperties, true, "size(self) <= %d", "Too many: must have at most %d items"},
		{"minProperties", &s.MinProperties, &e.MinProperties, false, "size(self) >= %d", "Too few: must have at least %d items"},
	} {
		sv, ev := *b.std, *b.exp
		if reflect.DeepEqual(sv, ev) {
			continue
		}
		gate := m.nodeGate(nodePath(path), b.name, nil, nil)
		loose := looser(sv, ev, b.max)
		*b.exp = loose
		if sv != nil && !reflect.DeepEqual(sv, loose) {
			m.addRule(e, offRule(gate, fmt.Sprintf(b.cel, *sv)), fmt.Sprintf(b.what, *sv), "")
		}
		if ev != nil && !reflect.DeepEqual(ev, loose) {
			m.addRule(e, onRule(gate, fmt.Sprintf(b.cel, *ev)), fmt.Sprintf(b.what, *ev), "")
		}
	}
	for _, b := range []struct {
		name     string
		std, exp **float64
		max      bool
		op, what string
	}{
		{"maximum", &s.Maximum, &e.Maximum, true, "<=", "should be less than or equal to %s"},
		{"minimum", &s.Minimum, &e.Minimum, false, ">=", "should be greater than or equal to %s"},
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
		num := func(f float64) string {
			if e.Type == "integer" {
				return strconv.FormatInt(int64(f), 10)
			}
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		if sv != nil && !reflect.DeepEqual(sv, loose) {
			m.addRule(e, offRule(gate, "self "+b.op+" "+num(*sv)), fmt.Sprintf(b.what, num(*sv)), "")
		}
		if ev != nil && !reflect.DeepEqual(ev, loose) {
			m.addRule(e, onRule(gate, "self "+b.op+" "+num(*ev)), fmt.Sprintf(b.what, num(*ev)), "")
		}
	}
	if s.Pattern != e.Pattern {
		gate := m.nodeGate(nodePath(path), "pattern", nil, nil)
		ep := e.Pattern
		e.Pattern = ""
		if s.Pattern != "" {
			m.addRule(e, offRule(gate, "self.matches("+celString(s.Pattern)+")"), "should match '"+s.Pattern+"'", "")
		}
		if ep != "" {
			m.addRule(e, onRule(gate, "self.matches("+celString(ep)+")"), "should match '"+ep+"'", "")
		}
	}
}

// looser returns the looser of two bounds; nil (no bound) when either is nil.
func looser(a, b *int64, max bool) *int64 {
	if a == nil || b == nil {
		return nil
	}
	v := *a
	if (max && *b > v) || (!max && *b < v) {
		v = *b
	}
	return &v
}

// rules gates the x-kubernetes-validations rules that only one channel has.
func (m *merger) rules(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	same := func(a, b apiextensionsv1.ValidationRule) bool { return reflect.DeepEqual(a, b) }
	contains := func(list apiextensionsv1.ValidationRules, r apiextensionsv1.ValidationRule) bool {
		for _, x := range list {
			if same(x, r) {
				return true
			}
		}
		return false
	}
	// A rule belongs to the feature whose new fields it mentions.
	gate := func(r apiextensionsv1.ValidationRule, channel string) string {
		return m.nodeGate(nodePath(path), "rule", m.ruleMentions(path, r.Rule), func() string {
			return fmt.Sprintf("the %s channel's rule %q", channel, r.Rule)
		})
	}
	var out apiextensionsv1.ValidationRules
	for _, r := range e.XValidations {
		if r.Rule != "" && !contains(s.XValidations, r) {
			r.Rule = onRule(gate(r, "experimental"), "("+r.Rule+")")
		}
		out = append(out, r)
	}
	for _, r := range s.XValidations {
		if !contains(e.XValidations, r) {
			r = *r.DeepCopy()
			r.Rule = offRule(gate(r, "standard"), "("+r.Rule+")")
			out = append(out, r)
		}
	}
	e.XValidations = out
}

// nodeGate is the gate of a difference (what: "rule", "enum", "maxItems", ...) at node that
// mentions the new fields mentioned (see resolve), declared and recorded in the mapping.
func (m *merger) nodeGate(node, what string, mentioned []newField, describe func() string) string {
	name, stage := m.resolve(node, mentioned, describe)
	m.declare(name, stage, node, what)
	return name
}

// addRule appends a generated rule to e's rules.
func (m *merger) addRule(e *apiextensionsv1.JSONSchemaProps, rule, message, fieldPath string) {
	e.XValidations = append(e.XValidations, apiextensionsv1.ValidationRule{Rule: rule, Message: message, FieldPath: fieldPath})
}

// celReserved are the CEL keywords that Kubernetes escapes as __keyword__ when a property
// has that name.
var celReserved = sets.New("true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
	"function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while")

// celField is how a CEL expression names property name: escaped as Kubernetes does, or ""
// when the name needs an escape this generator does not write.
func celField(name string) string {
	if celReserved.Has(name) {
		return "__" + name + "__"
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return ""
		}
	}
	return name
}

// offRule is a rule that holds while gate is enabled and checks cond (the standard
// channel's check) while it is disabled; onRule the reverse. An empty cond leaves the
// rule open for the caller to finish.
func offRule(gate, cond string) string { return "featureGates." + gate + " || " + cond }
func onRule(gate, cond string) string  { return "!featureGates." + gate + " || " + cond }

// celLiteral renders a JSON value as a CEL literal.
func celLiteral(raw []byte) string {
	var v interface{}
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case string:
		return celString(x)
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return string(raw)
}

// celString renders s as a CEL string literal.
func celString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
