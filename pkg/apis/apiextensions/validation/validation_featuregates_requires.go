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
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// requiresEdge is one entry of a gate's requires or requiresAnyOf: list is the field's name.
type requiresEdge struct {
	list string
	j    int
	name string
}

// requiresEdges returns the entries of gate's requires, then of its requiresAnyOf.
func requiresEdges(gate *apiextensions.CustomResourceDefinitionFeatureGate) []requiresEdge {
	if len(gate.Requires) == 0 && len(gate.RequiresAnyOf) == 0 {
		return nil
	}
	edges := make([]requiresEdge, 0, len(gate.Requires)+len(gate.RequiresAnyOf))
	for j, name := range gate.Requires {
		edges = append(edges, requiresEdge{list: "requires", j: j, name: name})
	}
	for j, name := range gate.RequiresAnyOf {
		edges = append(edges, requiresEdge{list: "requiresAnyOf", j: j, name: name})
	}
	return edges
}

// validateCustomFeatureGateRequires validates the requires and requiresAnyOf of every gate:
// each entry names another gate of the CRD (NotFound, Invalid for the gate itself), at most
// once in its list (Duplicate), and the entries of all gates, of both lists, form no cycle
// (Invalid at the entry that closes it, naming the cycle). names holds the declared gate
// names. Each gate is visited once and each entry followed once, so the cost is linear in
// the number of entries.
func validateCustomFeatureGateRequires(gates []apiextensions.CustomResourceDefinitionFeatureGate, names map[string]bool, gatesPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	index := make(map[string]int, len(gates))
	hasRequires := false
	for i := range gates {
		if _, seen := index[gates[i].Name]; !seen && gates[i].Name != "" {
			index[gates[i].Name] = i
		}
		if len(gates[i].Requires) > 0 || len(gates[i].RequiresAnyOf) > 0 {
			hasRequires = true
		}
	}
	if !hasRequires {
		return nil
	}
	entryPath := func(i int, e requiresEdge) *field.Path {
		return gatesPath.Index(i).Child(e.list).Index(e.j)
	}
	for i := range gates {
		gate := &gates[i]
		inList := map[string]bool{}
		for _, e := range requiresEdges(gate) {
			p := entryPath(i, e)
			key := e.list + "/" + e.name
			switch {
			case e.name == gate.Name:
				allErrs = append(allErrs, field.Invalid(p, e.name, "a feature gate cannot require itself"))
			case inList[key]:
				allErrs = append(allErrs, field.Duplicate(p, e.name))
			case !names[e.name]:
				nf := field.NotFound(p, e.name)
				nf.Detail = "must name a feature gate declared in spec.customFeatureGates.featureGates"
				allErrs = append(allErrs, nf)
			}
			inList[key] = true
		}
	}
	// Cycles, by a depth-first walk over the entries that name another declared gate. An entry
	// that reaches a gate still on the walk's stack closes a cycle.
	const (
		unvisited = iota
		onStack
		done
	)
	state := make([]int, len(gates))
	var stack []string
	var visit func(i int)
	visit = func(i int) {
		state[i] = onStack
		stack = append(stack, gates[i].Name)
		for _, e := range requiresEdges(&gates[i]) {
			k, ok := index[e.name]
			if !ok || k == i {
				continue
			}
			switch state[k] {
			case unvisited:
				visit(k)
			case onStack:
				start := 0
				for s := range stack {
					if stack[s] == e.name {
						start = s
					}
				}
				cycle := append(append([]string{}, stack[start:]...), e.name)
				allErrs = append(allErrs, field.Invalid(entryPath(i, e), e.name,
					fmt.Sprintf("%s must not form a cycle: %s", e.list, strings.Join(cycle, " -> "))))
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
	}
	for i := range gates {
		if state[i] == unvisited && gates[i].Name != "" {
			if k := index[gates[i].Name]; k == i {
				visit(i)
			}
		}
	}
	return allErrs
}

// RequiresWarnings returns a warning for each gate whose enabled is set to true while a gate
// it requires is disabled: the gate stays disabled until that gate is enabled. It reads the
// gate states as featuregates.GateStates gives them.
func RequiresWarnings(spec *apiextensions.CustomResourceDefinitionSpec) []string {
	if spec.CustomFeatureGates == nil || len(spec.CustomFeatureGates.FeatureGates) > MaxCustomFeatureGates {
		return nil
	}
	gates := spec.CustomFeatureGates.FeatureGates
	hasRequires := false
	for i := range gates {
		if len(gates[i].Requires) > 0 || len(gates[i].RequiresAnyOf) > 0 {
			hasRequires = true
			break
		}
	}
	if !hasRequires {
		return nil
	}
	states := featuregates.GateStates(featuregates.SpecsFromInternal(spec.CustomFeatureGates))
	base := field.NewPath("spec", "customFeatureGates", "featureGates")
	var warnings []string
	for i, g := range gates {
		if g.Enabled == nil || !*g.Enabled || (len(g.Requires) == 0 && len(g.RequiresAnyOf) == 0) {
			continue
		}
		st, ok := states[g.Name]
		if !ok || st.Enabled || (len(st.Unmet) == 0 && len(st.UnmetAnyOf) == 0) {
			continue
		}
		var until []string
		if len(st.Unmet) > 0 {
			until = append(until, fmt.Sprintf("%s %s enabled", joinList(st.Unmet, "and"), isAre(len(st.Unmet))))
		}
		if len(st.UnmetAnyOf) > 0 {
			until = append(until, fmt.Sprintf("%s is enabled", joinList(st.UnmetAnyOf, "or")))
		}
		warnings = append(warnings, fmt.Sprintf("%s: feature gate %s is set to enabled but stays disabled until %s",
			base.Index(i).Child("enabled"), g.Name, strings.Join(until, ", and ")))
	}
	return warnings
}

// joinList is "A", "A <conj> B" or "A, B <conj> C".
func joinList(names []string, conj string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
