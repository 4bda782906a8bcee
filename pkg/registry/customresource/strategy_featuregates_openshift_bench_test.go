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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The OpenShift setup of docs/development/performance.md: the largest CRD of config.openshift.io that
// `featuregate-gen openshift` merges (infrastructures.config.openshift.io, from openshift/api
// 2a3d739; testdata/featuregates-openshift-infrastructures.yaml), a full Infrastructure (every
// field of the schema set, each list with two items), written with
//
//	(a) upstream behaviour: the same schema, no gates;
//	(b) the merged CRD's gates, half of them disabled (every other one, by name).
//
// The update changes one ungated field (.spec.cloudConfig.key).

// openShiftBenchCRD reads the merged CRD and sets every other gate (by name) disabled and the
// others enabled.
func openShiftBenchCRD(b *testing.B) (*apiextensionsv1.CustomResourceDefinition, *structuralschema.Structural) {
	data, err := os.ReadFile(filepath.Join("testdata", "featuregates-openshift-infrastructures.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		b.Fatal(err)
	}
	gates := crd.Spec.CustomFeatureGates.FeatureGates
	sort.Slice(gates, func(i, j int) bool { return gates[i].Name < gates[j].Name })
	for i := range gates {
		if gates[i].PreRelease != apiextensionsv1.CustomFeatureGateStable {
			gates[i].Enabled = ptr.To(i%2 == 1)
		}
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil); err != nil {
		b.Fatal(err)
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		b.Fatal(err)
	}
	return crd, s
}

// fullValue is a value for every field of s: the first enum value or a type's sample, two
// items in each list (distinct map keys), one key in each map.
func fullValue(s *structuralschema.Structural, depth int) interface{} {
	if s == nil || depth > 12 {
		return nil
	}
	if s.ValueValidation != nil && len(s.ValueValidation.Enum) > 0 {
		return s.ValueValidation.Enum[0].Object
	}
	switch s.Type {
	case "object":
		out := map[string]interface{}{}
		for name, p := range s.Properties {
			if v := fullValue(&p, depth+1); v != nil {
				out[name] = v
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			out["key"] = fullValue(s.AdditionalProperties.Structural, depth+1)
		}
		return out
	case "array":
		var items []interface{}
		for i := 0; i < 2; i++ {
			item := fullValue(s.Items, depth+1)
			if m, ok := item.(map[string]interface{}); ok {
				for _, k := range s.XListMapKeys {
					if _, isString := m[k].(string); isString || m[k] == nil {
						m[k] = fmt.Sprintf("key%d", i)
					}
				}
			}
			if s.Items != nil && s.Items.Type == "string" && s.Items.ValueValidation == nil {
				item = fmt.Sprintf("item%d", i)
			}
			items = append(items, item)
		}
		return items
	case "integer":
		return int64(1)
	case "number":
		return 1.5
	case "boolean":
		return true
	case "string":
		return "a-value"
	}
	if s.XIntOrString {
		return int64(1)
	}
	return "a-value"
}

func BenchmarkFieldGatesOpenShift(b *testing.B) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	crd, s := openShiftBenchCRD(b)
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: crd.Spec.Versions[0].Name, Kind: crd.Spec.Names.Kind}
	full := fullValue(s, 0).(map[string]interface{})
	full["apiVersion"], full["kind"] = kind.GroupVersion().String(), kind.Kind
	full["metadata"] = map[string]interface{}{"name": "cluster", "generation": int64(1)}
	old := &unstructured.Unstructured{Object: full}
	size, _ := json.Marshal(old.Object)
	updated := old.DeepCopy()
	if err := unstructured.SetNestedField(updated.Object, "changed by the update", "spec", "cloudConfig", "key"); err != nil {
		b.Fatal(err)
	}
	gated := NewFieldGates(crd, kind.Version, map[string]*structuralschema.Structural{kind.Version: s}, nil)
	if gated == nil {
		b.Fatal("no field gates compiled")
	}
	ctx := context.Background()
	for _, setup := range []struct {
		name string
		s    customResourceStrategy
	}{
		{"a-upstream-no-gates", NewStrategy(nil, false, kind, nil, nil, s, nil, nil, nil)},
		{"b-openshift-half-disabled", NewStrategy(nil, false, kind, nil, nil, s, nil, nil, nil).WithFieldGates(gated)},
	} {
		st := setup.s
		b.Run("PrepareForCreate/"+setup.name, func(b *testing.B) {
			onCopies(b, updated, func(obj *unstructured.Unstructured) { st.PrepareForCreate(ctx, obj) })
			b.ReportMetric(float64(len(size)), "object-bytes")
		})
		b.Run("PrepareForUpdate/"+setup.name, func(b *testing.B) {
			onCopies(b, updated, func(obj *unstructured.Unstructured) { st.PrepareForUpdate(ctx, obj, old) })
		})
		if st.fieldGates == nil {
			continue
		}
		// Hook is the fork's own work in the update, alone (as in BenchmarkFieldGatesStrategy).
		b.Run("Hook/"+setup.name, func(b *testing.B) {
			onCopies(b, updated, func(obj *unstructured.Unstructured) {
				st.fieldGates.prepare(ctx, obj, old, st.mainScope())
				_ = st.fieldGates.deprecationWarnings(ctx, obj, old, st.mainScope())
			})
		})
	}
}
