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

import (
	"fmt"
	"reflect"
	"testing"

	"k8s.io/utils/ptr"
)

func TestEnabled(t *testing.T) {
	tests := []struct {
		name       string
		preRelease string
		enabled    *bool
		def        *bool
		want       bool
	}{
		{name: "stable is enabled", preRelease: Stable, want: true},
		{name: "stable ignores enabled=false", preRelease: Stable, enabled: ptr.To(false), want: true},
		{name: "stable ignores default=false", preRelease: Stable, def: ptr.To(false), want: true},
		{name: "enabled=true wins over alpha", preRelease: Alpha, enabled: ptr.To(true), want: true},
		{name: "enabled=false wins over beta", preRelease: Beta, enabled: ptr.To(false), want: false},
		{name: "enabled wins over default", preRelease: Alpha, enabled: ptr.To(true), def: ptr.To(false), want: true},
		{name: "enabled=false wins over default=true", preRelease: Beta, enabled: ptr.To(false), def: ptr.To(true), want: false},
		{name: "default=true decides", preRelease: Deprecated, def: ptr.To(true), want: true},
		{name: "default=false decides for beta", preRelease: Beta, def: ptr.To(false), want: false},
		{name: "beta is enabled", preRelease: Beta, want: true},
		{name: "alpha is disabled", preRelease: Alpha, want: false},
		{name: "deprecated without default is disabled", preRelease: Deprecated, want: false},
		{name: "unknown stage is disabled", preRelease: "gamma", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Enabled(tc.preRelease, tc.enabled, tc.def); got != tc.want {
				t.Errorf("Enabled(%q, %v, %v) = %v, want %v", tc.preRelease, tc.enabled, tc.def, got, tc.want)
			}
		})
	}
}

