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

package apiserver

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/ptr"
)

// applyModelsCRD has conversion None and two versions: v1, the storage version, whose spec
// has the gated .spec.extra (an object), .spec.items[*].h and .spec.free.kept, and v2, which
// has none of them (its .spec.free keeps unknown fields). storageVersion picks the storage
// version; fieldPaths gates by the gate's fieldPaths instead of marks.
func applyModelsCRD(fieldPaths bool, conversion apiextensionsv1.ConversionStrategyType) *apiextensionsv1.CustomResourceDefinition {
	schema := func(full bool) *apiextensionsv1.CustomResourceValidation {
		item := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"nm": {Type: "string"}}}
		free := apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}
		spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"image": {Type: "string"}}}
		if full {
			extra := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"k": {Type: "string"}}}
			h, kept := apiextensionsv1.JSONSchemaProps{Type: "string"}, apiextensionsv1.JSONSchemaProps{Type: "string"}
			if !fieldPaths {
				extra.XFeatureGate, h.XFeatureGate, kept.XFeatureGate = ptr.To("Extra"), ptr.To("Extra"), ptr.To("Extra")
			}
			spec.Properties["extra"], item.Properties["h"] = extra, h
			free = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"kept": kept}}
		}
		spec.Properties["items"] = apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item}}
		spec.Properties["free"] = free
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec}}}
	}
	gate := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Extra", PreRelease: apiextensionsv1.CustomFeatureGateAlpha}
	if fieldPaths {
		gate.FieldPaths = []string{".spec.extra", ".spec.items[*].h", ".spec.free.kept"}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(true)},
				{Name: "v2", Served: true, Schema: schema(false)},
			},
			Conversion:         &apiextensionsv1.CustomResourceConversion{Strategy: conversion},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{gate}},
		},
	}
	if conversion == apiextensionsv1.WebhookConverter {
		crd.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://example.com/convert")},
			ConversionReviewVersions: []string{"v1"},
		}
	}
	return crd
}

func structuralSchemasOf(crd *apiextensionsv1.CustomResourceDefinition) map[string]*structuralschema.Structural {
	out := map[string]*structuralschema.Structural{}
	for _, v := range featuregates.StructuralSchemas(crd) {
		out[v.Version] = v.Schema
	}
	return out
}

// TestCRDForApplyModels: the apply models of a version that lacks a gated path of the storage
// version declare it (conversion None), so that the field manager accepts the object that
// holds a value kept there; nothing else changes, and the CRD passed in is not modified.
func TestCRDForApplyModels(t *testing.T) {
	stored := `{"apiVersion":"example.com/v2","kind":"Gadget","metadata":{"name":"g","namespace":"ns"},` +
		`"spec":{"image":"a","extra":{"k":"x"},"items":[{"nm":"1","h":"h1"}],"free":{"kept":"y"}}}`
	for _, tc := range []struct {
		name       string
		featureOff bool
		fieldPaths bool
		conversion apiextensionsv1.ConversionStrategyType
		// same: the CRD itself is returned; typed: the stored object converts to v2's type.
		same, typed bool
	}{
		{name: "marks, conversion None", conversion: apiextensionsv1.NoneConverter, typed: true},
		{name: "fieldPaths, conversion None", fieldPaths: true, conversion: apiextensionsv1.NoneConverter, typed: true},
		{name: "conversion webhook: versions have their own shapes", conversion: apiextensionsv1.WebhookConverter, same: true},
		{name: "CRDFieldLevelVersioning off", featureOff: true, conversion: apiextensionsv1.NoneConverter, same: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, !tc.featureOff)
			crd := applyModelsCRD(tc.fieldPaths, tc.conversion)
			before := crd.DeepCopy()
			got := crdForApplyModels(crd, "v1", structuralSchemasOf(crd))
			if !apiequality.Semantic.DeepEqual(crd, before) {
				t.Fatalf("crdForApplyModels modified the CRD passed in")
			}
			if tc.same {
				if got != crd {
					t.Fatalf("got a copy, want the CRD itself")
				}
				return
			}
			if !apiequality.Semantic.DeepEqual(got.Spec.Versions[0], crd.Spec.Versions[0]) {
				t.Errorf("the storage version changed")
			}
			spec := got.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"]
			if _, ok := spec.Properties["extra"].Properties["k"]; !ok {
				t.Errorf("v2's .spec.extra: got %v, want the storage version's schema", spec.Properties["extra"])
			}
			if _, ok := spec.Properties["items"].Items.Schema.Properties["h"]; !ok {
				t.Errorf("v2's .spec.items[*].h is missing")
			}
			if free := spec.Properties["free"]; len(free.Properties) != 0 || free.XPreserveUnknownFields == nil {
				t.Errorf("v2's .spec.free keeps unknown fields and must stay as it is, got %+v", free)
			}

			// The models built from the CRD passed in refuse the object; those from the
			// result accept it.
			for _, c := range []struct {
				crd  *apiextensionsv1.CustomResourceDefinition
				want bool
			}{{crd, false}, {got, tc.typed}} {
				err := toTyped(t, c.crd, stored)
				if (err == nil) != c.want {
					t.Errorf("the stored object in v2's apply type: err = %v, want accepted = %t", err, c.want)
				}
			}
		})
	}
}

func toTyped(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, object string) error {
	t.Helper()
	static, err := getOpenAPISpecFromFile()
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]*spec.Schema{}
	for k, v := range static.Definitions {
		defs[k] = &v
	}
	models, err := buildOpenAPIModelsForApply(defs, crd)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(object), &u.Object); err != nil {
		t.Fatal(err)
	}
	_, err = tc.ObjectToTyped(u)
	return err
}
