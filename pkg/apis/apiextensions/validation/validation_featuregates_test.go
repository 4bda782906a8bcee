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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func featureGateTestSchema() *apiextensions.JSONSchemaProps {
	integer := apiextensions.JSONSchemaProps{Type: "integer"}
	return &apiextensions.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensions.JSONSchemaProps{
			"spec": {
				Type: "object",
				Properties: map[string]apiextensions.JSONSchemaProps{
					"replicas": integer,
					"image":    {Type: "string"},
					"foo": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
						"baz": integer,
						"qux": integer,
					}},
					"containers": {Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{
						Type:       "object",
						Properties: map[string]apiextensions.JSONSchemaProps{"image": {Type: "string"}},
					}}},
					"raw": {Type: "object", XPreserveUnknownFields: ptr.To(true)},
				},
			},
			"status": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"ready": {Type: "boolean"}}},
		},
	}
}

func featureGateTestSpec(gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinitionSpec {
	return &apiextensions.CustomResourceDefinitionSpec{
		Group: "stable.example.com",
		Versions: []apiextensions.CustomResourceDefinitionVersion{
			{Name: "v1alpha1", Served: true, Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{Type: "object"}}},
			{Name: "v1", Served: true, Storage: true, Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: featureGateTestSchema()}},
		},
		CustomFeatureGates: &apiextensions.CustomResourceDefinitionFeatureGates{FeatureGates: gates},
	}
}

func gate(name string, preRelease apiextensions.CustomFeatureGatePreRelease, paths ...string) apiextensions.CustomResourceDefinitionFeatureGate {
	return apiextensions.CustomResourceDefinitionFeatureGate{Name: name, PreRelease: preRelease, FieldPaths: paths}
}

func withGate(g apiextensions.CustomResourceDefinitionFeatureGate, mutate func(*apiextensions.CustomResourceDefinitionFeatureGate)) apiextensions.CustomResourceDefinitionFeatureGate {
	mutate(&g)
	return g
}

