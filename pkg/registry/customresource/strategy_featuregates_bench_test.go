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
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

// BenchmarkFieldGatesPrepareForUpdate compares, in one run, upstream's PrepareForUpdate
// (a CRD without gates) with a CRD whose gates are all enabled (the fast path) and one
// with a disabled gate whose field the update changes.
func BenchmarkFieldGatesPrepareForUpdate(b *testing.B) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}
	spec := map[string]interface{}{}
	for i := 0; i < 100; i++ {
		spec[fmt.Sprintf("field%03d", i)] = fmt.Sprintf("value-%d", i)
	}
	var enabled, disabled []apiextensionsv1.CustomResourceDefinitionFeatureGate
	for i := 0; i < 50; i++ {
		g := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: fmt.Sprintf("Gate%d", i), PreRelease: "beta", FieldPaths: []string{fmt.Sprintf(".spec.field%03d", i)}}
		enabled = append(enabled, g)
		if i%2 == 0 {
			g.Enabled = ptr.To(false)
		}
		disabled = append(disabled, g)
	}
	setups := []struct {
		name  string
		gates *FieldGates
	}{
		{name: "upstream-no-gates", gates: nil},
		{name: "50-gates-all-enabled", gates: NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter, enabled...), "v1", nil, nil)},
		{name: "50-gates-half-disabled", gates: NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter, disabled...), "v1", nil, nil)},
	}
	for _, setup := range setups {
		s := NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).WithFieldGates(setup.gates)
		old := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]interface{}{"name": "a", "generation": int64(1)}, "spec": spec}}
		b.Run(setup.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				obj := old.DeepCopy()
				_ = unstructured.SetNestedField(obj.Object, "changed", "spec", "field000")
				b.StartTimer()
				s.PrepareForUpdate(ctx, obj, old)
			}
		})
	}
}
