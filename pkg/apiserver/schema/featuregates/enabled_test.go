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
