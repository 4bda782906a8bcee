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

package openshift

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"
)

// testFile is a per-gate file, or a feature set's CRD, of the CRD widgets.example.com: its
// file name, the gates it has on, and the schema of its one version.
type testFile struct {
	name   string
	gates  []string
	schema string
}

// widgetSchema is the schema of widgets.example.com with the given metadata and spec
// (both YAML flow style).
func widgetSchema(metadata, spec string) string {
	return fmt.Sprintf("{type: object, properties: {metadata: %s, spec: %s}}", metadata, spec)
}

// specSchema is a widgetSchema whose metadata has no fields and whose spec has props.
func specSchema(props string) string {
	return widgetSchema("{type: object}", "{type: object, properties: "+props+"}")
}

func testVariant(t *testing.T, f testFile) *variant {
	t.Helper()
	s := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.Unmarshal([]byte(f.schema), s); err != nil {
		t.Fatalf("%s: %v", f.name, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	crd.Name = "widgets.example.com"
	crd.Spec.Group = "example.com"
	crd.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"}
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{
		Name: "v1", Served: true, Storage: true,
		Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: s},
	}}
	return &variant{file: f.name, gates: sets.New(f.gates...), crd: crd}
}

// nodeAt is the node of s at path: fields joined by ".", and "[*]" for a list's items or a
// map's values (".status.items[*].ip").
func nodeAt(s *apiextensionsv1.JSONSchemaProps, path string) *apiextensionsv1.JSONSchemaProps {
	for _, part := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		name := part
		for strings.HasSuffix(name, "[*]") {
			name = strings.TrimSuffix(name, "[*]")
		}
		if name != "" {
			p, ok := s.Properties[name]
			if !ok {
				return nil
			}
			s = &p
		}
		for i := strings.Count(part, "[*]"); i > 0; i-- {
			switch {
			case s.Items != nil && s.Items.Schema != nil:
				s = s.Items.Schema
			case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
				s = s.AdditionalProperties.Schema
			default:
				return nil
			}
		}
	}
	return s
}

