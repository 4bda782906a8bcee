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

package openshift

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/cmd/featuregate-gen/crdmerge"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// merger merges the variants of one CRD. variants[0] is the CRD with no gate on; the others
// follow by the number of their gates, then by file name.
type merger struct {
	crd, dir string
	variants []*variant
	// combos are the combination gates used, by name: the gates each requires.
	combos map[string][]string
	// anyCombos are the gates that require any of several gates (or combination gates), by
	// name: the gates of their requiresAnyOf.
	anyCombos map[string][]string
	version   string
	errs      []error
	// quirks are differences of a per-gate file that OpenShift's generator makes and that
	// the merge does not take as the gate's.
	quirks []Quirk
	// featureSets are the CRDs OpenShift installs for each feature set (gates: the feature
	// set's gates of this CRD), which decide between readings of the per-gate files.
	featureSets []*variant
}

// at is a schema node of one variant.
type at struct {
	v *variant
	s *apiextensionsv1.JSONSchemaProps
}

func (m *merger) fail(file, path, format string, args ...interface{}) {
	if path == "" {
		path = "."
	}
	m.errs = append(m.errs, fmt.Errorf("%s %s, %s: %s: %s", m.crd, m.version, file, path, fmt.Sprintf(format, args...)))
}

// gateFor is the gate that is on exactly when all of gates are: the gate itself, or their
// combination gate (declared on first use).
func (m *merger) gateFor(gates sets.Set[string]) string {
	list := sets.List(gates)
	if len(list) == 1 {
		return list[0]
	}
	name := CombinationName(list)
	if prev, ok := m.combos[name]; ok && !reflect.DeepEqual(prev, list) {
		m.errs = append(m.errs, fmt.Errorf("%s: the combination gates of %s and of %s are both named %s", m.crd, strings.Join(prev, "+"), strings.Join(list, "+"), name))
	}
	m.combos[name] = list
	return name
}

// anyGateFor is the gate that is on exactly when all gates of at least one of needs are: a
// gate that requires any of their gates (each a gate or a combination gate), declared on
// first use.
func (m *merger) anyGateFor(needs []sets.Set[string]) string {
	var list []string
	for _, n := range needs {
		list = append(list, m.gateFor(n))
	}
	sort.Strings(list)
	name := AnyOfName(list)
	if prev, ok := m.anyCombos[name]; ok && !reflect.DeepEqual(prev, list) {
		m.errs = append(m.errs, fmt.Errorf("%s: the gates that require any of %s and of %s are both named %s", m.crd, strings.Join(prev, ", "), strings.Join(list, ", "), name))
	}
	if _, ok := m.combos[name]; ok {
		m.errs = append(m.errs, fmt.Errorf("%s: the gate that requires any of %s is named %s, as a combination gate is", m.crd, strings.Join(list, ", "), name))
	}
	m.anyCombos[name] = list
	return name
}

// minimalGateSets returns, for the nodes that have a field, the sets of gates beyond owner of
// their files that no other such set is contained in, in the order of nodes: the field is
// meant to be there when all gates of any one of them are on.
func minimalGateSets(have []at, owner sets.Set[string]) []sets.Set[string] {
	var all []sets.Set[string]
	for _, h := range have {
		all = append(all, h.v.gates.Difference(owner))
	}
	var mins []sets.Set[string]
	for i, d := range all {
		minimal := true
		for j, o := range all {
			if i != j && d.IsSuperset(o) && (!o.Equal(d) || j < i) {
				minimal = false
				break
			}
		}
		if minimal {
			mins = append(mins, d)
		}
	}
	return mins
}

// on reports whether gate (a gate, a combination gate, or a gate that requires any of
// several) is on in variant v.
func (m *merger) on(gate string, v *variant) bool {
	if req, ok := m.combos[gate]; ok {
		return v.gates.HasAll(req...)
	}
	if anyOf, ok := m.anyCombos[gate]; ok {
		for _, g := range anyOf {
			if m.on(g, v) {
				return true
			}
		}
		return false
	}
	return v.gates.Has(gate)
}

