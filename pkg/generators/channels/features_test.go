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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// filtersProps is .spec.filters, a list of filters as Gateway API's HTTPRoute has them: a
// type enum, one field per type, and rules that tie the field to its type. extraProps,
// extraTypes and extraRules are what a channel adds (YAML, indented to fit).
func filtersProps(extraProps, extraTypes, extraRules string) string {
	return `              filters:
                type: array
                maxItems: 16
                items:
                  type: object
                  properties:
                    type:
                      type: string
                      enum: [Header` + extraTypes + `]
                    header: {type: string}
` + extraProps + `                  x-kubernetes-validations:
                  - rule: "!(has(self.header) && self.type != 'Header')"
                    message: header must be nil if the type is not Header
` + extraRules
}

const (
	corsProp         = "                    cors: {type: object, properties: {allowOrigins: {type: array, items: {type: string}}}}\n"
	externalAuthProp = "                    externalAuth: {type: object, properties: {protocol: {type: string}}}\n"
	corsRules        = `                  - rule: "!(has(self.cors) && self.type != 'CORS')"
                    message: cors must be nil if the type is not CORS
                  - rule: "!(!has(self.cors) && self.type == 'CORS')"
                    message: cors must be specified for the CORS type
`
	externalAuthRules = `                  - rule: "!(has(self.externalAuth) && self.type != 'ExternalAuth')"
                    message: externalAuth must be nil if the type is not ExternalAuth
`
	mixedRule = `                  - rule: "!(has(self.cors) && has(self.externalAuth))"
                    message: cors and externalAuth are exclusive
`
)

// gatesOf lists a merged CRD's gates as name=fieldPaths.
func gatesOf(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
	if crd.Spec.CustomFeatureGates == nil {
		return nil
	}
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		out = append(out, g.Name+"="+strings.Join(g.FieldPaths, ","))
	}
	return out
}

