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

package builder

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/ptr"
)

// gatedSchemaV1 is the storage version's schema of the CRD the tests publish.
const gatedSchemaV1 = `{"type":"object","properties":{
  "spec":{"type":"object","properties":{
    "replicas":{"type":"integer","description":"replicas is the number of copies."},
    "image":{"type":"string"},
    "foo":{"type":"object","description":"foo groups settings.","properties":{"bar":{"type":"string","description":"bar is a setting."}}},
    "containers":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"image":{"type":"string","description":"image of the container."}}}},
    "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"],"items":{"type":"object","required":["port"],"properties":{"port":{"type":"integer"},"protocol":{"type":"string"}}}},
    "matrix":{"type":"array","items":{"type":"array","items":{"type":"integer"}}},
    "labels":{"type":"object","additionalProperties":{"type":"string"}},
    "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true}
  }},
  "status":{"type":"object","properties":{"ready":{"type":"boolean","description":"ready is true when all replicas are ready."}}}
}}`

// gatedSchemaV1beta1 is an older served version: it has no spec.replicas.
const gatedSchemaV1beta1 = `{"type":"object","properties":{
  "spec":{"type":"object","properties":{
    "image":{"type":"string"},
    "foo":{"type":"object","description":"foo groups settings.","properties":{"bar":{"type":"string","description":"bar is a setting."}}}
  }}
}}`

// gateMark is what the published document says about one gated property.
type gateMark struct {
	Gate        map[string]interface{}
	Description string
}

func gatedCRD(t *testing.T, gates *apiextensionsv1.CustomResourceDefinitionFeatureGates) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	schema := func(s string) *apiextensionsv1.CustomResourceValidation {
		props := &apiextensionsv1.JSONSchemaProps{}
		if err := json.Unmarshal([]byte(s), props); err != nil {
			t.Fatal(err)
		}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "bar.k8s.io",
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true, Schema: schema(gatedSchemaV1beta1)},
				{Name: "v1", Served: true, Storage: true, Schema: schema(gatedSchemaV1)},
			},
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural:   "foos",
				Singular: "foo",
				Kind:     "Foo",
				ListKind: "FooList",
			},
			Scope:              apiextensionsv1.NamespaceScoped,
			CustomFeatureGates: gates,
		},
	}
}

func gates(gs ...apiextensionsv1.CustomResourceDefinitionFeatureGate) *apiextensionsv1.CustomResourceDefinitionFeatureGates {
	return &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: gs}
}

func gate(name string, preRelease apiextensionsv1.CustomFeatureGatePreRelease, enabled, def *bool, paths ...string) apiextensionsv1.CustomResourceDefinitionFeatureGate {
	return apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: name, PreRelease: preRelease, Enabled: enabled, Default: def, FieldPaths: paths}
}

func requires(g apiextensionsv1.CustomResourceDefinitionFeatureGate, names ...string) apiextensionsv1.CustomResourceDefinitionFeatureGate {
	g.Requires = names
	return g
}

func extension(name, preRelease string, enabled bool) map[string]interface{} {
	return map[string]interface{}{"name": name, "preRelease": preRelease, "enabled": enabled}
}

