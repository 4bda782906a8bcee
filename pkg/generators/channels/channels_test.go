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

package channels

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"sigs.k8s.io/yaml"
)

// crdYAML is a CRD of kind Widget whose storage version v1 has the given spec properties
// (YAML, indented for spec.properties), plus extra versions (YAML list items).
func crdYAML(name, specProps, specExtra, versions string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + name + `.example.com
  annotations:
    example.com/channel: CHANNEL
spec:
  group: example.com
  scope: Namespaced
  names: {plural: ` + name + `, singular: ` + strings.TrimSuffix(name, "s") + `, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
` + specExtra + `            properties:
` + specProps + versions
}

// writeChannels writes the standard and experimental manifests into two directories.
func writeChannels(t *testing.T, std, exp map[string]string) (string, string) {
	t.Helper()
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for i, files := range []map[string]string{std, exp} {
		channel := []string{"standard", "experimental"}[i]
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dirs[i], name), []byte(strings.ReplaceAll(content, "CHANNEL", channel)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dirs[0], dirs[1]
}

// decode reads an output manifest.
func decode(t *testing.T, content []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(content, crd); err != nil {
		t.Fatalf("output does not decode: %v\n%s", err, content)
	}
	return crd
}

// validate runs the server's CRD validation, with the feature on, on an output CRD: the
// gates, their paths and every generated CEL rule must be accepted as they are.
func validate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd) // as the server decodes it
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			crd.Status.StoredVersions = []string{v.Name}
		}
	}
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		t.Fatal(err)
	}
	if errs := validation.ValidateCustomResourceDefinition(context.Background(), internal); len(errs) > 0 {
		t.Errorf("%s: the server rejects the merged CRD: %v", crd.Name, errs.ToAggregate())
	}
}

func specOf(crd *apiextensionsv1.CustomResourceDefinition, version int) apiextensionsv1.JSONSchemaProps {
	return crd.Spec.Versions[version].Schema.OpenAPIV3Schema.Properties["spec"]
}