func TestValidateCustomFeatureGates(t *testing.T) {
	base := field.NewPath("spec", "customFeatureGates")
	gatePath := func(i int) *field.Path { return base.Child("featureGates").Index(i) }
	alpha := gate("ReplicasFeatureGate", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")
	manyPaths := make([]string, MaxCustomFeatureGateFieldPaths+1)
	for i := range manyPaths {
		manyPaths[i] = ".spec.raw.f" + strings.Repeat("x", i)
	}
	manyGates := make([]apiextensions.CustomResourceDefinitionFeatureGate, MaxCustomFeatureGates+1)
	for i := range manyGates {
		manyGates[i] = gate("G"+strings.Repeat("a", i%60), apiextensions.CustomFeatureGateBeta, ".spec.image")
	}

	tests := []struct {
		name string
		spec *apiextensions.CustomResourceDefinitionSpec
		want field.ErrorList
	}{
		{name: "no gates", spec: &apiextensions.CustomResourceDefinitionSpec{}},
		{name: "empty gates", spec: featureGateTestSpec()},
		{
			name: "valid gates of every stage, nested, wildcard and below preserve-unknown-fields",
			spec: featureGateTestSpec(
				withGate(alpha, func(g *apiextensions.CustomResourceDefinitionFeatureGate) {
					g.Enabled, g.Default = ptr.To(true), ptr.To(false)
				}),
				withGate(gate("FooFeatureGate", apiextensions.CustomFeatureGateBeta, ".spec.foo"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Default = ptr.To(true) }),
				withGate(gate("QuxFeatureGate", apiextensions.CustomFeatureGateBeta, ".spec.foo.qux"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Default = ptr.To(false) }),
				withGate(gate("ImagesV2", apiextensions.CustomFeatureGateStable, ".spec.containers[*].image", ".status.ready"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) {
					g.Enabled, g.Default = ptr.To(true), ptr.To(true)
				}),
				withGate(gate("OldImage", apiextensions.CustomFeatureGateDeprecated, ".spec.image", ".spec.raw.anything[*].below"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) {
					g.Default, g.Enabled, g.FieldDeprecationWarning = ptr.To(true), ptr.To(false), ptr.To("spec.image ist veraltet ✓: use spec.containers[*].image")
				}),
			),
		},
		{
			name: "component must be a DNS-1123 subdomain",
			spec: func() *apiextensions.CustomResourceDefinitionSpec {
				s := featureGateTestSpec(alpha)
				s.CustomFeatureGates.Component = ptr.To("Not_A_Subdomain")
				return s
			}(),
			want: field.ErrorList{field.Invalid(base.Child("component"), "Not_A_Subdomain", "")},
		},
		{
			name: "valid component",
			spec: func() *apiextensions.CustomResourceDefinitionSpec {
				s := featureGateTestSpec(alpha)
				s.CustomFeatureGates.Component = ptr.To("istio.io")
				return s
			}(),
		},
		{
			name: "name is required",
			spec: featureGateTestSpec(gate("", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")),
			want: field.ErrorList{field.Required(gatePath(0).Child("name"), "")},
		},
		{
			name: "name must be UpperCamelCase",
			spec: featureGateTestSpec(gate("replicas-gate", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("name"), "replicas-gate", "UpperCamelCase")},
		},
		{
			name: "name at most 63 characters",
			spec: featureGateTestSpec(gate("A"+strings.Repeat("b", 63), apiextensions.CustomFeatureGateAlpha, ".spec.replicas")),
			want: field.ErrorList{field.TooLong(gatePath(0).Child("name"), "", MaxCustomFeatureGateNameLength)},
		},
		{
			name: "name of 63 characters",
			spec: featureGateTestSpec(gate("A"+strings.Repeat("b", 62), apiextensions.CustomFeatureGateAlpha, ".spec.replicas")),
		},
		{
			name: "names are unique",
			spec: featureGateTestSpec(alpha, gate("ReplicasFeatureGate", apiextensions.CustomFeatureGateBeta, ".spec.image")),
			want: field.ErrorList{field.Duplicate(gatePath(1).Child("name"), "ReplicasFeatureGate")},
		},
		{
			name: "preRelease is required",
			spec: featureGateTestSpec(gate("Gate", "", ".spec.replicas")),
			want: field.ErrorList{field.Required(gatePath(0).Child("preRelease"), "")},
		},
		{
			name: "preRelease must be a known stage",
			spec: featureGateTestSpec(gate("Gate", "gamma", ".spec.replicas")),
			want: field.ErrorList{field.NotSupported(gatePath(0).Child("preRelease"), apiextensions.CustomFeatureGatePreRelease("gamma"), supportedCustomFeatureGatePreReleases)},
		},
		{
			name: "alpha may not default to true",
			spec: featureGateTestSpec(withGate(alpha, func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Default = ptr.To(true) })),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("default"), true, "must be false for an alpha gate")},
		},
		{
			name: "stable may not default to false",
			spec: featureGateTestSpec(withGate(gate("Gate", apiextensions.CustomFeatureGateStable, ".spec.replicas"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Default = ptr.To(false) })),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("default"), false, "must be true for a stable gate")},
		},
		{
			name: "stable may not be disabled",
			spec: featureGateTestSpec(withGate(gate("Gate", apiextensions.CustomFeatureGateStable, ".spec.replicas"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(false) })),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("enabled"), false, "locked on")},
		},
		{
			name: "deprecated must set default",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateDeprecated, ".spec.replicas")),
			want: field.ErrorList{field.Required(gatePath(0).Child("default"), "")},
		},
		{
			name: "beta may default either way and be enabled or disabled",
			spec: featureGateTestSpec(
				withGate(gate("B1", apiextensions.CustomFeatureGateBeta, ".spec.replicas"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) {
					g.Default, g.Enabled = ptr.To(true), ptr.To(false)
				}),
				withGate(gate("B2", apiextensions.CustomFeatureGateBeta, ".spec.image"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) {
					g.Default, g.Enabled = ptr.To(false), ptr.To(true)
				}),
			),
		},
		{
			name: "fieldDeprecationWarning only for deprecated gates",
			spec: featureGateTestSpec(withGate(alpha, func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.FieldDeprecationWarning = ptr.To("old") })),
			want: field.ErrorList{field.Forbidden(gatePath(0).Child("fieldDeprecationWarning"), "")},
		},
		{
			name: "fieldDeprecationWarning at most 256 characters",
			spec: featureGateTestSpec(deprecatedWithWarning(strings.Repeat("é", MaxFieldDeprecationWarningLength+1))),
			want: field.ErrorList{field.TooLong(gatePath(0).Child("fieldDeprecationWarning"), "", MaxFieldDeprecationWarningLength)},
		},
		{
			name: "fieldDeprecationWarning of 256 characters",
			spec: featureGateTestSpec(deprecatedWithWarning(strings.Repeat("é", MaxFieldDeprecationWarningLength))),
		},
		{
			name: "fieldDeprecationWarning without CR/LF (header injection)",
			spec: featureGateTestSpec(deprecatedWithWarning("old\r\nX-Injected: 1")),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("fieldDeprecationWarning"), "old\r\nX-Injected: 1", "printable")},
		},
		{
			name: "fieldDeprecationWarning without control characters",
			spec: featureGateTestSpec(deprecatedWithWarning("bell\x07")),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("fieldDeprecationWarning"), "bell\x07", "printable")},
		},
		{
			name: "fieldDeprecationWarning must be UTF-8",
			spec: featureGateTestSpec(deprecatedWithWarning("bad\xff")),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("fieldDeprecationWarning"), "", "UTF-8")},
		},
		{
			name: "fieldDeprecationWarning must not be empty",
			spec: featureGateTestSpec(deprecatedWithWarning("")),
			want: field.ErrorList{field.Invalid(gatePath(0).Child("fieldDeprecationWarning"), "", "must not be empty")},
		},
		{
			// A gate may guard only values or rules (featureGates in CEL); an unused one
			// draws a warning (UnusedGateWarnings).
			name: "fieldPaths may be empty",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha)),
		},
		{
			name: "at most 64 fieldPaths per gate",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, manyPaths...)),
			want: field.ErrorList{field.TooMany(gatePath(0).Child("fieldPaths"), MaxCustomFeatureGateFieldPaths+1, MaxCustomFeatureGateFieldPaths)},
		},
		{
			name: "64 fieldPaths per gate",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, manyPaths[:MaxCustomFeatureGateFieldPaths]...)),
		},
		{
			name: "at most 128 gates",
			spec: featureGateTestSpec(manyGates...),
			want: field.ErrorList{field.TooMany(base.Child("featureGates"), MaxCustomFeatureGates+1, MaxCustomFeatureGates)},
		},
		{
			name: "fieldPath at most 256 characters",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, ".spec.raw."+strings.Repeat("a", 247))),
			want: field.ErrorList{field.TooLong(gatePath(0).Child("fieldPaths").Index(0), "", 256)},
		},
		{
			name: "fieldPath of 256 characters",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, ".spec.raw."+strings.Repeat("a", 246))),
		},
		{
			name: "fieldPath syntax",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, "spec.replicas", ".spec[0]", ".spec..x")),
			want: field.ErrorList{
				field.Invalid(gatePath(0).Child("fieldPaths").Index(0), "spec.replicas", "must start with '.'"),
				field.Invalid(gatePath(0).Child("fieldPaths").Index(1), ".spec[0]", "wildcard [*]"),
				field.Invalid(gatePath(0).Child("fieldPaths").Index(2), ".spec..x", "empty field name"),
			},
		},
		{
			name: "fieldPaths never in metadata, apiVersion or kind",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, ".metadata", ".metadata.labels", ".apiVersion", ".kind")),
			want: field.ErrorList{
				field.Invalid(gatePath(0).Child("fieldPaths").Index(0), ".metadata", "must not point to .metadata"),
				field.Invalid(gatePath(0).Child("fieldPaths").Index(1), ".metadata.labels", "must not point to .metadata"),
				field.Invalid(gatePath(0).Child("fieldPaths").Index(2), ".apiVersion", "must not point to .metadata"),
				field.Invalid(gatePath(0).Child("fieldPaths").Index(3), ".kind", "must not point to .metadata"),
			},
		},
		{
			name: "no duplicate path in a gate",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, ".spec.replicas", ".spec.replicas")),
			want: field.ErrorList{field.Duplicate(gatePath(0).Child("fieldPaths").Index(1), ".spec.replicas")},
		},
		{
			name: "no path in two gates",
			spec: featureGateTestSpec(alpha, gate("Other", apiextensions.CustomFeatureGateBeta, ".spec.image", ".spec.replicas")),
			want: field.ErrorList{field.Duplicate(gatePath(1).Child("fieldPaths").Index(1), ".spec.replicas")},
		},
		{
			name: "paths must resolve in the storage version's schema",
			spec: featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, ".spec.nope", ".spec.replicas[*]", ".spec.containers.image")),
			want: field.ErrorList{
				field.Invalid(gatePath(0).Child("fieldPaths").Index(0), ".spec.nope", `storage version "v1"`),
				field.Invalid(gatePath(0).Child("fieldPaths").Index(1), ".spec.replicas[*]", `needs a list or a map`),
				field.Invalid(gatePath(0).Child("fieldPaths").Index(2), ".spec.containers.image", `field "image" is not in the schema`),
			},
		},
	}
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := validateCustomFeatureGates(tc.spec, nil, base)
			matcher.Test(t, tc.want, got)
		})
	}
}

