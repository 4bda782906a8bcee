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
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// withCustomFeatureGatesCEL declares featureGates in the CEL environment that the CRD's
// x-kubernetes-validations rules (and the rules that validate its schema defaults) compile
// in, when the CRD declares custom feature gates. The values are those of this write, so a
// rule is checked against the gates as they will be stored. A CRD without gates keeps
// upstream's environment. It depends on the CRD having gates, not on the
// CRDFieldLevelVersioning feature: while that is off, the CRD strategy has already dropped
// the gates of a new CRD (so its rules that name featureGates fail to compile), and an
// existing CRD that kept its gates keeps compiling.
func withCustomFeatureGatesCEL(opts *validationOptions, spec *apiextensions.CustomResourceDefinitionSpec) {
	states := featuregates.States(featuregates.SpecsFromInternal(spec.CustomFeatureGates))
	if len(states) == 0 || opts.celEnvironmentSet == nil {
		return
	}
	envSet, err := cel.FeatureGatesEnvSet(opts.celEnvironmentSet, states)
	if err != nil {
		// Gate validation reports what made the declaration fail (for example a malformed
		// name); the rules that name featureGates then fail to compile.
		return
	}
	opts.celEnvironmentSet = envSet
	opts.celValidatorOptions = []cel.ValidatorOption{cel.WithBaseEnvSet(envSet)}
}

// UnusedGateWarnings returns a warning for each declared gate that guards no
// field path, that no version's schema marks with x-kubernetes-feature-gate, that no
// x-kubernetes-feature-gated-validations entry names, that no other gate requires, and that
// no x-kubernetes-validations rule or messageExpression of any version reads as
// featureGates.<Name>: such a gate does nothing.
func UnusedGateWarnings(spec *apiextensions.CustomResourceDefinitionSpec) []string {
	if spec.CustomFeatureGates == nil || len(spec.CustomFeatureGates.FeatureGates) > MaxCustomFeatureGates {
		return nil
	}
	unused := map[string]int{}
	for i, g := range spec.CustomFeatureGates.FeatureGates {
		if len(g.FieldPaths) == 0 && g.Name != "" {
			unused[g.Name] = i
		}
	}
	if len(unused) == 0 {
		return nil
	}
	for _, g := range spec.CustomFeatureGates.FeatureGates {
		// A gate that another requires takes part in that gate's state.
		for _, name := range g.Requires {
			delete(unused, name)
		}
		for _, name := range g.RequiresAnyOf {
			delete(unused, name)
		}
	}
	for name := range featureGateMarkNames(spec) {
		delete(unused, name)
	}
	for name := range featureGatedValidationNames(spec) {
		delete(unused, name)
	}
	markUsed := func(expression string) {
		names, all := cel.FeatureGatesUsedBy(expression)
		if all {
			clear(unused)
		}
		for _, n := range names {
			delete(unused, n)
		}
	}
	if spec.Validation != nil {
		forEachValidationRule(spec.Validation.OpenAPIV3Schema, markUsed)
	}
	for _, v := range spec.Versions {
		if v.Schema != nil {
			forEachValidationRule(v.Schema.OpenAPIV3Schema, markUsed)
		}
	}
	if len(unused) == 0 {
		return nil
	}
	indices := make([]int, 0, len(unused))
	for _, i := range unused {
		indices = append(indices, i)
	}
	sort.Ints(indices)
	base := field.NewPath("spec", "customFeatureGates", "featureGates")
	warnings := make([]string, 0, len(indices))
	for _, i := range indices {
		warnings = append(warnings, fmt.Sprintf("%s: feature gate %s has no fieldPaths, no schema marks it with x-kubernetes-feature-gate, and no x-kubernetes-validations rule reads featureGates.%s, so it has no effect",
			base.Index(i), spec.CustomFeatureGates.FeatureGates[i].Name, spec.CustomFeatureGates.FeatureGates[i].Name))
	}
	return warnings
}

// forEachValidationRule calls f with the rule and messageExpression of every
// x-kubernetes-validations entry in s and below it.
func forEachValidationRule(s *apiextensions.JSONSchemaProps, f func(expression string)) {
	forEachSchema(s, func(s *apiextensions.JSONSchemaProps) {
		for _, r := range s.XValidations {
			f(r.Rule)
			f(r.MessageExpression)
		}
	})
}