// entriesOf renders the x-kubernetes-feature-gated-validations of s as JSON, one per entry.
func entriesOf(t *testing.T, s apiextensionsv1.JSONSchemaProps) []string {
	t.Helper()
	var out []string
	for _, e := range s.XFeatureGatedValidations {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func rulesOf(s apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	for _, r := range s.XValidations {
		out = append(out, r.Rule)
	}
	return out
}

func TestMerge(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	stdProps := `              name: {type: string, maxLength: 16}
              mode: {type: string, enum: [A, B]}
              items:
                type: array
                maxItems: 4
                items: {type: string}
              port: {type: integer, minimum: 1, maximum: 1024}
`
	expProps := `              name: {type: string, maxLength: 64}
              mode: {type: string, enum: [A, B, C]}
              items:
                type: array
                maxItems: 4
                items: {type: string}
              port: {type: integer, minimum: 1, maximum: 65535}
              retry:
                type: object
                properties:
                  attempts: {type: integer}
              tls: {type: string}
`
	stdRules := `            x-kubernetes-validations:
            - rule: "!has(self.items) || size(self.items) > 0"
              message: items must not be empty
            - rule: self.name != 'forbidden'
              message: name is reserved
            required: [name]
`
	expRules := `            x-kubernetes-validations:
            - rule: "!has(self.items) || size(self.items) > 0"
              message: items must not be empty
            - rule: "!has(self.tls) || self.name != 'local'"
              message: tls needs a name
            required: [name, mode]
`
	onlyExpVersion := `  - name: v2alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	stdDir, expDir := writeChannels(t,
		map[string]string{"widgets.yaml": crdYAML("widgets", stdProps, stdRules, "")},
		map[string]string{
			"widgets.yaml":       crdYAML("widgets", expProps, expRules, onlyExpVersion),
			"gadgets.yaml":       crdYAML("gadgets", expProps, "", ""),
			"kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
		})

	res, err := Merge(stdDir, expDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 || res.Files[0].Name != "gadgets.yaml" || res.Files[1].Name != "widgets.yaml" {
		t.Fatalf("files: %+v", res.Files)
	}
	if diff := cmp.Diff([]string{"gadgets.example.com", "widgets.example.com v2alpha1"}, res.Copied); diff != "" {
		t.Errorf("copied (-want +got):\n%s", diff)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "kustomization.yaml") {
		t.Errorf("notes: %q", res.Notes)
	}
	gadgets := decode(t, res.Files[0].Content)
	if gadgets.Spec.CustomFeatureGates != nil || gadgets.Annotations["example.com/channel"] != "experimental" {
		t.Errorf("an experimental-only CRD is copied as it is: %+v", gadgets.ObjectMeta)
	}

	crd := decode(t, res.Files[1].Content)
	validate(t, crd)
	if got := crd.Annotations["example.com/channel"]; got != "standard" {
		t.Errorf("metadata: channel annotation %q, want the standard channel's", got)
	}
	if len(crd.Spec.Versions) != 2 || crd.Spec.Versions[1].Name != "v2alpha1" {
		t.Errorf("versions: the experimental-only version is kept: %+v", crd.Spec.Versions)
	}
	var gates []string
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		if g.Enabled != nil || g.PreRelease != apiextensionsv1.CustomFeatureGateAlpha {
			t.Errorf("gate %s: want alpha with enabled left to the admin, got %+v", g.Name, g)
		}
		gates = append(gates, g.Name+"="+strings.Join(g.FieldPaths, ","))
	}
	// Fields only the experimental channel has: one gate each. A rule that mentions one of
	// them has its gate; the validations that differ at .spec and mention none (a rule, a
	// required field) share the gate of .spec; the others have their node's.
	if diff := cmp.Diff([]string{
		"WidgetMode=",
		"WidgetName=",
		"WidgetPort=",
		"WidgetRetry=.spec.retry",
		"WidgetSpec=",
		"WidgetTls=.spec.tls",
	}, gates); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}

	spec := specOf(crd, 0)
	// The native keywords keep the looser bound, so CEL cost estimates stay bounded.
	if got := *spec.Properties["name"].MaxLength; got != 64 {
		t.Errorf("name maxLength %d, want the looser 64", got)
	}
	if got := *spec.Properties["port"].Maximum; got != 65535 {
		t.Errorf("port maximum %v, want the looser 65535", got)
	}
	if got := len(spec.Properties["mode"].Enum); got != 3 {
		t.Errorf("mode enum has %d values, want the union of 3", got)
	}
	if diff := cmp.Diff([]string{"name"}, spec.Required); diff != "" {
		t.Errorf("required: only what both require (-want +got):\n%s", diff)
	}
	// The channels' own rules that differ read the gate; every keyword that differs is a
	// gated keyword, with the looser form on the node.
	for _, tc := range []struct {
		node           string
		rules, entries []string
	}{
		{".spec", []string{
			"!has(self.items) || size(self.items) > 0",
			"!featureGates.WidgetTls || (!has(self.tls) || self.name != 'local')",
			"featureGates.WidgetSpec || (self.name != 'forbidden')",
		}, []string{`{"featureGate":"WidgetSpec","enabled":true,"required":["mode"]}`}},
		{".spec.name", nil, []string{`{"featureGate":"WidgetName","enabled":false,"maxLength":16}`}},
		{".spec.mode", nil, []string{`{"featureGate":"WidgetMode","enabled":false,"enum":["A","B"]}`}},
		{".spec.port", nil, []string{`{"featureGate":"WidgetPort","enabled":false,"maximum":1024}`}},
		{".spec.items", nil, nil},
	} {
		node := spec
		if name, ok := strings.CutPrefix(tc.node, ".spec."); ok {
			node = spec.Properties[name]
		}
		if diff := cmp.Diff(tc.rules, rulesOf(node)); diff != "" {
			t.Errorf("rules of %s (-want +got):\n%s", tc.node, diff)
		}
		if diff := cmp.Diff(tc.entries, entriesOf(t, node)); diff != "" {
			t.Errorf("gated keywords of %s (-want +got):\n%s", tc.node, diff)
		}
	}

	// The mapping names every gated difference.
	var mapping []string
	for _, r := range res.Mapping {
		mapping = append(mapping, r.Gate+" "+r.What+" "+r.Path)
	}
	if diff := cmp.Diff([]string{
		"WidgetMode enum .spec.mode",
		"WidgetName maxLength .spec.name",
		"WidgetPort maximum .spec.port",
		"WidgetRetry field .spec.retry",
		"WidgetTls field .spec.tls",
		"WidgetTls rule .spec",
		"WidgetSpec rule .spec",
		"WidgetSpec required .spec",
	}, mapping); diff != "" {
		t.Errorf("mapping (-want +got):\n%s", diff)
	}

	// Deterministic: a second run gives the same bytes.
	again, err := Merge(stdDir, expDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Files {
		if !bytes.Equal(res.Files[i].Content, again.Files[i].Content) {
			t.Errorf("%s differs between two runs", res.Files[i].Name)
		}
	}
}

// A --gates file groups differences into named gates; a path below a configured path
// belongs to it, and what no configured path covers keeps a gate of its own.
func TestMergeWithGatesFile(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	std := `              mode: {type: string, enum: [A, B]}
`
	exp := `              mode: {type: string, enum: [A, B, C]}
              retry:
                type: object
                properties:
                  attempts: {type: integer}
              tls: {type: string}
`
	stdDir, expDir := writeChannels(t,
		map[string]string{"w.yaml": crdYAML("widgets", std, "", "")},
		map[string]string{"w.yaml": crdYAML("widgets", exp, "", "")})
	gatesFile := filepath.Join(t.TempDir(), "gates.yaml")
	if err := os.WriteFile(gatesFile, []byte(`crds:
  widgets.example.com:
    gates:
    - name: Resilience
      preRelease: beta
      paths: [.spec.retry, .spec.mode]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(gatesFile)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Merge(stdDir, expDir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	crd := decode(t, res.Files[0].Content)
	validate(t, crd)
	var gates []string
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		gates = append(gates, string(g.PreRelease)+" "+g.Name+"="+strings.Join(g.FieldPaths, ","))
	}
	if diff := cmp.Diff([]string{"beta Resilience=.spec.retry", "alpha WidgetTls=.spec.tls"}, gates); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`{"featureGate":"Resilience","enabled":false,"enum":["A","B"]}`}, entriesOf(t, specOf(crd, 0).Properties["mode"])); diff != "" {
		t.Errorf("the enum's gated keyword reads the configured gate (-want +got):\n%s", diff)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"bad name", "crds:\n  a.b:\n    gates:\n    - name: lower\n      paths: [.spec.x]\n", `gate name "lower" is not UpperCamelCase`},
		{"no paths", "crds:\n  a.b:\n    gates:\n    - name: G\n", "gate G has no paths"},
		{"unknown field", "crds:\n  a.b:\n    gates:\n    - name: G\n      path: [.spec.x]\n", `unknown field "path"`},
		{"a name twice", "crds:\n  a.b:\n    gates:\n    - name: G\n      paths: [.spec.x]\n    - name: G\n      paths: [.spec.y]\n", "gate G is listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "gates.yaml")
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestDefaultName(t *testing.T) {
	m := &merger{kind: "HTTPRoute"}
	for _, tc := range []struct{ path, want string }{
		{".spec.rules[*].sessionPersistence", "HTTPRouteRulesSessionPersistence"},
		{".spec.useDefaultGateways", "HTTPRouteUseDefaultGateways"},
		{".status.x-y", "HTTPRouteStatusXy"},
		{".", "HTTPRoute"},
		{".spec", "HTTPRouteSpec"},
	} {
		got := m.defaultName(tc.path)
		if got != tc.want || !crdmerge.ValidGateName(got) {
			t.Errorf("defaultName(%s) = %s (valid: %v), want %s", tc.path, got, crdmerge.ValidGateName(got), tc.want)
		}
	}
	// Two paths that give one name: the later one gets a number.
	if a, b := m.defaultName(".spec.a-b"), m.defaultName(".spec.ab"); a != "HTTPRouteAb" || b != "HTTPRouteAb2" {
		t.Errorf("colliding names: %s and %s, want HTTPRouteAb and HTTPRouteAb2", a, b)
	}
	// Longer than 63 characters: cut, with a hash of the path, so that two long paths with
	// the same beginning get different names.
	long1 := m.defaultName(".spec.aVeryLongFieldNameNumberOne[*].aVeryLongFieldNameNumberTwo[*].three")
	long2 := m.defaultName(".spec.aVeryLongFieldNameNumberOne[*].aVeryLongFieldNameNumberTwo[*].four")
	for _, n := range []string{long1, long2} {
		if len(n) != 63 || !crdmerge.ValidGateName(n) || !strings.HasPrefix(n, "HTTPRouteAVeryLongFieldNameNumberOneAVeryLongFieldName") {
			t.Errorf("long name %q: want 63 valid characters that start with the kind and the path", n)
		}
	}
	if long1 == long2 {
		t.Errorf("two long paths got the same gate name %s", long1)
	}
	if again := m.defaultName(".spec.aVeryLongFieldNameNumberOne[*].aVeryLongFieldNameNumberTwo[*].three"); again != long1 {
		t.Errorf("the same path got %s, then %s", long1, again)
	}
}

// Gate paths are storage-version paths: an experimental field that only a non-storage
// version has cannot be gated, and is reported.
func TestMergeFieldOnlyInANonStorageVersion(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	beta := func(props string) string {
		return `  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
` + props
	}
	stdDir, expDir := writeChannels(t,
		map[string]string{"w.yaml": crdYAML("widgets", "              a: {type: string}\n", "", beta("              a: {type: string}\n"))},
		map[string]string{"w.yaml": crdYAML("widgets", "              a: {type: string}\n              b: {type: string}\n", "",
			beta("              a: {type: string}\n              b: {type: string}\n              legacy: {type: string}\n"))})
	res, err := Merge(stdDir, expDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	crd := decode(t, res.Files[0].Content)
	validate(t, crd)
	var gates []string
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		gates = append(gates, g.Name+"="+strings.Join(g.FieldPaths, ","))
	}
	// .spec.b is in both versions and gated by its storage path; .spec.legacy, only in
	// v1beta1, gets no gate.
	if diff := cmp.Diff([]string{"WidgetB=.spec.b"}, gates); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "widgets.example.com v1beta1: .spec.legacy: only in the experimental channel, but not in the storage version's schema") {
		t.Errorf("notes: %q", res.Notes)
	}
}

// Keywords that differ become gated keywords, not CEL rules: a pattern that only the
// experimental channel has on a maxLength 4096 string under three nested lists (as Gateway
// API v1.5 and v1.6 add to HTTPRoute's header values), whose CEL form the server rejects for
// its estimated cost; a format; a minimum; a field only the standard channel requires. A
// format that gives the value a CEL type cannot be gated, and is noted.
func TestMergeGatedKeywords(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	props := func(pattern, format, minItems, when string) string {
		return `              rules:
                type: array
                maxItems: 16
                items:
                  type: object
                  properties:
                    matches:
                      type: array
                      maxItems: 64
                      items:
                        type: object
                        properties:
                          headers:
                            type: array
                            maxItems: 16
                            ` + minItems + `
                            items:
                              type: object
                              properties:
                                value:
                                  type: string
                                  maxLength: 4096
                                  ` + pattern + `
              id: {type: string, ` + format + `}
              when: {type: string, ` + when + `}
              name: {type: string}
`
	}
	std := props("", "format: uuid", "minItems: 1", "")
	exp := props(`pattern: '^[!-~]+([\t ]?[!-~]+)*$'`, "format: hostname", "", "format: date-time")
	stdDir, expDir := writeChannels(t,
		map[string]string{"w.yaml": crdYAML("widgets", std, "            required: [name]\n", "")},
		map[string]string{"w.yaml": crdYAML("widgets", exp, "", "")})
	res, err := Merge(stdDir, expDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	crd := decode(t, res.Files[0].Content)
	validate(t, crd) // the server accepts it: no CEL rule, no cost
	spec := specOf(crd, 0)
	headers := spec.Properties["rules"].Items.Schema.Properties["matches"].Items.Schema.Properties["headers"]
	value := headers.Items.Schema.Properties["value"]
	for _, tc := range []struct {
		node string
		s    apiextensionsv1.JSONSchemaProps
		want []string
	}{
		{".spec", spec, []string{`{"featureGate":"WidgetSpec","enabled":false,"required":["name"]}`}},
		{"headers", headers, []string{`{"featureGate":"WidgetRulesMatchesHeaders","enabled":false,"minItems":1}`}},
		{"value", value, []string{`{"featureGate":"WidgetRulesMatchesHeadersValue","enabled":true,"pattern":"^[!-~]+([\\t ]?[!-~]+)*$"}`}},
		{"id", spec.Properties["id"], []string{
			`{"featureGate":"WidgetId","enabled":false,"format":"uuid"}`,
			`{"featureGate":"WidgetId","enabled":true,"format":"hostname"}`,
		}},
		{"when", spec.Properties["when"], nil},
	} {
		if diff := cmp.Diff(tc.want, entriesOf(t, tc.s)); diff != "" {
			t.Errorf("gated keywords of %s (-want +got):\n%s", tc.node, diff)
		}
		if rules := rulesOf(tc.s); len(rules) > 0 {
			t.Errorf("%s has rules %q; keywords are gated natively", tc.node, rules)
		}
	}
	// The node keeps the looser form.
	if value.Pattern != "" || *value.MaxLength != 4096 || headers.MinItems != nil || spec.Properties["id"].Format != "" || len(spec.Required) != 0 {
		t.Errorf("the nodes keep the looser form: value %+v, headers minItems %v, id format %q, spec required %v",
			value, headers.MinItems, spec.Properties["id"].Format, spec.Required)
	}
	if got := spec.Properties["when"].Format; got != "date-time" {
		t.Errorf("when: format %q, want the experimental channel's date-time, kept", got)
	}
	found := false
	for _, n := range res.Notes {
		if strings.Contains(n, `.spec.when: the format differs, and "" or "date-time" gives the value a CEL type; cannot be gated`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no note for the CEL-typed format: %q", res.Notes)
	}
}
