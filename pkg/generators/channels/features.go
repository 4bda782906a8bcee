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
	"regexp"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apimachinery/pkg/util/sets"
)

// A feature is a field that only the experimental channel has. The validations that the
// experimental channel adds for it (an enum value that names it, a rule that mentions it)
// belong to the same feature, and so to the same gate: gated apart, they would let an admin
// enable half a feature, and accept objects that neither channel accepts.

// newField is a field that only the experimental schema has.
type newField struct {
	// name is the property's name; path its gate path; holder the gate path of the object
	// node whose property it is, and holderSchemas that node's schemas in both channels.
	name, path, holder, holderSchemas string
}

// collectNewFields records the fields of e that s does not have, walking the nodes both
// schemas have as schema does, then names the features of a type used at several places
// (see typeFeatures).
func (m *merger) collectNewFields(s, e *apiextensionsv1.JSONSchemaProps) {
	m.newFields = nil
	m.walkNewFields(s, e, "")
	m.typeFeatures()
}

func (m *merger) walkNewFields(s, e *apiextensionsv1.JSONSchemaProps, path string) {
	holderSchemas := ""
	for _, name := range sortedKeys(e.Properties) {
		child := path + "." + name
		sp, ok := s.Properties[name]
		if !ok {
			if holderSchemas == "" {
				sj, _ := json.Marshal(s)
				ej, _ := json.Marshal(e)
				holderSchemas = string(sj) + "\n" + string(ej)
			}
			m.newFields = append(m.newFields, newField{name: name, path: child, holder: path, holderSchemas: holderSchemas})
			continue
		}
		ep := e.Properties[name]
		m.walkNewFields(&sp, &ep, child)
	}
	if s.Items != nil && e.Items != nil && s.Items.Schema != nil && e.Items.Schema != nil {
		m.walkNewFields(s.Items.Schema, e.Items.Schema, path+"[*]")
	}
	if s.AdditionalProperties != nil && e.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && e.AdditionalProperties.Schema != nil {
		m.walkNewFields(s.AdditionalProperties.Schema, e.AdditionalProperties.Schema, path+"[*]")
	}
}

// typeFeatures gives one name to a new field that a type used at several places has: new
// fields of one name whose holding objects have the same schema in each channel (HTTPRoute's
// filter, in .spec.rules[*].filters and in .spec.rules[*].backendRefs[*].filters) are one
// feature. Its gate is named after the kind and the part the paths share at their end
// (HTTPRouteFiltersCors).
func (m *merger) typeFeatures() {
	byKey := map[string][]string{}
	var keys []string
	for _, f := range m.newFields {
		if !m.gated(f) {
			continue
		}
		key := f.name + "\n" + f.holderSchemas
		if _, ok := byKey[key]; !ok {
			keys = append(keys, key)
		}
		byKey[key] = append(byKey[key], f.path)
	}
	for _, key := range keys {
		paths := byKey[key]
		if len(paths) < 2 {
			continue
		}
		// "*" keeps the shared part apart from a real path of the same text in
		// defaultName's memory; the name drops it.
		name := m.defaultName("*" + sharedEnd(paths))
		if m.typeFeature == nil {
			m.typeFeature = map[string]string{}
		}
		for _, p := range paths {
			m.typeFeature[p] = name
		}
	}
}

// sharedEnd is the part that paths share at their end, in whole segments
// (.filters[*].cors for .spec.rules[*].filters[*].cors and
// .spec.rules[*].backendRefs[*].filters[*].cors).
func sharedEnd(paths []string) string {
	end := strings.Split(paths[0], ".")
	for _, p := range paths[1:] {
		segs := strings.Split(p, ".")
		n := 0
		for n < len(end) && n < len(segs) && end[len(end)-1-n] == segs[len(segs)-1-n] {
			n++
		}
		end = end[len(end)-n:]
	}
	return "." + strings.Join(end, ".")
}