func TestBuildOpenAPIFeatureGates(t *testing.T) {
	const (
		alpha      = apiextensionsv1.CustomFeatureGateAlpha
		beta       = apiextensionsv1.CustomFeatureGateBeta
		stable     = apiextensionsv1.CustomFeatureGateStable
		deprecated = apiextensionsv1.CustomFeatureGateDeprecated
	)
	replicasDisabled := gateMark{
		Gate:        extension("ReplicasFeatureGate", "alpha", false),
		Description: "Alpha (feature gate ReplicasFeatureGate, disabled).\nreplicas is the number of copies.",
	}
	tests := []struct {
		name       string
		gates      *apiextensionsv1.CustomResourceDefinitionFeatureGates
		featureOff bool
		// want are the marks of each version, by field path.
		want map[string]map[string]gateMark
	}{
		{
			name:  "alpha, disabled by default",
			gates: gates(gate("ReplicasFeatureGate", alpha, nil, nil, ".spec.replicas")),
			want:  map[string]map[string]gateMark{"v1": {".spec.replicas": replicasDisabled}},
		},
		{
			name:  "alpha, enabled by the admin",
			gates: gates(gate("ReplicasFeatureGate", alpha, ptr.To(true), ptr.To(false), ".spec.replicas")),
			want: map[string]map[string]gateMark{"v1": {".spec.replicas": {
				Gate:        extension("ReplicasFeatureGate", "alpha", true),
				Description: "Alpha (feature gate ReplicasFeatureGate, enabled).\nreplicas is the number of copies.",
			}}},
		},
		{
			name:  "beta, enabled by default",
			gates: gates(gate("ReplicasFeatureGate", beta, nil, nil, ".spec.replicas")),
			want: map[string]map[string]gateMark{"v1": {".spec.replicas": {
				Gate:        extension("ReplicasFeatureGate", "beta", true),
				Description: "Beta (feature gate ReplicasFeatureGate, enabled).\nreplicas is the number of copies.",
			}}},
		},
		{
			name:  "beta, disabled by the admin",
			gates: gates(gate("ReplicasFeatureGate", beta, ptr.To(false), nil, ".spec.replicas")),
			want: map[string]map[string]gateMark{"v1": {".spec.replicas": {
				Gate:        extension("ReplicasFeatureGate", "beta", false),
				Description: "Beta (feature gate ReplicasFeatureGate, disabled).\nreplicas is the number of copies.",
			}}},
		},
		{
			name:  "stable",
			gates: gates(gate("ReplicasFeatureGate", stable, nil, ptr.To(true), ".spec.replicas")),
			want: map[string]map[string]gateMark{"v1": {".spec.replicas": {
				Gate:        extension("ReplicasFeatureGate", "stable", true),
				Description: "Stable (feature gate ReplicasFeatureGate, enabled).\nreplicas is the number of copies.",
			}}},
		},
		{
			name: "a stable gate that requires a disabled gate is published as disabled, saying why",
			gates: gates(gate("Example", alpha, ptr.To(true), nil), gate("Example2", alpha, nil, nil),
				requires(gate("ReplicasFeatureGate", stable, nil, nil, ".spec.replicas"), "Example", "Example2")),
			want: map[string]map[string]gateMark{"v1": {".spec.replicas": {
				Gate:        extension("ReplicasFeatureGate", "stable", false),
				Description: "Stable (feature gate ReplicasFeatureGate, disabled: requires Example2, which is disabled).\nreplicas is the number of copies.",
			}}},
		},
		{
			name: "a stable gate whose required gates are enabled",
			gates: gates(gate("Example", alpha, ptr.To(true), nil), gate("Example2", stable, nil, nil),
				requires(gate("ReplicasFeatureGate", stable, nil, nil, ".spec.replicas"), "Example", "Example2")),
			want: map[string]map[string]gateMark{"v1": {".spec.replicas": {
				Gate:        extension("ReplicasFeatureGate", "stable", true),
				Description: "Stable (feature gate ReplicasFeatureGate, enabled).\nreplicas is the number of copies.",
			}}},
		},
		{
			name:  "deprecated, still enabled, and a field without a description",
			gates: gates(gate("ImageGate", deprecated, nil, ptr.To(true), ".spec.image")),
			want: map[string]map[string]gateMark{
				"v1":      {".spec.image": {Gate: extension("ImageGate", "deprecated", true), Description: "Deprecated (feature gate ImageGate, enabled)."}},
				"v1beta1": {".spec.image": {Gate: extension("ImageGate", "deprecated", true), Description: "Deprecated (feature gate ImageGate, enabled)."}},
			},
		},
		{
			name:  "deprecated, disabled",
			gates: gates(gate("ImageGate", deprecated, nil, ptr.To(false), ".spec.image")),
			want: map[string]map[string]gateMark{
				"v1":      {".spec.image": {Gate: extension("ImageGate", "deprecated", false), Description: "Deprecated (feature gate ImageGate, disabled)."}},
				"v1beta1": {".spec.image": {Gate: extension("ImageGate", "deprecated", false), Description: "Deprecated (feature gate ImageGate, disabled)."}},
			},
		},
		{
			name: "component",
			gates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				Component:    ptr.To("istio"),
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{gate("ReplicasFeatureGate", alpha, nil, nil, ".spec.replicas")},
			},
			want: map[string]map[string]gateMark{"v1": {".spec.replicas": {
				Gate:        map[string]interface{}{"name": "ReplicasFeatureGate", "preRelease": "alpha", "enabled": false, "component": "istio"},
				Description: replicasDisabled.Description,
			}}},
		},
		{
			name: "nested: a disabled parent disables an enabled child",
			gates: gates(
				gate("FooGate", alpha, nil, nil, ".spec.foo"),
				gate("BarGate", beta, nil, nil, ".spec.foo.bar"),
			),
			want: map[string]map[string]gateMark{
				"v1": {
					".spec.foo":     {Gate: extension("FooGate", "alpha", false), Description: "Alpha (feature gate FooGate, disabled).\nfoo groups settings."},
					".spec.foo.bar": {Gate: extension("BarGate", "beta", false), Description: "Beta (feature gate BarGate, enabled, but a gated parent field is not live).\nbar is a setting."},
				},
				"v1beta1": {
					".spec.foo":     {Gate: extension("FooGate", "alpha", false), Description: "Alpha (feature gate FooGate, disabled).\nfoo groups settings."},
					".spec.foo.bar": {Gate: extension("BarGate", "beta", false), Description: "Beta (feature gate BarGate, enabled, but a gated parent field is not live).\nbar is a setting."},
				},
			},
		},
		{
			name: "nested: both enabled",
			gates: gates(
				gate("FooGate", alpha, ptr.To(true), nil, ".spec.foo"),
				gate("BarGate", beta, nil, nil, ".spec.foo.bar"),
			),
			want: map[string]map[string]gateMark{
				"v1": {
					".spec.foo":     {Gate: extension("FooGate", "alpha", true), Description: "Alpha (feature gate FooGate, enabled).\nfoo groups settings."},
					".spec.foo.bar": {Gate: extension("BarGate", "beta", true), Description: "Beta (feature gate BarGate, enabled).\nbar is a setting."},
				},
				"v1beta1": {
					".spec.foo":     {Gate: extension("FooGate", "alpha", true), Description: "Alpha (feature gate FooGate, enabled).\nfoo groups settings."},
					".spec.foo.bar": {Gate: extension("BarGate", "beta", true), Description: "Beta (feature gate BarGate, enabled).\nbar is a setting."},
				},
			},
		},
		{
			name:  "wildcard: a field of every list item",
			gates: gates(gate("ImagesGate", alpha, nil, nil, ".spec.containers[*].image")),
			want: map[string]map[string]gateMark{"v1": {".spec.containers[*].image": {
				Gate:        extension("ImagesGate", "alpha", false),
				Description: "Alpha (feature gate ImagesGate, disabled).\nimage of the container.",
			}}},
		},
		{
			name:  "wildcard: the items of a map list and of a list of lists",
			gates: gates(gate("ItemsGate", beta, nil, nil, ".spec.ports[*]", ".spec.matrix[*][*]")),
			want: map[string]map[string]gateMark{"v1": {
				".spec.ports[*]":     {Gate: extension("ItemsGate", "beta", true), Description: "Beta (feature gate ItemsGate, enabled)."},
				".spec.matrix[*][*]": {Gate: extension("ItemsGate", "beta", true), Description: "Beta (feature gate ItemsGate, enabled)."},
			}},
		},
		{
			name:  "wildcard: every value of a map",
			gates: gates(gate("LabelsGate", alpha, nil, nil, ".spec.labels[*]")),
			want: map[string]map[string]gateMark{"v1": {".spec.labels[*]": {
				Gate:        extension("LabelsGate", "alpha", false),
				Description: "Alpha (feature gate LabelsGate, disabled).",
			}}},
		},
		{
			name:  "status",
			gates: gates(gate("ReadyGate", alpha, nil, nil, ".status.ready")),
			want: map[string]map[string]gateMark{"v1": {".status.ready": {
				Gate:        extension("ReadyGate", "alpha", false),
				Description: "Alpha (feature gate ReadyGate, disabled).\nready is true when all replicas are ready.",
			}}},
		},
		{
			name: "paths with no property of their own are not marked",
			gates: gates(
				// one key of a map, and a field below x-kubernetes-preserve-unknown-fields
				gate("KeyGate", alpha, nil, nil, ".spec.labels.team", ".spec.extra.anything"),
			),
			want: map[string]map[string]gateMark{},
		},
		{
			name:       "CRDFieldLevelVersioning off: nothing is marked",
			gates:      gates(gate("ReplicasFeatureGate", alpha, nil, nil, ".spec.replicas")),
			featureOff: true,
			want:       map[string]map[string]gateMark{},
		},
		{
			name: "no gates",
			want: map[string]map[string]gateMark{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, !tc.featureOff)
			crd := gatedCRD(t, tc.gates)
			for _, version := range []string{"v1", "v1beta1"} {
				want := tc.want[version]
				if want == nil {
					want = map[string]gateMark{}
				}

				v2, err := BuildOpenAPIV2(crd, version, Options{V2: true})
				if err != nil {
					t.Fatal(err)
				}
				var swagger spec.Swagger
				roundTrip(t, v2, &swagger)
				def := swagger.Definitions[gvkToModelName("bar.k8s.io", version, "Foo")]
				if diff := cmp.Diff(want, featureGateMarks(&def)); diff != "" {
					t.Errorf("OpenAPI v2 marks of %s (-want +got):\n%s", version, diff)
				}

				v3, err := BuildOpenAPIV3(crd, version, Options{})
				if err != nil {
					t.Fatal(err)
				}
				var openAPI spec3.OpenAPI
				roundTrip(t, v3, &openAPI)
				if diff := cmp.Diff(want, featureGateMarks(openAPI.Components.Schemas[gvkToModelName("bar.k8s.io", version, "Foo")])); diff != "" {
					t.Errorf("OpenAPI v3 marks of %s (-want +got):\n%s", version, diff)
				}
			}
		})
	}
}

