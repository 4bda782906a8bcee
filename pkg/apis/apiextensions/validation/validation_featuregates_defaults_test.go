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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

// defaultsTestSchema is a storage schema with defaults at several depths.
func defaultsTestSchema() *apiextensions.JSONSchemaProps {
	def := func(v interface{}) *apiextensions.JSON { j := apiextensions.JSON(v); return &j }
	return &apiextensions.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensions.JSONSchemaProps{
			"spec": {
				Type: "object",
				Properties: map[string]apiextensions.JSONSchemaProps{
					"replicas": {Type: "integer", Default: def(int64(1))},
					"image":    {Type: "string"},
					"config": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
						"plain": {Type: "string"},
						"deep": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
							"mode": {Type: "string", Default: def("fast")},
						}},
					}},
					"containers": {Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{
						Type: "object",
						Properties: map[string]apiextensions.JSONSchemaProps{
							"name":  {Type: "string"},
							"image": {Type: "string", Default: def("nginx")},
						},
					}}},
					"ports": {Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{Type: "integer"}}},
					"limits": {Type: "object", AdditionalProperties: &apiextensions.JSONSchemaPropsOrBool{Schema: &apiextensions.JSONSchemaProps{
						Type:       "object",
						Properties: map[string]apiextensions.JSONSchemaProps{"max": {Type: "integer", Default: def(int64(10))}},
					}}},
					"raw": {Type: "object", XPreserveUnknownFields: ptr.To(true)},
				},
			},
			"parent": {Type: "object", Default: def(map[string]interface{}{"child": "x"}), Properties: map[string]apiextensions.JSONSchemaProps{
				"child": {Type: "string"},
			}},
		},
	}
}

func defaultsTestSpec(gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinitionSpec {
	return &apiextensions.CustomResourceDefinitionSpec{
		Group: "stable.example.com",
		Versions: []apiextensions.CustomResourceDefinitionVersion{
			// A served, non-storage version whose defaults must not count.
			{Name: "v1alpha1", Served: true, Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{
				Type: "object",
				Properties: map[string]apiextensions.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
					"image": {Type: "string", Default: func() *apiextensions.JSON { j := apiextensions.JSON("old"); return &j }()},
				}}},
			}}},
			{Name: "v1", Served: true, Storage: true, Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: defaultsTestSchema()}},
		},
		CustomFeatureGates: &apiextensions.CustomResourceDefinitionFeatureGates{FeatureGates: gates},
	}
}

func defaultsGate(name string, preRelease apiextensions.CustomFeatureGatePreRelease, paths ...string) apiextensions.CustomResourceDefinitionFeatureGate {
	return apiextensions.CustomResourceDefinitionFeatureGate{Name: name, PreRelease: preRelease, FieldPaths: paths}
}

func defaultWarning(i, j int, path, where, gate string) string {
	return fmt.Sprintf("spec.customFeatureGates.featureGates[%d].fieldPaths[%d]: %s has a schema default%s; while feature gate %s is disabled, the default is filled in and then dropped on writes (with a warning), and reads still show it. Add the default when the gate goes stable.", i, j, path, where, gate)
}

