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

package apihelpers

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
)

// gatedCRD is the shared CronTab CRD with a second served version, v1beta1, of the same
// schema.
func gatedCRD(gates ...apiextensionsv1.CustomResourceDefinitionFeatureGate) *apiextensionsv1.CustomResourceDefinition {
	crd := featuregatetest.CronTabCRD("crontabs", gates...)
	v1beta1 := *crd.Spec.Versions[0].DeepCopy()
	v1beta1.Name, v1beta1.Storage = "v1beta1", false
	crd.Spec.Versions = append(crd.Spec.Versions, v1beta1)
	return crd
}

type gateOption func(*apiextensionsv1.CustomResourceDefinitionFeatureGate)

func withEnabled(v bool) gateOption {
	return func(g *apiextensionsv1.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(v) }
}

func withDefault(v bool) gateOption {
	return func(g *apiextensionsv1.CustomResourceDefinitionFeatureGate) { g.Default = ptr.To(v) }
}

func customGate(name string, stage apiextensionsv1.CustomFeatureGatePreRelease, paths []string, opts ...gateOption) apiextensionsv1.CustomResourceDefinitionFeatureGate {
	g := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: name, PreRelease: stage, FieldPaths: paths}
	for _, o := range opts {
		o(&g)
	}
	return g
}

func TestIsCustomFeatureGateEnabled(t *testing.T) {
	const (
		alpha      = apiextensionsv1.CustomFeatureGateAlpha
		beta       = apiextensionsv1.CustomFeatureGateBeta
		stable     = apiextensionsv1.CustomFeatureGateStable
		deprecated = apiextensionsv1.CustomFeatureGateDeprecated
	)
	paths := []string{".spec.replicas"}
	tests := []struct {
		name        string
		gate        *apiextensionsv1.CustomResourceDefinitionFeatureGate
		lookup      string
		wantEnabled bool
		wantFound   bool
	}{
		{name: "no gates", lookup: "ReplicasFeatureGate"},
		{name: "another name", gate: ptr.To(customGate("Other", beta, paths)), lookup: "ReplicasFeatureGate"},
		{name: "names are case-sensitive", gate: ptr.To(customGate("ReplicasFeatureGate", beta, paths)), lookup: "replicasFeatureGate"},
		{name: "alpha", gate: ptr.To(customGate("G", alpha, paths)), lookup: "G", wantFound: true},
		{name: "alpha default false", gate: ptr.To(customGate("G", alpha, paths, withDefault(false))), lookup: "G", wantFound: true},
		{name: "alpha enabled", gate: ptr.To(customGate("G", alpha, paths, withEnabled(true), withDefault(false))), lookup: "G", wantEnabled: true, wantFound: true},
		{name: "beta", gate: ptr.To(customGate("G", beta, paths)), lookup: "G", wantEnabled: true, wantFound: true},
		{name: "beta default false", gate: ptr.To(customGate("G", beta, paths, withDefault(false))), lookup: "G", wantFound: true},
		{name: "beta default false, enabled", gate: ptr.To(customGate("G", beta, paths, withDefault(false), withEnabled(true))), lookup: "G", wantEnabled: true, wantFound: true},
		{name: "beta disabled", gate: ptr.To(customGate("G", beta, paths, withEnabled(false))), lookup: "G", wantFound: true},
		{name: "stable", gate: ptr.To(customGate("G", stable, paths)), lookup: "G", wantEnabled: true, wantFound: true},
		{name: "stable is locked on", gate: ptr.To(customGate("G", stable, paths, withEnabled(false))), lookup: "G", wantEnabled: true, wantFound: true},
		{name: "deprecated default true", gate: ptr.To(customGate("G", deprecated, paths, withDefault(true))), lookup: "G", wantEnabled: true, wantFound: true},
		{name: "deprecated default false", gate: ptr.To(customGate("G", deprecated, paths, withDefault(false))), lookup: "G", wantFound: true},
		{name: "deprecated re-enabled", gate: ptr.To(customGate("G", deprecated, paths, withDefault(false), withEnabled(true))), lookup: "G", wantEnabled: true, wantFound: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := gatedCRD()
			if tc.gate != nil {
				crd = gatedCRD(*tc.gate)
			}
			enabled, found := IsCustomFeatureGateEnabled(crd, tc.lookup)
			if enabled != tc.wantEnabled || found != tc.wantFound {
				t.Errorf("IsCustomFeatureGateEnabled(%q) = (%t, %t), want (%t, %t)", tc.lookup, enabled, found, tc.wantEnabled, tc.wantFound)
			}
			if g := FindCustomFeatureGate(crd, tc.lookup); (g != nil) != tc.wantFound {
				t.Errorf("FindCustomFeatureGate(%q) = %v, want found=%t", tc.lookup, g, tc.wantFound)
			}
			// The states CEL rules read agree with IsCustomFeatureGateEnabled.
			enabled, found = CustomFeatureGateStates(crd)[tc.lookup]
			if enabled != tc.wantEnabled || found != tc.wantFound {
				t.Errorf("CustomFeatureGateStates()[%q] = (%t, %t), want (%t, %t)", tc.lookup, enabled, found, tc.wantEnabled, tc.wantFound)
			}
		})
	}
}

