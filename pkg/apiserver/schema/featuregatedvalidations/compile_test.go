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

package featuregatedvalidations

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/utils/ptr"
)

func entry(gate string, enabled bool, set func(e *apiextensions.FeatureGatedValidation)) apiextensions.FeatureGatedValidation {
	e := apiextensions.FeatureGatedValidation{FeatureGate: gate, Enabled: enabled}
	set(&e)
	return e
}

func TestCompileNode(t *testing.T) {
	on := map[string]bool{"G": true, "H": true}
	for _, tc := range []struct {
		name    string
		node    apiextensions.JSONSchemaProps
		entries []apiextensions.FeatureGatedValidation
		states  map[string]bool
		want    apiextensions.JSONSchemaProps
	}{{
		name:    "an entry for the other state does not apply",
		node:    apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](4096)},
		entries: []apiextensions.FeatureGatedValidation{entry("G", false, func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a$" })},
		states:  on,
		want:    apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](4096)},
	}, {
		name:    "an undeclared gate counts as disabled",
		node:    apiextensions.JSONSchemaProps{Type: "string"},
		entries: []apiextensions.FeatureGatedValidation{entry("Other", false, func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a$" })},
		states:  on,
		want:    apiextensions.JSONSchemaProps{Type: "string", Pattern: "^a$"},
	}, {
		name:    "a pattern the node lacks is set directly",
		node:    apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](4096)},
		entries: []apiextensions.FeatureGatedValidation{entry("G", true, func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a$" })},
		states:  on,
		want:    apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](4096), Pattern: "^a$"},
	}, {
		name: "a second pattern and format are allOf items; the same one is not repeated",
		node: apiextensions.JSONSchemaProps{Type: "string", Pattern: "^a", Format: "uuid"},
		entries: []apiextensions.FeatureGatedValidation{
			entry("G", true, func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "b$"; e.Format = "date" }),
			entry("H", true, func(e *apiextensions.FeatureGatedValidation) { e.Pattern = "^a" }),
		},
		states: on,
		want: apiextensions.JSONSchemaProps{Type: "string", Pattern: "^a", Format: "uuid",
			AllOf: []apiextensions.JSONSchemaProps{{Pattern: "b$"}, {Format: "date"}}},
	}, {
		name: "bounds: the tightest holds",
		node: apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](64), MinLength: ptr.To[int64](1)},
		entries: []apiextensions.FeatureGatedValidation{
			entry("G", true, func(e *apiextensions.FeatureGatedValidation) {
				e.MaxLength = ptr.To[int64](16)
				e.MinLength = ptr.To[int64](0)
			}),
			entry("H", true, func(e *apiextensions.FeatureGatedValidation) {
				e.MaxLength = ptr.To[int64](32)
				e.MinLength = ptr.To[int64](2)
			}),
		},
		states: on,
		want:   apiextensions.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](16), MinLength: ptr.To[int64](2)},
	}, {
		name: "items and properties bounds",
		node: apiextensions.JSONSchemaProps{Type: "array", MaxItems: ptr.To[int64](3)},
		entries: []apiextensions.FeatureGatedValidation{
			entry("G", false, func(e *apiextensions.FeatureGatedValidation) {
				e.MaxItems = ptr.To[int64](1)
				e.MinItems = ptr.To[int64](1)
			}),
		},
		states: map[string]bool{},
		want:   apiextensions.JSONSchemaProps{Type: "array", MaxItems: ptr.To[int64](1), MinItems: ptr.To[int64](1)},
	}, {
		name: "numeric bounds: at an equal value exclusive wins",
		node: apiextensions.JSONSchemaProps{Type: "integer", Minimum: ptr.To(1.0), Maximum: ptr.To(65535.0)},
		entries: []apiextensions.FeatureGatedValidation{
			entry("G", true, func(e *apiextensions.FeatureGatedValidation) {
				e.Minimum, e.ExclusiveMinimum = ptr.To(1.0), true
				e.Maximum = ptr.To(1024.0)
			}),
			entry("H", true, func(e *apiextensions.FeatureGatedValidation) { e.Maximum, e.ExclusiveMaximum = ptr.To(2048.0), true }),
		},
		states: on,
		want: apiextensions.JSONSchemaProps{Type: "integer", Minimum: ptr.To(1.0), ExclusiveMinimum: true,
			Maximum: ptr.To(1024.0)},
	}, {
		name:    "multipleOf: set, or an allOf item",
		node:    apiextensions.JSONSchemaProps{Type: "integer", MultipleOf: ptr.To(2.0)},
		entries: []apiextensions.FeatureGatedValidation{entry("G", true, func(e *apiextensions.FeatureGatedValidation) { e.MultipleOf = ptr.To(3.0) })},
		states:  on,
		want:    apiextensions.JSONSchemaProps{Type: "integer", MultipleOf: ptr.To(2.0), AllOf: []apiextensions.JSONSchemaProps{{MultipleOf: ptr.To(3.0)}}},
	}, {
		name: "enums intersect, in the entry's order",
		node: apiextensions.JSONSchemaProps{Type: "string", Enum: []apiextensions.JSON{"A", "B", "C", "D"}},
		entries: []apiextensions.FeatureGatedValidation{
			entry("G", true, func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{"C", "B", "A"} }),
			entry("H", true, func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{"A", "C", "X"} }),
		},
		states: on,
		want:   apiextensions.JSONSchemaProps{Type: "string", Enum: []apiextensions.JSON{"A", "C"}},
	}, {
		name:    "an enum the node lacks is set; numbers compare by value",
		node:    apiextensions.JSONSchemaProps{Type: "integer", Enum: []apiextensions.JSON{int64(1), int64(2)}},
		entries: []apiextensions.FeatureGatedValidation{entry("G", true, func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{float64(2)} })},
		states:  on,
		want:    apiextensions.JSONSchemaProps{Type: "integer", Enum: []apiextensions.JSON{float64(2)}},
	}, {
		name:    "enums without a common value: an allOf item, so that nothing is valid",
		node:    apiextensions.JSONSchemaProps{Type: "string", Enum: []apiextensions.JSON{"A"}},
		entries: []apiextensions.FeatureGatedValidation{entry("G", true, func(e *apiextensions.FeatureGatedValidation) { e.Enum = []apiextensions.JSON{"B"} })},
		states:  on,
		want:    apiextensions.JSONSchemaProps{Type: "string", Enum: []apiextensions.JSON{"A"}, AllOf: []apiextensions.JSONSchemaProps{{Enum: []apiextensions.JSON{"B"}}}},
	}, {
		name: "required lists add up",
		node: apiextensions.JSONSchemaProps{Type: "object", Required: []string{"a"}, MaxProperties: ptr.To[int64](9)},
		entries: []apiextensions.FeatureGatedValidation{
			entry("G", true, func(e *apiextensions.FeatureGatedValidation) { e.Required = []string{"b", "a"} }),
			entry("H", false, func(e *apiextensions.FeatureGatedValidation) { e.Required = []string{"c"} }),
			entry("H", true, func(e *apiextensions.FeatureGatedValidation) {
				e.Required = []string{"d"}
				e.MaxProperties, e.MinProperties = ptr.To[int64](4), ptr.To[int64](1)
			}),
		},
		states: on,
		want:   apiextensions.JSONSchemaProps{Type: "object", Required: []string{"a", "b", "d"}, MaxProperties: ptr.To[int64](4), MinProperties: ptr.To[int64](1)},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{"x": tc.node}}
			n := root.Properties["x"]
			n.XFeatureGatedValidations = tc.entries
			root.Properties["x"] = n
			before := root.DeepCopy()
			got := Compile(root, tc.states)
			if diff := cmp.Diff(tc.want, got.Properties["x"]); diff != "" {
				t.Errorf("effective node (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, root); diff != "" {
				t.Errorf("Compile changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

// Entries are found wherever a schema nests: under items, additionalProperties and
// properties of either; a schema without entries is returned as it is.
func TestCompileWalksTheSchema(t *testing.T) {
	pattern := []apiextensions.FeatureGatedValidation{{FeatureGate: "G", Enabled: true, Pattern: "^v$"}}
	s := &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
			"list": {Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{
				Type: "object", AdditionalProperties: &apiextensions.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensions.JSONSchemaProps{
					Type: "string", XFeatureGatedValidations: pattern}}}}},
		}},
	}}
	if !Has(s) {
		t.Fatal("Has: false, want true")
	}
	got := Compile(s, map[string]bool{"G": true})
	leaf := got.Properties["spec"].Properties["list"].Items.Schema.AdditionalProperties.Schema
	if leaf.Pattern != "^v$" || leaf.XFeatureGatedValidations != nil {
		t.Errorf("leaf: pattern %q, entries %v; want ^v$ and none", leaf.Pattern, leaf.XFeatureGatedValidations)
	}
	if Has(got) {
		t.Error("the compiled schema still has entries")
	}
	plain := &apiextensions.JSONSchemaProps{Type: "object"}
	if Compile(plain, nil) != plain || Has(plain) || Compile(nil, nil) != nil {
		t.Error("a schema without entries must be returned as it is")
	}
}

