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
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// BenchmarkFieldGatesDefaulting is upstream's structural defaulting of a 100-field custom
// resource whose schema has a default on every other field, half of them missing from the
// object, with the schema the handler hands to defaulting (FieldGates.WithoutDisabledDefaults):
//
//	(a) upstream: the CRD has no gates;
//	(b) 50 gates, all enabled: defaulting must be upstream's, with nothing extra;
//	(c) 50 gates, half disabled: the disabled fields' defaults are not applied.
//
// The metric upstream-schema is 1 when defaulting gets the very schema upstream uses.
func BenchmarkFieldGatesDefaulting(b *testing.B) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	schema := benchSchema(benchFields)
	spec := schema.Properties["spec"]
	for i := 0; i < benchFields; i += 2 {
		name := benchField(i)
		prop := spec.Properties[name]
		prop.Default.Object = benchObject(benchFields, nil).Object["spec"].(map[string]interface{})[name]
		spec.Properties[name] = prop
	}
	schema.Properties["spec"] = spec
	missing := benchObject(benchFields, func(i int) bool { return i%4 == 0 })

	for _, setup := range []struct {
		name  string
		gates []apiextensionsv1.CustomResourceDefinitionFeatureGate
	}{
		{name: "a-upstream-no-gates"},
		{name: "b-50-gates-all-enabled", gates: benchGates(50, nil)},
		{name: "c-50-gates-half-disabled", gates: benchGates(50, evenDisabled)},
	} {
		defaulting := schema
		if len(setup.gates) > 0 {
			crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, setup.gates...)
			crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}}
			defaulting = NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": schema}, nil).WithoutDisabledDefaults(map[string]*structuralschema.Structural{"v1": schema})["v1"]
		}
		same := 0.0
		if defaulting == schema {
			same = 1
		}
		b.Run(setup.name, func(b *testing.B) {
			onCopies(b, missing, func(obj *unstructured.Unstructured) { structuraldefaulting.Default(obj.Object, defaulting) })
			b.ReportMetric(same, "upstream-schema") // after onCopies: ResetTimer deletes reported metrics
		})
	}
}