func (m *merger) merge() *apiextensionsv1.CustomResourceDefinition {
	base := m.variants[0]
	out := base.crd.DeepCopy()
	for k := range out.Annotations {
		if strings.HasPrefix(k, gateAnnotationPrefix) {
			delete(out.Annotations, k)
		}
	}
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	for _, v := range m.variants[1:] {
		a, b := base.crd.Spec.DeepCopy(), v.crd.Spec.DeepCopy()
		a.Versions, b.Versions = nil, nil
		if !reflect.DeepEqual(a, b) {
			m.fail(v.file, "", "the CRD's group, names, scope or conversion differ from %s; gates cannot express that", base.file)
		}
	}
	for i := range out.Spec.Versions {
		ov := &out.Spec.Versions[i]
		m.version = ov.Name
		var nodes []at
		for _, v := range m.variants {
			var found *apiextensionsv1.CustomResourceDefinitionVersion
			for j := range v.crd.Spec.Versions {
				if v.crd.Spec.Versions[j].Name == ov.Name {
					found = &v.crd.Spec.Versions[j]
				}
			}
			if found == nil {
				m.fail(v.file, "", "the version is in %s but not in this file; a gate cannot remove a version", base.file)
				continue
			}
			a, b := ov.DeepCopy(), found.DeepCopy()
			a.Schema, b.Schema = nil, nil
			if !reflect.DeepEqual(a, b) {
				m.fail(v.file, "", "served, storage, subresources, printer columns or selectable fields differ from %s; gates cannot express that", base.file)
			}
			if found.Schema == nil || found.Schema.OpenAPIV3Schema == nil {
				continue
			}
			nodes = append(nodes, at{v: v, s: found.Schema.OpenAPIV3Schema})
		}
		if ov.Schema == nil || ov.Schema.OpenAPIV3Schema == nil {
			if len(nodes) > 0 {
				m.fail(nodes[0].v.file, "", "has a schema where %s has none", base.file)
			}
			continue
		}
		if len(nodes) == 0 || nodes[0].v != base {
			continue
		}
		var fsNodes []at
		for _, fv := range m.featureSets {
			for j := range fv.crd.Spec.Versions {
				if fv.crd.Spec.Versions[j].Name == ov.Name && fv.crd.Spec.Versions[j].Schema != nil && fv.crd.Spec.Versions[j].Schema.OpenAPIV3Schema != nil {
					fsNodes = append(fsNodes, at{v: fv, s: fv.crd.Spec.Versions[j].Schema.OpenAPIV3Schema})
				}
			}
		}
		m.walk(ov.Schema.OpenAPIV3Schema, "", nodes, sets.New[string](), fsNodes)
	}
	for _, v := range m.variants {
		for _, vv := range v.crd.Spec.Versions {
			found := false
			for _, ov := range out.Spec.Versions {
				found = found || ov.Name == vv.Name
			}
			if !found {
				m.version = vv.Name
				m.fail(v.file, "", "the version is not in %s; a version cannot be gated", base.file)
			}
		}
	}
	return out
}

// walk merges the nodes of the variants that have the node at path into out (a copy of
// nodes[0].s). owner are the gates that every variant having the node has on.
// fsNodes are the same node in the CRDs of the feature sets whose gates include owner: they
// decide between readings of the per-gate files (see rules).
func (m *merger) walk(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string], fsNodes []at) {
	defer m.adoptFeatureSetSchema(out, path, nodes, fsNodes)
	ref := nodes[0]
	for _, n := range nodes[1:] {
		m.structural(ref, n, path)
	}
	names := sets.New[string]()
	for _, n := range nodes {
		for k := range n.s.Properties {
			names.Insert(k)
		}
	}
	for _, name := range sets.List(names) {
		child := path + "." + name
		var have []at
		for _, n := range nodes {
			if p, ok := n.s.Properties[name]; ok {
				pp := p
				have = append(have, at{v: n.v, s: &pp})
			}
		}
		// The field needs, beyond owner, every gate of one of needs: the fewest gates of each
		// file that has it. One set is one gate (or a combination); several make a gate that
		// requires any of them. A field in every file that has the node needs nothing more.
		var needs []sets.Set[string]
		if len(have) < len(nodes) {
			needs = minimalGateSets(have, owner)
		}
		gate := ""
		switch {
		case len(needs) == 1 && needs[0].Len() > 0:
			gate = m.gateFor(needs[0])
		case len(needs) > 1:
			gate = m.anyGateFor(needs)
		}
		present := func(v *variant) bool { return gate == "" || m.on(gate, v) }
		ok := true
		for _, n := range nodes {
			_, has := n.s.Properties[name]
			if want := present(n.v); has != want {
				ok = false
				if has {
					m.fail(n.v.file, child, "the field is in this file but not in %s (gate %s); a field must be in every file whose gates include the ones that add it", have[0].v.file, gate)
				} else {
					m.fail(n.v.file, child, "the field is in %s but not in this file; a gate cannot remove a field", have[0].v.file)
				}
			}
		}
		if !ok {
			continue
		}
		var c apiextensionsv1.JSONSchemaProps
		if p, has := out.Properties[name]; has && have[0].v == ref.v {
			c = p
		} else {
			c = *have[0].s.DeepCopy()
		}
		if gate != "" {
			c.XFeatureGate = &gate
		}
		// Below the field, every file that has it has owner's gates and those common to needs.
		childOwner := owner.Clone()
		if len(needs) > 0 {
			common := needs[0].Clone()
			for _, n := range needs[1:] {
				common = common.Intersection(n)
			}
			childOwner = childOwner.Union(common)
		}
		var fsHave []at
		for _, n := range fsNodes {
			if p, ok := n.s.Properties[name]; ok && n.v.gates.IsSuperset(childOwner) && present(n.v) {
				pp := p
				fsHave = append(fsHave, at{v: n.v, s: &pp})
			}
		}
		m.walk(&c, child, have, childOwner, fsHave)
		if out.Properties == nil {
			out.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
		}
		out.Properties[name] = c
	}
	var items, values, fsItems, fsValues []at
	for _, n := range fsNodes {
		if n.s.Items != nil && n.s.Items.Schema != nil {
			fsItems = append(fsItems, at{v: n.v, s: n.s.Items.Schema})
		}
		if n.s.AdditionalProperties != nil && n.s.AdditionalProperties.Schema != nil {
			fsValues = append(fsValues, at{v: n.v, s: n.s.AdditionalProperties.Schema})
		}
	}
	for _, n := range nodes {
		if n.s.Items != nil && n.s.Items.Schema != nil {
			items = append(items, at{v: n.v, s: n.s.Items.Schema})
		}
		if n.s.AdditionalProperties != nil && n.s.AdditionalProperties.Schema != nil {
			values = append(values, at{v: n.v, s: n.s.AdditionalProperties.Schema})
		}
	}
	if len(items) == len(nodes) && out.Items != nil && out.Items.Schema != nil {
		m.walk(out.Items.Schema, path+"[*]", items, owner, fsItems)
	} else if len(items) > 0 {
		m.fail(nodes[len(nodes)-1].v.file, path, "items differ in form from %s; gates cannot express that", ref.v.file)
	}
	if len(values) == len(nodes) && out.AdditionalProperties != nil && out.AdditionalProperties.Schema != nil {
		m.walk(out.AdditionalProperties.Schema, path+"[*]", values, owner, fsValues)
	} else if len(values) > 0 {
		m.fail(nodes[len(nodes)-1].v.file, path, "additionalProperties differ in form from %s; gates cannot express that", ref.v.file)
	}
	if len(nodes) < 2 {
		return
	}
	m.rules(out, path, nodes, owner, fsNodes)
	if !crdmerge.CanGateKeywords(path) {
		for _, n := range nodes[1:] {
			if !reflect.DeepEqual(gatable(ref.s), gatable(n.s)) {
				m.fail(n.v.file, path, "a validation keyword differs from %s at the root or in metadata, apiVersion or kind, where keywords cannot be gated", ref.v.file)
			}
		}
		return
	}
	m.enum(out, path, nodes, owner)
	m.required(out, path, nodes, owner)
	m.bounds(out, path, nodes, owner)
	m.strings(out, path, nodes, owner)
	sort.SliceStable(out.XFeatureGatedValidations, func(i, j int) bool {
		a, b := out.XFeatureGatedValidations[i], out.XFeatureGatedValidations[j]
		if a.FeatureGate != b.FeatureGate {
			return a.FeatureGate < b.FeatureGate
		}
		return !a.Enabled && b.Enabled
	})
}