// The point of compiling: the stock validator rejects a value that breaks an applying
// entry with exactly the errors it gives when the node has the keyword itself.
func TestCompiledErrorsAreStock(t *testing.T) {
	const pattern = `^[!-~]+([\t ]?[!-~]+)*$`
	// schema is a header value (a maxLength 4096 string in a list), an enum and an integer,
	// with the given keywords of their own and entries.
	type node struct {
		own     apiextensions.JSONSchemaProps
		entries []apiextensions.FeatureGatedValidation
	}
	schema := func(value, mode, count node) *apiextensions.JSONSchemaProps {
		value.own.Type, value.own.MaxLength, value.own.XFeatureGatedValidations = "string", ptr.To[int64](4096), value.entries
		mode.own.Type, mode.own.XFeatureGatedValidations = "string", mode.entries
		count.own.Type, count.own.XFeatureGatedValidations = "integer", count.entries
		return &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
				"values": {Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &value.own}},
				"mode":   mode.own,
				"count":  count.own,
			}},
		}}
	}
	abc, ab := []apiextensions.JSON{"A", "B", "C"}, []apiextensions.JSON{"A", "B"}
	gated := schema(
		node{entries: []apiextensions.FeatureGatedValidation{{FeatureGate: "G", Enabled: true, Pattern: pattern}}},
		node{own: apiextensions.JSONSchemaProps{Enum: abc}, entries: []apiextensions.FeatureGatedValidation{{FeatureGate: "G", Enabled: false, Enum: ab}}},
		node{own: apiextensions.JSONSchemaProps{Maximum: ptr.To(10.0)}, entries: []apiextensions.FeatureGatedValidation{{FeatureGate: "G", Enabled: false, Maximum: ptr.To(3.0)}}},
	)
	// The two channels, as the stock server would have them.
	experimental := schema(node{own: apiextensions.JSONSchemaProps{Pattern: pattern}}, node{own: apiextensions.JSONSchemaProps{Enum: abc}}, node{own: apiextensions.JSONSchemaProps{Maximum: ptr.To(10.0)}})
	standard := schema(node{}, node{own: apiextensions.JSONSchemaProps{Enum: ab}}, node{own: apiextensions.JSONSchemaProps{Maximum: ptr.To(3.0)}})

	obj := map[string]interface{}{"spec": map[string]interface{}{
		"values": []interface{}{"ok", "bad\x01value"},
		"mode":   "C",
		"count":  int64(5),
	}}
	errorsOf := func(s *apiextensions.JSONSchemaProps) []string {
		t.Helper()
		v, _, err := apiservervalidation.NewSchemaValidator(s)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, v) {
			out = append(out, e.Error())
		}
		sort.Strings(out) // properties are validated in map order
		return out
	}
	for _, tc := range []struct {
		name  string
		on    bool
		stock *apiextensions.JSONSchemaProps
	}{{"gate on: the pattern", true, experimental}, {"gate off: the smaller enum and maximum", false, standard}} {
		t.Run(tc.name, func(t *testing.T) {
			got := errorsOf(Compile(gated, map[string]bool{"G": tc.on}))
			want := errorsOf(tc.stock)
			if len(want) == 0 {
				t.Fatal("the stock schema accepts the object; the test proves nothing")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("errors (-stock +compiled):\n%s", diff)
			}
			t.Logf("%q", got)
		})
	}
}

