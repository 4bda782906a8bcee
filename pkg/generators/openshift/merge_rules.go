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
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

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