// TestBuildOpenAPIFeatureGatesLeaveOtherPropertiesAlone checks that marking changes nothing
// but the marked property's extension and description.
func TestBuildOpenAPIFeatureGatesLeaveOtherPropertiesAlone(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	plain, err := BuildOpenAPIV3(gatedCRD(t, nil), "v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	gated, err := BuildOpenAPIV3(gatedCRD(t, gates(gate("ImagesGate", apiextensionsv1.CustomFeatureGateAlpha, nil, nil, ".spec.containers[*].image"))), "v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := gvkToModelName("bar.k8s.io", "v1", "Foo")
	image := gated.Components.Schemas[name].Properties["spec"].Properties["containers"].Items.Schema.Properties["image"]
	delete(image.Extensions, featuregates.MarkExtension)
	delete(image.Extensions, featuregates.StateExtension)
	image.Description = "image of the container."
	gated.Components.Schemas[name].Properties["spec"].Properties["containers"].Items.Schema.Properties["image"] = image
	var want, got map[string]interface{}
	roundTrip(t, plain.Components.Schemas[name], &want)
	roundTrip(t, gated.Components.Schemas[name], &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unexpected changes besides the mark (-without gates +with gates):\n%s", diff)
	}
}

// roundTrip serializes a published document and reads it back, as a client does.
func roundTrip(t *testing.T, in, out interface{}) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

// featureGateMarks returns every property of s that carries x-kubernetes-feature-gate, by
// field path, with the gate's name and x-kubernetes-feature-gate-state in one map.
func featureGateMarks(s *spec.Schema) map[string]gateMark {
	marks := map[string]gateMark{}
	var walk func(s *spec.Schema, path string)
	walk = func(s *spec.Schema, path string) {
		if s == nil {
			return
		}
		if v, ok := s.Extensions[featuregates.MarkExtension]; ok {
			// The gate's name and its state, in one map for the tables.
			g := map[string]interface{}{"name": v}
			state, _ := s.Extensions[featuregates.StateExtension].(map[string]interface{})
			for k, v := range state {
				g[k] = v
			}
			marks[path] = gateMark{Gate: g, Description: s.Description}
		}
		for name, prop := range s.Properties {
			walk(&prop, path+"."+name)
		}
		if s.Items != nil {
			walk(s.Items.Schema, path+"[*]")
		}
		if s.AdditionalProperties != nil {
			walk(s.AdditionalProperties.Schema, path+"[*]")
		}
	}
	walk(s, "")
	return marks
}
