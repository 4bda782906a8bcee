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
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// sharedVersionsCRD is a CRD with two versions of one shape, each with its own schema: v1 and
// v2 (the storage version) both have .spec.replicas, .spec.host and .spec.listeners, a list;
// only v2 has .spec.extra. conversion is the CRD's conversion strategy; mutate changes the
// schemas.
func sharedVersionsCRD(conversion apiextensions.ConversionStrategyType, mutate func(v1, v2 *apiextensions.JSONSchemaProps), gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinition {
	crd := markedVersionsCRD(func(v1, v2 *apiextensions.JSONSchemaProps) {
		for _, v := range []*apiextensions.JSONSchemaProps{v1, v2} {
			spec := v.Properties["spec"]
			delete(spec.Properties, "hostPort")
			delete(spec.Properties, "port")
			spec.Properties["replicas"] = apiextensions.JSONSchemaProps{Type: "integer"}
			spec.Properties["listeners"] = apiextensions.JSONSchemaProps{Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{
				Type: "object", Required: []string{"name"}, Properties: map[string]apiextensions.JSONSchemaProps{"name": {Type: "string"}, "port": {Type: "integer"}}}}}
			v.Properties["spec"] = spec
		}
		v2.Properties["spec"].Properties["extra"] = apiextensions.JSONSchemaProps{Type: "string"}
		if mutate != nil {
			mutate(v1, v2)
		}
	}, gates...)
	crd.Spec.Conversion = &apiextensions.CustomResourceConversion{Strategy: conversion}
	if conversion == apiextensions.WebhookConverter {
		crd.Spec.Conversion.ConversionReviewVersions = []string{"v1"}
		crd.Spec.Conversion.WebhookClientConfig = &apiextensions.WebhookClientConfig{URL: ptr.To("https://example.com/convert")}
	}
	return crd
}

// markProp sets x-kubernetes-feature-gate: gate on the property at props below s.
func markProp(s *apiextensions.JSONSchemaProps, gate string, props ...string) {
	if len(props) == 1 {
		p := s.Properties[props[0]]
		p.XFeatureGate = ptr.To(gate)
		s.Properties[props[0]] = p
		return
	}
	p := s.Properties[props[0]]
	markProp(&p, gate, props[1:]...)
	s.Properties[props[0]] = p
}

