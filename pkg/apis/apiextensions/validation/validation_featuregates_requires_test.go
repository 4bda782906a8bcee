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
	"fmt"
	"reflect"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func requiring(g apiextensions.CustomResourceDefinitionFeatureGate, requires ...string) apiextensions.CustomResourceDefinitionFeatureGate {
	g.Requires = requires
	return g
}

func TestValidateCustomFeatureGateRequires(t *testing.T) {
	base := field.NewPath("spec", "customFeatureGates")
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
			name: "a combination of two gates",
			spec: featureGateTestSpec(example, example2, requiring(gate("ExampleWithExample2", stable, ".spec.foo"), "Example", "Example2")),
		},
		{
			name: "a chain",
			spec: featureGateTestSpec(example, requiring(gate("B", stable), "Example"), requiring(gate("C", stable, ".spec.foo"), "B")),
		},
		{
			name: "a diamond is not a cycle",
			spec: featureGateTestSpec(example, requiring(gate("B", stable), "Example"), requiring(gate("C", stable), "Example"), requiring(gate("D", stable, ".spec.foo"), "B", "C")),
		},
		{
			name: "an undeclared gate",
			spec: featureGateTestSpec(example, requiring(gate("Both", stable, ".spec.foo"), "Example", "Example3")),
			want: field.ErrorList{field.NotFound(requiresPath(1, 1), "Example3")},
		},
		{
			name: "the gate itself",
			spec: featureGateTestSpec(example, requiring(gate("Both", stable, ".spec.foo"), "Both", "Example")),
			want: field.ErrorList{field.Invalid(requiresPath(1, 0), "Both", "cannot require itself")},
		},
		{
			name: "a repeated name",
			spec: featureGateTestSpec(example, requiring(gate("Both", stable, ".spec.foo"), "Example", "Example")),
			want: field.ErrorList{field.Duplicate(requiresPath(1, 1), "Example")},
		},
		{
			name: "a cycle of two",
			spec: featureGateTestSpec(requiring(example, "Example2"), requiring(example2, "Example")),
			want: field.ErrorList{field.Invalid(requiresPath(1, 0), "Example", "must not form a cycle: Example -> Example2 -> Example")},
		},
		{
			name: "a cycle of three reached from outside it",
			spec: featureGateTestSpec(
				requiring(gate("Outside", stable, ".spec.foo"), "A"),
				requiring(gate("A", stable), "B"),
				requiring(gate("B", stable), "C"),
				requiring(gate("C", stable), "A"),
			),
			want: field.ErrorList{field.Invalid(requiresPath(3, 0), "A", "must not form a cycle: A -> B -> C -> A")},
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

func TestValidateCustomFeatureGateRequiresLongCycle(t *testing.T) {
	// The most gates a CRD may declare, in one cycle: one error, found in linear time.
	gates := make([]apiextensions.CustomResourceDefinitionFeatureGate, MaxCustomFeatureGates)
	for i := range gates {
		gates[i] = requiring(gate(fmt.Sprintf("G%d", i), apiextensions.CustomFeatureGateStable), fmt.Sprintf("G%d", (i+1)%len(gates)))
	}
	gates[0].FieldPaths = []string{".spec.foo"}
	got := validateCustomFeatureGates(featureGateTestSpec(gates...), nil, field.NewPath("spec", "customFeatureGates"))
	if len(got) != 1 || got[0].Type != field.ErrorTypeInvalid || got[0].Field != fmt.Sprintf("spec.customFeatureGates.featureGates[%d].requires[0]", len(gates)-1) {
		t.Errorf("got %v, want one Invalid at the entry that closes the cycle", got)
	}
}

func TestValidateCustomFeatureGateRequiresThroughCRDValidation(t *testing.T) {
	crd := featureGateTestCRD(
		gate("Example", apiextensions.CustomFeatureGateAlpha, ".spec.replicas"),
		requiring(gate("Both", apiextensions.CustomFeatureGateStable, ".spec.image"), "Example", "Nope"),
	)
	errs := ValidateCustomResourceDefinition(context.Background(), crd)
	want := field.ErrorList{field.NotFound(field.NewPath("spec", "customFeatureGates", "featureGates").Index(1).Child("requires").Index(1), "Nope")}
	field.ErrorMatcher{}.ByType().ByField().ByValue().Test(t, want, errs)

	crd.Spec.CustomFeatureGates.FeatureGates[1].Requires = []string{"Example"}
	crd.ObjectMeta = metav1.ObjectMeta{Name: crd.Name, ResourceVersion: "1"}
	if errs := ValidateCustomResourceDefinition(context.Background(), crd); len(errs) != 0 {
		t.Errorf("valid requires: %v", errs)
	}
}

func TestRequiresWarnings(t *testing.T) {
	enabled := func(g apiextensions.CustomResourceDefinitionFeatureGate) apiextensions.CustomResourceDefinitionFeatureGate {
		g.Enabled = ptr.To(true)
		return g
	}
	example := gate("Example", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")
	example2 := gate("Example2", apiextensions.CustomFeatureGateAlpha, ".spec.image")
	tests := []struct {
		name  string
		gates []apiextensions.CustomResourceDefinitionFeatureGate
		want  []string
	}{
		{name: "no requires", gates: []apiextensions.CustomResourceDefinitionFeatureGate{enabled(example)}},
		{
			name:  "enabled while a required gate is disabled",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{enabled(example), example2, enabled(requiring(gate("Both", apiextensions.CustomFeatureGateAlpha, ".spec.foo"), "Example", "Example2"))},
			want:  []string{"spec.customFeatureGates.featureGates[2].enabled: feature gate Both is set to enabled but stays disabled until Example2 is enabled"},
		},
		{
			name:  "enabled while both are disabled",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{example, example2, enabled(requiring(gate("Both", apiextensions.CustomFeatureGateBeta, ".spec.foo"), "Example", "Example2"))},
			want:  []string{"spec.customFeatureGates.featureGates[2].enabled: feature gate Both is set to enabled but stays disabled until Example and Example2 are enabled"},
		},
		{
			name:  "enabled and every required gate enabled",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{enabled(example), enabled(example2), enabled(requiring(gate("Both", apiextensions.CustomFeatureGateAlpha, ".spec.foo"), "Example", "Example2"))},
		},
		{
			name:  "a stable combination that is not set to enabled draws none",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{example, example2, requiring(gate("Both", apiextensions.CustomFeatureGateStable, ".spec.foo"), "Example", "Example2")},
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

func TestUnusedGateWarningsRequired(t *testing.T) {
	// Example guards nothing itself, but the combination gate requires it.
	spec := featureGateTestSpec(
		gate("Example", apiextensions.CustomFeatureGateAlpha),
		gate("Lonely", apiextensions.CustomFeatureGateAlpha),
		requiring(gate("Both", apiextensions.CustomFeatureGateStable, ".spec.foo"), "Example"),
	)
	got := UnusedGateWarnings(spec)
	if len(got) != 1 || got[0][:len("spec.customFeatureGates.featureGates[1]: feature gate Lonely ")] != "spec.customFeatureGates.featureGates[1]: feature gate Lonely " {
		t.Errorf("got %q, want one warning, for Lonely", got)
	}
}

// TestRequiresInCELRules checks that featureGates.<Name> of a gate that requires others reads
// its combined state: a schema default that a rule allows only while the combination is
// enabled is rejected while one required gate is off, even with the other promoted.
func TestRequiresInCELRules(t *testing.T) {
	modePath := field.NewPath("spec", "validation", "openAPIV3Schema").Child("properties").Key("spec").Child("properties").Key("mode")
	rule := apiextensions.ValidationRule{Rule: "featureGates.FastWithCache || self != 'Fast'"}
	var fast apiextensions.JSON = "Fast"
	combination := requiring(gate("FastWithCache", apiextensions.CustomFeatureGateStable), "FastMode", "Cache")
	fastMode := func(stage apiextensions.CustomFeatureGatePreRelease) apiextensions.CustomResourceDefinitionFeatureGate {
		return gate("FastMode", stage)
	}
	cache := func(enabled bool) apiextensions.CustomResourceDefinitionFeatureGate {
		return withGate(gate("Cache", apiextensions.CustomFeatureGateAlpha), func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(enabled) })
	}
	for _, tc := range []struct {
		name  string
		gates []apiextensions.CustomResourceDefinitionFeatureGate
		want  field.ErrorList
	}{
		{
			name:  "FastMode promoted to stable, Cache off",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{fastMode(apiextensions.CustomFeatureGateStable), cache(false), combination},
			want:  field.ErrorList{field.Invalid(modePath.Child("default"), nil, "failed rule")},
		},
		{
			name:  "Cache on, FastMode alpha",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{fastMode(apiextensions.CustomFeatureGateAlpha), cache(true), combination},
			want:  field.ErrorList{field.Invalid(modePath.Child("default"), nil, "failed rule")},
		},
		{
			name:  "both on",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{fastMode(apiextensions.CustomFeatureGateStable), cache(true), combination},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := celGatesTestCRD(&fast, []apiextensions.ValidationRule{rule}, tc.gates...)
			field.ErrorMatcher{}.ByType().ByField().ByDetailSubstring().Test(t, tc.want, ValidateCustomResourceDefinition(context.Background(), crd))
		})
	}
}
