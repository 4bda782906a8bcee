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
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

// apiVersionConvertor converts as conversion None does: a copy with another apiVersion.
type apiVersionConvertor struct{ runtime.ObjectConvertor }

func (apiVersionConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u := in.(*unstructured.Unstructured).DeepCopy()
	target, _ := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	u.SetAPIVersion(target.GroupVersion().String())
	return u, nil
}

// fieldManagerCRD has two versions: v1, the storage version, with the gated .spec.extra, and
// .spec.deep whose gated .spec.deep.nested v2 lacks; v2 has neither extra nor deep.nested.
func fieldManagerCRD(conversion apiextensionsv1.ConversionStrategyType, v2Full bool) *apiextensionsv1.CustomResourceDefinition {
	object := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"k": {Type: "string"}}}
	schema := func(full bool) *apiextensionsv1.CustomResourceValidation {
		deep := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"k": {Type: "string"}}}
		spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"image": {Type: "string"}}}
		if full {
			deep.Properties["nested"] = object
			spec.Properties["extra"] = object
		}
		spec.Properties["deep"] = deep
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec}}}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(true)},
				{Name: "v2", Served: true, Schema: schema(v2Full)},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: conversion},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "Extra", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.extra", ".spec.deep.nested"}}}},
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

// TestFieldManagerConvertor: with conversion None, the field manager's convertor prunes the
// objects it converts to a version that lacks a gated path of the storage version (or part
// of what is below one) with that version's schema, without modifying its input, and leaves
// the objects it converts to other versions alone; where no version lacks one, with a
// conversion webhook, or with CRDFieldLevelVersioning off, it is the scope's own.
func TestFieldManagerConvertor(t *testing.T) {
	stored := map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]interface{}{"name": "g"},
		"spec": map[string]interface{}{"image": "a", "extra": map[string]interface{}{"k": "x"}, "deep": map[string]interface{}{"k": "d", "nested": map[string]interface{}{"k": "n"}}}}
	for _, tc := range []struct {
		name       string
		featureOff bool
		conversion apiextensionsv1.ConversionStrategyType
		v2Full     bool
		wantOwn    bool
	}{
		{name: "conversion None, v2 lacks gated paths", conversion: apiextensionsv1.NoneConverter},
		{name: "conversion None, v2 has them", conversion: apiextensionsv1.NoneConverter, v2Full: true, wantOwn: true},
		{name: "conversion webhook", conversion: apiextensionsv1.WebhookConverter, wantOwn: true},
		{name: "CRDFieldLevelVersioning off", featureOff: true, conversion: apiextensionsv1.NoneConverter, wantOwn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, !tc.featureOff)
			crd := fieldManagerCRD(tc.conversion, tc.v2Full)
			own := apiVersionConvertor{}
			scope := withFieldManagerConvertor(own, fieldManagerConvertor(own, crd, "v1", structuralSchemasOf(crd)))
			got := fieldManagerConvertorOf(scope)
			if tc.wantOwn {
				if scope != runtime.ObjectConvertor(own) || got != runtime.ObjectConvertor(own) {
					t.Fatalf("got %T for the scope and %T for the field manager, want the scope's own convertor for both", scope, got)
				}
				return
			}
			if _, ok := got.(*pruningConvertor); !ok {
				t.Fatalf("the field manager's convertor is %T, want a pruning one", got)
			}
			if fieldManagerConvertorOf(own) != runtime.ObjectConvertor(own) {
				t.Errorf("a plain convertor is its own field manager's convertor")
			}
			in := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(stored)}
			for _, c := range []struct {
				version string
				want    map[string]interface{}
			}{
				{"v2", map[string]interface{}{"image": "a", "deep": map[string]interface{}{"k": "d"}}},
				{"v1", stored["spec"].(map[string]interface{})},
			} {
				out, err := got.ConvertToVersion(in, schema.GroupVersion{Group: "example.com", Version: c.version})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c.want, out.(*unstructured.Unstructured).Object["spec"]); diff != "" {
					t.Errorf("converted to %s: spec (-want +got):\n%s", c.version, diff)
				}
				// The request handlers convert without pruning.
				out, err = scope.ConvertToVersion(in, schema.GroupVersion{Group: "example.com", Version: c.version})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(stored["spec"], out.(*unstructured.Unstructured).Object["spec"]); diff != "" {
					t.Errorf("the scope's convertor, to %s: spec (-want +got):\n%s", c.version, diff)
				}
			}
			if diff := cmp.Diff(stored, in.Object); diff != "" {
				t.Errorf("the input was modified (-want +got):\n%s", diff)
			}
		})
	}
}
