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
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// expensiveRule is over the per-expression cost budget on an unbounded list of unbounded
// strings (OpenShift's "each subnet must be unique").
const expensiveRule = "self.all(x, self.exists_one(y, x == y))"

// costTestCRD has .spec.subnets, an unbounded list of strings with rule, marked with mark
// when it is not empty, and the gate Multi (alpha, enabled as given) with fieldPaths.
func costTestCRD(rule, mark string, enabled *bool, fieldPaths ...string) *apiextensions.CustomResourceDefinition {
	crd := featureGateTestCRD(withGate(gate("Multi", apiextensions.CustomFeatureGateAlpha, fieldPaths...), func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = enabled }))
	subnets := apiextensions.JSONSchemaProps{
		Type:         "array",
		Items:        &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{Type: "string"}},
		XValidations: apiextensions.ValidationRules{{Rule: rule}},
	}
	if mark != "" {
		subnets.XFeatureGate = ptr.To(mark)
	}
	spec := crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"]
	spec.Properties["subnets"] = subnets
	crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"] = spec
	return crd
}

// TestGatedRuleCost checks that CEL cost estimation leaves out a rule that the gate states
// keep off (on a disabled field, by mark or fieldPaths, or behind a guard that holds), and
// estimates it once a gate change turns it on, even on an update that leaves the schema as
// it was (which upstream otherwise exempts from the per-expression limit).
func TestGatedRuleCost(t *testing.T) {
	ctx := context.Background()
	rulePath := field.NewPath("spec", "validation", "openAPIV3Schema").Child("properties").Key("spec").Child("properties").Key("subnets").Child("x-kubernetes-validations").Index(0).Child("rule")
	overBudget := field.ErrorList{
		field.Forbidden(rulePath, "estimated rule cost exceeds budget"),
		field.Forbidden(rulePath, "contributed to estimated rule cost total exceeding cost limit"),
		field.Forbidden(field.NewPath("spec", "validation", "openAPIV3Schema"), "estimated rule cost total for entire OpenAPIv3 schema exceeds budget"),
	}
	guarded := "!featureGates.Multi || (" + expensiveRule + ")"
	on, off := ptr.To(true), ptr.To(false)
	matcher := field.ErrorMatcher{}.ByType().ByField().ByDetailSubstring()

	for _, tc := range []struct {
		name string
		crd  *apiextensions.CustomResourceDefinition
		want field.ErrorList
	}{
		{name: "no gate on the rule: estimated", crd: costTestCRD(expensiveRule, "", off), want: overBudget},
		{name: "marked field, gate off: left out", crd: costTestCRD(expensiveRule, "Multi", off)},
		{name: "marked field, gate on: estimated", crd: costTestCRD(expensiveRule, "Multi", on), want: overBudget},
		{name: "fieldPaths, gate off: left out", crd: costTestCRD(expensiveRule, "", off, ".spec.subnets")},
		{name: "fieldPaths of the parent, gate off: left out", crd: costTestCRD(expensiveRule, "", nil, ".spec")},
		{name: "fieldPaths, gate on: estimated", crd: costTestCRD(expensiveRule, "", on, ".spec.subnets"), want: overBudget},
		{name: "guard holds: left out", crd: costTestCRD(guarded, "", off)},
		{name: "guard does not hold: estimated", crd: costTestCRD(guarded, "", on), want: overBudget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ValidateCustomResourceDefinition(ctx, tc.crd)
			matcher.Test(t, tc.want, got)
		})
	}

	// Updates: turning the gate on is refused, although the schema is unchanged; an update
	// that keeps it off is not.
	for _, tc := range []struct {
		name     string
		old, crd *apiextensions.CustomResourceDefinition
		want     field.ErrorList
	}{
		{name: "mark: gate turned on", old: costTestCRD(expensiveRule, "Multi", off), crd: costTestCRD(expensiveRule, "Multi", on), want: overBudget},
		{name: "guard: gate turned on", old: costTestCRD(guarded, "", nil), crd: costTestCRD(guarded, "", on), want: overBudget},
		{name: "gate stays off", old: costTestCRD(guarded, "", nil), crd: costTestCRD(guarded, "", off)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ValidateCustomResourceDefinitionUpdate(ctx, tc.crd, tc.old)
			matcher.Test(t, tc.want, got)
		})
	}
}

func TestFieldOff(t *testing.T) {
	crd := costTestCRD(expensiveRule, "Multi", nil)
	states := map[string]bool{"Multi": false}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{path: "spec.validation.openAPIV3Schema.properties[spec].properties[subnets]", want: true},
		{path: "spec.validation.openAPIV3Schema.properties[spec].properties[subnets].items", want: true},
		{path: "spec.validation.openAPIV3Schema.properties[spec]", want: false},
		{path: "spec.validation.openAPIV3Schema", want: false},
		{path: "spec.validation.openAPIV3Schema.properties[spec].properties[nope]", want: false},
		{path: "spec.validation.openAPIV3Schema.properties[spec].allOf[0]", want: false},
		{path: "spec.versions[0].schema.openAPIV3Schema.properties[spec]", want: false},
		{path: "spec.versions[7].schema.openAPIV3Schema", want: false},
		{path: "metadata.name", want: false},
	} {
		if got := fieldOff(&crd.Spec, states, disabledPaths(&crd.Spec, states), tc.path); got != tc.want {
			t.Errorf("fieldOff(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if strings.Contains(expensiveRule, "featureGates") {
		t.Fatal("the expensive rule must not read the gates")
	}
}