// tieFeatures makes one feature of the features whose new fields one difference of the two
// channels mentions together: a rule that only one channel has ("!(has(self.percent) &&
// has(self.fraction))", Gateway API v1.2.1's RequestMirror filter), or an enum value that
// only one has. Such a rule or value is the evidence that the fields are one feature: gated
// apart, an admin could enable half of it, and the rule would belong to neither gate. It is
// what a --gates file that groups the fields does, so --gates still decides: fields that it
// covers keep its gate, and a group with one --gates gate among its features joins that
// gate. A group whose fields --gates puts in two gates stays apart, and the difference that
// mixes them is an error (see resolve). A gate is one for every version, so the differences
// of every version count, and the groups are named from the storage version's fields (gate
// paths are its paths). versions are the (standard, experimental) schema pairs, the storage
// version's first; it runs before any gate is named, as the rules of a node are merged after
// its fields.
func (m *merger) tieFeatures(versions [][2]*apiextensionsv1.JSONSchemaProps, storage bool) {
	m.tied, m.split = nil, nil
	// A feature is a --gates gate, a type's feature, or a single new field; a field's key is
	// the one its first version gives it.
	keys := map[string]string{}
	key := func(path string) string {
		if k, ok := keys[path]; ok {
			return k
		}
		k := "field:" + path
		if name, _ := m.configured(path); name != "" {
			k = "gates:" + name
		} else if name, ok := m.typeFeature[path]; ok {
			k = "type:" + name
		}
		keys[path] = k
		return k
	}
	parent := map[string]string{}
	var find func(k string) string
	find = func(k string) string {
		p, ok := parent[k]
		if !ok || p == k {
			return k
		}
		root := find(p)
		parent[k] = root
		return root
	}
	tied := false
	union := func(mentioned []newField) {
		for i := 1; i < len(mentioned); i++ {
			a, b := find(key(mentioned[0].path)), find(key(mentioned[i].path))
			if a != b {
				// The smaller key is the root, so that the groups do not depend on the order
				// in which the differences are found.
				if b < a {
					a, b = b, a
				}
				parent[b] = a
				tied = true
			}
		}
	}
	// While the differences are collected, a field of another version counts when the storage
	// version has it too (its gate paths are the storage version's).
	var fields []newField
	m.storageNew = sets.New[string]()
	for i, v := range versions {
		m.storage = storage && i == 0
		m.newFields, m.typeFeature = nil, nil
		m.walkNewFields(v[0], v[1], "")
		m.typeFeatures()
		if i == 0 {
			fields = m.newFields
			if m.storage {
				for _, f := range fields {
					m.storageNew.Insert(f.path)
				}
			}
		}
		m.walkDifferences(v[0], v[1], "", union)
	}
	m.storageNew = nil
	if !tied {
		return
	}
	groups := map[string][]newField{}
	var roots []string
	for _, f := range fields {
		root := find(key(f.path))
		if _, ok := groups[root]; !ok {
			roots = append(roots, root)
		}
		groups[root] = append(groups[root], f)
	}
	for _, root := range roots {
		fields := groups[root]
		keys := sets.New[string]()
		configured := sets.New[string]()
		for _, f := range fields {
			k := key(f.path)
			keys.Insert(k)
			if name, ok := strings.CutPrefix(k, "gates:"); ok {
				configured.Insert(name)
			}
		}
		if configured.Len() > 1 {
			if m.split == nil {
				m.split = map[string][]string{}
			}
			for _, f := range fields {
				m.split[f.path] = sets.List(configured)
			}
			continue
		}
		if keys.Len() < 2 {
			continue
		}
		var name, stage string
		if configured.Len() == 1 {
			for _, f := range fields {
				if n, st := m.configured(f.path); n != "" {
					name, stage = n, st
				}
			}
		} else {
			// Named after the place the fields' holders share at their end and the fields'
			// names (HTTPRouteFiltersRequestMirrorFractionPercent). The trailing "*" keeps
			// the name apart from a real path's in defaultName's memory and is dropped from
			// the name.
			holders := make([]string, 0, len(fields))
			names := sets.New[string]()
			for _, f := range fields {
				holders = append(holders, f.holder)
				names.Insert(f.name)
			}
			// A whole path shared ends in "." + path; nothing shared in ".".
			shared := strings.TrimLeft(sharedEnd(holders), ".")
			if shared != "" {
				shared = "." + shared
			}
			name, stage = m.defaultName(shared+"."+strings.Join(sets.List(names), ".")+"*"), "alpha"
		}
		if m.tied == nil {
			m.tied = map[string]tiedGate{}
		}
		for _, f := range fields {
			m.tied[f.path] = tiedGate{name: name, stage: stage, generated: configured.Len() == 0}
		}
	}
}