// TestValidateFeatureGateMarksAcrossVersions: with conversion None a mark gates its path in
// every version that has it, so two versions may not mark one path with different gates, nor
// may any version's mark name another gate than a fieldPath at the same path. With a
// conversion webhook each version keeps its own marks, and only the storage version's marks
// meet the fieldPaths.
func TestValidateFeatureGateMarksAcrossVersions(t *testing.T) {
	replicasGate := gate("ReplicasGate", apiextensions.CustomFeatureGateAlpha)
	otherGate := gate("OtherGate", apiextensions.CustomFeatureGateBeta)
	at := func(version int, props ...string) *field.Path {
		p := field.NewPath("spec", "versions").Index(version).Child("schema", "openAPIV3Schema")
		for _, prop := range props {
			p = p.Child("properties").Key(prop)
		}
		return p.Child("x-kubernetes-feature-gate")
	}
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailExact()
	tests := []struct {
		name       string
		conversion apiextensions.ConversionStrategyType
		mutate     func(v1, v2 *apiextensions.JSONSchemaProps)
		gates      []apiextensions.CustomResourceDefinitionFeatureGate
		want       field.ErrorList
	}{{
		name:       "None: both versions mark replicas with the same gate",
		conversion: apiextensions.NoneConverter,
		mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
			markProp(v1, "ReplicasGate", "spec", "replicas")
			markProp(v2, "ReplicasGate", "spec", "replicas")
		},
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate},
	}, {
		name:       "None: one version marks replicas",
		conversion: apiextensions.NoneConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v2, "ReplicasGate", "spec", "replicas") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate},
	}, {
		name:       "None: the versions mark replicas with different gates",
		conversion: apiextensions.NoneConverter,
		mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
			markProp(v1, "OtherGate", "spec", "replicas")
			markProp(v2, "ReplicasGate", "spec", "replicas")
		},
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate, otherGate},
		want: field.ErrorList{field.Invalid(at(1, "spec", "replicas"), "ReplicasGate",
			`version "v1" marks the same path .spec.replicas with feature gate "OtherGate": with conversion None a mark gates its path in every version that has it, so the versions must name the same gate`)},
	}, {
		name:       "None: different gates on a nested path",
		conversion: apiextensions.NoneConverter,
		mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
			v1.Properties["spec"].Properties["listeners"].Items.Schema.XFeatureGate = ptr.To("OtherGate")
			v2.Properties["spec"].Properties["listeners"].Items.Schema.XFeatureGate = ptr.To("ReplicasGate")
		},
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate, otherGate},
		want: field.ErrorList{field.Invalid(field.NewPath("spec", "versions").Index(1).Child("schema", "openAPIV3Schema").Child("properties").Key("spec").
			Child("properties").Key("listeners").Child("items", "x-kubernetes-feature-gate"), "ReplicasGate",
			`version "v1" marks the same path .spec.listeners[*] with feature gate "OtherGate": with conversion None a mark gates its path in every version that has it, so the versions must name the same gate`)},
	}, {
		name:       "Webhook: the versions mark replicas with different gates",
		conversion: apiextensions.WebhookConverter,
		mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
			markProp(v1, "OtherGate", "spec", "replicas")
			markProp(v2, "ReplicasGate", "spec", "replicas")
		},
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate, otherGate},
	}, {
		name:       "None: a version that is not the storage version marks a fieldPath with another gate",
		conversion: apiextensions.NoneConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v1, "ReplicasGate", "spec", "host") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate, gate("HostGate", apiextensions.CustomFeatureGateAlpha, ".spec.host")},
		want: field.ErrorList{field.Invalid(at(0, "spec", "host"), "ReplicasGate",
			`version "v1"'s path .spec.host is also in the fieldPaths of feature gate "HostGate", which gate it in every version with conversion None; a path guarded both ways must name the same gate`)},
	}, {
		name:       "Webhook: a version that is not the storage version marks a fieldPath with another gate",
		conversion: apiextensions.WebhookConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v1, "ReplicasGate", "spec", "host") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate, gate("HostGate", apiextensions.CustomFeatureGateAlpha, ".spec.host")},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := sharedVersionsCRD(tc.conversion, tc.mutate, tc.gates...)
			errs := ValidateCustomResourceDefinition(context.Background(), crd)
			matcher.Test(t, tc.want, errs)
		})
	}
}