// gatable is the part of a node that gated keywords can express.
func gatable(s *apiextensionsv1.JSONSchemaProps) apiextensionsv1.FeatureGatedValidation {
	return apiextensionsv1.FeatureGatedValidation{Format: s.Format, Maximum: s.Maximum, Minimum: s.Minimum, MaxLength: s.MaxLength, MinLength: s.MinLength,
		Pattern: s.Pattern, MaxItems: s.MaxItems, MinItems: s.MinItems, Enum: s.Enum, MaxProperties: s.MaxProperties, MinProperties: s.MinProperties, Required: s.Required}
}

// structural fails on differences between two variants' nodes that gates cannot express:
// everything but the fields, items and values (merged on their own), the documentation
// (description, title, example, externalDocs: the base file's is kept), and the keywords
// that gated keywords and rules carry.
func (m *merger) structural(ref, n at, path string) {
	strip := func(s *apiextensionsv1.JSONSchemaProps) map[string]interface{} {
		c := s.DeepCopy()
		c.Properties, c.Description, c.Title, c.Example, c.ExternalDocs = nil, "", "", nil, nil
		if c.Items != nil {
			c.Items = &apiextensionsv1.JSONSchemaPropsOrArray{}
		}
		if c.AdditionalProperties != nil {
			c.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: c.AdditionalProperties.Allows}
		}
		c.Enum, c.Required, c.XValidations = nil, nil, nil
		c.Maximum, c.Minimum, c.MaxLength, c.MinLength, c.MaxItems, c.MinItems, c.MaxProperties, c.MinProperties = nil, nil, nil, nil, nil, nil, nil, nil
		c.Pattern = ""
		if !crdmerge.CELTypedFormats.Has(s.Format) {
			c.Format = ""
		}
		js, _ := json.Marshal(c)
		var obj map[string]interface{}
		_ = json.Unmarshal(js, &obj)
		return obj
	}
	a, b := strip(ref.s), strip(n.s)
	keys := sets.New[string]()
	for k := range a {
		keys.Insert(k)
	}
	for k := range b {
		keys.Insert(k)
	}
	var differ []string
	for _, k := range sets.List(keys) {
		if !reflect.DeepEqual(a[k], b[k]) {
			differ = append(differ, k)
		}
	}
	if len(differ) > 0 {
		m.fail(n.v.file, path, "%s differs from %s; gates cannot express that (a gated default, type or list semantics)", strings.Join(differ, ", "), ref.v.file)
	}
}

// literal is a gate in a state: entries and rule guards are made of literals.
type literal struct {
	gate string
	on   bool
}

