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
	"context"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// FuzzValidateCustomFeatureGates feeds arbitrary gates to the validator and the warnings.
// Neither may panic, and the validator must reject what the contract forbids.
func FuzzValidateCustomFeatureGates(f *testing.F) {
	f.Add("ReplicasFeatureGate", "alpha", ".spec.replicas", ".spec.foo.qux", "", byte(0))
	f.Add("Old", "deprecated", ".spec.containers[*].image", ".metadata.name", "use .spec.x\r\n", byte(7))
	f.Add("", "gamma", "spec[", ".spec..", "\xff", byte(255))
	f.Add("Ünïcode", "stable", ".spec.raw.a[*][*]", ".spec.replicas", "ok", byte(3))
	f.Fuzz(func(t *testing.T, name, preRelease, path1, path2, warning string, flags byte) {
		boolPtr := func(bit byte) *bool {
			if flags&(1<<bit) == 0 {
				return nil
			}
			v := flags&(1<<(bit+1)) != 0
			return &v
		}
		g := apiextensions.CustomResourceDefinitionFeatureGate{
			Name:       name,
			PreRelease: apiextensions.CustomFeatureGatePreRelease(preRelease),
			Enabled:    boolPtr(0),
			Default:    boolPtr(2),
			FieldPaths: []string{path1, path2},
		}
		if flags&(1<<4) != 0 {
			g.FieldDeprecationWarning = &warning
		}
		spec := featureGateTestSpec(g, apiextensions.CustomResourceDefinitionFeatureGate{Name: "Other", PreRelease: "beta", FieldPaths: []string{path2}})
		old := featureGateTestSpec(g)
		errs := validateCustomFeatureGates(spec, old.CustomFeatureGates, field.NewPath("spec", "customFeatureGates"))
		_ = UnresolvedGatedPathWarnings(spec, old)

		// The same path in two gates is always rejected: as a duplicate, or for itself.
		if path1 == path2 && !hasErrorAt(errs, "spec.customFeatureGates.featureGates[1].fieldPaths[0]") {
			t.Errorf("path %q in two gates was accepted: %v", path2, errs)
		}
		// A warning text with control characters never passes.
		if g.FieldDeprecationWarning != nil && strings.ContainsAny(warning, "\r\n\x00") && !hasErrorAt(errs, "spec.customFeatureGates.featureGates[0].fieldDeprecationWarning") {
			t.Errorf("warning %q was accepted: %v", warning, errs)
		}
	})
}

// fuzzCELIdentifier matches a ref that makes featureGates.<ref> a plain field selection.
var fuzzCELIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func hasErrorAt(errs field.ErrorList, path string) bool {
	for _, e := range errs {
		if e.Field == path {
			return true
		}
	}
	return false
}

// FuzzValidateCustomFeatureGatesInRules feeds CRDs whose x-kubernetes-validations rules and
// messageExpressions name gates to CRD validation and to the unused-gate warnings. Neither
// may panic; a rule that reads featureGates.<ref> compiles exactly when ref is the name of a
// declared (valid) gate.
func FuzzValidateCustomFeatureGatesInRules(f *testing.F) {
	f.Add("FastMode", "alpha", byte(0), "FastMode", "featureGates.FastMode || self != 'x'", "featureGates.FastMode ? 'a' : 'b'")
	f.Add("FastMode", "beta", byte(3), "SlowMode", "has(featureGates.FastMode)", "featureGates")
	f.Add("in", "stable", byte(1), "in", "featureGates.in", "'featureGates.in'")
	f.Add("", "gamma", byte(255), "", "featureGates.", "featureGates..X")
	f.Add("Ünïcode", "deprecated", byte(5), "Ünïcode", "self.all(x, featureGates.A)", "")
	f.Fuzz(func(t *testing.T, name, preRelease string, flags byte, ref, rule, messageExpression string) {
		g := apiextensions.CustomResourceDefinitionFeatureGate{Name: name, PreRelease: apiextensions.CustomFeatureGatePreRelease(preRelease)}
		if flags&1 != 0 {
			g.Enabled = ptr.To(flags&2 != 0)
		}
		if flags&4 != 0 {
			g.Default = ptr.To(flags&8 != 0)
		}
		if flags&16 != 0 {
			g.FieldPaths = []string{".spec.replicas"}
		}
		rules := []apiextensions.ValidationRule{
			{Rule: "featureGates." + ref + " || self != 'Fast'"},
			{Rule: rule, MessageExpression: messageExpression},
		}
		crd := celGatesTestCRD(nil, rules, g)
		errs := ValidateCustomResourceDefinition(context.Background(), crd)
		_ = UnusedGateWarnings(&crd.Spec)

		rulePath := "spec.validation.openAPIV3Schema.properties[spec].properties[mode].x-kubernetes-validations[0].rule"
		compileErr, compiled := false, true
		for _, e := range errs {
			if e.Field == rulePath && e.Type == field.ErrorTypeInvalid && strings.Contains(e.Detail, "compilation failed") {
				compileErr = true
			}
			// Upstream does not compile the rules of a node whose rules are malformed
			// (an empty messageExpression, a message needed for a multi-line rule).
			if strings.Contains(e.Field, "x-kubernetes-validations") && e.Type == field.ErrorTypeRequired {
				compiled = false
			}
		}
		if !compiled {
			return
		}
		validName := customFeatureGateNameRegexp.MatchString(name) && len(name) <= MaxCustomFeatureGateNameLength
		switch {
		case validName && ref == name && compileErr:
			t.Errorf("featureGates.%s of a declared gate did not compile: %v", ref, errs)
		case ref != name && fuzzCELIdentifier.MatchString(ref) && !compileErr:
			t.Errorf("featureGates.%s compiled, but only gate %q is declared: %v", ref, name, errs)
		}
	})
}