func deprecatedWithWarning(text string) apiextensions.CustomResourceDefinitionFeatureGate {
	return withGate(gate("OldField", apiextensions.CustomFeatureGateDeprecated, ".spec.image"), func(g *apiextensions.CustomResourceDefinitionFeatureGate) {
		g.Default, g.FieldDeprecationWarning = ptr.To(false), ptr.To(text)
	})
}

func TestValidateCustomFeatureGatesNonStorageVersion(t *testing.T) {
	// .spec.onlyInAlpha exists only in the served, non-storage version v1alpha1.
	spec := featureGateTestSpec(gate("Gate", apiextensions.CustomFeatureGateAlpha, ".spec.onlyInAlpha"))
	spec.Versions[0].Schema.OpenAPIV3Schema = &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"onlyInAlpha": {Type: "string"}}},
	}}
	got := validateCustomFeatureGates(spec, nil, field.NewPath("spec", "customFeatureGates"))
	want := field.ErrorList{field.Invalid(field.NewPath("spec", "customFeatureGates", "featureGates").Index(0).Child("fieldPaths").Index(0), ".spec.onlyInAlpha", `storage version "v1"`)}
	field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring().Test(t, want, got)
}

// featureGateTestCRD is a complete, valid CRD, so that the public entry points can be tested.
// Being internal, with a single version, it carries its schema at the top level.
func featureGateTestCRD(gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinition {
	spec := featureGateTestSpec(gates...)
	spec.Validation = spec.Versions[1].Schema
	spec.Versions = spec.Versions[1:]
	spec.Versions[0].Schema = nil
	spec.Version = "v1"
	spec.Scope = apiextensions.NamespaceScoped
	spec.Names = apiextensions.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"}
	spec.PreserveUnknownFields = ptr.To(false)
	spec.Conversion = &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter}
	return &apiextensions.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", ResourceVersion: "1"},
		Spec:       *spec,
		Status:     apiextensions.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
}