func TestCustomFeatureGateStates(t *testing.T) {
	if got := CustomFeatureGateStates(gatedCRD()); got != nil {
		t.Errorf("no gates: CustomFeatureGateStates() = %v, want nil", got)
	}
	crd := gatedCRD(customGate("A", apiextensionsv1.CustomFeatureGateAlpha, nil), customGate("B", apiextensionsv1.CustomFeatureGateBeta, []string{".spec.owner"}))
	if got, want := CustomFeatureGateStates(crd), map[string]bool{"A": false, "B": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("CustomFeatureGateStates() = %v, want %v", got, want)
	}
}

func TestFindCustomFeatureGateReturnsTheCRDsGate(t *testing.T) {
	crd := gatedCRD(customGate("A", apiextensionsv1.CustomFeatureGateAlpha, []string{".spec.image"}), customGate("B", apiextensionsv1.CustomFeatureGateBeta, []string{".spec.owner"}))
	g := FindCustomFeatureGate(crd, "B")
	if g == nil || g.Name != "B" {
		t.Fatalf("FindCustomFeatureGate(B) = %v", g)
	}
	g.Enabled = ptr.To(false)
	if enabled, _ := IsCustomFeatureGateEnabled(crd, "B"); enabled {
		t.Error("FindCustomFeatureGate returned a copy, not the CRD's gate")
	}
}