// conjunction returns the literals whose conjunction holds in exactly the variants of nodes
// where present holds: every gate that all of them have on, and for each variant that has
// those gates on but not present, a gate (or combination) of its other gates off. ok is
// false when no conjunction of such literals does.
func (m *merger) conjunction(nodes []at, owner sets.Set[string], present func(at) bool) (lits []literal, ok bool) {
	var need sets.Set[string]
	for _, n := range nodes {
		if present(n) {
			d := n.v.gates.Difference(owner)
			if need == nil {
				need = d
			} else {
				need = need.Intersection(d)
			}
		}
	}
	if need == nil {
		return nil, false
	}
	for _, g := range sets.List(need) {
		lits = append(lits, literal{gate: g, on: true})
	}
	var off []sets.Set[string]
	for _, n := range nodes {
		d := n.v.gates.Difference(owner)
		if present(n) || !d.IsSuperset(need) {
			continue
		}
		rest := d.Difference(need)
		if rest.Len() == 0 {
			return nil, false
		}
		covered := false
		for _, o := range off {
			covered = covered || rest.IsSuperset(o)
		}
		if !covered {
			off = append(off, rest)
			lits = append(lits, literal{gate: m.gateFor(rest), on: false})
		}
	}
	for _, n := range nodes {
		if m.holds(lits, n.v) != present(n) {
			return nil, false
		}
	}
	return lits, true
}

// holds reports whether every literal holds in variant v.
func (m *merger) holds(lits []literal, v *variant) bool {
	for _, l := range lits {
		if m.on(l.gate, v) != l.on {
			return false
		}
	}
	return true
}

// adders are the gates (or combinations) of the variants where present holds with the fewest
// gates: present is meant to hold when any of them is on.
func (m *merger) adders(nodes []at, owner sets.Set[string], present func(at) bool) []string {
	var mins []sets.Set[string]
	for _, n := range nodes {
		if !present(n) {
			continue
		}
		d := n.v.gates.Difference(owner)
		covered := false
		for _, o := range mins {
			covered = covered || d.IsSuperset(o)
		}
		if !covered {
			mins = append(mins, d)
		}
	}
	var out []string
	for _, d := range mins {
		if d.Len() == 0 {
			return nil
		}
		out = append(out, m.gateFor(d))
	}
	return out
}

func (m *merger) entryApplies(e *apiextensionsv1.FeatureGatedValidation, v *variant) bool {
	return m.on(e.FeatureGate, v) == e.Enabled
}

