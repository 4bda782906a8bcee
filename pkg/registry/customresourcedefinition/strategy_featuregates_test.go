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

package customresourcedefinition

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

func TestDropDisabledCustomFeatureGates(t *testing.T) {
	gates := func() *apiextensions.CustomResourceDefinitionFeatureGates {
		return &apiextensions.CustomResourceDefinitionFeatureGates{
			Component: ptr.To("example.com"),
			FeatureGates: []apiextensions.CustomResourceDefinitionFeatureGate{{
				Name:       "ReplicasFeatureGate",
				PreRelease: apiextensions.CustomFeatureGateAlpha,
				Enabled:    ptr.To(true),
				FieldPaths: []string{".spec.replicas"},
			}},
		}
	}
	otherGates := func() *apiextensions.CustomResourceDefinitionFeatureGates {
		g := gates()
		g.FeatureGates[0].Enabled = ptr.To(false)
		return g
	}
	crd := func(g *apiextensions.CustomResourceDefinitionFeatureGates) *apiextensions.CustomResourceDefinition {
		return &apiextensions.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", ResourceVersion: "1", Generation: 1},
			Spec: apiextensions.CustomResourceDefinitionSpec{
				Group:              "stable.example.com",
				Versions:           []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
				CustomFeatureGates: g,
			},
		}
	}

	testCases := []struct {
		name        string
		gateEnabled bool
		oldGates    *apiextensions.CustomResourceDefinitionFeatureGates // nil old CRD when create is true
		create      bool
		newGates    *apiextensions.CustomResourceDefinitionFeatureGates
		wantGates   *apiextensions.CustomResourceDefinitionFeatureGates
	}{
		{name: "create, gate off, field set: dropped", create: true, newGates: gates(), wantGates: nil},
		{name: "create, gate off, field unset: unchanged", create: true, newGates: nil, wantGates: nil},
		{name: "create, gate on, field set: kept", gateEnabled: true, create: true, newGates: gates(), wantGates: gates()},
		{name: "create, gate on, field unset: unchanged", gateEnabled: true, create: true, newGates: nil, wantGates: nil},
		{name: "update, gate off, old without, new with: dropped", oldGates: nil, newGates: gates(), wantGates: nil},
		{name: "update, gate off, old with, new with: kept", oldGates: gates(), newGates: gates(), wantGates: gates()},
		{name: "update, gate off, old with, new changed: kept as changed", oldGates: gates(), newGates: otherGates(), wantGates: otherGates()},
		{name: "update, gate off, old with, new without: removal allowed", oldGates: gates(), newGates: nil, wantGates: nil},
		{name: "update, gate off, old without, new without: unchanged", oldGates: nil, newGates: nil, wantGates: nil},
		{name: "update, gate on, old without, new with: kept", gateEnabled: true, oldGates: nil, newGates: gates(), wantGates: gates()},
		{name: "update, gate on, old with, new with: kept", gateEnabled: true, oldGates: gates(), newGates: otherGates(), wantGates: otherGates()},
		{name: "update, gate on, old with, new without: removed", gateEnabled: true, oldGates: gates(), newGates: nil, wantGates: nil},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, tc.gateEnabled)
			s := NewStrategy(nil)
			newCRD := crd(tc.newGates)
			if tc.create {
				s.PrepareForCreate(context.Background(), newCRD)
			} else {
				oldCRD := crd(tc.oldGates)
				oldCopy := oldCRD.DeepCopy()
				s.PrepareForUpdate(context.Background(), newCRD, oldCRD)
				if diff := cmp.Diff(oldCopy, oldCRD); diff != "" {
					t.Errorf("old object was mutated (-before +after):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.wantGates, newCRD.Spec.CustomFeatureGates); diff != "" {
				t.Errorf("spec.customFeatureGates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDropDisabledFeatureGateMarks: with CRDFieldLevelVersioning off, the
// x-kubernetes-feature-gate marks of a new CRD's schemas are dropped, and an update keeps
// them when the old CRD has marks (judged apart from spec.customFeatureGates).
func TestDropDisabledFeatureGateMarks(t *testing.T) {
	crd := func(marked bool) *apiextensions.CustomResourceDefinition {
		port := apiextensions.JSONSchemaProps{Type: "string"}
		if marked {
			port.XFeatureGate = ptr.To("PortGate")
		}
		return &apiextensions.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", ResourceVersion: "1", Generation: 1},
			Spec: apiextensions.CustomResourceDefinitionSpec{
				Group: "stable.example.com",
				Versions: []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{
						Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
							"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"port": port}},
						}}}}},
			},
		}
	}
	marked := func(c *apiextensions.CustomResourceDefinition) bool {
		return c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["port"].XFeatureGate != nil
	}
	for _, tc := range []struct {
		name    string
		feature bool
		old     *bool // nil: a create
		want    bool
	}{
		{name: "create, feature off: dropped", want: false},
		{name: "create, feature on: kept", feature: true, want: true},
		{name: "update, feature off, old without marks: dropped", old: ptr.To(false), want: false},
		{name: "update, feature off, old with marks: kept", old: ptr.To(true), want: true},
		{name: "update, feature on: kept", feature: true, old: ptr.To(false), want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, tc.feature)
			s := NewStrategy(nil)
			newCRD := crd(true)
			if tc.old == nil {
				s.PrepareForCreate(context.Background(), newCRD)
			} else {
				s.PrepareForUpdate(context.Background(), newCRD, crd(*tc.old))
			}
			if got := marked(newCRD); got != tc.want {
				t.Errorf("the mark is kept: %t, want %t", got, tc.want)
			}
		})
	}
}