func TestValidateCustomFeatureGatesThroughCRDValidation(t *testing.T) {
	ctx := context.Background()
	fooGate := gate("FooFeatureGate", apiextensions.CustomFeatureGateAlpha, ".spec.foo", ".spec.replicas")
	fooPath := field.NewPath("spec", "customFeatureGates", "featureGates").Index(0).Child("fieldPaths").Index(0)
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring()

	t.Run("create: valid", func(t *testing.T) {
		matcher.Test(t, nil, ValidateCustomResourceDefinition(ctx, featureGateTestCRD(fooGate)))
	})
	t.Run("create: unknown path", func(t *testing.T) {
		crd := featureGateTestCRD(gate("FooFeatureGate", apiextensions.CustomFeatureGateAlpha, ".spec.bar"))
		matcher.Test(t, field.ErrorList{field.Invalid(fooPath, ".spec.bar", "storage version")}, ValidateCustomResourceDefinition(ctx, crd))
	})

	// The update removes .spec.foo from the schema.
	old := featureGateTestCRD(fooGate)
	withoutFoo := func(gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinition {
		crd := featureGateTestCRD(gates...)
		spec := crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"]
		delete(spec.Properties, "foo")
		crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"] = spec
		return crd
	}
	tests := []struct {
		name         string
		crd          *apiextensions.CustomResourceDefinition
		want         field.ErrorList
		wantWarnings []string
	}{
		{
			name:         "update: unchanged gate is ratcheted, its orphaned path draws a warning",
			crd:          withoutFoo(fooGate),
			wantWarnings: []string{`spec.customFeatureGates.featureGates[0].fieldPaths[0]: field path .spec.foo of feature gate FooFeatureGate is no longer in the schema of the storage version "v1"`},
		},
		{
			name: "update: changed gate is validated against the new schema",
			crd:  withoutFoo(withGate(fooGate, func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(true) })),
			want: field.ErrorList{field.Invalid(fooPath, ".spec.foo", "storage version")},
		},
		{
			name: "update: unchanged gate, unchanged schema, no warning",
			crd:  featureGateTestCRD(fooGate),
		},
		{
			name: "update: enabling a gate is valid",
			crd:  featureGateTestCRD(withGate(fooGate, func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(true) })),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			matcher.Test(t, tc.want, ValidateCustomResourceDefinitionUpdate(ctx, tc.crd, old))
			warnings := UnresolvedGatedPathWarnings(&tc.crd.Spec, &old.Spec)
			if len(warnings) != len(tc.wantWarnings) {
				t.Fatalf("warnings = %q, want %d starting with %q", warnings, len(tc.wantWarnings), tc.wantWarnings)
			}
			for i := range warnings {
				if !strings.HasPrefix(warnings[i], tc.wantWarnings[i]) {
					t.Errorf("warning %d = %q, want prefix %q", i, warnings[i], tc.wantWarnings[i])
				}
			}
		})
	}
}