// enum gates enum values that only some variants allow: the node allows every value of every
// variant, and for each gate state that excludes values an entry lists the others.
func (m *merger) enum(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	ref := nodes[0]
	values := make([][]apiextensionsv1.JSON, len(nodes))
	distinct := sets.New[string]()
	for i, n := range nodes {
		values[i] = n.s.Enum
		if len(n.s.Enum) > 0 {
			js, _ := json.Marshal(sets.List(crdmerge.EnumSet(n.s.Enum)))
			distinct.Insert(string(js))
		}
	}
	// OpenShift's generator drops a feature-gate-aware enum from the files of gates that do
	// not change it: where the other files give the enum two forms, a file without any is
	// taken to have the base file's enum.
	if len(ref.s.Enum) > 0 && distinct.Len() > 1 {
		for i, n := range nodes {
			if len(n.s.Enum) == 0 {
				values[i] = ref.s.Enum
				m.quirks = append(m.quirks, Quirk{CRD: m.crd, File: n.v.file, Version: m.version, Path: nodePath(path), Keyword: "enum"})
			}
		}
	}
	same := true
	for i := range nodes {
		same = same && crdmerge.EnumSet(values[i]).Equal(crdmerge.EnumSet(values[0])) && (len(values[i]) == 0) == (len(values[0]) == 0)
	}
	if same {
		return
	}
	anyNone := false
	for i := range nodes {
		anyNone = anyNone || len(values[i]) == 0
	}
	out.Enum = nil
	orValues := map[string][]string{}
	if anyNone {
		// One form allows any value: the node allows any, and an entry holds each enum for
		// the gate state of the variants that have it.
		for i, n := range nodes {
			if len(values[i]) == 0 {
				continue
			}
			set := crdmerge.EnumSet(values[i])
			lits, ok := m.conjunction(nodes, owner, func(x at) bool {
				j := indexOf(nodes, x)
				return len(values[j]) > 0 && crdmerge.EnumSet(values[j]).Equal(set)
			})
			if !ok || len(lits) != 1 {
				m.fail(n.v.file, path, "the enum is %s here and absent in another file; gates cannot express that", enumText(values[i]))
				return
			}
			e := crdmerge.GatedEntry(out, lits[0].gate, lits[0].on)
			e.Enum = values[i]
		}
	} else {
		var union []apiextensionsv1.JSON
		seen := sets.New[string]()
		for i := range nodes {
			for _, v := range values[i] {
				if !seen.Has(string(v.Raw)) {
					seen.Insert(string(v.Raw))
					union = append(union, v)
				}
			}
		}
		out.Enum = union
		excluded := map[literal]sets.Set[string]{}
		var order []literal
		for _, v := range union {
			raw := string(v.Raw)
			present := func(x at) bool { return crdmerge.EnumSet(values[indexOf(nodes, x)]).Has(raw) }
			all := true
			for _, n := range nodes {
				all = all && present(n)
			}
			if all {
				continue
			}
			lits, ok := m.conjunction(nodes, owner, present)
			if !ok {
				// The value of either of several gates: entries intersect, so only a rule
				// can allow a value while any one of them is on.
				if adders := m.adders(nodes, owner, present); len(adders) > 1 && !present(nodes[0]) && m.anyOn(nodes, adders, present) {
					orValues[raw] = adders
					continue
				}
				m.fail(nodes[0].v.file, path, "the enum value %s is in some files and not in others in a way that no gate state expresses", raw)
				return
			}
			for _, l := range lits {
				// a value allowed only while l holds is excluded while it does not.
				neg := literal{gate: l.gate, on: !l.on}
				if excluded[neg] == nil {
					excluded[neg] = sets.New[string]()
					order = append(order, neg)
				}
				excluded[neg].Insert(raw)
			}
		}
		for _, l := range order {
			var allowed []apiextensionsv1.JSON
			for _, v := range union {
				if !excluded[l].Has(string(v.Raw)) {
					allowed = append(allowed, v)
				}
			}
			if len(allowed) == 0 {
				m.fail(nodes[0].v.file, path, "with gate %s %s no enum value would be allowed; gates cannot express that", l.gate, onOff(l.on))
				return
			}
			crdmerge.GatedEntry(out, l.gate, l.on).Enum = allowed
		}
		for _, v := range union {
			adders, ok := orValues[string(v.Raw)]
			if !ok {
				continue
			}
			var parts []string
			for _, g := range adders {
				parts = append(parts, m.cel(g))
			}
			out.XValidations = append(out.XValidations, apiextensionsv1.ValidationRule{
				Rule:    strings.Join(parts, " || ") + " || self != " + string(v.Raw),
				Message: fmt.Sprintf("%s is allowed only while one of the gates %s is on", string(v.Raw), strings.Join(adders, ", ")),
			})
		}
	}
	for i, n := range nodes {
		eff := crdmerge.EnumSet(out.Enum)
		none := len(out.Enum) == 0
		for j := range out.XFeatureGatedValidations {
			e := &out.XFeatureGatedValidations[j]
			if len(e.Enum) == 0 || !m.entryApplies(e, n.v) {
				continue
			}
			if none {
				eff, none = crdmerge.EnumSet(e.Enum), false
			} else {
				eff = eff.Intersection(crdmerge.EnumSet(e.Enum))
			}
		}
		for raw, adders := range orValues {
			if !m.anyGate(adders, n.v) {
				eff.Delete(raw)
			}
		}
		want := crdmerge.EnumSet(values[i])
		if none != (len(values[i]) == 0) || !eff.Equal(want) {
			m.fail(n.v.file, path, "the enum is %s here; the merged CRD would allow %v in this file's gate state", enumText(values[i]), sets.List(eff))
		}
	}
}

// anyGate reports whether any of gates is on in v.
func (m *merger) anyGate(gates []string, v *variant) bool {
	for _, g := range gates {
		if m.on(g, v) {
			return true
		}
	}
	return false
}

// anyOn reports whether present holds in exactly the variants where one of gates is on.
func (m *merger) anyOn(nodes []at, gates []string, present func(at) bool) bool {
	for _, n := range nodes {
		if m.anyGate(gates, n.v) != present(n) {
			return false
		}
	}
	return true
}

func indexOf(nodes []at, x at) int {
	for i, n := range nodes {
		if n.v == x.v {
			return i
		}
	}
	return -1
}

