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
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestBuildOpenAPIFeatureGateMarksOfOtherVersions: with conversion None, a mark in one
// version gates the path in every version that has it, so the published schema of a version
// without the mark shows the gate and leaves out the disabled default, wherever the storage
// version is. With a conversion webhook, each version publishes its own marks.
func TestBuildOpenAPIFeatureGateMarksOfOtherVersions(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	const (
		v1Schema = `{"type":"object","properties":{"spec":{"type":"object","properties":{
  "replicas":{"type":"integer","default":1},"image":{"type":"string"}}}}}`
		v2Schema = `{"type":"object","properties":{"spec":{"type":"object","properties":{
  "replicas":{"type":"integer","x-kubernetes-feature-gate":"ReplicasGate"},"image":{"type":"string"}}}}}`
	)
	crd := func(t *testing.T, conversion apiextensionsv1.ConversionStrategyType, storage string) *apiextensionsv1.CustomResourceDefinition {
		crd := gatedCRD(t, gates(gate("ReplicasGate", apiextensionsv1.CustomFeatureGateAlpha, nil, nil)))
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: conversion}
		crd.Spec.Versions = nil
		for _, v := range []struct{ name, schema string }{{"v1", v1Schema}, {"v2", v2Schema}} {
			props := &apiextensionsv1.JSONSchemaProps{}
			if err := json.Unmarshal([]byte(v.schema), props); err != nil {
				t.Fatal(err)
			}
			crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
				Name: v.name, Served: true, Storage: v.name == storage, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}})
		}
		return crd
	}
	type published struct {
		// Gate is the replicas property's x-kubernetes-feature-gate and state, or nil.
		Gate map[string]interface{}
		// Default is whether the replicas property has a default.
		Default bool
	}
	gated := published{Gate: map[string]interface{}{"name": "ReplicasGate", "preRelease": "alpha", "enabled": false}}
	tests := []struct {
		name       string
		conversion apiextensionsv1.ConversionStrategyType
		storage    string
		want       map[string]published
	}{
		{"None, storage v2 (which marks replicas)", apiextensionsv1.NoneConverter, "v2", map[string]published{"v1": gated, "v2": gated}},
		{"None, storage v1 (which does not)", apiextensionsv1.NoneConverter, "v1", map[string]published{"v1": gated, "v2": gated}},
		{"Webhook, storage v2: v1 keeps its own (no) marks", apiextensionsv1.WebhookConverter, "v2", map[string]published{"v1": {Default: true}, "v2": gated}},
	}
	replicas := func(s *spec.Schema) published {
		var p published
		if s == nil {
			return p
		}
		if m, ok := featureGateMarks(s)[".spec.replicas"]; ok {
			p.Gate = m.Gate
		}
		prop := s.Properties["spec"].Properties["replicas"]
		p.Default = prop.Default != nil
		return p
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := crd(t, tc.conversion, tc.storage)
			for version, want := range tc.want {
				v3, err := BuildOpenAPIV3(c, version, Options{})
				if err != nil {
					t.Fatal(err)
				}
				var openAPI spec3.OpenAPI
				roundTrip(t, v3, &openAPI)
				if diff := cmp.Diff(want, replicas(openAPI.Components.Schemas[gvkToModelName("bar.k8s.io", version, "Foo")])); diff != "" {
					t.Errorf("OpenAPI v3 of %s, .spec.replicas (-want +got):\n%s", version, diff)
				}
				v2, err := BuildOpenAPIV2(c, version, Options{V2: true})
				if err != nil {
					t.Fatal(err)
				}
				var swagger spec.Swagger
				roundTrip(t, v2, &swagger)
				def := swagger.Definitions[gvkToModelName("bar.k8s.io", version, "Foo")]
				if diff := cmp.Diff(want, replicas(&def)); diff != "" {
					t.Errorf("OpenAPI v2 of %s, .spec.replicas (-want +got):\n%s", version, diff)
				}
			}
		})
	}
}
