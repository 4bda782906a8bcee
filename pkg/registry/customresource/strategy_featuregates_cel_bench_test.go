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

package customresource

import (
	"context"
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/utils/ptr"
)

// BenchmarkFieldGatesCELRules measures the evaluation of x-kubernetes-validations rules that
// read gates (docs/development/performance.md): a custom resource with 50 string fields, each with one
// rule, validated by the CEL validator the strategy compiles once per CRD revision.
//
//	(a) upstream: the CRD has no gates; the same rules with a literal in place of the gate,
//	    false || size(self) <= 32;
//	(b) 50 gates, all disabled; each rule is featureGates.G<i> || size(self) <= 32, so both
//	    sides are evaluated;
//	(c) 50 gates, all enabled: the same rules, which stop at the gate;
//	(d) upstream, the rules without the gate term at all: size(self) <= 32. (b) against (d)
//	    is the price of one more || term in a rule, which CEL's runtime cost tracking pays
//	    whatever the term reads.
//
// `make bench` reports (b), (c) and (d) against (a) of the same run; the goal for (b) is a
// ratio of at most 1.05.
func BenchmarkFieldGatesCELRules(b *testing.B) {
	const n = 50
	obj := map[string]interface{}{}
	for i := 0; i < n; i++ {
		obj[fmt.Sprintf("f%02d", i)] = "a value of some length"
	}
	// term is the left side of the rule of field i's ||; nil for none.
	schema := func(term func(i int) string) *structuralschema.Structural {
		props := map[string]structuralschema.Structural{}
		for i := 0; i < n; i++ {
			rule := "size(self) <= 32"
			if term != nil {
				rule = term(i) + " || " + rule
			}
			props[fmt.Sprintf("f%02d", i)] = structuralschema.Structural{
				Generic:              structuralschema.Generic{Type: "string"},
				ValueValidation:      &structuralschema.ValueValidation{MaxLength: ptr.To[int64](64)},
				ValidationExtensions: structuralschema.ValidationExtensions{XValidations: apiextensionsv1.ValidationRules{{Rule: rule}}},
			}
		}
		return &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: props}
	}
	gatedValidator := func(b *testing.B, enabled bool) (*cel.Validator, *structuralschema.Structural) {
		specs := make([]featuregates.GateSpec, n)
		for i := range specs {
			specs[i] = featuregates.GateSpec{Name: fmt.Sprintf("G%02d", i), PreRelease: featuregates.Alpha, Enabled: ptr.To(enabled)}
		}
		env, err := cel.FeatureGatesEnvSet(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), featuregates.States(specs))
		if err != nil {
			b.Fatal(err)
		}
		s := schema(func(i int) string { return fmt.Sprintf("featureGates.G%02d", i) })
		return cel.NewValidator(s, false, celconfig.PerCallLimit, cel.WithBaseEnvSet(env)), s
	}
	setups := []struct {
		name string
		new  func(b *testing.B) (*cel.Validator, *structuralschema.Structural)
	}{
		{name: "a-upstream-rules", new: func(b *testing.B) (*cel.Validator, *structuralschema.Structural) {
			s := schema(func(int) string { return "false" })
			return cel.NewValidator(s, false, celconfig.PerCallLimit), s
		}},
		{name: "b-50-gates-disabled", new: func(b *testing.B) (*cel.Validator, *structuralschema.Structural) { return gatedValidator(b, false) }},
		{name: "c-50-gates-enabled", new: func(b *testing.B) (*cel.Validator, *structuralschema.Structural) { return gatedValidator(b, true) }},
		{name: "d-upstream-without-term", new: func(b *testing.B) (*cel.Validator, *structuralschema.Structural) {
			s := schema(nil)
			return cel.NewValidator(s, false, celconfig.PerCallLimit), s
		}},
	}
	for _, setup := range setups {
		b.Run(setup.name, func(b *testing.B) {
			v, s := setup.new(b)
			ctx := context.Background()
			if errs, _ := v.Validate(ctx, nil, s, obj, nil, celconfig.RuntimeCELCostBudget); len(errs) != 0 {
				b.Fatalf("the object is invalid: %v", errs)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v.Validate(ctx, nil, s, obj, nil, celconfig.RuntimeCELCostBudget)
			}
		})
	}
}