func TestIsFieldEnabled(t *testing.T) {
	const (
		alpha      = apiextensionsv1.CustomFeatureGateAlpha
		beta       = apiextensionsv1.CustomFeatureGateBeta
		stable     = apiextensionsv1.CustomFeatureGateStable
		deprecated = apiextensionsv1.CustomFeatureGateDeprecated
	)
	gates := []apiextensionsv1.CustomResourceDefinitionFeatureGate{
		customGate("ReplicasFeatureGate", alpha, []string{".spec.replicas"}),
		customGate("ImageGate", beta, []string{".spec.image"}),
		customGate("OwnerGate", alpha, []string{".spec.owner"}, withEnabled(true)),
		customGate("AdvancedGate", alpha, []string{".spec.advanced"}),
		customGate("LevelGate", stable, []string{".spec.advanced.level"}),
		customGate("ProtocolGate", beta, []string{".spec.ports[*].appProtocol"}, withDefault(false)),
		customGate("LimitsGate", alpha, []string{".spec.limits[*]"}),
		customGate("LegacyGate", deprecated, []string{".spec.legacy"}, withDefault(true)),
		customGate("ExtraGate", alpha, []string{".spec.extra.anything.below"}),
		customGate("ReadyGate", beta, []string{".status.ready"}, withEnabled(false)),
	}
	tests := []struct {
		name    string
		crd     func() *apiextensionsv1.CustomResourceDefinition
		version string
		path    string
		want    bool
		wantErr string
	}{
		{name: "not gated", path: ".spec.cronSpec", want: true},
		{name: "the root of the gated fields", path: ".spec", want: true},
		{name: "alpha, off", path: ".spec.replicas"},
		{name: "beta, on", path: ".spec.image", want: true},
		{name: "alpha, enabled by the admin", path: ".spec.owner", want: true},
		{name: "deprecated, default true", path: ".spec.legacy", want: true},
		{name: "beta, disabled by the admin", path: ".status.ready"},
		{name: "status without a gate", path: ".status", want: true},
		{name: "disabled parent", path: ".spec.advanced"},
		{name: "a stable child of a disabled parent", path: ".spec.advanced.level"},
		{name: "an ungated child of a disabled parent", path: ".spec.advanced.mode"},
		{name: "list items", path: ".spec.ports[*]", want: true},
		{name: "list item field, gated", path: ".spec.ports[*].appProtocol"},
		{name: "list item field, not gated", path: ".spec.ports[*].port", want: true},
		{name: "map values", path: ".spec.limits[*]"},
		{name: "a named map key under a gated wildcard", path: ".spec.limits.cpu"},
		{name: "the map itself", path: ".spec.limits", want: true},
		{name: "below x-kubernetes-preserve-unknown-fields", path: ".spec.extra.anything.below"},
		{name: "above a gated path below x-kubernetes-preserve-unknown-fields", path: ".spec.extra.anything", want: true},
		{name: "metadata is never gated", path: ".metadata.labels", want: true},
		{name: "kind is never gated", path: ".kind", want: true},
		{name: "a served version, conversion None", version: "v1beta1", path: ".spec.replicas"},
		{name: "a served version, conversion None, not gated", version: "v1beta1", path: ".spec.image", want: true},
		{
			name: "no gates",
			crd:  func() *apiextensionsv1.CustomResourceDefinition { return gatedCRD() },
			path: ".spec.replicas", want: true,
		},
		{
			name: "conversion webhook, storage version",
			crd:  webhookCRD(gates),
			path: ".spec.replicas",
		},
		{
			name: "conversion webhook, another version", version: "v1beta1",
			crd:     webhookCRD(gates),
			path:    ".spec.replicas",
			wantErr: "(gate ReplicasFeatureGate) are paths of its storage version v1, and a conversion webhook maps the fields of version v1beta1 to it",
		},
		{name: "unknown version", version: "v2", path: ".spec.replicas", wantErr: "version v2 not found"},
		{name: "empty path", path: "", wantErr: `invalid field path "": must not be empty`},
		{name: "no leading dot", path: "spec.replicas", wantErr: "must start with '.'"},
		{name: "an index", path: ".spec.ports[0].name", wantErr: "must start the wildcard [*]"},
		{name: "not in the schema", path: ".spec.nope", wantErr: `field path ".spec.nope" of version v1 of crontabs.stable.example.com: field "nope" is not in the schema at .spec`},
		{name: "wildcard on a scalar", path: ".spec.image[*]", wantErr: "[*] after .spec.image needs a list or a map"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := gatedCRD(gates...)
			if tc.crd != nil {
				crd = tc.crd()
			}
			version := tc.version
			if version == "" {
				version = "v1"
			}
			got, err := IsFieldEnabled(crd, version, tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("IsFieldEnabled(%s, %q) error = %v, want one containing %q", version, tc.path, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("IsFieldEnabled(%s, %q) unexpected error: %v", version, tc.path, err)
			}
			if got != tc.want {
				t.Errorf("IsFieldEnabled(%s, %q) = %t, want %t", version, tc.path, got, tc.want)
			}
		})
	}
}

func webhookCRD(gates []apiextensionsv1.CustomResourceDefinitionFeatureGate) func() *apiextensionsv1.CustomResourceDefinition {
	return func() *apiextensionsv1.CustomResourceDefinition {
		crd := gatedCRD(gates...)
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		return crd
	}
}

func TestIsFieldEnabledSchemaErrors(t *testing.T) {
	crd := gatedCRD()
	crd.Spec.Versions[0].Schema = nil
	if _, err := IsFieldEnabled(crd, "v1", ".spec.replicas"); err == nil || !strings.Contains(err.Error(), "the version has no schema") {
		t.Errorf("a version without a schema: error = %v", err)
	}

	crd = gatedCRD()
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{
		Type:  "array",
		Items: &apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextensionsv1.JSONSchemaProps{{Type: "string"}}},
	}
	if _, err := IsFieldEnabled(crd, "v1", ".spec.replicas"); err == nil || !strings.Contains(err.Error(), "not structural") {
		t.Errorf("a schema that is not structural: error = %v", err)
	}
}