// tiedGate is the gate of a new field that a difference ties to other features.
type tiedGate struct {
	name, stage string
	// generated: no --gates gate is among the features; the name is generated.
	generated bool
}

// walkDifferences calls tie with the new fields that each difference of the nodes s and e
// (the node at path in the standard and experimental channel) and of the nodes below them
// mentions: the rules that only one channel has, and the enum values that only one has.
func (m *merger) walkDifferences(s, e *apiextensionsv1.JSONSchemaProps, path string, tie func([]newField)) {
	for _, name := range sortedKeys(e.Properties) {
		if sp, ok := s.Properties[name]; ok {
			ep := e.Properties[name]
			m.walkDifferences(&sp, &ep, path+"."+name, tie)
		}
	}
	if s.Items != nil && e.Items != nil && s.Items.Schema != nil && e.Items.Schema != nil {
		m.walkDifferences(s.Items.Schema, e.Items.Schema, path+"[*]", tie)
	}
	if s.AdditionalProperties != nil && e.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && e.AdditionalProperties.Schema != nil {
		m.walkDifferences(s.AdditionalProperties.Schema, e.AdditionalProperties.Schema, path+"[*]", tie)
	}
	only := func(rules, other apiextensionsv1.ValidationRules) {
		for _, r := range rules {
			if r.Rule != "" && !containsRule(other, r) {
				tie(m.ruleMentions(path, r.Rule))
			}
		}
	}
	only(e.XValidations, s.XValidations)
	only(s.XValidations, e.XValidations)
	if len(s.Enum) > 0 && len(e.Enum) > 0 {
		std, exp := crdmerge.EnumSet(s.Enum), crdmerge.EnumSet(e.Enum)
		for _, v := range e.Enum {
			if !std.Has(string(v.Raw)) {
				tie(m.valueMentions(path, v.Raw))
			}
		}
		for _, v := range s.Enum {
			if !exp.Has(string(v.Raw)) {
				tie(m.valueMentions(path, v.Raw))
			}
		}
	}
}

// fieldGate is the gate of the new field at path: the gate of the feature a difference ties
// it to (see tieFeatures), the configured gate that covers it, the name of its type's
// feature when the field is in several places, else the name of its path.
func (m *merger) fieldGate(path string) (name, stage string) {
	if t, ok := m.tied[path]; ok {
		if t.generated {
			m.checkGenerated(t.name, path)
		}
		return t.name, t.stage
	}
	if name, ok := m.typeFeature[path]; ok {
		if cname, stage := m.configured(path); cname != "" {
			return cname, stage
		}
		m.checkGenerated(name, path)
		return name, "alpha"
	}
	return m.nameOf(path)
}

// gated reports whether f has a gate in this version: gate paths are storage-version paths.
// While tieFeatures runs, before any gate exists, the storage version's new fields count.
func (m *merger) gated(f newField) bool {
	if m.storageNew != nil {
		return m.storage || m.storageNew.Has(f.path)
	}
	return m.storage || m.storagePaths.Has(f.path)
}

// objectOf is the node of the object that holds the property at path, without the list
// items and map values in between: .spec.rules for .spec.rules[*].filters, and for
// .spec.rules[*].
func objectOf(path string) string {
	for strings.HasSuffix(path, "[*]") {
		path = strings.TrimSuffix(path, "[*]")
	}
	return path
}