func enumText(values []apiextensionsv1.JSON) string {
	var parts []string
	for _, v := range values {
		parts = append(parts, string(v.Raw))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func nodePath(path string) string {
	if path == "" {
		return "."
	}
	return path
}

// required gates the fields that only some variants require: the node requires those all
// of them do, and an entry requires a field while a gate state that the variants requiring
// it share holds.
func (m *merger) required(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	all := sets.New[string]()
	for _, n := range nodes {
		all.Insert(n.s.Required...)
	}
	var native []string
	changed := false
	for _, f := range sets.List(all) {
		present := func(x at) bool { return sets.New(x.s.Required...).Has(f) }
		every := true
		for _, n := range nodes {
			every = every && present(n)
		}
		if every {
			continue
		}
		changed = true
		var lits []literal
		if present(nodes[0]) {
			// required unless a gate is on: one gate off.
			l, ok := m.conjunction(nodes, owner, present)
			if !ok || len(l) != 1 {
				m.fail(nodes[0].v.file, path, "the field %s is required here and not in other files in a way that one gate state cannot express", f)
				continue
			}
			lits = l
		} else {
			for _, g := range m.adders(nodes, owner, present) {
				lits = append(lits, literal{gate: g, on: true})
			}
		}
		for _, l := range lits {
			e := crdmerge.GatedEntry(out, l.gate, l.on)
			e.Required = append(e.Required, f)
		}
		for _, n := range nodes {
			req := false
			for _, l := range lits {
				req = req || m.on(l.gate, n.v) == l.on
			}
			if req != present(n) {
				m.fail(n.v.file, path, "the field %s is required in some files and not in others in a way that gate states cannot express", f)
				break
			}
		}
	}
	if !changed {
		return
	}
	for _, f := range nodes[0].s.Required {
		every := true
		for _, n := range nodes {
			every = every && sets.New(n.s.Required...).Has(f)
		}
		if every {
			native = append(native, f)
		}
	}
	out.Required = native
}

// rules guards the x-kubernetes-validations rules that only some variants have with the
// gates of the variants that have them.
//
// OpenShift's generator leaves a feature-gate-aware rule out of the files of the gates that do
// not change it; but a rule can also hold only while no gate at all is on. The per-gate files
// cannot tell these apart: where a rule of the first file is missing from the files of two or
// more gates, both readings are tried, and the feature sets' CRDs decide (the first reading
// that gives each feature set's rules wins; without feature sets, the files as they are).
func (m *merger) rules(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string], fsNodes []at) {
	saved := len(m.errs)
	result, quirks, fsOK := m.rulesReading(path, nodes, owner, fsNodes, false)
	if !fsOK || len(m.errs) > saved {
		// the files as they are do not give the feature sets' rules: try the other reading.
		errs := m.errs
		m.errs = m.errs[:saved:saved]
		r2, q2, ok2 := m.rulesReading(path, nodes, owner, fsNodes, true)
		if ok2 && len(m.errs) == saved {
			result, quirks = r2, q2
		}
		if !(ok2 && len(m.errs) == saved) {
			m.errs = errs
		}
	}
	m.quirks = append(m.quirks, quirks...)
	out.XValidations = result
}

// ruleKey identifies a rule; the feature sets' CRDs are compared without fieldPath and
// reason, which OpenShift's per-gate files may lack.
func ruleKey(r apiextensionsv1.ValidationRule, loose bool) string {
	if loose {
		r.FieldPath, r.Reason = "", nil
	}
	js, _ := json.Marshal(r)
	return string(js)
}

// rulesReading merges the rules of nodes, reading a missing rule as OpenShift's generator
// leaving it out when quirk is set. fsOK reports whether the result gives every feature
// set's CRD the rules it has (among those some file has).
func (m *merger) rulesReading(path string, nodes []at, owner sets.Set[string], fsNodes []at, quirk bool) (apiextensionsv1.ValidationRules, []Quirk, bool) {
	key := func(r apiextensionsv1.ValidationRule) string { return ruleKey(r, false) }
	var quirks []Quirk
	var order []apiextensionsv1.ValidationRule
	seen := sets.New[string]()
	for _, n := range nodes {
		for _, r := range n.s.XValidations {
			if k := key(r); !seen.Has(k) {
				seen.Insert(k)
				order = append(order, r)
			}
		}
	}
	has := make([]sets.Set[string], len(nodes))
	for i, n := range nodes {
		has[i] = sets.New[string]()
		for _, r := range n.s.XValidations {
			has[i].Insert(key(r))
		}
	}
	// OpenShift's generator leaves a feature-gate-aware rule out of the files of the gates
	// that do not change it, as it does enums and bounds. A rule of the first file that the
	// files of two or more gates lack is taken to be kept by those of them that add no rule
	// of their own at the node.
	adds := make([]bool, len(nodes))
	for i, n := range nodes {
		for _, r := range n.s.XValidations {
			adds[i] = adds[i] || !has[0].Has(key(r))
		}
	}
	for _, r := range nodes[0].s.XValidations {
		if !quirk {
			break
		}
		k := key(r)
		var lacking []int
		for i := range nodes {
			if !has[i].Has(k) && nodes[i].v.gates.Difference(owner).Len() == 1 {
				lacking = append(lacking, i)
			}
		}
		if len(lacking) < 2 {
			continue
		}
		for _, i := range lacking {
			if !adds[i] {
				has[i].Insert(k)
				quirks = append(quirks, Quirk{CRD: m.crd, File: nodes[i].v.file, Version: m.version, Path: nodePath(path), Keyword: "XValidations"})
			}
		}
	}
	var result apiextensionsv1.ValidationRules
	// inFS reports, for each rule, in which feature sets the merged CRD has it.
	inFS := map[string]func(*variant) bool{}
	for _, r := range order {
		k := key(r)
		present := func(x at) bool { return has[indexOf(nodes, x)].Has(k) }
		every := true
		for _, n := range nodes {
			every = every && present(n)
		}
		if every {
			result = append(result, r)
			inFS[k] = func(*variant) bool { return true }
			continue
		}
		var guard string
		if lits, ok := m.conjunction(nodes, owner, present); ok {
			inFS[k] = func(v *variant) bool { return m.holds(lits, v) }
			var parts []string
			for _, l := range lits {
				if l.on {
					parts = append(parts, "!"+m.cel(l.gate))
				} else {
					parts = append(parts, m.cel(l.gate))
				}
			}
			guard = strings.Join(parts, " || ")
			if len(lits) == 0 {
				guard = ""
			}
		} else if adders := m.adders(nodes, owner, present); len(adders) > 0 && !present(nodes[0]) {
			var parts []string
			for _, g := range adders {
				parts = append(parts, m.cel(g))
			}
			ok := true
			for _, n := range nodes {
				any := false
				for _, g := range adders {
					any = any || m.on(g, n.v)
				}
				ok = ok && any == present(n)
			}
			if !ok {
				m.fail(nodes[0].v.file, path, "the rule %q is in some files and not in others in a way that gate states cannot express", r.Rule)
				continue
			}
			guard = "!(" + strings.Join(parts, " || ") + ")"
			inFS[k] = func(v *variant) bool { return m.anyGate(adders, v) }
		} else {
			m.fail(nodes[0].v.file, path, "the rule %q is in some files and not in others in a way that gate states cannot express", r.Rule)
			continue
		}
		g := *r.DeepCopy()
		if guard != "" {
			g.Rule = guard + " || (" + r.Rule + ")"
		}
		result = append(result, g)
	}
	fsOK := true
	for _, n := range fsNodes {
		has := sets.New[string]()
		for _, r := range n.s.XValidations {
			has.Insert(ruleKey(r, true))
		}
		for _, r := range order {
			if f, ok := inFS[key(r)]; ok && f(n.v) != has.Has(ruleKey(r, true)) {
				fsOK = false
			}
		}
	}
	return result, quirks, fsOK
}

// cel is the CEL expression of a gate being on: featureGates.X, the conjunction of a
// combination's gates, or the disjunction of the gates an any-of gate requires any of.
func (m *merger) cel(gate string) string {
	if anyOf, ok := m.anyCombos[gate]; ok {
		var parts []string
		for _, g := range anyOf {
			parts = append(parts, m.cel(g))
		}
		return "(" + strings.Join(parts, " || ") + ")"
	}
	if req, ok := m.combos[gate]; ok {
		var parts []string
		for _, g := range req {
			parts = append(parts, "featureGates."+g)
		}
		return "(" + strings.Join(parts, " && ") + ")"
	}
	return "featureGates." + gate
}

// bound is one bound keyword, read as a float (nil: no bound).
type bound struct {
	name string
	max  bool
	get  func(*apiextensionsv1.JSONSchemaProps) *float64
	set  func(*apiextensionsv1.JSONSchemaProps, *float64)
}

func intBound(name string, max bool, field func(*apiextensionsv1.JSONSchemaProps) **int64) bound {
	return bound{name: name, max: max,
		get: func(s *apiextensionsv1.JSONSchemaProps) *float64 {
			if p := *field(s); p != nil {
				f := float64(*p)
				return &f
			}
			return nil
		},
		set: func(s *apiextensionsv1.JSONSchemaProps, v *float64) { *field(s) = toInt(v) },
	}
}

var bounds = []struct {
	b        bound
	setEntry func(*apiextensionsv1.FeatureGatedValidation, *float64)
}{
	{intBound("maxItems", true, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MaxItems }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MaxItems = toInt(v) }},
	{intBound("minItems", false, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MinItems }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MinItems = toInt(v) }},
	{intBound("maxLength", true, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MaxLength }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MaxLength = toInt(v) }},
	{intBound("minLength", false, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MinLength }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MinLength = toInt(v) }},
	{intBound("maxProperties", true, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MaxProperties }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MaxProperties = toInt(v) }},
	{intBound("minProperties", false, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MinProperties }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MinProperties = toInt(v) }},
	{bound{name: "maximum", max: true, get: func(s *apiextensionsv1.JSONSchemaProps) *float64 { return s.Maximum },
		set: func(s *apiextensionsv1.JSONSchemaProps, v *float64) { s.Maximum = v }},
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.Maximum = v }},
	{bound{name: "minimum", max: false, get: func(s *apiextensionsv1.JSONSchemaProps) *float64 { return s.Minimum },
		set: func(s *apiextensionsv1.JSONSchemaProps, v *float64) { s.Minimum = v }},
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.Minimum = v }},
}