func TestCompileCRDValidation(t *testing.T) {
	on := true
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "G", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: &on},
			{Name: "H", PreRelease: apiextensionsv1.CustomFeatureGateAlpha},
		}},
	}}
	v := &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
		"a": {Type: "string", XFeatureGatedValidations: []apiextensions.FeatureGatedValidation{
			{FeatureGate: "G", Enabled: true, Pattern: "^g$"},
			{FeatureGate: "H", Enabled: true, MaxLength: ptr.To[int64](1)},
			{FeatureGate: "H", Enabled: false, MinLength: ptr.To[int64](1)},
		}},
	}}}
	got := CompileCRDValidation(crd, v).OpenAPIV3Schema.Properties["a"]
	want := apiextensions.JSONSchemaProps{Type: "string", Pattern: "^g$", MinLength: ptr.To[int64](1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("G enabled, H alpha and unset (-want +got):\n%s", diff)
	}
	if CompileCRDValidation(crd, nil) != nil {
		t.Error("nil validation")
	}
}

// TestCompileCRDValidationRequires checks an entry that names a gate requiring others: it
// applies while the combination is enabled, not while only one of the gates it combines is.
func TestCompileCRDValidationRequires(t *testing.T) {
	v := &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
		"mode": {Type: "string", Enum: []apiextensions.JSON{"Slow"}, XFeatureGatedValidations: []apiextensions.FeatureGatedValidation{
			{FeatureGate: "FastWithCache", Enabled: false, MaxLength: ptr.To[int64](4)},
		}},
	}}}
	for _, tc := range []struct {
		name  string
		fast  apiextensionsv1.CustomFeatureGatePreRelease
		cache bool
		want  apiextensions.JSONSchemaProps
	}{
		{name: "Fast promoted alone", fast: apiextensionsv1.CustomFeatureGateStable, want: apiextensions.JSONSchemaProps{Type: "string", Enum: []apiextensions.JSON{"Slow"}, MaxLength: ptr.To[int64](4)}},
		{name: "Cache on alone", fast: apiextensionsv1.CustomFeatureGateAlpha, cache: true, want: apiextensions.JSONSchemaProps{Type: "string", Enum: []apiextensions.JSON{"Slow"}, MaxLength: ptr.To[int64](4)}},
		{name: "both on", fast: apiextensionsv1.CustomFeatureGateStable, cache: true, want: apiextensions.JSONSchemaProps{Type: "string", Enum: []apiextensions.JSON{"Slow"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
					{Name: "Fast", PreRelease: tc.fast},
					{Name: "Cache", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(tc.cache)},
					{Name: "FastWithCache", PreRelease: apiextensionsv1.CustomFeatureGateStable, Requires: []string{"Fast", "Cache"}},
				}},
			}}
			got := CompileCRDValidation(crd, v).OpenAPIV3Schema.Properties["mode"]
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