func TestStates(t *testing.T) {
	tests := []struct {
		name  string
		specs []GateSpec
		want  map[string]bool
	}{
		{name: "none"},
		{name: "only unnamed", specs: []GateSpec{{PreRelease: Stable}}},
		{
			name: "each rule",
			specs: []GateSpec{
				{Name: "S", PreRelease: Stable, Enabled: ptr.To(false)},
				{Name: "E", PreRelease: Alpha, Enabled: ptr.To(true), Default: ptr.To(false)},
				{Name: "D", PreRelease: Beta, Default: ptr.To(false)},
				{Name: "B", PreRelease: Beta},
				{Name: "A", PreRelease: Alpha},
				{Name: "X", PreRelease: Deprecated},
			},
			want: map[string]bool{"S": true, "E": true, "D": false, "B": true, "A": false, "X": false},
		},
		{name: "first of a repeated name wins", specs: []GateSpec{{Name: "G", PreRelease: Beta}, {Name: "G", PreRelease: Alpha}}, want: map[string]bool{"G": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := States(tc.specs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("States() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestGateStates(t *testing.T) {
	alpha := func(name string, enabled *bool, requires ...string) GateSpec {
		return GateSpec{Name: name, PreRelease: Alpha, Enabled: enabled, Requires: requires}
	}
	stable := func(name string, requires ...string) GateSpec {
		return GateSpec{Name: name, PreRelease: Stable, Requires: requires}
	}
	anyOf := func(name string, anyOf ...string) GateSpec {
		return GateSpec{Name: name, PreRelease: Stable, RequiresAnyOf: anyOf}
	}
	on, off := ptr.To(true), ptr.To(false)
	tests := []struct {
		name  string
		specs []GateSpec
		want  map[string]GateState
	}{
		{
			name:  "without requires, own state",
			specs: []GateSpec{alpha("A", on), alpha("B", nil)},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "B": {}},
		},
		{
			name:  "combination: both off",
			specs: []GateSpec{alpha("A", nil), alpha("B", nil), stable("AB", "A", "B")},
			want:  map[string]GateState{"A": {}, "B": {}, "AB": {Own: true, Unmet: []string{"A", "B"}}},
		},
		{
			name:  "combination: one on is not enough",
			specs: []GateSpec{alpha("A", on), alpha("B", nil), stable("AB", "A", "B")},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "B": {}, "AB": {Own: true, Unmet: []string{"B"}}},
		},
		{
			name:  "combination: the other one promoted to stable alone is not enough",
			specs: []GateSpec{alpha("A", nil), stable("B"), stable("AB", "A", "B")},
			want:  map[string]GateState{"A": {}, "B": {Own: true, Enabled: true}, "AB": {Own: true, Unmet: []string{"A"}}},
		},
		{
			name:  "combination: both on",
			specs: []GateSpec{alpha("A", on), stable("B"), stable("AB", "A", "B")},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "B": {Own: true, Enabled: true}, "AB": {Own: true, Enabled: true}},
		},
		{
			name:  "an alpha combination also needs its own enabled",
			specs: []GateSpec{alpha("A", on), alpha("B", on), alpha("AB", off, "A", "B")},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "B": {Own: true, Enabled: true}, "AB": {}},
		},
		{
			name:  "own state off: no unmet",
			specs: []GateSpec{alpha("A", nil), alpha("AB", nil, "A")},
			want:  map[string]GateState{"A": {}, "AB": {}},
		},
		{
			name:  "transitive: C requires B requires A, A off",
			specs: []GateSpec{stable("C", "B"), stable("B", "A"), alpha("A", nil)},
			want:  map[string]GateState{"A": {}, "B": {Own: true, Unmet: []string{"A"}}, "C": {Own: true, Unmet: []string{"B"}}},
		},
		{
			name:  "transitive: all on",
			specs: []GateSpec{stable("C", "B"), stable("B", "A"), alpha("A", on)},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "B": {Own: true, Enabled: true}, "C": {Own: true, Enabled: true}},
		},
		{
			name:  "an undeclared requirement is disabled",
			specs: []GateSpec{stable("AB", "Missing")},
			want:  map[string]GateState{"AB": {Own: true, Unmet: []string{"Missing"}}},
		},
		{
			name:  "a cycle is disabled and terminates",
			specs: []GateSpec{stable("A", "B"), stable("B", "C"), stable("C", "A"), stable("D", "A")},
			want: map[string]GateState{
				"A": {Own: true, Unmet: []string{"B"}}, "B": {Own: true, Unmet: []string{"C"}},
				"C": {Own: true, Unmet: []string{"A"}}, "D": {Own: true, Unmet: []string{"A"}},
			},
		},
		{
			name:  "a gate that requires itself is disabled",
			specs: []GateSpec{stable("A", "A")},
			want:  map[string]GateState{"A": {Own: true, Unmet: []string{"A"}}},
		},
		{
			name:  "any of: none on",
			specs: []GateSpec{alpha("A", nil), alpha("B", nil), anyOf("AorB", "A", "B")},
			want:  map[string]GateState{"A": {}, "B": {}, "AorB": {Own: true, UnmetAnyOf: []string{"A", "B"}}},
		},
		{
			name:  "any of: one on is enough",
			specs: []GateSpec{alpha("A", nil), alpha("B", on), anyOf("AorB", "A", "B")},
			want:  map[string]GateState{"A": {}, "B": {Own: true, Enabled: true}, "AorB": {Own: true, Enabled: true}},
		},
		{
			name:  "any of: both on",
			specs: []GateSpec{stable("A"), alpha("B", on), anyOf("AorB", "A", "B")},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "B": {Own: true, Enabled: true}, "AorB": {Own: true, Enabled: true}},
		},
		{
			name:  "any of: an alpha gate also needs its own enabled",
			specs: []GateSpec{stable("A"), {Name: "AorB", PreRelease: Alpha, RequiresAnyOf: []string{"A", "B"}}},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "AorB": {}},
		},
		{
			name: "any of and requires: both must hold",
			specs: []GateSpec{alpha("A", on), alpha("B", nil), alpha("C", nil),
				{Name: "X", PreRelease: Stable, Requires: []string{"A"}, RequiresAnyOf: []string{"B", "C"}}},
			want: map[string]GateState{"A": {Own: true, Enabled: true}, "B": {}, "C": {}, "X": {Own: true, UnmetAnyOf: []string{"B", "C"}}},
		},
		{
			name: "any of and requires: one of each",
			specs: []GateSpec{alpha("A", nil), alpha("B", nil), alpha("C", on),
				{Name: "X", PreRelease: Stable, Requires: []string{"A"}, RequiresAnyOf: []string{"B", "C"}}},
			want: map[string]GateState{"A": {}, "B": {}, "C": {Own: true, Enabled: true}, "X": {Own: true, Unmet: []string{"A"}}},
		},
		{
			name:  "any of: transitive, through a combination that is off",
			specs: []GateSpec{alpha("A", on), alpha("B", nil), stable("AB", "A", "B"), anyOf("Any", "AB")},
			want:  map[string]GateState{"A": {Own: true, Enabled: true}, "B": {}, "AB": {Own: true, Unmet: []string{"B"}}, "Any": {Own: true, UnmetAnyOf: []string{"AB"}}},
		},
		{
			name:  "any of: an undeclared name is disabled",
			specs: []GateSpec{anyOf("X", "Missing")},
			want:  map[string]GateState{"X": {Own: true, UnmetAnyOf: []string{"Missing"}}},
		},
		{
			// C is on, so without the cycle rule A would be enabled or not depending on where the
			// walk starts; every gate on the cycle is disabled in every order.
			name:  "any of: a cycle through another enabled gate is still disabled",
			specs: []GateSpec{anyOf("A", "B", "C"), stable("B", "A"), alpha("C", on), stable("D", "A")},
			want: map[string]GateState{
				"A": {Own: true}, "B": {Own: true, Unmet: []string{"A"}},
				"C": {Own: true, Enabled: true}, "D": {Own: true, Unmet: []string{"A"}},
			},
		},
		{
			name:  "first of a repeated name wins",
			specs: []GateSpec{stable("A", "B"), stable("A"), alpha("B", nil)},
			want:  map[string]GateState{"A": {Own: true, Unmet: []string{"B"}}, "B": {}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Every order of evaluation must give the same answer: try each rotation.
			for r := range tc.specs {
				specs := append(append([]GateSpec{}, tc.specs[r:]...), tc.specs[:r]...)
				if tc.name == "first of a repeated name wins" && r > 0 {
					break
				}
				got := GateStates(specs)
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("rotation %d: GateStates() = %v, want %v", r, got, tc.want)
				}
				states := States(specs)
				for name, st := range tc.want {
					if states[name] != st.Enabled {
						t.Errorf("rotation %d: States()[%s] = %v, want %v", r, name, states[name], st.Enabled)
					}
				}
			}
		})
	}
}

func TestGateStatesLongChain(t *testing.T) {
	// A chain of 128 gates (the most a CRD may declare) and a cycle through all of them
	// settle without recursion trouble.
	const n = 128
	specs := make([]GateSpec, n)
	for i := range specs {
		specs[i] = GateSpec{Name: fmt.Sprintf("G%d", i), PreRelease: Stable}
		if i > 0 {
			specs[i].Requires = []string{fmt.Sprintf("G%d", i-1)}
		}
	}
	if st := GateStates(specs); !st[fmt.Sprintf("G%d", n-1)].Enabled {
		t.Errorf("the end of an enabled chain is disabled: %v", st[fmt.Sprintf("G%d", n-1)])
	}
	specs[0].Requires = []string{fmt.Sprintf("G%d", n-1)}
	for name, st := range GateStates(specs) {
		if st.Enabled {
			t.Errorf("%s on a cycle is enabled", name)
		}
	}
}