// A feature is a new field together with the enum values that name it and the rules that
// mention it: they get one gate, so that no gate state accepts half a feature. A rule that
// mentions two features cannot be given one of them, and fails the run unless --gates
// groups them.
func TestMergeGroupsFeatures(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	std := filtersProps("", "", "")
	for _, tc := range []struct {
		name  string
		exp   string
		gates string // --gates file, if any
		// wantGates are the merged CRD's gates; wantTypeEntries the gated keywords of the
		// type enum and wantFilterRules the rules of a filter; wantErr a run's error.
		wantGates       []string
		wantTypeEntries []string
		wantFilterRules []string
		wantErr         []string
	}{{
		name:            "a field, its enum value and its rules: one gate",
		exp:             filtersProps(corsProp, ", CORS", corsRules),
		wantGates:       []string{"WidgetFiltersCors=.spec.filters[*].cors"},
		wantTypeEntries: []string{`{"featureGate":"WidgetFiltersCors","enabled":false,"enum":["Header"]}`},
		wantFilterRules: []string{
			"!(has(self.header) && self.type != 'Header')",
			"!featureGates.WidgetFiltersCors || (!(has(self.cors) && self.type != 'CORS'))",
			"!featureGates.WidgetFiltersCors || (!(!has(self.cors) && self.type == 'CORS'))",
		},
	}, {
		name: "two features in one enum: the enum rule reads both gates",
		exp:  filtersProps(corsProp+externalAuthProp, ", CORS, ExternalAuth", corsRules+externalAuthRules),
		wantGates: []string{
			"WidgetFiltersCors=.spec.filters[*].cors",
			"WidgetFiltersExternalAuth=.spec.filters[*].externalAuth",
		},
		// While a gate is off its value is not allowed: the entries intersect, so with every
		// gate off only the standard channel's values are, in its order.
		wantTypeEntries: []string{
			`{"featureGate":"WidgetFiltersCors","enabled":false,"enum":["Header","ExternalAuth"]}`,
			`{"featureGate":"WidgetFiltersExternalAuth","enabled":false,"enum":["Header","CORS"]}`,
		},
		wantFilterRules: []string{
			"!(has(self.header) && self.type != 'Header')",
			"!featureGates.WidgetFiltersCors || (!(has(self.cors) && self.type != 'CORS'))",
			"!featureGates.WidgetFiltersCors || (!(!has(self.cors) && self.type == 'CORS'))",
			"!featureGates.WidgetFiltersExternalAuth || (!(has(self.externalAuth) && self.type != 'ExternalAuth'))",
		},
	}, {
		name: "a value that names no new field keeps the enum's own gate",
		exp:  filtersProps(corsProp, ", CORS, Mirror", corsRules),
		wantGates: []string{
			"WidgetFiltersCors=.spec.filters[*].cors",
			"WidgetFiltersType=",
		},
		wantTypeEntries: []string{
			`{"featureGate":"WidgetFiltersCors","enabled":false,"enum":["Header","Mirror"]}`,
			`{"featureGate":"WidgetFiltersType","enabled":false,"enum":["Header","CORS"]}`,
		},
		wantFilterRules: []string{
			"!(has(self.header) && self.type != 'Header')",
			"!featureGates.WidgetFiltersCors || (!(has(self.cors) && self.type != 'CORS'))",
			"!featureGates.WidgetFiltersCors || (!(!has(self.cors) && self.type == 'CORS'))",
		},
	}, {
		// The rule is the evidence that the two fields are one feature: without --gates they
		// get one gate, as a --gates file that groups them would give.
		name: "a rule that mentions two new fields ties them into one gate",
		exp:  filtersProps(corsProp+externalAuthProp, ", CORS, ExternalAuth", corsRules+mixedRule),
		wantGates: []string{
			"WidgetFiltersCorsExternalAuth=.spec.filters[*].cors,.spec.filters[*].externalAuth",
		},
		wantTypeEntries: []string{`{"featureGate":"WidgetFiltersCorsExternalAuth","enabled":false,"enum":["Header"]}`},
		wantFilterRules: []string{
			"!(has(self.header) && self.type != 'Header')",
			"!featureGates.WidgetFiltersCorsExternalAuth || (!(has(self.cors) && self.type != 'CORS'))",
			"!featureGates.WidgetFiltersCorsExternalAuth || (!(!has(self.cors) && self.type == 'CORS'))",
			"!featureGates.WidgetFiltersCorsExternalAuth || (!(has(self.cors) && has(self.externalAuth)))",
		},
	}, {
		name: "--gates that names one of the tied fields takes the other",
		exp:  filtersProps(corsProp+externalAuthProp, ", CORS, ExternalAuth", corsRules+mixedRule),
		gates: `crds:
  widgets.example.com:
    gates:
    - name: FilterCORS
      preRelease: beta
      paths: [".spec.filters[*].cors"]
`,
		wantGates:       []string{"FilterCORS=.spec.filters[*].cors,.spec.filters[*].externalAuth"},
		wantTypeEntries: []string{`{"featureGate":"FilterCORS","enabled":false,"enum":["Header"]}`},
		wantFilterRules: []string{
			"!(has(self.header) && self.type != 'Header')",
			"!featureGates.FilterCORS || (!(has(self.cors) && self.type != 'CORS'))",
			"!featureGates.FilterCORS || (!(!has(self.cors) && self.type == 'CORS'))",
			"!featureGates.FilterCORS || (!(has(self.cors) && has(self.externalAuth)))",
		},
	}, {
		name: "--gates that splits the fields a rule ties fails",
		exp:  filtersProps(corsProp+externalAuthProp, ", CORS, ExternalAuth", corsRules+mixedRule),
		gates: `crds:
  widgets.example.com:
    gates:
    - name: FilterCORS
      paths: [".spec.filters[*].cors"]
    - name: FilterExternalAuth
      paths: [".spec.filters[*].externalAuth"]
`,
		wantErr: []string{
			"widgets.example.com v1: the experimental channel's rule \"!(has(self.cors) && has(self.externalAuth))\" at .spec.filters[*] mixes two features, " +
				"feature FilterCORS (.spec.filters[*].cors) and feature FilterExternalAuth (.spec.filters[*].externalAuth), " +
				"which the channels' rules and enum values tie to fields that --gates puts in different gates (FilterCORS, FilterExternalAuth)",
			"put these fields in one gate of --gates",
		},
	}, {
		name: "--gates groups the features a rule mixes",
		exp:  filtersProps(corsProp+externalAuthProp, ", CORS, ExternalAuth", corsRules+mixedRule),
		gates: `crds:
  widgets.example.com:
    gates:
    - name: FilterAuthAndCORS
      paths: [".spec.filters[*].cors", ".spec.filters[*].externalAuth"]
`,
		wantGates:       []string{"FilterAuthAndCORS=.spec.filters[*].cors,.spec.filters[*].externalAuth"},
		wantTypeEntries: []string{`{"featureGate":"FilterAuthAndCORS","enabled":false,"enum":["Header"]}`},
		wantFilterRules: []string{
			"!(has(self.header) && self.type != 'Header')",
			"!featureGates.FilterAuthAndCORS || (!(has(self.cors) && self.type != 'CORS'))",
			"!featureGates.FilterAuthAndCORS || (!(!has(self.cors) && self.type == 'CORS'))",
			"!featureGates.FilterAuthAndCORS || (!(has(self.cors) && has(self.externalAuth)))",
		},
	}, {
		name: "a --gates name that a generated name collides with fails",
		exp:  filtersProps(corsProp+externalAuthProp, ", CORS, ExternalAuth", corsRules+externalAuthRules),
		gates: `crds:
  widgets.example.com:
    gates:
    - name: WidgetFiltersCors
      paths: [".spec.filters[*].externalAuth"]
`,
		wantErr: []string{
			"widgets.example.com v1: gate WidgetFiltersCors of --gates (paths .spec.filters[*].externalAuth) is also the name generated for .spec.filters[*].cors",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			stdDir, expDir := writeChannels(t,
				map[string]string{"w.yaml": crdYAML("widgets", std, "", "")},
				map[string]string{"w.yaml": crdYAML("widgets", tc.exp, "", "")})
			var cfg *Config
			if tc.gates != "" {
				p := filepath.Join(t.TempDir(), "gates.yaml")
				if err := os.WriteFile(p, []byte(tc.gates), 0o644); err != nil {
					t.Fatal(err)
				}
				var err error
				if cfg, err = LoadConfig(p); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Merge(stdDir, expDir, cfg)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; want one containing %q", tc.wantErr)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			crd := decode(t, res.Files[0].Content)
			validate(t, crd)
			if diff := cmp.Diff(tc.wantGates, gatesOf(crd)); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
			filter := specOf(crd, 0).Properties["filters"].Items.Schema
			if rules := rulesOf(filter.Properties["type"]); len(rules) > 0 {
				t.Errorf("rules of the type enum: %q, want none (its values are gated keywords)", rules)
			}
			if diff := cmp.Diff(tc.wantTypeEntries, entriesOf(t, filter.Properties["type"])); diff != "" {
				t.Errorf("gated keywords of the type enum (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFilterRules, rulesOf(*filter)); diff != "" {
				t.Errorf("rules of a filter (-want +got):\n%s", diff)
			}
		})
	}
}

// A type used at two places (a filter of a rule and of a backend, as in HTTPRoute) has one
// feature, so one gate holds its new field at both places, with the values and rules that
// go with it; the gate is named after the end the paths share.
func TestMergeGroupsATypeAtSeveralPlaces(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	// twice puts the filters at .spec.filters and at .spec.backends[*].filters.
	twice := func(filters string) string {
		nested := "              backends:\n                type: array\n                maxItems: 4\n                items:\n                  type: object\n                  properties:\n"
		for _, line := range strings.SplitAfter(filters, "\n") {
			if line != "" {
				nested += "      " + line
			}
		}
		return filters + nested
	}
	stdDir, expDir := writeChannels(t,
		map[string]string{"w.yaml": crdYAML("widgets", twice(filtersProps("", "", "")), "", "")},
		map[string]string{"w.yaml": crdYAML("widgets", twice(filtersProps(corsProp, ", CORS", corsRules)), "", "")})
	res, err := Merge(stdDir, expDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	crd := decode(t, res.Files[0].Content)
	validate(t, crd)
	if diff := cmp.Diff([]string{"WidgetFiltersCors=.spec.backends[*].filters[*].cors,.spec.filters[*].cors"}, gatesOf(crd)); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
	var mapping []string
	for _, r := range res.Mapping {
		mapping = append(mapping, r.Gate+" "+r.What+" "+r.Path)
	}
	if diff := cmp.Diff([]string{
		"WidgetFiltersCors field .spec.backends[*].filters[*].cors",
		"WidgetFiltersCors enum .spec.backends[*].filters[*].type",
		"WidgetFiltersCors rule .spec.backends[*].filters[*]",
		"WidgetFiltersCors rule .spec.backends[*].filters[*]",
		"WidgetFiltersCors field .spec.filters[*].cors",
		"WidgetFiltersCors enum .spec.filters[*].type",
		"WidgetFiltersCors rule .spec.filters[*]",
		"WidgetFiltersCors rule .spec.filters[*]",
	}, mapping); diff != "" {
		t.Errorf("mapping (-want +got):\n%s", diff)
	}
}

// A gate is one for every version: a rule that only a non-storage version's experimental
// schema has ties the fields in every version, and a method call (size()) is not a field.
func TestMergeTiesAcrossVersions(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	version := func(name string, storage bool, props, extra string) string {
		return `  - name: ` + name + `
    served: true
    storage: ` + map[bool]string{true: "true", false: "false"}[storage] + `
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
` + extra + `            properties:
` + props
	}
	crd := func(versions string) string {
		return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
` + versions
	}
	const (
		stdProps = "              x: {type: string}\n              list: {type: array, items: {type: object, properties: {name: {type: string}}}}\n"
		expProps = "              x: {type: string}\n              alpha: {type: string}\n              beta: {type: string}\n" +
			"              mode: {type: string}\n              list: {type: array, items: {type: object, properties: {name: {type: string}, size: {type: integer}}}}\n"
		tie  = "            x-kubernetes-validations:\n            - rule: \"!(has(self.alpha) && has(self.beta))\"\n"
		size = "            x-kubernetes-validations:\n            - rule: \"!has(self.mode) || self.list.size() > 0\"\n"
	)
	stdDir, expDir := writeChannels(t,
		map[string]string{"w.yaml": crd(version("v1", true, stdProps, "") + version("v1beta1", false, stdProps, ""))},
		map[string]string{"w.yaml": crd(version("v1", true, expProps, size) + version("v1beta1", false, expProps, tie))})
	res, err := Merge(stdDir, expDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res.Mapping {
		got[r.Version+" "+r.What+" "+r.Path] += r.Gate + " "
	}
	for k, want := range map[string]string{
		"v1 field .spec.alpha":             "WidgetAlphaBeta ",
		"v1 field .spec.beta":              "WidgetAlphaBeta ",
		"v1beta1 field .spec.alpha":        "WidgetAlphaBeta ",
		"v1beta1 field .spec.beta":         "WidgetAlphaBeta ",
		"v1beta1 rule .spec":               "WidgetAlphaBeta ",
		"v1 field .spec.mode":              "WidgetMode ",
		"v1 rule .spec":                    "WidgetMode ",
		"v1 field .spec.list[*].size":      "WidgetListSize ",
		"v1beta1 field .spec.list[*].size": "WidgetListSize ",
	} {
		if got[k] != want {
			t.Errorf("%s: gate %q, want %q", k, got[k], want)
		}
	}
	var crdOut apiextensionsv1.CustomResourceDefinition
	for _, f := range res.Files {
		crdOut = *decode(t, f.Content)
	}
	names := []string{}
	for _, g := range crdOut.Spec.CustomFeatureGates.FeatureGates {
		names = append(names, g.Name+"="+strings.Join(g.FieldPaths, ","))
	}
	want := []string{"WidgetAlphaBeta=.spec.alpha,.spec.beta", "WidgetListSize=.spec.list[*].size", "WidgetMode=.spec.mode"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
}
