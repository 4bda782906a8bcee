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
	"reflect"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// celGatesTestCRD is featureGateTestCRD with a string .spec.mode whose
// x-kubernetes-validations are rules, and optionally a default.
func celGatesTestCRD(def *apiextensions.JSON, rules []apiextensions.ValidationRule, gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinition {
	crd := featureGateTestCRD(gates...)
	if len(gates) == 0 {
		crd.Spec.CustomFeatureGates = nil
	}
	spec := crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"]
	spec.Properties["mode"] = apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](16), Default: def, XValidations: rules}
	crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"] = spec
	return crd
}

func TestValidateCustomFeatureGatesInCELRules(t *testing.T) {
	ctx := context.Background()
	modePath := field.NewPath("spec", "validation", "openAPIV3Schema").Child("properties").Key("spec").Child("properties").Key("mode")
	rulePath := modePath.Child("x-kubernetes-validations").Index(0)
	fastMode := gate("FastMode", apiextensions.CustomFeatureGateAlpha)
	fastModeOn := withGate(fastMode, func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(true) })
	rule := apiextensions.ValidationRule{Rule: "featureGates.FastMode || self != 'Fast'"}
	var fast apiextensions.JSON = "Fast"
	matcher := field.ErrorMatcher{}.ByType().ByField().ByDetailSubstring()

	tests := []struct {
		name string
		crd  *apiextensions.CustomResourceDefinition
		old  *apiextensions.CustomResourceDefinition
		want field.ErrorList
	}{
		{name: "declared gate", crd: celGatesTestCRD(nil, []apiextensions.ValidationRule{rule}, fastMode)},
		{name: "gate with a field path and a rule", crd: celGatesTestCRD(nil, []apiextensions.ValidationRule{{Rule: "featureGates.FooFeatureGate || self != 'Fast'"}}, gate("FooFeatureGate", apiextensions.CustomFeatureGateBeta, ".spec.foo"))},
		{
			name: "undeclared gate",
			crd:  celGatesTestCRD(nil, []apiextensions.ValidationRule{{Rule: "featureGates.SlowMode || self != 'Fast'"}}, fastMode),
			want: field.ErrorList{field.Invalid(rulePath.Child("rule"), nil, "undefined field 'SlowMode'")},
		},
		{
			name: "featureGates without gates",
			crd:  celGatesTestCRD(nil, []apiextensions.ValidationRule{rule}),
			want: field.ErrorList{field.Invalid(rulePath.Child("rule"), nil, "undeclared reference to 'featureGates'")},
		},
		{
			name: "featureGates with an empty gate list",
			crd: func() *apiextensions.CustomResourceDefinition {
				crd := celGatesTestCRD(nil, []apiextensions.ValidationRule{rule})
				crd.Spec.CustomFeatureGates = &apiextensions.CustomResourceDefinitionFeatureGates{}
				return crd
			}(),
			want: field.ErrorList{field.Invalid(rulePath.Child("rule"), nil, "undeclared reference to 'featureGates'")},
		},
		{
			name: "featureGates alone",
			crd:  celGatesTestCRD(nil, []apiextensions.ValidationRule{{Rule: "has(featureGates.FastMode)"}}, fastMode),
			want: field.ErrorList{field.Invalid(rulePath.Child("rule"), nil, "featureGates may only be read as featureGates.<GateName>")},
		},
		{name: "messageExpression reads a gate", crd: celGatesTestCRD(nil, []apiextensions.ValidationRule{{Rule: "self != 'Fast'", MessageExpression: "featureGates.FastMode ? 'x' : 'Fast needs FastMode'"}}, fastMode)},
		{
			name: "messageExpression names an undeclared gate",
			crd:  celGatesTestCRD(nil, []apiextensions.ValidationRule{{Rule: "self != 'Fast'", MessageExpression: "featureGates.Nope ? 'x' : 'y'"}}, fastMode),
			want: field.ErrorList{field.Invalid(rulePath.Child("messageExpression"), nil, "undefined field 'Nope'")},
		},
		{
			name: "default rejected by a rule while its gate is off",
			crd:  celGatesTestCRD(&fast, []apiextensions.ValidationRule{rule}, fastMode),
			want: field.ErrorList{field.Invalid(modePath.Child("default"), nil, "failed rule")},
		},
		{name: "default accepted by a rule while its gate is on", crd: celGatesTestCRD(&fast, []apiextensions.ValidationRule{rule}, fastModeOn)},
		{name: "update: the rule is checked with the new gates", crd: celGatesTestCRD(&fast, []apiextensions.ValidationRule{rule}, fastModeOn), old: celGatesTestCRD(nil, []apiextensions.ValidationRule{rule}, fastMode)},
		{
			name: "update: removing a gate that an unchanged rule reads",
			crd:  celGatesTestCRD(nil, []apiextensions.ValidationRule{rule}, gate("Other", apiextensions.CustomFeatureGateBeta)),
			old:  celGatesTestCRD(nil, []apiextensions.ValidationRule{rule}, fastMode),
			want: field.ErrorList{field.Invalid(rulePath.Child("rule"), nil, "undefined field 'FastMode'")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.old == nil {
				matcher.Test(t, tc.want, ValidateCustomResourceDefinition(ctx, tc.crd))
				return
			}
			tc.old.ResourceVersion = "1"
			tc.crd.ResourceVersion = "1"
			matcher.Test(t, tc.want, ValidateCustomResourceDefinitionUpdate(ctx, tc.crd, tc.old))
		})
	}
}

func TestUnusedGateWarnings(t *testing.T) {
	unused := func(i int, name string) string {
		return "spec.customFeatureGates.featureGates[" + string(rune('0'+i)) + "]: feature gate " + name + " has no fieldPaths, no schema marks it with x-kubernetes-feature-gate, and no x-kubernetes-validations rule reads featureGates." + name + ", so it has no effect"
	}
	tests := []struct {
		name  string
		rules []apiextensions.ValidationRule
		gates []apiextensions.CustomResourceDefinitionFeatureGate
		want  []string
	}{
		{name: "no gates"},
		{name: "gate with a path", gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("A", apiextensions.CustomFeatureGateAlpha, ".spec.foo")}},
		{name: "unused gate", gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("A", apiextensions.CustomFeatureGateAlpha)}, want: []string{unused(0, "A")}},
		{
			name:  "gate read by a rule",
			rules: []apiextensions.ValidationRule{{Rule: "featureGates.B || self != 'x'"}},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("A", apiextensions.CustomFeatureGateAlpha), gate("B", apiextensions.CustomFeatureGateAlpha)},
			want:  []string{unused(0, "A")},
		},
		{
			name:  "gate read by a messageExpression",
			rules: []apiextensions.ValidationRule{{Rule: "self != 'x'", MessageExpression: "featureGates.A ? 'a' : 'b'"}},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("A", apiextensions.CustomFeatureGateAlpha)},
		},
		{
			name:  "a string that looks like a gate does not count",
			rules: []apiextensions.ValidationRule{{Rule: "self != 'featureGates.A'"}},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("A", apiextensions.CustomFeatureGateAlpha)},
			want:  []string{unused(0, "A")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := celGatesTestCRD(nil, tc.rules, tc.gates...)
			if got := UnusedGateWarnings(&crd.Spec); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