// TestValidateCustomFeatureGatesNamedKeyDefault: a gated path through a named key of a map
// whose value schema has a default there is rejected when the gate is new or changed, and
// kept, with a warning, when an update leaves the gate as it was.
func TestValidateCustomFeatureGatesNamedKeyDefault(t *testing.T) {
	withMaps := func(sizeDefault bool, gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinitionSpec {
		spec := featureGateTestSpec(gates...)
		size := apiextensions.JSONSchemaProps{Type: "integer"}
		if sizeDefault {
			size.Default = ptr.To(apiextensions.JSON(int64(1)))
		}
		spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"].Properties["tiers"] = apiextensions.JSONSchemaProps{
			Type: "object",
			AdditionalProperties: &apiextensions.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensions.JSONSchemaProps{
				Type:       "object",
				Properties: map[string]apiextensions.JSONSchemaProps{"size": size, "name": {Type: "string"}},
			}},
		}
		return spec
	}
	pathOf := func(i, j int) *field.Path {
		return field.NewPath("spec", "customFeatureGates", "featureGates").Index(i).Child("fieldPaths").Index(j)
	}
	detail := `must not go through the named key "gold" of the map .spec.tiers when the map's value schema in the storage version "v1" has a default at or below the rest of the path: ` +
		`that schema is shared by every key, so the default cannot follow the gate; gate every key (.spec.tiers[*]...) or remove the default`
	gold := gate("GoldSize", apiextensions.CustomFeatureGateAlpha, ".spec.replicas", ".spec.tiers.gold.size")

	tests := []struct {
		name         string
		spec, old    *apiextensions.CustomResourceDefinitionSpec
		want         field.ErrorList
		wantWarnings []string
	}{
		{
			name: "create: rejected",
			spec: withMaps(true, gold),
			want: field.ErrorList{field.Invalid(pathOf(0, 1), ".spec.tiers.gold.size", detail)},
		},
		{name: "create: no default there", spec: withMaps(false, gold)},
		{name: "create: another field of the key", spec: withMaps(true, gate("GoldName", apiextensions.CustomFeatureGateAlpha, ".spec.tiers.gold.name"))},
		{name: "create: every key", spec: withMaps(true, gate("Sizes", apiextensions.CustomFeatureGateAlpha, ".spec.tiers[*].size"))},
		{
			name: "update that adds the path: rejected",
			spec: withMaps(true, gold), old: withMaps(true, gate("GoldSize", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")),
			want: field.ErrorList{field.Invalid(pathOf(0, 1), ".spec.tiers.gold.size", detail)},
		},
		{
			name: "update of a gate that already had it: ratcheted, with a warning",
			spec: withMaps(true, gold), old: withMaps(true, gold),
			wantWarnings: []string{pathOf(0, 1).String() + ": field path .spec.tiers.gold.size of feature gate GoldSize: " + detail +
				"; it is kept because the gate did not change, and that default is applied while the gate is disabled"},
		},
		{
			name: "update that adds the default under an unchanged gate: accepted, with the warning",
			spec: withMaps(true, gold), old: withMaps(false, gold),
			wantWarnings: []string{pathOf(0, 1).String() + ": field path .spec.tiers.gold.size of feature gate GoldSize: " + detail +
				"; it is kept because the gate did not change, and that default is applied while the gate is disabled"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var oldGates *apiextensions.CustomResourceDefinitionFeatureGates
			if tc.old != nil {
				oldGates = tc.old.CustomFeatureGates
			}
			got := validateCustomFeatureGates(tc.spec, oldGates, field.NewPath("spec", "customFeatureGates"))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var warnings []string
			if tc.old != nil {
				warnings = UnresolvedGatedPathWarnings(tc.spec, tc.old)
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// withListMaps adds lists of every kind to the storage version's schema of spec:
// .spec.listeners, a map list keyed by name and port; .spec.outer, an atomic list whose items
// hold .inner, a map list keyed by id; .spec.byZone, a map whose values hold .listeners, a map
// list keyed by name; and .spec.tags, a set. When listenersAtomic is true, .spec.listeners is
// a plain (atomic) list instead.
func withListMaps(spec *apiextensions.CustomResourceDefinitionSpec, listenersAtomic bool) *apiextensions.CustomResourceDefinitionSpec {
	mapList := func(keys []string, props map[string]apiextensions.JSONSchemaProps) apiextensions.JSONSchemaProps {
		return apiextensions.JSONSchemaProps{
			Type:         "array",
			XListType:    ptr.To("map"),
			XListMapKeys: keys,
			Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{
				Type: "object", Required: keys, Properties: props,
			}},
		}
	}
	listeners := mapList([]string{"name", "port"}, map[string]apiextensions.JSONSchemaProps{
		"name": {Type: "string"},
		"port": {Type: "integer"},
		"tls":  {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"mode": {Type: "string"}}},
	})
	if listenersAtomic {
		listeners.XListType, listeners.XListMapKeys, listeners.Items.Schema.Required = nil, nil, nil
	}
	props := spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"].Properties
	props["listeners"] = listeners
	props["outer"] = apiextensions.JSONSchemaProps{Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{
		Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
			"inner": mapList([]string{"id"}, map[string]apiextensions.JSONSchemaProps{"id": {Type: "string"}, "weight": {Type: "integer"}}),
		},
	}}}
	props["byZone"] = apiextensions.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensions.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensions.JSONSchemaProps{
		Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
			"listeners": mapList([]string{"name"}, map[string]apiextensions.JSONSchemaProps{"name": {Type: "string"}, "port": {Type: "integer"}}),
		},
	}}}
	props["tags"] = apiextensions.JSONSchemaProps{Type: "array", XListType: ptr.To("set"), Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{Type: "string"}}}
	return spec
}