// TestFeatureGateMarkVersionWarnings: with conversion None, a version that has a path that
// another version marks, but does not mark it, draws a warning that names both versions and
// the path; with a webhook, or when every version marks the path (or a fieldPath gates it),
// there is none.
func TestFeatureGateMarkVersionWarnings(t *testing.T) {
	replicasGate := gate("ReplicasGate", apiextensions.CustomFeatureGateAlpha)
	v2Mark := `spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[replicas].x-kubernetes-feature-gate: version "v2" marks .spec.replicas with feature gate ReplicasGate and version "v1" does not; ` +
		`with conversion None the versions share one shape, so the mark applies to both v1 and v2: mark .spec.replicas in version "v1" too`
	tests := []struct {
		name       string
		conversion apiextensions.ConversionStrategyType
		mutate     func(v1, v2 *apiextensions.JSONSchemaProps)
		gates      []apiextensions.CustomResourceDefinitionFeatureGate
		want       []string
	}{{
		name:       "None: v2 marks replicas, v1 does not",
		conversion: apiextensions.NoneConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v2, "ReplicasGate", "spec", "replicas") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate},
		want:       []string{v2Mark},
	}, {
		name:       "None: v1 marks replicas, v2 (the storage version) does not",
		conversion: apiextensions.NoneConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v1, "ReplicasGate", "spec", "replicas") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate},
		want: []string{`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].x-kubernetes-feature-gate: version "v1" marks .spec.replicas with feature gate ReplicasGate and version "v2" does not; ` +
			`with conversion None the versions share one shape, so the mark applies to both v1 and v2: mark .spec.replicas in version "v2" too`},
	}, {
		name:       "None: both versions mark replicas",
		conversion: apiextensions.NoneConverter,
		mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
			markProp(v1, "ReplicasGate", "spec", "replicas")
			markProp(v2, "ReplicasGate", "spec", "replicas")
		},
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate},
	}, {
		name:       "None: v2 marks extra, which v1 does not have",
		conversion: apiextensions.NoneConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v2, "ReplicasGate", "spec", "extra") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate},
	}, {
		name:       "None: a fieldPath gates replicas in every version already",
		conversion: apiextensions.NoneConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v2, "ReplicasGate", "spec", "replicas") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{gate("ReplicasGate", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")},
	}, {
		name:       "Webhook: v2 marks replicas, v1 does not",
		conversion: apiextensions.WebhookConverter,
		mutate:     func(v1, v2 *apiextensions.JSONSchemaProps) { markProp(v2, "ReplicasGate", "spec", "replicas") },
		gates:      []apiextensions.CustomResourceDefinitionFeatureGate{replicasGate},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := sharedVersionsCRD(tc.conversion, tc.mutate, tc.gates...)
			if diff := cmp.Diff(tc.want, FeatureGateMarkVersionWarnings(&crd.Spec)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateCustomFeatureGatesEveryVersion: a fieldPath is checked against every version it
// gates (every version that has it, with conversion None; the storage version, with a
// webhook): through a named key of a map whose value schema has a default there, or on a key
// of a map list, in any of them, it is rejected; on an update that leaves the gate as it was,
// it is kept with a warning. A mark is checked for list-map keys in every version it gates.
func TestValidateCustomFeatureGatesEveryVersion(t *testing.T) {
	// withTiers gives v1's .spec.tiers values a default size, and v2's none.
	withTiers := func(v1, v2 *apiextensions.JSONSchemaProps) {
		for _, v := range []*apiextensions.JSONSchemaProps{v1, v2} {
			size := apiextensions.JSONSchemaProps{Type: "integer"}
			if v == v1 {
				size.Default = ptr.To(apiextensions.JSON(int64(1)))
			}
			v.Properties["spec"].Properties["tiers"] = apiextensions.JSONSchemaProps{Type: "object",
				AdditionalProperties: &apiextensions.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensions.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"size": size}}}}
		}
	}
	// keyedInV1 makes v1's .spec.listeners a map list keyed by name; v2's stays atomic.
	keyedInV1 := func(v1, v2 *apiextensions.JSONSchemaProps) {
		l := v1.Properties["spec"].Properties["listeners"]
		l.XListType = ptr.To("map")
		l.XListMapKeys = []string{"name"}
		v1.Properties["spec"].Properties["listeners"] = l
	}
	gold := gate("GoldSize", apiextensions.CustomFeatureGateAlpha, ".spec.tiers.gold.size")
	names := gate("NameGate", apiextensions.CustomFeatureGateAlpha, ".spec.listeners[*].name")
	fieldPath := field.NewPath("spec", "customFeatureGates", "featureGates").Index(0).Child("fieldPaths").Index(0)
	goldDetail := `must not go through the named key "gold" of the map .spec.tiers when the map's value schema in version "v1" has a default at or below the rest of the path: ` +
		`that schema is shared by every key, so the default cannot follow the gate; gate every key (.spec.tiers[*]...) or remove the default`
	keyDetail := `.spec.listeners[*].name is a list-map key of the list .spec.listeners (x-kubernetes-list-type: map, x-kubernetes-list-map-keys) in version "v1" and cannot be gated: ` +
		"dropping it would leave list items without their key, so they could no longer be told apart; gate the list item (.spec.listeners[*]) or the list (.spec.listeners) instead"
	v2NameMark := field.NewPath("spec", "versions").Index(1).Child("schema", "openAPIV3Schema").Child("properties").Key("spec").Child("properties").Key("listeners").
		Child("items").Child("properties").Key("name").Child("x-kubernetes-feature-gate")
	tests := []struct {
		name         string
		conversion   apiextensions.ConversionStrategyType
		mutate       func(v1, v2 *apiextensions.JSONSchemaProps)
		gates        []apiextensions.CustomResourceDefinitionFeatureGate
		oldSame      bool // an update from the same CRD (every gate unchanged)
		want         field.ErrorList
		wantWarnings []string
	}{{
		name:       "None: a named key with a default in v1 only",
		conversion: apiextensions.NoneConverter, mutate: withTiers,
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{gold},
		want:  field.ErrorList{field.Invalid(fieldPath, ".spec.tiers.gold.size", goldDetail)},
	}, {
		name:       "None: the same, on an update of an unchanged gate: a warning",
		conversion: apiextensions.NoneConverter, mutate: withTiers, oldSame: true,
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{gold},
		wantWarnings: []string{fieldPath.String() + ": field path .spec.tiers.gold.size of feature gate GoldSize: " + goldDetail +
			"; it is kept because the gate did not change, and that default is applied while the gate is disabled"},
	}, {
		name:       "Webhook: a named key with a default in v1 only, which the fieldPath does not gate",
		conversion: apiextensions.WebhookConverter, mutate: withTiers,
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{gold},
	}, {
		name:       "None: a fieldPath on a key of v1's map list",
		conversion: apiextensions.NoneConverter, mutate: keyedInV1,
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{names},
		want:  field.ErrorList{field.Invalid(fieldPath, ".spec.listeners[*].name", keyDetail)},
	}, {
		name:       "Webhook: a fieldPath on a key of v1's map list",
		conversion: apiextensions.WebhookConverter, mutate: keyedInV1,
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{names},
	}, {
		name:       "None: v2's mark on a key of v1's map list",
		conversion: apiextensions.NoneConverter,
		mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
			keyedInV1(v1, v2)
			name := v2.Properties["spec"].Properties["listeners"].Items.Schema.Properties["name"]
			name.XFeatureGate = ptr.To("NameGate")
			v2.Properties["spec"].Properties["listeners"].Items.Schema.Properties["name"] = name
		},
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("NameGate", apiextensions.CustomFeatureGateAlpha)},
		want:  field.ErrorList{field.Invalid(v2NameMark, "NameGate", keyDetail)},
	}, {
		name:       "Webhook: v2's mark on a key of v1's map list",
		conversion: apiextensions.WebhookConverter,
		mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
			keyedInV1(v1, v2)
			name := v2.Properties["spec"].Properties["listeners"].Items.Schema.Properties["name"]
			name.XFeatureGate = ptr.To("NameGate")
			v2.Properties["spec"].Properties["listeners"].Items.Schema.Properties["name"] = name
		},
		gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("NameGate", apiextensions.CustomFeatureGateAlpha)},
	}}
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailExact()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := sharedVersionsCRD(tc.conversion, tc.mutate, tc.gates...)
			var errs field.ErrorList
			var warnings []string
			if tc.oldSame {
				old := crd.DeepCopy()
				errs = ValidateCustomResourceDefinitionUpdate(context.Background(), crd, old)
				warnings = UnresolvedGatedPathWarnings(&crd.Spec, &old.Spec)
			} else {
				errs = ValidateCustomResourceDefinition(context.Background(), crd)
			}
			matcher.Test(t, tc.want, errs)
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
