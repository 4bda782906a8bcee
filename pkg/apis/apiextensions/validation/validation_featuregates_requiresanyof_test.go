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

func requiringAnyOf(g apiextensions.CustomResourceDefinitionFeatureGate, anyOf ...string) apiextensions.CustomResourceDefinitionFeatureGate {
	g.RequiresAnyOf = anyOf
	return g
}

func TestValidateCustomFeatureGateRequiresAnyOf(t *testing.T) {
	base := field.NewPath("spec", "customFeatureGates")
	anyOfPath := func(i, j int) *field.Path {
		return base.Child("featureGates").Index(i).Child("requiresAnyOf").Index(j)
	}
	requiresPath := func(i, j int) *field.Path {
		return base.Child("featureGates").Index(i).Child("requires").Index(j)
	}
	example := gate("Example", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")
	example2 := gate("Example2", apiextensions.CustomFeatureGateAlpha, ".spec.image")
	stable := apiextensions.CustomFeatureGateStable

	tests := []struct {
		name string
		spec *apiextensions.CustomResourceDefinitionSpec
		want field.ErrorList
	}{
		{
			name: "any of two gates",
			spec: featureGateTestSpec(example, example2, requiringAnyOf(gate("ExampleOrExample2", stable, ".spec.foo"), "Example", "Example2")),
		},
		{
			name: "requires and requiresAnyOf together, the same name in both",
			spec: featureGateTestSpec(example, example2, requiringAnyOf(requiring(gate("X", stable, ".spec.foo"), "Example"), "Example", "Example2")),
		},
		{
			name: "an undeclared gate",
			spec: featureGateTestSpec(example, requiringAnyOf(gate("Any", stable, ".spec.foo"), "Example", "Example3")),
			want: field.ErrorList{field.NotFound(anyOfPath(1, 1), "Example3")},
		},
		{
			name: "the gate itself",
			spec: featureGateTestSpec(example, requiringAnyOf(gate("Any", stable, ".spec.foo"), "Any", "Example")),
			want: field.ErrorList{field.Invalid(anyOfPath(1, 0), "Any", "cannot require itself")},
		},
		{
			name: "a repeated name",
			spec: featureGateTestSpec(example, requiringAnyOf(gate("Any", stable, ".spec.foo"), "Example", "Example")),
			want: field.ErrorList{field.Duplicate(anyOfPath(1, 1), "Example")},
		},
		{
			name: "a cycle of two through requiresAnyOf",
			spec: featureGateTestSpec(requiringAnyOf(example, "Example2"), requiringAnyOf(example2, "Example")),
			want: field.ErrorList{field.Invalid(anyOfPath(1, 0), "Example", "must not form a cycle: Example -> Example2 -> Example")},
		},
		{
			name: "a cycle through both lists, with another way out",
			spec: featureGateTestSpec(
				requiringAnyOf(gate("A", stable, ".spec.foo"), "C", "B"),
				requiring(gate("B", stable), "A"),
				gate("C", apiextensions.CustomFeatureGateBeta),
			),
			want: field.ErrorList{field.Invalid(requiresPath(1, 0), "A", "must not form a cycle: A -> B -> A")},
		},
	}
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := validateCustomFeatureGates(tc.spec, nil, base)
			matcher.Test(t, tc.want, got)
		})
	}
}

func TestRequiresAnyOfWarnings(t *testing.T) {
	enabled := func(g apiextensions.CustomResourceDefinitionFeatureGate) apiextensions.CustomResourceDefinitionFeatureGate {
		g.Enabled = ptr.To(true)
		return g
	}
	example := gate("Example", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")
	example2 := gate("Example2", apiextensions.CustomFeatureGateAlpha, ".spec.image")
	example3 := gate("Example3", apiextensions.CustomFeatureGateAlpha, ".spec.other")
	tests := []struct {
		name  string
		gates []apiextensions.CustomResourceDefinitionFeatureGate
		want  []string
	}{
		{
			name:  "enabled while none of its requiresAnyOf is",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{example, example2, enabled(requiringAnyOf(gate("Any", apiextensions.CustomFeatureGateAlpha, ".spec.foo"), "Example", "Example2"))},
			want:  []string{"spec.customFeatureGates.featureGates[2].enabled: feature gate Any is set to enabled but stays disabled until Example or Example2 is enabled"},
		},
		{
			name:  "enabled and one of its requiresAnyOf enabled",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{example, enabled(example2), enabled(requiringAnyOf(gate("Any", apiextensions.CustomFeatureGateAlpha, ".spec.foo"), "Example", "Example2"))},
		},
		{
			name: "both lists unmet",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{example, example2, example3,
				enabled(requiringAnyOf(requiring(gate("X", apiextensions.CustomFeatureGateAlpha, ".spec.foo"), "Example"), "Example2", "Example3"))},
			want: []string{"spec.customFeatureGates.featureGates[3].enabled: feature gate X is set to enabled but stays disabled until Example is enabled, and Example2 or Example3 is enabled"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RequiresWarnings(featureGateTestSpec(tc.gates...)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestUnusedGateWarningsRequiredAnyOf(t *testing.T) {
	// Example guards nothing itself, but a gate requires any of it and Lonely2.
	spec := featureGateTestSpec(
		gate("Example", apiextensions.CustomFeatureGateAlpha),
		gate("Lonely", apiextensions.CustomFeatureGateAlpha),
		requiringAnyOf(gate("Any", apiextensions.CustomFeatureGateStable, ".spec.foo"), "Example"),
	)
	got := UnusedGateWarnings(spec)
	if len(got) != 1 || got[0][:len("spec.customFeatureGates.featureGates[1]: feature gate Lonely ")] != "spec.customFeatureGates.featureGates[1]: feature gate Lonely " {
		t.Errorf("got %q, want one warning, for Lonely", got)
	}
}

// TestRequiresAnyOfInCELRules checks that featureGates.<Name> of a gate with requiresAnyOf
// reads its combined state: a default that a rule allows only while the gate is enabled is
// rejected while none of the gates it requires any of is, and accepted once one is.
func TestRequiresAnyOfInCELRules(t *testing.T) {
	modePath := field.NewPath("spec", "validation", "openAPIV3Schema").Child("properties").Key("spec").Child("properties").Key("mode")
	rule := apiextensions.ValidationRule{Rule: "featureGates.FastOrCache || self != 'Fast'"}
	var fast apiextensions.JSON = "Fast"
	anyGate := requiringAnyOf(gate("FastOrCache", apiextensions.CustomFeatureGateStable), "FastMode", "Cache")
	cache := func(enabled bool) apiextensions.CustomResourceDefinitionFeatureGate {
		return withGate(gate("Cache", apiextensions.CustomFeatureGateAlpha), func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(enabled) })
	}
	for _, tc := range []struct {
		name  string
		gates []apiextensions.CustomResourceDefinitionFeatureGate
		want  field.ErrorList
	}{
		{
			name:  "none on",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("FastMode", apiextensions.CustomFeatureGateAlpha), cache(false), anyGate},
			want:  field.ErrorList{field.Invalid(modePath.Child("default"), nil, "failed rule")},
		},
		{
			name:  "Cache on alone",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("FastMode", apiextensions.CustomFeatureGateAlpha), cache(true), anyGate},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := celGatesTestCRD(&fast, []apiextensions.ValidationRule{rule}, tc.gates...)
			field.ErrorMatcher{}.ByType().ByField().ByDetailSubstring().Test(t, tc.want, ValidateCustomResourceDefinition(context.Background(), crd))
		})
	}
}
