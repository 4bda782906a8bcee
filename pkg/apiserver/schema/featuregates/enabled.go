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

package featuregates

// The stages of a gate, as spelled in spec.customFeatureGates.featureGates[*].preRelease.
const (
	Alpha      = "alpha"
	Beta       = "beta"
	Stable     = "stable"
	Deprecated = "deprecated"
)

// Enabled decides whether a gate is enabled, by KEP-2608's rules, in order:
//  1. a stable gate is enabled;
//  2. else enabled decides, when it is set;
//  3. else def decides, when it is set;
//  4. else a beta gate is enabled;
//  5. else (alpha, deprecated, or an unknown stage) the gate is disabled.
func Enabled(preRelease string, enabled, def *bool) bool {
	switch {
	case preRelease == Stable:
		return true
	case enabled != nil:
		return *enabled
	case def != nil:
		return *def
	case preRelease == Beta:
		return true
	}
	return false
}

// GateState is a gate's state with what it requires (GateSpec.Requires) taken into account.
type GateState struct {
	// Own is the gate's own state, by Enabled.
	Own bool
	// Enabled is the gate's state: Own, and the state of every gate it requires, transitively.
	// Every reader of gate state (field gating, defaults, CEL's featureGates, gated keywords,
	// the published OpenAPI, warnings, pkg/apihelpers, the tools) uses this one.
	Enabled bool
	// Unmet names the gates of Requires that are not enabled, in the order of Requires, when
	// Own is true; it is nil otherwise. A name that no gate declares, or a gate on a cycle of
	// requires (both of which CRD validation rejects), counts as not enabled.
	Unmet []string
	// UnmetAnyOf is RequiresAnyOf when Own is true and none of its gates is enabled; it is
	// nil otherwise.
	UnmetAnyOf []string
}

// GateStates returns the state of each declared gate, keyed by the gate's name. A gate is
// enabled when its own state (Enabled) is, every gate it requires is enabled, and, when it
// has RequiresAnyOf, at least one of those gates is enabled; so a field, value or rule that
// needs several gates belongs to a gate that requires them, and one that each of several
// gates adds belongs to a gate that requires any of them. A name no gate declares, and every
// gate on a cycle of requires and requiresAnyOf, count as disabled, so that bad input can
// never loop or enable anything. Gates without a name are left out; for a
// repeated name the first wins. It returns nil when specs declare no named gate. Without
// any requires, it costs what States cost before requires existed.
func GateStates(specs []GateSpec) map[string]GateState {
	var states map[string]GateState
	var byName map[string]*GateSpec
	hasRequires := false
	for i := range specs {
		s := &specs[i]
		if s.Name == "" {
			continue
		}
		if states == nil {
			states = make(map[string]GateState, len(specs))
			byName = make(map[string]*GateSpec, len(specs))
		}
		if _, seen := byName[s.Name]; seen {
			continue
		}
		byName[s.Name] = s
		if len(s.Requires) > 0 || len(s.RequiresAnyOf) > 0 {
			hasRequires = true
		}
		own := Enabled(s.PreRelease, s.Enabled, s.Default)
		states[s.Name] = GateState{Own: own, Enabled: own}
	}
	if !hasRequires {
		return states
	}
	// Depth-first over requires: each gate is settled once, and a gate met again while it is
	// being settled lies on a cycle, which answers disabled. A gate on a cycle is disabled
	// whatever the order of the walk: with requiresAnyOf, a cycle member could otherwise be
	// enabled through another gate of its requiresAnyOf, depending on where the walk started.
	cyclic := onCycle(byName)
	settled := make(map[string]bool, len(byName))
	visiting := map[string]bool{}
	var visit func(name string) bool
	visit = func(name string) bool {
		s, ok := byName[name]
		if !ok || visiting[name] {
			return false
		}
		st := states[name]
		if settled[name] {
			return st.Enabled
		}
		visiting[name] = true
		if st.Own {
			for _, r := range s.Requires {
				if !visit(r) {
					st.Enabled = false
					st.Unmet = append(st.Unmet, r)
				}
			}
			if len(s.RequiresAnyOf) > 0 {
				any := false
				for _, r := range s.RequiresAnyOf {
					// Every gate is visited, so that each is settled once whatever the order.
					if visit(r) {
						any = true
					}
				}
				if !any {
					st.Enabled = false
					st.UnmetAnyOf = s.RequiresAnyOf
				}
			}
		}
		if cyclic[name] {
			st.Enabled = false
		}
		delete(visiting, name)
		settled[name] = true
		states[name] = st
		return st.Enabled
	}
	for name := range byName {
		visit(name)
	}
	return states
}

// States returns the state of each declared gate, by GateStates, keyed by the gate's name:
// what x-kubernetes-validations rules read as featureGates.<Name>. Gates without a name are
// left out; for a repeated name (which CRD validation rejects) the first wins. It returns
// nil when specs declare no named gate.
func States(specs []GateSpec) map[string]bool {
	if !anyRequires(specs) {
		var states map[string]bool
		for _, s := range specs {
			if s.Name == "" {
				continue
			}
			if states == nil {
				states = make(map[string]bool, len(specs))
			}
			if _, seen := states[s.Name]; !seen {
				states[s.Name] = Enabled(s.PreRelease, s.Enabled, s.Default)
			}
		}
		return states
	}
	gs := GateStates(specs)
	if gs == nil {
		return nil
	}
	states := make(map[string]bool, len(gs))
	for name, st := range gs {
		states[name] = st.Enabled
	}
	return states
}

// onCycle returns the gates that lie on a cycle of requires and requiresAnyOf (a gate that
// requires itself included), by Tarjan's strongly connected components: each gate and each
// entry is visited once. Names no gate declares are not followed.
func onCycle(byName map[string]*GateSpec) map[string]bool {
	var cyclic map[string]bool
	index := make(map[string]int, len(byName))
	low := make(map[string]int, len(byName))
	onStack := map[string]bool{}
	var stack []string
	next := 0
	var strong func(name string)
	strong = func(name string) {
		index[name], low[name] = next, next
		next++
		stack = append(stack, name)
		onStack[name] = true
		s := byName[name]
		self := false
		for _, list := range [][]string{s.Requires, s.RequiresAnyOf} {
			for _, r := range list {
				if _, ok := byName[r]; !ok {
					continue
				}
				self = self || r == name
				if _, seen := index[r]; !seen {
					strong(r)
					low[name] = min(low[name], low[r])
				} else if onStack[r] {
					low[name] = min(low[name], index[r])
				}
			}
		}
		if low[name] != index[name] {
			return
		}
		i := len(stack) - 1
		for stack[i] != name {
			i--
		}
		component := stack[i:]
		stack = stack[:i]
		for _, c := range component {
			delete(onStack, c)
		}
		if len(component) > 1 || self {
			if cyclic == nil {
				cyclic = map[string]bool{}
			}
			for _, c := range component {
				cyclic[c] = true
			}
		}
	}
	// The components do not depend on the order in which the gates are visited.
	for name := range byName {
		if _, seen := index[name]; !seen {
			strong(name)
		}
	}
	return cyclic
}

// anyRequires reports whether a gate of specs requires another (Requires or RequiresAnyOf).
func anyRequires(specs []GateSpec) bool {
	for i := range specs {
		if len(specs[i].Requires) > 0 || len(specs[i].RequiresAnyOf) > 0 {
			return true
		}
	}
	return false
}
