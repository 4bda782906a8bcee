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

package featuregates

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// Versions of one CRD for the tests of marks that differ between versions: v1 has a default
// for replicas and marks nothing, v2 marks replicas, v3 has no replicas, v4 keeps every field
// of spec (x-kubernetes-preserve-unknown-fields), v5 marks replicas with another gate.
const (
	v1Schema = `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
  "replicas": {"type": "integer", "default": 1}, "image": {"type": "string"}}}}}`
	v2Schema = `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
  "replicas": {"type": "integer", "x-kubernetes-feature-gate": "ReplicasGate"}, "image": {"type": "string"}}}}}`
	v3Schema = `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
  "image": {"type": "string"}}}}}`
	v4Schema = `{"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}`
	v5Schema = `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
  "replicas": {"type": "integer", "x-kubernetes-feature-gate": "OtherGate"}}}}}`
)

type gatedSummary struct {
	Path, Gate string
	Live       bool
}

func summarize(ix *Index) []gatedSummary {
	var out []gatedSummary
	for _, p := range ix.Paths() {
		out = append(out, gatedSummary{p.Path.String(), p.Gate.Name, p.EffectivelyEnabled})
	}
	return out
}

// TestCompileVersions: with conversion None (a shared shape) a mark in any version gates its
// path, by its gate, in every version whose schema has the path, whichever version is the
// storage version; with a conversion webhook each version keeps its own marks.
func TestCompileVersions(t *testing.T) {
	specs := []GateSpec{
		{Name: "ReplicasGate", PreRelease: Alpha},
		{Name: "OtherGate", PreRelease: Beta},
		{Name: "ImageGate", PreRelease: Alpha, FieldPaths: []string{".spec.image"}},
	}
	replicasOff := gatedSummary{".spec.replicas", "ReplicasGate", false}
	imageOff := gatedSummary{".spec.image", "ImageGate", false}
	tests := []struct {
		name        string
		specs       []GateSpec
		schemas     []string // v1, v2, ... in this order
		storage     string
		sharedShape bool
		want        map[string][]gatedSummary
	}{{
		name:    "conversion None, storage v2: v2's mark gates v1, which has the path, not v3, which has not",
		specs:   specs,
		schemas: []string{v1Schema, v2Schema, v3Schema}, storage: "v2", sharedShape: true,
		want: map[string][]gatedSummary{
			"v1": {imageOff, replicasOff},
			"v2": {imageOff, replicasOff},
			"v3": {imageOff},
		},
	}, {
		name:    "conversion None, storage v1 (which has no mark): the same",
		specs:   specs,
		schemas: []string{v1Schema, v2Schema, v3Schema}, storage: "v1", sharedShape: true,
		want: map[string][]gatedSummary{
			"v1": {imageOff, replicasOff},
			"v2": {imageOff, replicasOff},
			"v3": {imageOff},
		},
	}, {
		name:    "conversion None: below x-kubernetes-preserve-unknown-fields the path exists",
		specs:   specs[:1],
		schemas: []string{v1Schema, v2Schema, v3Schema, v4Schema}, storage: "v1", sharedShape: true,
		want: map[string][]gatedSummary{
			"v1": {replicasOff},
			"v2": {replicasOff},
			"v4": {replicasOff},
		},
	}, {
		name:    "conversion None: conflicting marks (rejected by validation) give the first version's gate everywhere",
		specs:   specs[:2],
		schemas: []string{v1Schema, v5Schema, v2Schema}, storage: "v3", sharedShape: true,
		want: map[string][]gatedSummary{
			"v1": {{".spec.replicas", "OtherGate", true}},
			"v2": {{".spec.replicas", "OtherGate", true}},
			"v3": {{".spec.replicas", "OtherGate", true}},
		},
	}, {
		name: "conversion None: a field path's gate wins over a mark",
		specs: []GateSpec{
			{Name: "ReplicasGate", PreRelease: Alpha},
			{Name: "OtherGate", PreRelease: Beta, FieldPaths: []string{".spec.replicas"}},
		},
		schemas: []string{v1Schema, v2Schema}, storage: "v2", sharedShape: true,
		want: map[string][]gatedSummary{
			"v1": {{".spec.replicas", "OtherGate", true}},
			"v2": {{".spec.replicas", "OtherGate", true}},
		},
	}, {
		name:    "conversion None: a mark of an undeclared gate does not hide another version's mark",
		specs:   specs[:1],
		schemas: []string{v5Schema, v2Schema}, storage: "v1", sharedShape: true,
		want: map[string][]gatedSummary{
			"v1": {replicasOff},
			"v2": {replicasOff},
		},
	}, {
		name:    "conversion webhook, storage v2: each version's own marks, fieldPaths in the storage version",
		specs:   specs,
		schemas: []string{v1Schema, v2Schema, v3Schema}, storage: "v2", sharedShape: false,
		want: map[string][]gatedSummary{
			"v2": {imageOff, replicasOff},
		},
	}, {
		name:    "conversion webhook, storage v1",
		specs:   specs,
		schemas: []string{v1Schema, v2Schema, v3Schema}, storage: "v1", sharedShape: false,
		want: map[string][]gatedSummary{
			"v1": {imageOff},
			"v2": {replicasOff},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var versions []VersionSchema
			for i, s := range tc.schemas {
				versions = append(versions, VersionSchema{Version: "v" + string(rune('1'+i)), Schema: structuralFromJSON(t, s)})
			}
			got := map[string][]gatedSummary{}
			for v, ix := range CompileVersions(tc.specs, versions, tc.storage, tc.sharedShape) {
				got[v] = summarize(ix)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("gated paths by version (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompileVersionsDefaults: with conversion None, v1's default for replicas, which v2
// marks with a disabled gate, is not applied in v1 either.
func TestCompileVersionsDefaults(t *testing.T) {
	v1, v2 := structuralFromJSON(t, v1Schema), structuralFromJSON(t, v2Schema)
	indexes := CompileVersions([]GateSpec{{Name: "ReplicasGate", PreRelease: Alpha}},
		[]VersionSchema{{"v1", v1}, {"v2", v2}}, "v2", true)
	gated := indexes["v1"].WithoutDisabledDefaults(v1)
	if gated == v1 {
		t.Fatal("v1's schema kept its default for the disabled .spec.replicas")
	}
	if d := gated.Properties["spec"].Properties["replicas"].Default.Object; d != nil {
		t.Errorf("v1's default for .spec.replicas = %v, want none", d)
	}
}

// TestSameGating: versions of a shared shape whose indexes gate alike need no second step in
// the storage version; a version without the path, or another gate state, does not gate alike.
func TestSameGating(t *testing.T) {
	specs := []GateSpec{{Name: "ReplicasGate", PreRelease: Alpha}}
	v1, v2, v3 := structuralFromJSON(t, v1Schema), structuralFromJSON(t, v2Schema), structuralFromJSON(t, v3Schema)
	all := []*structuralschema.Structural{v1, v2, v3}
	on := true
	tests := []struct {
		name string
		a, b *Index
		want bool
	}{
		{"v1 and v2 of a shared shape", CompileSharedShape(specs, v1, all), CompileSharedShape(specs, v2, all), true},
		{"v3 lacks the path", CompileSharedShape(specs, v3, all), CompileSharedShape(specs, v2, all), false},
		{"own marks only", CompileVersion(specs, v1, true), CompileVersion(specs, v2, true), false},
		{"another gate state", CompileSharedShape([]GateSpec{{Name: "ReplicasGate", PreRelease: Alpha, Enabled: &on}}, v1, all), CompileSharedShape(specs, v2, all), false},
		{"both gate nothing", nil, CompileSharedShape([]GateSpec{{Name: "ReplicasGate", PreRelease: Beta}}, v2, all), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.SameGating(tc.b); got != tc.want {
				t.Errorf("SameGating = %t, want %t", got, tc.want)
			}
			if got := tc.b.SameGating(tc.a); got != tc.want {
				t.Errorf("SameGating, reversed = %t, want %t", got, tc.want)
			}
		})
	}
}

// TestCompileCRDVersion compiles one version of a v1 CRD, as pkg/apihelpers and the OpenAPI
// builder do: with conversion None from every version's marks, with a webhook from its own.
func TestCompileCRDVersion(t *testing.T) {
	crd := func(strategy apiextensionsv1.ConversionStrategyType, storage string) *apiextensionsv1.CustomResourceDefinition {
		c := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "ReplicasGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha}}},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: strategy},
		}}
		for _, v := range []struct{ name, schema string }{{"v1", v1Schema}, {"v2", v2Schema}} {
			var props apiextensionsv1.JSONSchemaProps
			if err := json.Unmarshal([]byte(v.schema), &props); err != nil {
				t.Fatal(err)
			}
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
				Name: v.name, Served: true, Storage: v.name == storage,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props}})
		}
		return c
	}
	replicasOff := []gatedSummary{{".spec.replicas", "ReplicasGate", false}}
	tests := []struct {
		name    string
		crd     *apiextensionsv1.CustomResourceDefinition
		version string
		want    []gatedSummary
	}{
		{"None, storage v2, v1", crd(apiextensionsv1.NoneConverter, "v2"), "v1", replicasOff},
		{"None, storage v1, v1", crd(apiextensionsv1.NoneConverter, "v1"), "v1", replicasOff},
		{"None, storage v1, v2", crd(apiextensionsv1.NoneConverter, "v1"), "v2", replicasOff},
		{"Webhook, storage v2, v1", crd(apiextensionsv1.WebhookConverter, "v2"), "v1", nil},
		{"Webhook, storage v2, v2", crd(apiextensionsv1.WebhookConverter, "v2"), "v2", replicasOff},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var schema *structuralschema.Structural
			for _, v := range StructuralSchemas(tc.crd) {
				if v.Version == tc.version {
					// A copy, like the OpenAPI builder's form of the schema.
					schema = v.Schema.DeepCopy()
				}
			}
			if diff := cmp.Diff(tc.want, summarize(CompileCRDVersion(tc.crd, tc.version, schema))); diff != "" {
				t.Errorf("gated paths (-want +got):\n%s", diff)
			}
		})
	}
}
