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
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// benchGatesSpec returns a CRD spec whose storage schema has `gates` objects of `paths`
// integer fields each under .spec, and `gates` gates, gate i guarding every field of object i.
// With 128 gates of 64 paths it is the largest spec validation accepts (8192 gated paths).
func benchGatesSpec(gates, paths int) *apiextensions.CustomResourceDefinitionSpec {
	specProps := make(map[string]apiextensions.JSONSchemaProps, gates)
	list := make([]apiextensions.CustomResourceDefinitionFeatureGate, 0, gates)
	for i := 0; i < gates; i++ {
		obj := fmt.Sprintf("g%03d", i)
		props := make(map[string]apiextensions.JSONSchemaProps, paths)
		fieldPaths := make([]string, 0, paths)
		for j := 0; j < paths; j++ {
			name := fmt.Sprintf("f%02d", j)
			props[name] = apiextensions.JSONSchemaProps{Type: "integer"}
			fieldPaths = append(fieldPaths, ".spec."+obj+"."+name)
		}
		specProps[obj] = apiextensions.JSONSchemaProps{Type: "object", Properties: props}
		list = append(list, gate(fmt.Sprintf("Gate%03d", i), apiextensions.CustomFeatureGateAlpha, fieldPaths...))
	}
	schema := &apiextensions.JSONSchemaProps{
		Type:       "object",
		Properties: map[string]apiextensions.JSONSchemaProps{"spec": {Type: "object", Properties: specProps}},
	}
	return &apiextensions.CustomResourceDefinitionSpec{
		Group: "stable.example.com",
		Versions: []apiextensions.CustomResourceDefinitionVersion{
			{Name: "v1", Served: true, Storage: true, Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: schema}},
		},
		CustomFeatureGates: &apiextensions.CustomResourceDefinitionFeatureGates{FeatureGates: list},
	}
}

// benchGatesCRD is benchGatesSpec as a complete CRD that passes ValidateCustomResourceDefinition.
func benchGatesCRD(gates, paths int) *apiextensions.CustomResourceDefinition {
	crd := featureGateTestCRD()
	spec := benchGatesSpec(gates, paths)
	crd.Spec.Validation = spec.Versions[0].Schema
	crd.Spec.CustomFeatureGates = spec.CustomFeatureGates
	return crd
}

// The benchmarks below need valid input; this test is what says so (a benchmark that only
// measures the error path would mean nothing).
func TestBenchGatesInputIsValid(t *testing.T) {
	for _, size := range [][2]int{{1, 1}, {128, 64}} {
		spec := benchGatesSpec(size[0], size[1])
		if errs := validateCustomFeatureGates(spec, nil, field.NewPath("spec", "customFeatureGates")); len(errs) > 0 {
			t.Errorf("%d gates x %d paths: %v", size[0], size[1], errs)
		}
		if errs := ValidateCustomResourceDefinition(context.Background(), benchGatesCRD(size[0], size[1])); len(errs) > 0 {
			t.Errorf("%d gates x %d paths, whole CRD: %v", size[0], size[1], errs)
		}
	}
	// And that it is not trivially valid: a path missing from the schema is caught.
	spec := benchGatesSpec(2, 2)
	spec.CustomFeatureGates.FeatureGates[1].FieldPaths[1] = ".spec.g001.missing"
	if errs := validateCustomFeatureGates(spec, nil, field.NewPath("spec", "customFeatureGates")); len(errs) != 1 {
		t.Errorf("want one error for a path outside the schema, got %v", errs)
	}
}

// BenchmarkValidateCustomFeatureGates measures validating spec.customFeatureGates alone: at
// the limit (128 gates x 64 paths) and as a series in the number of gated paths, reported
// per path so that linear growth shows as a flat ns/path.
func BenchmarkValidateCustomFeatureGates(b *testing.B) {
	fldPath := field.NewPath("spec", "customFeatureGates")
	for _, size := range [][2]int{{1, 64}, {8, 64}, {32, 64}, {128, 64}} {
		gates, paths := size[0], size[1]
		spec := benchGatesSpec(gates, paths)
		b.Run(fmt.Sprintf("paths=%d", gates*paths), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if errs := validateCustomFeatureGates(spec, nil, fldPath); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(gates*paths), "ns/path")
		})
	}
}

// BenchmarkValidateCRDWithFeatureGates compares whole-CRD validation of the same large CRD
// with and without its gates, so the gates' share is a ratio within one run.
func BenchmarkValidateCRDWithFeatureGates(b *testing.B) {
	ctx := context.Background()
	withGates := benchGatesCRD(128, 64)
	withoutGates := withGates.DeepCopy()
	withoutGates.Spec.CustomFeatureGates = nil
	for _, c := range []struct {
		name string
		crd  *apiextensions.CustomResourceDefinition
	}{{"no-gates", withoutGates}, {"128x64-gates", withGates}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if errs := ValidateCustomResourceDefinition(ctx, c.crd); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