func toInt(v *float64) *int64 {
	if v == nil {
		return nil
	}
	i := int64(*v)
	return &i
}

// bounds gates the bounds that differ: the node keeps the loosest, an entry holds a tighter
// one while a gate state holds.
func (m *merger) bounds(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	for _, bb := range bounds {
		b := bb.b
		vals := make([]*float64, len(nodes))
		same := true
		for i, n := range nodes {
			vals[i] = b.get(n.s)
			same = same && reflect.DeepEqual(vals[i], vals[0])
		}
		if same {
			continue
		}
		// OpenShift's generator drops a feature-gate-aware bound from the files of gates
		// that do not change it, as it does enums (see enum).
		if vals[0] != nil {
			distinct := sets.New[float64]()
			for _, v := range vals {
				if v != nil {
					distinct.Insert(*v)
				}
			}
			if distinct.Len() > 1 {
				for i, n := range nodes {
					if vals[i] == nil {
						vals[i] = vals[0]
						m.quirks = append(m.quirks, Quirk{CRD: m.crd, File: n.v.file, Version: m.version, Path: nodePath(path), Keyword: b.name})
					}
				}
			}
		}
		// tighter reports whether a is tighter than b (nil is no bound).
		tighter := func(a, c *float64) bool {
			switch {
			case a == nil:
				return false
			case c == nil:
				return true
			case b.max:
				return *a < *c
			default:
				return *a > *c
			}
		}
		var loose *float64
		for i, v := range vals {
			if i == 0 || tighter(loose, v) {
				loose = v
			}
		}
		b.set(out, loose)
		entries := map[literal]*float64{}
		var order []literal
		put := func(l literal, v *float64) {
			if cur, ok := entries[l]; ok && !tighter(v, cur) {
				return
			} else if !ok {
				order = append(order, l)
			}
			entries[l] = v
		}
		eff := func(v *variant) *float64 {
			cur := loose
			for l, e := range entries {
				if m.on(l.gate, v) == l.on && tighter(e, cur) {
					cur = e
				}
			}
			return cur
		}
		// The base value holds while the gates that loosen it are off.
		for i, n := range nodes[1:] {
			if tighter(vals[0], vals[i+1]) {
				d := n.v.gates.Difference(owner)
				if d.Len() == 1 {
					put(literal{gate: m.gateFor(d), on: false}, vals[0])
				}
			}
		}
		for i, n := range nodes {
			if cur := eff(n.v); tighter(vals[i], cur) {
				d := n.v.gates.Difference(owner)
				if d.Len() == 0 {
					m.fail(n.v.file, path, "%s is %s here; gates cannot express that", b.name, fmtBound(vals[i]))
					break
				}
				put(literal{gate: m.gateFor(d), on: true}, vals[i])
			}
		}
		for _, l := range order {
			bb.setEntry(crdmerge.GatedEntry(out, l.gate, l.on), entries[l])
		}
		for i, n := range nodes {
			if got := eff(n.v); !reflect.DeepEqual(got, vals[i]) {
				m.fail(n.v.file, path, "%s is %s here, but the merged CRD would give %s in this file's gate state: the bound of either of two gates cannot be gated", b.name, fmtBound(vals[i]), fmtBound(got))
				break
			}
		}
	}
}