// TestMarkVersionWarnings: a CRD with conversion None whose v2 marks .spec.replicas, which
// v1 has unmarked, draws a warning on create and update that names both versions and the
// path, while the feature is on; with a conversion webhook it draws none.
func TestMarkVersionWarnings(t *testing.T) {
	crd := func(conversion apiextensions.ConversionStrategyType) *apiextensions.CustomResourceDefinition {
		schema := func(marked bool) *apiextensions.CustomResourceValidation {
			replicas := apiextensions.JSONSchemaProps{Type: "integer"}
			if marked {
				replicas.XFeatureGate = ptr.To("ReplicasGate")
			}
			return &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{
				Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
					"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"replicas": replicas}},
				}}}
		}
		return &apiextensions.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", ResourceVersion: "1", Generation: 1},
			Spec: apiextensions.CustomResourceDefinitionSpec{
				Group: "stable.example.com",
				Versions: []apiextensions.CustomResourceDefinitionVersion{
					{Name: "v1", Served: true, Schema: schema(false)},
					{Name: "v2", Served: true, Storage: true, Schema: schema(true)},
				},
				Conversion: &apiextensions.CustomResourceConversion{Strategy: conversion},
				CustomFeatureGates: &apiextensions.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensions.CustomResourceDefinitionFeatureGate{
					{Name: "ReplicasGate", PreRelease: apiextensions.CustomFeatureGateAlpha}}},
			},
		}
	}
	const want = `spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[replicas].x-kubernetes-feature-gate: version "v2" marks .spec.replicas with feature gate ReplicasGate and version "v1" does not; ` +
		`with conversion None the versions share one shape, so the mark applies to both v1 and v2: mark .spec.replicas in version "v1" too`
	for _, tc := range []struct {
		name       string
		conversion apiextensions.ConversionStrategyType
		feature    bool
		want       []string
	}{
		{name: "None, feature on", conversion: apiextensions.NoneConverter, feature: true, want: []string{want}},
		{name: "None, feature off", conversion: apiextensions.NoneConverter},
		{name: "Webhook, feature on", conversion: apiextensions.WebhookConverter, feature: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, tc.feature)
			s := NewStrategy(nil)
			contains := func(warnings []string) []string {
				var out []string
				for _, w := range warnings {
					if w == want {
						out = append(out, w)
					}
				}
				return out
			}
			if diff := cmp.Diff(tc.want, contains(s.WarningsOnCreate(context.Background(), crd(tc.conversion)))); diff != "" {
				t.Errorf("create warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, contains(s.WarningsOnUpdate(context.Background(), crd(tc.conversion), crd(tc.conversion)))); diff != "" {
				t.Errorf("update warnings (-want +got):\n%s", diff)
			}
		})
	}
}
