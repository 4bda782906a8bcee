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

package v1_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
	applyv1 "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

func TestCustomFeatureGatesProtobufFieldNumber(t *testing.T) {
	spec := apiextensionsv1.CustomResourceDefinitionSpec{
		CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
			Component: ptr.To("istio.io"),
			FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{{
				Name: "ReplicasFeatureGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha,
				Enabled: ptr.To(true), Default: ptr.To(false), FieldPaths: []string{".spec.replicas"},
			}},
		},
	}
	data, err := spec.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for b := data; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad protobuf: %v", protowire.ParseError(n))
		}
		if num == 2608 && typ == protowire.BytesType {
			found = true
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			t.Fatalf("bad protobuf: %v", protowire.ParseError(m))
		}
		b = b[n+m:]
	}
	if !found {
		t.Fatalf("spec.customFeatureGates is not field 2608 in %x", data)
	}
	var back apiextensionsv1.CustomResourceDefinitionSpec
	if err := back.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	if got, want := back.CustomFeatureGates.FeatureGates[0], spec.CustomFeatureGates.FeatureGates[0]; *got.Enabled != *want.Enabled || got.Name != want.Name || got.FieldPaths[0] != want.FieldPaths[0] {
		t.Errorf("round trip lost data: got %+v, want %+v", got, want)
	}
}

// An admin applies only one gate's enabled; server-side apply must see that as a field of
// its own, keyed by the gate's name, so that the CRD author's applies do not take it over.
func TestCustomFeatureGatesApplyConfiguration(t *testing.T) {
	admin := applyv1.CustomResourceDefinition("crontabs.stable.example.com").
		WithSpec(applyv1.CustomResourceDefinitionSpec().
			WithCustomFeatureGates(applyv1.CustomResourceDefinitionFeatureGates().
				WithFeatureGates(applyv1.CustomResourceDefinitionFeatureGate().
					WithName("ReplicasFeatureGate").
					WithEnabled(true))))
	raw, err := json.Marshal(admin)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"crontabs.stable.example.com"},"spec":{"customFeatureGates":{"featureGates":[{"name":"ReplicasFeatureGate","enabled":true}]}}}`
	if string(raw) != want {
		t.Errorf("apply configuration JSON:\n got %s\nwant %s", raw, want)
	}

	var obj apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	typed, err := applyconfiguration.NewTypeConverter(scheme).ObjectToTyped(&obj)
	if err != nil {
		t.Fatal(err)
	}
	set, err := typed.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	enabled := fieldpath.MakePathOrDie("spec", "customFeatureGates", "featureGates",
		fieldpath.KeyByFields("name", "ReplicasFeatureGate"), "enabled")
	if !set.Has(enabled) {
		t.Errorf("field set %s does not hold %s", set.String(), enabled.String())
	}
}
