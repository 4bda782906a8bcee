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
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
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
