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

// States returns the enabled state of each declared gate, by Enabled, keyed by the gate's
// name: what x-kubernetes-validations rules read as featureGates.<Name>. Gates without a
// name are left out; for a repeated name (which CRD validation rejects) the first wins. It
// returns nil when specs declare no named gate.
func States(specs []GateSpec) map[string]bool {
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
