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

package cel

import "testing"

func TestGuardHolds(t *testing.T) {
	states := map[string]bool{"On": true, "Off": false}
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{expr: "!featureGates.Off || (self.all(x, self.exists_one(y, x == y)))", want: true},
		{expr: "!featureGates.On || (self.all(x, self.exists_one(y, x == y)))", want: false},
		{expr: "featureGates.On || self.size() < 3", want: true},
		{expr: "self.size() < 3 || featureGates.On", want: true},
		{expr: "!(featureGates.On && featureGates.Off) || self.size() < 3", want: true},
		{expr: "!(featureGates.On && featureGates.On) || self.size() < 3", want: false},
		{expr: "!featureGates.On || !featureGates.Off || (self.x)", want: true},
		{expr: "!featureGates.On || featureGates.Off || (self.x)", want: false},
		{expr: "!featureGates.Unknown || self.x", want: true},
		{expr: "true || self.x", want: true},
		// not a disjunction at the top: the guard does not decide the whole rule.
		{expr: "!featureGates.Off && self.x", want: false},
		{expr: "(!featureGates.Off || self.x) ? self.y : self.z", want: false},
		{expr: "!featureGates.Off", want: false},
		// an operand that reads anything but the gates is no guard.
		{expr: "(featureGates.On && self.x) || self.y", want: false},
		{expr: "has(featureGates.On) || self.y", want: false},
		{expr: "self.featureGates.On || self.y", want: false},
		{expr: "", want: false},
		{expr: "!featureGates.Off || (", want: false},
	} {
		if got := GuardHolds(tc.expr, states); got != tc.want {
			t.Errorf("GuardHolds(%q) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}
