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
	// Requires names other gates of the CRD that must be enabled (transitively) for this
	// gate to be enabled.
	Requires []string
	// RequiresAnyOf names other gates of the CRD of which at least one must be enabled
	// (transitively) for this gate to be enabled.
	RequiresAnyOf []string
}

// FeatureGatedValidation adds validation keywords to a schema node while a custom feature
// gate is in a given state. While the entry applies, its keywords hold in addition to the
// node's own. Its DeepCopy is written by hand (deepcopy_featuregates.go): Enum holds
// interface values.
type FeatureGatedValidation struct {
	// FeatureGate names a gate declared in the CRD's spec.customFeatureGates.
	FeatureGate string
	// Enabled is the gate state in which the entry applies.
	Enabled bool

	Format           string
	Maximum          *float64
	ExclusiveMaximum bool
	Minimum          *float64
	ExclusiveMinimum bool
	MaxLength        *int64
	MinLength        *int64
	Pattern          string
	MaxItems         *int64
	MinItems         *int64
	MultipleOf       *float64
	Enum             []JSON
	MaxProperties    *int64
	MinProperties    *int64
	Required         []string
}