// valueMentions are the new fields that an enum value of the node at path names: the
// properties, named like the value up to case, of the object that holds the node (the
// value CORS of .spec.filters[*].type names .spec.filters[*].cors).
func (m *merger) valueMentions(path string, raw []byte) []newField {
	var v string
	if json.Unmarshal(raw, &v) != nil || v == "" {
		return nil
	}
	field := objectOf(path)
	i := strings.LastIndex(field, ".")
	if i < 0 {
		return nil // the root
	}
	holder := objectOf(field[:i])
	var out []newField
	for _, f := range m.newFields {
		if m.gated(f) && objectOf(f.holder) == holder && strings.EqualFold(f.name, v) {
			out = append(out, f)
		}
	}
	return out
}

var celIdentifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// ruleMentions are the new fields that a rule of the node at path mentions: for each
// identifier of the rule's text that no "(" follows (a field it selects, or a word of a
// string literal, such as an enum value it compares with; not a function or method such as
// size()), the new fields below the node named like it up to case, at the nearest level that
// has one.
func (m *merger) ruleMentions(path, rule string) []newField {
	seen := sets.New[string]()
	var out []newField
	ids := sets.New[string]()
	for _, loc := range celIdentifier.FindAllStringIndex(rule, -1) {
		// A function or a method (has(...), self.items.size()) is not a field.
		if rest := strings.TrimLeft(rule[loc[1]:], " \t\n"); strings.HasPrefix(rest, "(") {
			continue
		}
		ids.Insert(rule[loc[0]:loc[1]])
	}
	for _, id := range sets.List(ids) {
		best := -1
		var nearest []newField
		for _, f := range m.newFields {
			if !m.gated(f) || !strings.EqualFold(f.name, strings.TrimSuffix(strings.TrimPrefix(id, "__"), "__")) {
				continue
			}
			rest, ok := strings.CutPrefix(f.path, path)
			if !ok || !(strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "[")) {
				continue
			}
			depth := strings.Count(rest, ".")
			switch {
			case best < 0 || depth < best:
				best, nearest = depth, []newField{f}
			case depth == best:
				nearest = append(nearest, f)
			}
		}
		for _, f := range nearest {
			if !seen.Has(f.path) {
				seen.Insert(f.path)
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// resolve is the gate of a difference at node that refers to the new fields mentioned:
// the --gates gate that covers node, when there is one (the file groups explicitly); else
// the gate of the fields mentioned, which is one gate unless --gates splits them (see
// tieFeatures); else node's own gate. what
// describes the difference for an error ("the rule ...").
func (m *merger) resolve(node string, mentioned []newField, what func() string) (name, stage string) {
	if name, stage := m.configured(node); name != "" {
		return name, stage
	}
	if len(mentioned) == 0 {
		return m.nameOf(node)
	}
	type feature struct{ name, stage, fields string }
	var features []feature
	byName := map[string]int{}
	for _, f := range mentioned {
		name, stage := m.fieldGate(f.path)
		i, ok := byName[name]
		if !ok {
			i = len(features)
			byName[name] = i
			features = append(features, feature{name: name, stage: stage})
		}
		if features[i].fields != "" {
			features[i].fields += ", "
		}
		features[i].fields += f.path
	}
	if len(features) > 1 {
		var parts []string
		for _, f := range features {
			parts = append(parts, fmt.Sprintf("feature %s (%s)", f.name, f.fields))
		}
		count := "two"
		if len(features) > 2 {
			count = fmt.Sprint(len(features))
		}
		// Only --gates splits what a difference ties (see tieFeatures): name its gates.
		split := sets.New[string]()
		for _, f := range mentioned {
			split.Insert(m.split[f.path]...)
		}
		m.fail("%s at %s mixes %s features, %s, which the channels' rules and enum values tie to fields that --gates puts in different gates (%s): "+
			"a gate per feature would let an admin enable one half of it; put these fields in one gate of --gates, or name %s in a gate of --gates",
			what(), node, count, strings.Join(parts, " and "), strings.Join(sets.List(split), ", "), node)
	}
	return features[0].name, features[0].stage
}
