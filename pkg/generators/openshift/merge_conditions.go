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
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

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
