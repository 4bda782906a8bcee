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
