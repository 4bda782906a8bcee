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

package apiextensions

// CustomFeatureGatePreRelease is the stage of development of the fields a custom feature
// gate guards.
type CustomFeatureGatePreRelease string

const (
	// CustomFeatureGateAlpha marks fields that are disabled unless a cluster admin enables them.
	CustomFeatureGateAlpha CustomFeatureGatePreRelease = "alpha"
	// CustomFeatureGateBeta marks fields that are enabled unless a cluster admin disables them.
	CustomFeatureGateBeta CustomFeatureGatePreRelease = "beta"
	// CustomFeatureGateStable marks fields that are always enabled.
	CustomFeatureGateStable CustomFeatureGatePreRelease = "stable"
	// CustomFeatureGateDeprecated marks fields that draw a warning when they are used.
	CustomFeatureGateDeprecated CustomFeatureGatePreRelease = "deprecated"
)

// CustomResourceDefinitionFeatureGates declares feature gates for fields of the custom
// resources of a CustomResourceDefinition (KEP-2608).
type CustomResourceDefinitionFeatureGates struct {
	// FeatureGates lists the gates. No field path may be guarded by two gates.
	FeatureGates []CustomResourceDefinitionFeatureGate
	// Component names the project responsible for these gates.
	Component *string
}

// CustomResourceDefinitionFeatureGate declares one feature gate and the fields it guards.
type CustomResourceDefinitionFeatureGate struct {
	// Name identifies the gate.
	Name string
	// PreRelease is the stage of the guarded fields.
	PreRelease CustomFeatureGatePreRelease
	// Enabled is the cluster admin's choice.
	Enabled *bool
	// Default is the CRD author's default, used when Enabled is not set.
	Default *bool
	// FieldDeprecationWarning replaces the default warning for a deprecated gate.
	FieldDeprecationWarning *string
	// FieldPaths are fields the gate guards, in the storage version's schema; marks
	// (x-kubernetes-feature-gate) in each version's schema may guard others.
	FieldPaths []string
}