func fmtBound(v *float64) string {
	if v == nil {
		return "unset"
	}
	if *v == math.Trunc(*v) {
		return fmt.Sprintf("%d", int64(*v))
	}
	return fmt.Sprint(*v)
}

// strings gates a pattern or a format that differs: the node has none where the variants
// disagree, and an entry holds each variant's while its gate state holds.
func (m *merger) strings(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	for _, kw := range []struct {
		name  string
		get   func(*apiextensionsv1.JSONSchemaProps) string
		set   func(*apiextensionsv1.JSONSchemaProps, string)
		entry func(*apiextensionsv1.FeatureGatedValidation) *string
	}{
		{"pattern", func(s *apiextensionsv1.JSONSchemaProps) string { return s.Pattern }, func(s *apiextensionsv1.JSONSchemaProps, v string) { s.Pattern = v },
			func(e *apiextensionsv1.FeatureGatedValidation) *string { return &e.Pattern }},
		{"format", func(s *apiextensionsv1.JSONSchemaProps) string { return s.Format }, func(s *apiextensionsv1.JSONSchemaProps, v string) { s.Format = v },
			func(e *apiextensionsv1.FeatureGatedValidation) *string { return &e.Format }},
	} {
		same := true
		for _, n := range nodes {
			same = same && kw.get(n.s) == kw.get(nodes[0].s)
		}
		if same {
			continue
		}
		kw.set(out, "")
		for _, n := range nodes {
			v := kw.get(n.s)
			if v == "" {
				continue
			}
			lits, ok := m.conjunction(nodes, owner, func(x at) bool { return kw.get(x.s) == v })
			if !ok || len(lits) != 1 {
				m.fail(n.v.file, path, "the %s %q is in some files and not in others in a way that one gate state cannot express", kw.name, v)
				return
			}
			p := kw.entry(crdmerge.GatedEntry(out, lits[0].gate, lits[0].on))
			if *p != "" && *p != v {
				m.fail(n.v.file, path, "two %ss would apply with gate %s %s", kw.name, lits[0].gate, onOff(lits[0].on))
				return
			}
			*p = v
		}
		for _, n := range nodes {
			got := sets.New[string]()
			for j := range out.XFeatureGatedValidations {
				if e := &out.XFeatureGatedValidations[j]; m.entryApplies(e, n.v) && *kw.entry(e) != "" {
					got.Insert(*kw.entry(e))
				}
			}
			want := sets.New[string]()
			if v := kw.get(n.s); v != "" {
				want.Insert(v)
			}
			if !got.Equal(want) {
				m.fail(n.v.file, path, "the %s is %q here, but the merged CRD would apply %v in this file's gate state", kw.name, kw.get(n.s), sets.List(got))
			}
		}
	}
}