// The per-gate files can lack a keyword or a field that every feature set's CRD has alike;
// where no gate changes it, the merged CRD has it as the feature sets' CRDs do, and each
// per-gate file gets a quirk for it. Otherwise the per-gate files decide, as before.
func TestAdoptFeatureSetSchema(t *testing.T) {
	const (
		ip         = "{type: string}"
		ipAnyOf    = "{type: string, anyOf: [{format: ipv4}, {format: ipv6}]}"
		ipv4AnyOf  = "{type: string, anyOf: [{format: ipv4}]}"
		extra      = "{type: string}"
		extraIPv4  = "{type: string, format: ipv4}"
		nameAnyOf  = "{type: object, properties: {name: {type: string, anyOf: [{format: ipv4}]}}}"
		ruleNoPath = "{type: object, x-kubernetes-validations: [{rule: 'has(self.ip)', message: needs ip}], properties: {ip: {type: string}}}"
		rulePath   = "{type: object, x-kubernetes-validations: [{rule: 'has(self.ip)', message: needs ip, fieldPath: .ip, reason: FieldValueRequired}], properties: {ip: {type: string}}}"
	)
	// files are the per-gate files of most cases: the ungated one and Alpha's, which adds extra.
	files := []testFile{
		{name: ungatedFile, schema: specSchema("{ip: " + ip + "}")},
		{name: "Alpha.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ip + ", extra: " + extra + "}")},
	}
	for _, tc := range []struct {
		name        string
		files       []testFile
		featureSets []testFile
		// path is the node checked; want is the merged CRD's node there (YAML), "" for none.
		path, want string
		// wantQuirks are "<file> <path> <keyword>".
		wantQuirks []string
	}{
		{
			name:  "an anyOf of formats that every feature set has",
			files: files,
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: " + ipAnyOf + "}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ipAnyOf + ", extra: " + extra + "}")},
			},
			path:       ".spec.ip",
			want:       ipAnyOf,
			wantQuirks: []string{"AAA_ungated.yaml .spec.ip AnyOf", "Alpha.yaml .spec.ip AnyOf"},
		},
		{
			name: "a format that the files have and every feature set lacks",
			files: []testFile{
				{name: ungatedFile, schema: specSchema("{ip: {type: string, format: byte}}")},
				{name: "Alpha.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: {type: string, format: byte}, extra: " + extra + "}")},
			},
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: " + ip + "}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ip + ", extra: " + extra + "}")},
			},
			path:       ".spec.ip",
			want:       ip,
			wantQuirks: []string{"AAA_ungated.yaml .spec.ip Format", "Alpha.yaml .spec.ip Format"},
		},
		{
			name:  "a feature set without it",
			files: files,
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: " + ip + "}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ipAnyOf + ", extra: " + extra + "}")},
			},
			path: ".spec.ip",
			want: ip,
		},
		{
			name:  "feature sets that disagree",
			files: files,
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: " + ipv4AnyOf + "}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ipAnyOf + ", extra: " + extra + "}")},
			},
			path: ".spec.ip",
			want: ip,
		},
		{
			name: "a keyword that a gate changes",
			files: []testFile{
				{name: ungatedFile, schema: specSchema("{ip: {type: string, maxLength: 10}}")},
				{name: "Alpha.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: {type: string, maxLength: 20}}")},
			},
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: {type: string, maxLength: 30}}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: {type: string, maxLength: 30}}")},
			},
			path: ".spec.ip",
			want: "{type: string, maxLength: 20, x-kubernetes-feature-gated-validations: [{featureGate: Alpha, enabled: false, maxLength: 10}]}",
		},
		{
			name:  "the same in the files and the feature sets",
			files: []testFile{{name: ungatedFile, schema: specSchema("{ip: " + ipAnyOf + "}")}},
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: " + ipAnyOf + "}")},
			},
			path: ".spec.ip",
			want: ipAnyOf,
		},
		{
			name:  "no feature set",
			files: files,
			path:  ".spec.ip",
			want:  ip,
		},
		{
			name:  "a field that every feature set has and no file has",
			files: files,
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: widgetSchema(nameAnyOf, "{type: object, properties: {ip: "+ip+"}}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: widgetSchema(nameAnyOf, "{type: object, properties: {ip: "+ip+", extra: "+extra+"}}")},
			},
			path:       ".metadata.name",
			want:       "{type: string, anyOf: [{format: ipv4}]}",
			wantQuirks: []string{"AAA_ungated.yaml .metadata.name field", "Alpha.yaml .metadata.name field"},
		},
		{
			name:  "a gated field: the feature sets that have its gate on decide",
			files: files,
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: " + ip + "}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ip + ", extra: " + extraIPv4 + "}")},
			},
			path:       ".spec.extra",
			want:       "{type: string, format: ipv4, x-kubernetes-feature-gate: Alpha}",
			wantQuirks: []string{"Alpha.yaml .spec.extra Format"},
		},
		{
			name:  "a feature set that has the gate on but not the field",
			files: files,
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ip: " + ip + "}")},
				{name: "DevPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ip + "}")},
				{name: "TechPreviewNoUpgrade.crd.yaml", gates: []string{"Alpha"}, schema: specSchema("{ip: " + ip + ", extra: " + extraIPv4 + "}")},
			},
			path: ".spec.extra",
			want: "{type: string, x-kubernetes-feature-gate: Alpha}",
		},
		{
			name:  "list items",
			files: []testFile{{name: ungatedFile, schema: specSchema("{ips: {type: array, items: " + ip + "}}")}},
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: specSchema("{ips: {type: array, items: " + ipAnyOf + "}}")},
				{name: "OKD.crd.yaml", schema: specSchema("{ips: {type: array, items: " + ipAnyOf + "}}")},
			},
			path:       ".spec.ips[*]",
			want:       ipAnyOf,
			wantQuirks: []string{"AAA_ungated.yaml .spec.ips[*] AnyOf"},
		},
		{
			name:  "a rule's fieldPath and reason",
			files: []testFile{{name: ungatedFile, schema: widgetSchema("{type: object}", ruleNoPath)}},
			featureSets: []testFile{
				{name: "Default.crd.yaml", schema: widgetSchema("{type: object}", rulePath)},
			},
			path:       ".spec",
			want:       rulePath,
			wantQuirks: []string{"AAA_ungated.yaml .spec XValidations"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &merger{crd: "widgets.example.com", dir: "widgets", combos: map[string][]string{}}
			for _, f := range tc.files {
				m.variants = append(m.variants, testVariant(t, f))
			}
			for _, f := range tc.featureSets {
				m.featureSets = append(m.featureSets, testVariant(t, f))
			}
			out := m.merge()
			if len(m.errs) > 0 {
				t.Fatalf("errors: %v", m.errs)
			}
			got := nodeAt(out.Spec.Versions[0].Schema.OpenAPIV3Schema, tc.path)
			var want *apiextensionsv1.JSONSchemaProps
			if tc.want != "" {
				want = &apiextensionsv1.JSONSchemaProps{}
				if err := yaml.Unmarshal([]byte(tc.want), want); err != nil {
					t.Fatal(err)
				}
			}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("%s is\n%s\nwant\n%s", tc.path, gotJSON, wantJSON)
			}
			var quirks []string
			for _, q := range m.quirks {
				quirks = append(quirks, q.File+" "+q.Path+" "+q.Keyword)
				if len(q.FeatureSets) == 0 {
					t.Errorf("quirk %+v names no feature set", q)
				}
			}
			if !reflect.DeepEqual(quirks, tc.wantQuirks) {
				t.Errorf("quirks %q, want %q", quirks, tc.wantQuirks)
			}
		})
	}
}