func TestCustomFeatureGateDefaultWarnings(t *testing.T) {
	alpha := apiextensions.CustomFeatureGateAlpha
	beta := apiextensions.CustomFeatureGateBeta
	stable := apiextensions.CustomFeatureGateStable
	deprecated := apiextensions.CustomFeatureGateDeprecated

	tooManyGates := make([]apiextensions.CustomResourceDefinitionFeatureGate, MaxCustomFeatureGates+1)
	for i := range tooManyGates {
		tooManyGates[i] = defaultsGate(fmt.Sprintf("Gate%d", i), alpha, ".spec.replicas")
	}
	tooManyPaths := make([]string, MaxCustomFeatureGateFieldPaths+1)
	for i := range tooManyPaths {
		tooManyPaths[i] = ".spec.replicas"
	}

	testCases := []struct {
		name string
		spec *apiextensions.CustomResourceDefinitionSpec
		want []string
	}{{
		name: "default on the gated leaf",
		spec: defaultsTestSpec(defaultsGate("ReplicasFeatureGate", alpha, ".spec.replicas")),
		want: []string{defaultWarning(0, 0, ".spec.replicas", "", "ReplicasFeatureGate")},
	}, {
		name: "the exact text of the brief",
		spec: defaultsTestSpec(defaultsGate("ReplicasFeatureGate", alpha, ".spec.replicas")),
		want: []string{"spec.customFeatureGates.featureGates[0].fieldPaths[0]: .spec.replicas has a schema default; while feature gate ReplicasFeatureGate is disabled, the default is filled in and then dropped on writes (with a warning), and reads still show it. Add the default when the gate goes stable."},
	}, {
		name: "default inside a gated object, named",
		spec: defaultsTestSpec(defaultsGate("ConfigFeatureGate", alpha, ".spec.config")),
		want: []string{defaultWarning(0, 0, ".spec.config", " at .spec.config.deep.mode", "ConfigFeatureGate")},
	}, {
		name: "default on a list item field below a [*] path",
		spec: defaultsTestSpec(defaultsGate("ImageFeatureGate", alpha, ".spec.containers[*].image")),
		want: []string{defaultWarning(0, 0, ".spec.containers[*].image", "", "ImageFeatureGate")},
	}, {
		name: "default inside the list items of a [*] path",
		spec: defaultsTestSpec(defaultsGate("ContainersFeatureGate", alpha, ".spec.containers[*]")),
		want: []string{defaultWarning(0, 0, ".spec.containers[*]", " at .spec.containers[*].image", "ContainersFeatureGate")},
	}, {
		name: "default inside the items of a gated list",
		spec: defaultsTestSpec(defaultsGate("ContainersFeatureGate", alpha, ".spec.containers")),
		want: []string{defaultWarning(0, 0, ".spec.containers", " at .spec.containers[*].image", "ContainersFeatureGate")},
	}, {
		name: "[*] on a map and a named map key resolve through additionalProperties",
		spec: defaultsTestSpec(defaultsGate("LimitsFeatureGate", beta, ".spec.limits[*]", ".spec.limits.cpu.max")),
		want: []string{
			defaultWarning(0, 0, ".spec.limits[*]", " at .spec.limits[*].max", "LimitsFeatureGate"),
			defaultWarning(0, 1, ".spec.limits.cpu.max", "", "LimitsFeatureGate"),
		},
	}, {
		name: "beta and deprecated gates can be disabled: warned",
		spec: defaultsTestSpec(
			defaultsGate("ReplicasFeatureGate", beta, ".spec.replicas"),
			defaultsWithDefault(defaultsGate("ContainersFeatureGate", deprecated, ".spec.containers"), true),
		),
		want: []string{
			defaultWarning(0, 0, ".spec.replicas", "", "ReplicasFeatureGate"),
			defaultWarning(1, 0, ".spec.containers", " at .spec.containers[*].image", "ContainersFeatureGate"),
		},
	}, {
		name: "enablement does not matter: an enabled alpha gate can still be disabled",
		spec: defaultsTestSpec(defaultsWithEnabled(defaultsGate("ReplicasFeatureGate", alpha, ".spec.replicas"), true)),
		want: []string{defaultWarning(0, 0, ".spec.replicas", "", "ReplicasFeatureGate")},
	}, {
		name: "stable gate: always enabled, no warning",
		spec: defaultsTestSpec(defaultsGate("ReplicasFeatureGate", stable, ".spec.replicas", ".spec.config", ".spec.containers[*]")),
		want: nil,
	}, {
		name: "unknown preRelease: left to validation",
		spec: defaultsTestSpec(defaultsGate("ReplicasFeatureGate", "gamma", ".spec.replicas")),
		want: nil,
	}, {
		name: "no default at or below the path",
		spec: defaultsTestSpec(defaultsGate("ImageFeatureGate", alpha, ".spec.image", ".spec.config.plain", ".spec.ports", ".spec.containers[*].name")),
		want: nil,
	}, {
		name: "a default only in a non-storage version does not count",
		spec: defaultsTestSpec(defaultsGate("ImageFeatureGate", alpha, ".spec.image")),
		want: nil,
	}, {
		name: "path not in the schema",
		spec: defaultsTestSpec(defaultsGate("MissingFeatureGate", alpha, ".spec.missing", ".spec.replicas[*]", ".spec.replicas.sub")),
		want: nil,
	}, {
		name: "path below x-kubernetes-preserve-unknown-fields: no schema node, no default",
		spec: defaultsTestSpec(defaultsGate("RawFeatureGate", alpha, ".spec.raw.anything")),
		want: nil,
	}, {
		name: "a default on an ancestor is not reported (the path's node and below only)",
		spec: defaultsTestSpec(defaultsGate("ChildFeatureGate", alpha, ".parent.child")),
		want: nil,
	}, {
		name: "invalid and reserved paths are skipped",
		spec: defaultsTestSpec(defaultsGate("BadFeatureGate", alpha, "spec.replicas", ".metadata.name", ".spec.replicas")),
		want: []string{defaultWarning(0, 2, ".spec.replicas", "", "BadFeatureGate")},
	}, {
		name: "a path listed twice is warned once",
		spec: defaultsTestSpec(
			defaultsGate("ReplicasFeatureGate", alpha, ".spec.replicas"),
			defaultsGate("OtherFeatureGate", alpha, ".spec.replicas"),
		),
		want: []string{defaultWarning(0, 0, ".spec.replicas", "", "ReplicasFeatureGate")},
	}, {
		name: "several gates and paths, in order",
		spec: defaultsTestSpec(
			defaultsGate("StableFeatureGate", stable, ".spec.replicas"),
			defaultsGate("ImageFeatureGate", alpha, ".spec.image", ".spec.containers[*].image", ".spec.config"),
		),
		want: []string{
			defaultWarning(1, 1, ".spec.containers[*].image", "", "ImageFeatureGate"),
			defaultWarning(1, 2, ".spec.config", " at .spec.config.deep.mode", "ImageFeatureGate"),
		},
	}, {
		name: "too many gates: nil, validation rejects it",
		spec: defaultsTestSpec(tooManyGates...),
		want: nil,
	}, {
		name: "too many paths in a gate: that gate is skipped",
		spec: defaultsTestSpec(
			defaultsGate("TooManyFeatureGate", alpha, tooManyPaths...),
			defaultsGate("ConfigFeatureGate", alpha, ".spec.config"),
		),
		want: []string{defaultWarning(1, 0, ".spec.config", " at .spec.config.deep.mode", "ConfigFeatureGate")},
	}, {
		name: "no customFeatureGates",
		spec: func() *apiextensions.CustomResourceDefinitionSpec {
			s := defaultsTestSpec()
			s.CustomFeatureGates = nil
			return s
		}(),
		want: nil,
	}, {
		name: "no storage version",
		spec: func() *apiextensions.CustomResourceDefinitionSpec {
			s := defaultsTestSpec(defaultsGate("ReplicasFeatureGate", alpha, ".spec.replicas"))
			s.Versions[1].Storage = false
			return s
		}(),
		want: nil,
	}, {
		name: "top-level spec.validation is the storage schema when set",
		spec: func() *apiextensions.CustomResourceDefinitionSpec {
			s := defaultsTestSpec(defaultsGate("ReplicasFeatureGate", alpha, ".spec.replicas"))
			s.Validation = &apiextensions.CustomResourceValidation{OpenAPIV3Schema: defaultsTestSchema()}
			for i := range s.Versions {
				s.Versions[i].Schema = nil
			}
			return s
		}(),
		want: []string{defaultWarning(0, 0, ".spec.replicas", "", "ReplicasFeatureGate")},
	}}

	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got := CustomFeatureGateDefaultWarnings(tc.spec)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("unexpected warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCustomFeatureGateDefaultWarningsIgnoresServerGate shows that the function does not
// look at the CRDFieldLevelVersioning feature gate: the CRD strategy decides.
func TestCustomFeatureGateDefaultWarningsIgnoresServerGate(t *testing.T) {
	spec := defaultsTestSpec(defaultsGate("ReplicasFeatureGate", apiextensions.CustomFeatureGateAlpha, ".spec.replicas"))
	want := []string{defaultWarning(0, 0, ".spec.replicas", "", "ReplicasFeatureGate")}
	for _, enabled := range []bool{false, true} {
		t.Run(fmt.Sprintf("CRDFieldLevelVersioning=%v", enabled), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, enabled)
			if diff := cmp.Diff(want, CustomFeatureGateDefaultWarnings(spec)); diff != "" {
				t.Errorf("unexpected warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func defaultsWithDefault(g apiextensions.CustomResourceDefinitionFeatureGate, v bool) apiextensions.CustomResourceDefinitionFeatureGate {
	g.Default = ptr.To(v)
	return g
}

func defaultsWithEnabled(g apiextensions.CustomResourceDefinitionFeatureGate, v bool) apiextensions.CustomResourceDefinitionFeatureGate {
	g.Enabled = ptr.To(v)
	return g
}