// TestValidateCustomFeatureGatesListMapKey: a gated path that is a key of a map list, or runs
// through one, is rejected when the gate is new or changed, and kept, with a warning, when an
// update leaves the gate as it was. The list, its items and the other fields of its items can
// be gated.
func TestValidateCustomFeatureGatesListMapKey(t *testing.T) {
	pathOf := func(i, j int) *field.Path {
		return field.NewPath("spec", "customFeatureGates", "featureGates").Index(i).Child("fieldPaths").Index(j)
	}
	detail := func(list, key string) string {
		return list + "[*]." + key + " is a list-map key of the list " + list + ` (x-kubernetes-list-type: map, x-kubernetes-list-map-keys) in version "v1" and cannot be gated: ` +
			"dropping it would leave list items without their key, so they could no longer be told apart; gate the list item (" + list + "[*]) or the list (" + list + ") instead"
	}
	ratcheted := func(i, j int, path, gate, list, key string) string {
		return pathOf(i, j).String() + ": field path " + path + " of feature gate " + gate + ": " + detail(list, key) + "; it is kept because the gate did not change"
	}
	listenerName := gate("ListenerNames", apiextensions.CustomFeatureGateAlpha, ".spec.replicas", ".spec.listeners[*].name")

	tests := []struct {
		name         string
		spec, old    *apiextensions.CustomResourceDefinitionSpec
		want         field.ErrorList
		wantWarnings []string
	}{
		{
			name: "create: the list, its items, other fields of its items, a set's items, and keys of a plain list",
			spec: withListMaps(featureGateTestSpec(
				gate("Listeners", apiextensions.CustomFeatureGateAlpha, ".spec.listeners"),
				gate("ListenerItems", apiextensions.CustomFeatureGateAlpha, ".spec.listeners[*]"),
				gate("ListenerTLS", apiextensions.CustomFeatureGateAlpha, ".spec.listeners[*].tls", ".spec.outer[*].inner[*].weight"),
				gate("TLSMode", apiextensions.CustomFeatureGateBeta, ".spec.listeners[*].tls.mode"),
				gate("Inner", apiextensions.CustomFeatureGateAlpha, ".spec.outer[*].inner", ".spec.byZone[*].listeners[*]", ".spec.byZone[*].listeners[*].port", ".spec.tags[*]"),
				gate("Image", apiextensions.CustomFeatureGateAlpha, ".spec.containers[*].image"),
			), false),
		},
		{
			name: "create: a key is rejected",
			spec: withListMaps(featureGateTestSpec(listenerName), false),
			want: field.ErrorList{field.Invalid(pathOf(0, 1), ".spec.listeners[*].name", detail(".spec.listeners", "name"))},
		},
		{
			name: "create: every key of a list with two keys, in a nested list, below a map's [*] and below a map's named key",
			spec: withListMaps(featureGateTestSpec(
				gate("Ports", apiextensions.CustomFeatureGateAlpha, ".spec.listeners[*].port", ".spec.outer[*].inner[*].id"),
				gate("Zones", apiextensions.CustomFeatureGateAlpha, ".spec.byZone[*].listeners[*].name", ".spec.byZone.east.listeners[*].name"),
			), false),
			want: field.ErrorList{
				field.Invalid(pathOf(0, 0), ".spec.listeners[*].port", detail(".spec.listeners", "port")),
				field.Invalid(pathOf(0, 1), ".spec.outer[*].inner[*].id", detail(".spec.outer[*].inner", "id")),
				field.Invalid(pathOf(1, 0), ".spec.byZone[*].listeners[*].name", detail(".spec.byZone[*].listeners", "name")),
				field.Invalid(pathOf(1, 1), ".spec.byZone.east.listeners[*].name", detail(".spec.byZone.east.listeners", "name")),
			},
		},
		{
			name: "create: the same field of a plain list",
			spec: withListMaps(featureGateTestSpec(listenerName), true),
		},
		{
			name: "update that adds the key to a gate: rejected",
			spec: withListMaps(featureGateTestSpec(listenerName), false),
			old:  withListMaps(featureGateTestSpec(gate("ListenerNames", apiextensions.CustomFeatureGateAlpha, ".spec.replicas")), false),
			want: field.ErrorList{field.Invalid(pathOf(0, 1), ".spec.listeners[*].name", detail(".spec.listeners", "name"))},
		},
		{
			name: "update that changes a gate that had the key: rejected",
			spec: withListMaps(featureGateTestSpec(withGate(listenerName, func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(true) })), false),
			old:  withListMaps(featureGateTestSpec(listenerName), false),
			want: field.ErrorList{field.Invalid(pathOf(0, 1), ".spec.listeners[*].name", detail(".spec.listeners", "name"))},
		},
		{
			name:         "update of a gate that already had the key: ratcheted, with a warning",
			spec:         withListMaps(featureGateTestSpec(listenerName), false),
			old:          withListMaps(featureGateTestSpec(listenerName), false),
			wantWarnings: []string{ratcheted(0, 1, ".spec.listeners[*].name", "ListenerNames", ".spec.listeners", "name")},
		},
		{
			name:         "update that makes the list a map list keyed by an unchanged gate's field: accepted, with the warning",
			spec:         withListMaps(featureGateTestSpec(listenerName), false),
			old:          withListMaps(featureGateTestSpec(listenerName), true),
			wantWarnings: []string{ratcheted(0, 1, ".spec.listeners[*].name", "ListenerNames", ".spec.listeners", "name")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var oldGates *apiextensions.CustomResourceDefinitionFeatureGates
			if tc.old != nil {
				oldGates = tc.old.CustomFeatureGates
			}
			got := validateCustomFeatureGates(tc.spec, oldGates, field.NewPath("spec", "customFeatureGates"))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var warnings []string
			if tc.old != nil {
				warnings = UnresolvedGatedPathWarnings(tc.spec, tc.old)
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateCustomFeatureGatesListMapKeyThroughCRDValidation: the schema of withListMaps is
// a valid CRD schema, and a gated key is reported by CRD validation at its fieldPaths entry.
func TestValidateCustomFeatureGatesListMapKeyThroughCRDValidation(t *testing.T) {
	crd := featureGateTestCRD(gate("ListenerNames", apiextensions.CustomFeatureGateAlpha, ".spec.listeners[*]"))
	spec := featureGateTestSpec()
	withListMaps(spec, false)
	crd.Spec.Validation.OpenAPIV3Schema.Properties["spec"] = spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"]
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring()
	matcher.Test(t, nil, ValidateCustomResourceDefinition(context.Background(), crd))

	crd.Spec.CustomFeatureGates.FeatureGates[0].FieldPaths = []string{".spec.listeners[*].name"}
	want := field.ErrorList{field.Invalid(field.NewPath("spec", "customFeatureGates", "featureGates").Index(0).Child("fieldPaths").Index(0),
		".spec.listeners[*].name", "is a list-map key of the list .spec.listeners")}
	matcher.Test(t, want, ValidateCustomResourceDefinition(context.Background(), crd))
}