// With OPENSHIFT_API_DIR: OpenShift's per-gate file of dnsnameresolvers.network.openshift.io
// lacks the anyOf of formats that makes a resolved address an IP address, which every feature
// set's CRD has; the merged CRD has it.
func TestAdoptFeatureSetSchemaOpenShiftAPI(t *testing.T) {
	dir := os.Getenv("OPENSHIFT_API_DIR")
	if dir == "" {
		t.Skip("OPENSHIFT_API_DIR is not set")
	}
	const (
		gv   = "network/v1alpha1"
		crd  = "dnsnameresolvers.network.openshift.io"
		path = ".status.resolvedNames[*].resolvedAddresses[*].ip"
	)
	if _, err := os.Stat(filepath.Join(dir, gv, manifestsDir, crd)); err != nil {
		t.Skipf("%s has no %s: %v", dir, crd, err)
	}
	res, err := Merge(Options{Dir: dir, Groups: []string{gv}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	var merged *apiextensionsv1.CustomResourceDefinition
	for _, f := range res.Files {
		if f.Name == gv+"/"+crd+".yaml" {
			merged = &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.Unmarshal(f.Content, merged); err != nil {
				t.Fatal(err)
			}
		}
	}
	if merged == nil {
		t.Fatalf("%s was not written", crd)
	}
	want := []apiextensionsv1.JSONSchemaProps{{Format: "ipv4"}, {Format: "ipv6"}}
	for _, v := range merged.Spec.Versions {
		node := nodeAt(v.Schema.OpenAPIV3Schema, path)
		if node == nil {
			t.Fatalf("%s %s has no %s", crd, v.Name, path)
		}
		if !reflect.DeepEqual(node.AnyOf, want) {
			t.Errorf("%s %s %s: anyOf is %+v, want %+v", crd, v.Name, path, node.AnyOf, want)
		}
	}
	noted := false
	for _, q := range res.Quirks {
		noted = noted || (q.CRD == crd && q.Path == path && q.Keyword == "AnyOf" && len(q.FeatureSets) > 0)
	}
	if !noted {
		t.Errorf("no quirk for the anyOf of %s %s: %+v", crd, path, res.Quirks)
	}
}