// IsFieldEnabled does not modify the CRD it reads.
func TestIsFieldEnabledLeavesTheCRDAlone(t *testing.T) {
	crd := gatedCRD(customGate("AdvancedGate", apiextensionsv1.CustomFeatureGateAlpha, []string{".spec.advanced"}))
	before := crd.DeepCopy()
	if _, err := IsFieldEnabled(crd, "v1", ".spec.advanced.level"); err != nil {
		t.Fatal(err)
	}
	if _, found := IsCustomFeatureGateEnabled(crd, "AdvancedGate"); !found {
		t.Fatal("the gate was not found")
	}
	if !apiequality.Semantic.DeepEqual(before, crd) {
		t.Errorf("the CRD was modified:\n%s", cmp.Diff(before, crd))
	}
}

// TestIsFieldEnabledMarks: with a conversion webhook, a version whose field is marked with
// x-kubernetes-feature-gate may be asked about, under its own name for the field.
func TestIsFieldEnabledMarks(t *testing.T) {
	crd := gatedCRD(customGate("ReplicasFeatureGate", apiextensionsv1.CustomFeatureGateAlpha, nil))
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
	mark := func(version int, field string) {
		spec := crd.Spec.Versions[version].Schema.OpenAPIV3Schema.Properties["spec"]
		prop := spec.Properties["replicas"]
		delete(spec.Properties, "replicas")
		prop.XFeatureGate = ptr.To("ReplicasFeatureGate")
		spec.Properties[field] = prop
		crd.Spec.Versions[version].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}
	mark(0, "replicas")
	mark(1, "count")
	for _, tc := range []struct {
		version, path string
		want          bool
	}{
		{"v1", ".spec.replicas", false},
		{"v1beta1", ".spec.count", false},
		{"v1beta1", ".spec.image", true},
	} {
		got, err := IsFieldEnabled(crd, tc.version, tc.path)
		if err != nil || got != tc.want {
			t.Errorf("IsFieldEnabled(%s, %s) = %t, %v; want %t", tc.version, tc.path, got, err, tc.want)
		}
	}
	crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptr.To(true)
	if got, err := IsFieldEnabled(crd, "v1beta1", ".spec.count"); err != nil || !got {
		t.Errorf("enabled: IsFieldEnabled(v1beta1, .spec.count) = %t, %v; want true", got, err)
	}
}

// TestIsFieldEnabledMarksSharedShape: with conversion None, a mark in one version gates the
// path in every version that has it, whichever version is the storage version, as the
// server's writes, defaults and OpenAPI do. With a webhook, each version has its own marks.
func TestIsFieldEnabledMarksSharedShape(t *testing.T) {
	// crd has v1 and v1beta1; only marked marks .spec.replicas, storage is the storage version.
	crd := func(conversion apiextensionsv1.ConversionStrategyType, marked, storage string) *apiextensionsv1.CustomResourceDefinition {
		crd := gatedCRD(customGate("ReplicasFeatureGate", apiextensionsv1.CustomFeatureGateAlpha, nil))
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: conversion}
		for i := range crd.Spec.Versions {
			v := &crd.Spec.Versions[i]
			v.Storage = v.Name == storage
			if v.Name != marked {
				continue
			}
			spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
			prop := spec.Properties["replicas"]
			prop.XFeatureGate = ptr.To("ReplicasFeatureGate")
			spec.Properties["replicas"] = prop
			v.Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}
		return crd
	}
	for _, tc := range []struct {
		name    string
		crd     *apiextensionsv1.CustomResourceDefinition
		version string
		want    bool
	}{
		{"None: the storage version marks it, asked about the other version", crd(apiextensionsv1.NoneConverter, "v1", "v1"), "v1beta1", false},
		{"None: the other version marks it, asked about the storage version", crd(apiextensionsv1.NoneConverter, "v1beta1", "v1"), "v1", false},
		{"None: the other version marks it, asked about it", crd(apiextensionsv1.NoneConverter, "v1beta1", "v1"), "v1beta1", false},
		{"None: the storage version moved to the unmarked version", crd(apiextensionsv1.NoneConverter, "v1", "v1beta1"), "v1beta1", false},
		{"Webhook: the storage version marks it, asked about the other version", crd(apiextensionsv1.WebhookConverter, "v1", "v1"), "v1beta1", true},
		{"Webhook: the other version marks it, asked about the storage version", crd(apiextensionsv1.WebhookConverter, "v1beta1", "v1"), "v1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := IsFieldEnabled(tc.crd, tc.version, ".spec.replicas")
			if err != nil || got != tc.want {
				t.Errorf("IsFieldEnabled(%s, .spec.replicas) = %t, %v; want %t", tc.version, got, err, tc.want)
			}
		})
	}
}
