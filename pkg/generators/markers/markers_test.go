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

package markers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

const testPkg = "k8s.io/apiextensions-apiserver/pkg/generators/markers/testdata/api/v1"

var (
	loadOnce sync.Once
	loaded   *Generator
	loadErr  error
)

// testGenerator returns the generator of the test packages in the given mode. The loaded
// packages are shared; the mode is the copy's.
func testGenerator(t *testing.T, fieldPaths bool) *Generator {
	t.Helper()
	loadOnce.Do(func() {
		base := testPkg[:strings.LastIndex(testPkg, "/")]
		loaded, loadErr = Load(testPkg, base+"/common", base+"/v1beta1")
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	g := *loaded
	g.FieldPaths = fieldPaths
	return &g
}

// testdata returns the content of a file in testdata.
func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// replace replaces old, which must occur in s exactly once, by new.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%q occurs %d times, want once", old, n)
	}
	return strings.Replace(s, old, new, 1)
}

func TestGatedPaths(t *testing.T) {
	tests := []struct {
		name                 string
		group, version, kind string
		want                 map[string][]string
		wantErr              string
	}{{
		name:  "json names as controller-gen resolves them",
		group: "test.example.com", version: "v1", kind: "Thing",
		want: map[string][]string{
			// plain and omitempty names; "-" skipped; no tag skipped.
			"PkgGate": {".spec.plain", ".spec.omit"},
			// "-," is named "-"; ",inline" lifts the field; an embedded struct without
			// a tag is skipped (controller-gen requires a tag); a recursive type is walked
			// once (a CRD schema cannot recurse).
			"TypeGate": {".spec.-", ".spec.inlinedField", ".spec.tree.value"},
			// lists, maps, nested lists and maps of lists, arrays, named slices, pointers.
			"DeepGate": {
				".spec.items[*].deep", ".spec.byName[*].deep", ".spec.grid[*][*].deep",
				".spec.groups[*][*].deep", ".spec.fixed[*].deep", ".spec.named[*].deep", ".spec.ptr.deep",
			},
			// a type from another package.
			"SharedGate": {".spec.shared.secret"},
		},
	}, {
		name:  "another version of the kind",
		group: "test.example.com", version: "v1beta1", kind: "Thing",
		want: map[string][]string{
			"PkgGate":  {".spec.oldPlain"},
			"OldGate":  {".spec.legacy"},
			"DeepGate": {".spec.groups[*][*].deep"},
		},
	}, {
		name:  "a kind without gated fields",
		group: "test.example.com", version: "v1", kind: "Other",
		want: map[string][]string{},
	}, {
		name:  "unknown kind",
		group: "test.example.com", version: "v1", kind: "Nope",
		wantErr: "has no type Nope",
	}, {
		name:  "unknown group",
		group: "nope.example.com", version: "v1", kind: "Thing",
		wantErr: "no Go package declares +groupName=nope.example.com",
	}}
	g := testGenerator(t, false)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := g.GatedPaths(tc.group, tc.version, tc.kind)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

const thingCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.20.1
  name: things.test.example.com
spec:
  group: test.example.com
  names:
    kind: Thing
    listKind: ThingList
    plural: things
    singular: thing
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            maximum: 9007199254740993
            type: object
        type: object
    served: true
    storage: true
`

const thingGates = `  customFeatureGates:
    component: things.test.example.com
    featureGates:
    - fieldPaths:
      - .spec.plain
      - .spec.omit
      name: PkgGate
      preRelease: alpha
    - fieldPaths:
      - .spec.shared.secret
      name: SharedGate
      preRelease: beta
    - default: false
      fieldPaths:
      - .spec.items[*].deep
      - .spec.byName[*].deep
      - .spec.grid[*][*].deep
      - .spec.groups[*][*].deep
      - .spec.fixed[*].deep
      - .spec.named[*].deep
      - .spec.ptr.deep
      name: DeepGate
      preRelease: alpha
    - fieldPaths:
      - .spec.-
      - .spec.inlinedField
      - .spec.tree.value
      name: TypeGate
      preRelease: beta
    - fieldPaths: []
      name: CELOnlyGate
      preRelease: alpha
`

// withGates inserts gates after the names block of thingCRD, where the keys sort.
func withGates(gates string) string {
	return strings.Replace(thingCRD, "spec:\n  group:", "spec:\n"+gates+"  group:", 1)
}

// The stale marks that marksWithStale adds to testdata/things-marks.yaml: a mark on a field
// no marker gates, one on a list rather than on its items' field, one naming another gate
// than the marker, in the storage version, and one in the other version.
func marksWithStale(t *testing.T) string {
	s := testdata(t, "things-marks.yaml")
	s = replace(t, s, "              bytes:\n                format: byte\n                type: string\n",
		"              bytes:\n                format: byte\n                type: string\n                x-kubernetes-feature-gate: GoneGate\n")
	s = replace(t, s, "                maxItems: 2\n                type: array\n",
		"                maxItems: 2\n                type: array\n                x-kubernetes-feature-gate: DeepGate\n")
	s = replace(t, s, "              plain:\n                type: string\n                x-kubernetes-feature-gate: PkgGate\n",
		"              plain:\n                type: string\n                x-kubernetes-feature-gate: TypeGate\n")
	return replace(t, s, "                  items:\n                    type: string\n                  type: array\n",
		"                  items:\n                    type: string\n                  type: array\n                  x-kubernetes-feature-gate: OldGate\n")
}

// v2 is a version of Thing that no loaded package declares, with a mark of its own.
const v2 = `  - name: v2
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              x:
                type: string
                x-kubernetes-feature-gate: PkgGate
            type: object
        type: object
    served: false
    storage: false
`

func TestProcessManifest(t *testing.T) {
	otherDoc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep   # a comment, kept\n"
	elsewhere := strings.Replace(thingCRD, "test.example.com", "elsewhere.example.com", -1)
	// A kind without gates, formatted as the generator would not: it is kept as it is.
	other := strings.Replace(strings.Replace(thingCRD, "Thing", "Other", -1), "  scope: Namespaced\n", "  scope:   Namespaced   # kept\n", 1)
	cgen := testdata(t, "things-controller-gen.yaml")
	marks := testdata(t, "things-marks.yaml")
	fieldPaths := testdata(t, "things-field-paths.yaml")
	tests := []struct {
		name       string
		fieldPaths bool
		in         string
		want       string
		wantNotes  []string
	}{{
		name:       "-field-paths: controller-gen output gets the gates; everything else is kept byte for byte",
		fieldPaths: true,
		in:         thingCRD,
		want:       withGates(thingGates),
	}, {
		name:       "-field-paths: an admin's enabled is preserved, other hand edits of the gates are not",
		fieldPaths: true,
		in: withGates(strings.Replace(strings.Replace(thingGates, "      name: SharedGate\n", "      name: SharedGate\n      enabled: false\n", 1),
			"preRelease: alpha\n    - fieldPaths:\n      - .spec.shared.secret", "preRelease: beta\n    - fieldPaths:\n      - .spec.shared.secret", 1)),
		want: withGates(strings.Replace(thingGates, "    - fieldPaths:\n      - .spec.shared.secret\n", "    - enabled: false\n      fieldPaths:\n      - .spec.shared.secret\n", 1)),
	}, {
		name:       "-field-paths: a gate that is no longer declared is removed",
		fieldPaths: true,
		in:         withGates(thingGates + "    - fieldPaths: [.spec.gone]\n      name: GoneGate\n      preRelease: alpha\n"),
		want:       withGates(thingGates),
	}, {
		name:       "-field-paths: other documents and CRDs of other groups are left alone",
		fieldPaths: true,
		in:         otherDoc + elsewhere + thingCRD,
		want:       otherDoc + elsewhere + withGates(thingGates),
		wantNotes:  []string{"things.elsewhere.example.com: no loaded package declares group elsewhere.example.com version v1; left alone"},
	}, {
		name:       "-field-paths: the fieldPaths of the storage version of two versions; no marks",
		fieldPaths: true,
		in:         cgen,
		want:       fieldPaths,
	}, {
		name:       "-field-paths: the marks of a previous run are removed from every version",
		fieldPaths: true,
		in:         marks,
		want:       fieldPaths,
	}, {
		name:       "-field-paths: a CRD without gates or marks is kept byte for byte",
		fieldPaths: true,
		in:         other,
		want:       other,
	}, {
		name: "marks: each version's gated fields are marked from its own types; gates without fieldPaths",
		in:   cgen,
		want: marks,
	}, {
		name: "marks: the fieldPaths of a previous -field-paths run give way to marks; an admin's enabled is preserved",
		in:   replace(t, fieldPaths, "      name: DeepGate\n", "      name: DeepGate\n      enabled: true\n"),
		want: replace(t, marks, "    - default: false\n      name: DeepGate\n", "    - default: false\n      enabled: true\n      name: DeepGate\n"),
	}, {
		name: "marks: stale marks are removed from each version",
		in:   marksWithStale(t),
		want: marks,
	}, {
		name:      "marks: a version no loaded package declares is left alone, marks and all",
		in:        cgen + v2,
		want:      marks + v2,
		wantNotes: []string{"things.test.example.com: no loaded package declares group test.example.com version v2; that version's schema is left alone"},
	}, {
		name:      "marks: other documents and CRDs of other groups are left alone",
		in:        otherDoc + elsewhere + cgen,
		want:      otherDoc + elsewhere + marks,
		wantNotes: []string{"things.elsewhere.example.com: no loaded package declares group elsewhere.example.com with any of its versions (v1); left alone"},
	}, {
		name: "marks: a CRD without gates or marks is kept byte for byte",
		in:   other,
		want: other,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := testGenerator(t, tc.fieldPaths)
			got, notes, err := g.ProcessManifest([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("manifest (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNotes, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			again, _, err := g.ProcessManifest(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(got) {
				t.Errorf("a second run changed the manifest:\n%s", cmp.Diff(string(got), string(again)))
			}
		})
	}
}

// Switching modes back and forth: each run in a mode gives that mode's output, whatever
// the other mode wrote before, and Process reports a manifest as changed exactly when it is
// not up to date for the mode (what -check reports).
func TestProcessModes(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "test.example.com_things.yaml")
	if err := os.WriteFile(manifest, []byte(testdata(t, "things-controller-gen.yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	marks, fieldPaths := testdata(t, "things-marks.yaml"), testdata(t, "things-field-paths.yaml")
	steps := []struct {
		fieldPaths  bool
		wantChanged bool
		want        string
	}{
		{fieldPaths: false, wantChanged: true, want: marks},
		{fieldPaths: false, wantChanged: false, want: marks},
		{fieldPaths: true, wantChanged: true, want: fieldPaths},
		{fieldPaths: true, wantChanged: false, want: fieldPaths},
		{fieldPaths: false, wantChanged: true, want: marks},
	}
	for i, s := range steps {
		results, err := testGenerator(t, s.fieldPaths).Process(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 1 || results[0].Path != manifest {
			t.Fatalf("step %d: results %+v, want one for %s", i, results, manifest)
		}
		r := results[0]
		if r.Changed != s.wantChanged {
			t.Errorf("step %d (fieldPaths=%v): changed = %v, want %v", i, s.fieldPaths, r.Changed, s.wantChanged)
		}
		if diff := cmp.Diff(s.want, string(r.Content)); diff != "" {
			t.Errorf("step %d (fieldPaths=%v): manifest (-want +got):\n%s", i, s.fieldPaths, diff)
		}
		if err := os.WriteFile(manifest, r.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	base := testPkg[:strings.LastIndex(testPkg, "/")]
	tests := []struct {
		name, pkg, group, kind, wantErr string
	}{
		{"undeclared gate", base + "/bad", "bad.example.com", "Bad", "fields are gated by NobodyDeclaredMe, which no +customfeaturegates:gate declares"},
		{"gated inline field", base + "/badinline", "badinline.example.com", "Bad", "+customfeaturegates:gatedBy on the inline field In of BadSpec"},
		{"a required gate nobody declares", base + "/badrequires", "badrequires.example.com", "Bad", "gate Both requires Missing, which no +customfeaturegates:gate declares"},
	}
	for _, tc := range tests {
		for _, fieldPaths := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, fieldPaths=%v", tc.name, fieldPaths), func(t *testing.T) {
				g, err := Load(tc.pkg)
				if err != nil {
					t.Fatal(err)
				}
				g.FieldPaths = fieldPaths
				crd := strings.NewReplacer("test.example.com", tc.group, "Thing", tc.kind).Replace(thingCRD)
				_, _, err = g.ProcessManifest([]byte(crd))
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			})
		}
	}
	if _, err := Load(base + "/doesnotexist"); err == nil {
		t.Error("Load of a missing package succeeded")
	}
}

// conflictCRD has the versions v1 and v2 of conflict.example.com's Bad, both with .spec.x.
const conflictCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bads.conflict.example.com
spec:
  group: conflict.example.com
  names:
    kind: Bad
    plural: bads
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              x:
                type: string
            type: object
        type: object
    served: true
    storage: true
  - name: v2
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              x:
                type: string
            type: object
        type: object
    served: true
    storage: false
`

// A marker on a field that a version's schema cannot carry a mark for is an error that names
// the Go field, the version and the path. -field-paths does not check paths against the
// schema, as before marks.
func TestMarkErrors(t *testing.T) {
	base := testPkg[:strings.LastIndex(testPkg, "/")]
	cgen := testdata(t, "things-controller-gen.yaml")
	tests := []struct {
		name       string
		pkgs       []string // nil: the test packages
		fieldPaths bool
		in         string
		wantErr    []string // nil: no error
	}{{
		name: "a property that a version's schema lacks",
		in:   replace(t, cgen, "              legacy:\n                additionalProperties:\n                  items:\n                    type: string\n                  type: array\n                type: object\n", ""),
		wantErr: []string{
			filepath.Join("testdata", "api", "v1beta1", "types.go") + ":",
			"field ThingSpec.Legacy (+customfeaturegates:gatedBy=OldGate): cannot mark .spec.legacy in version v1beta1 of things.test.example.com: the schema has no property legacy at .spec",
		},
	}, {
		name:    "a list whose schema has no items",
		in:      replace(t, cgen, "              fixed:\n                items:\n", "              fixed:\n                x-items:\n"),
		wantErr: []string{"field Item.Deep (+customfeaturegates:gatedBy=DeepGate): cannot mark .spec.fixed[*].deep in version v1 of things.test.example.com: the schema has no items at .spec.fixed"},
	}, {
		name:    "a map whose schema has no additionalProperties",
		in:      replace(t, cgen, "              byName:\n                additionalProperties:\n", "              byName:\n                x-additionalProperties:\n"),
		wantErr: []string{"field Item.Deep (+customfeaturegates:gatedBy=DeepGate): cannot mark .spec.byName[*].deep in version v1 of things.test.example.com: the schema has no additionalProperties at .spec.byName"},
	}, {
		name:    "a schema without properties",
		in:      thingCRD,
		wantErr: []string{"field ThingSpec.Plain (+customfeaturegates:gatedBy=PkgGate): cannot mark .spec.plain in version v1 of things.test.example.com: the schema has no property plain at .spec"},
	}, {
		name:    "a version without a schema",
		in:      replace(t, thingCRD, "    schema:\n      openAPIV3Schema:\n        properties:\n          spec:\n            maximum: 9007199254740993\n            type: object\n        type: object\n", ""),
		wantErr: []string{"cannot mark .spec.plain in version v1 of things.test.example.com: the version has no schema.openAPIV3Schema"},
	}, {
		name:       "-field-paths: paths are not checked against the schema",
		fieldPaths: true,
		in:         replace(t, cgen, "              fixed:\n                items:\n", "              fixed:\n                x-items:\n"),
	}, {
		name:    "a mark on kind",
		pkgs:    []string{base + "/badmark"},
		in:      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: bads.badmark.example.com\nspec:\n  group: badmark.example.com\n  names:\n    kind: Bad\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n          kind:\n            type: string\n        type: object\n    storage: true\n",
		wantErr: []string{"field Bad.Kind (+customfeaturegates:gatedBy=G): cannot mark .kind in version v1 of bads.badmark.example.com: x-kubernetes-feature-gate must not be on or below metadata, apiVersion or kind"},
	}, {
		name: "a gate declared differently by two versions",
		pkgs: []string{base + "/conflict/v1", base + "/conflict/v2"},
		in:   conflictCRD,
		wantErr: []string{"bads.conflict.example.com: gate G is declared as preRelease=alpha in package " + base + "/conflict/v1 and as preRelease=beta,default=false in package " + base + "/conflict/v2; " +
			"the versions of a CRD share its gates"},
	}, {
		name: "a component declared differently by two versions",
		pkgs: []string{base + "/conflict/v1", base + "/conflict/v3"},
		in:   strings.Replace(conflictCRD, "- name: v2\n", "- name: v3\n", 1),
		wantErr: []string{`bads.conflict.example.com: package ` + base + `/conflict/v1 declares the component "one.example.com" and package ` + base + `/conflict/v3 the component "two.example.com"; ` +
			"the versions of a CRD share its component"},
	}, {
		name:       "-field-paths: only the storage version's declaration counts",
		pkgs:       []string{base + "/conflict/v1", base + "/conflict/v2"},
		fieldPaths: true,
		in:         conflictCRD,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := testGenerator(t, tc.fieldPaths)
			if tc.pkgs != nil {
				var err error
				if g, err = Load(tc.pkgs...); err != nil {
					t.Fatal(err)
				}
				g.FieldPaths = tc.fieldPaths
			}
			_, _, err := g.ProcessManifest([]byte(tc.in))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one with %q", tc.wantErr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to contain %q", err, want)
				}
			}
		})
	}
}

// The API server's name for the extension is the generator's.
func TestMarkExtension(t *testing.T) {
	if MarkExtension != featuregates.MarkExtension {
		t.Errorf("MarkExtension = %q, the API server's is %q", MarkExtension, featuregates.MarkExtension)
	}
}

// What the generator writes, in each mode, is a CRD that the API server's validation accepts.
func TestOutputIsValid(t *testing.T) {
	for _, name := range []string{
		filepath.Join("testdata", "things-marks.yaml"),
		filepath.Join("testdata", "things-field-paths.yaml"),
		filepath.Join("testdata", "widgets-field-paths.yaml"),
		filepath.Join("..", "..", "..", "examples", "feature-gates", "markers", "crds", "markers.example.com_widgets.yaml"),
	} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			v1 := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.UnmarshalStrict(b, v1); err != nil {
				t.Fatal(err)
			}
			apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
			crd := &apiextensions.CustomResourceDefinition{}
			if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, crd, nil); err != nil {
				t.Fatal(err)
			}
			for _, v := range crd.Spec.Versions {
				if v.Storage {
					crd.Status.StoredVersions = []string{v.Name}
				}
			}
			if errs := validation.ValidateCustomResourceDefinition(context.Background(), crd); len(errs) > 0 {
				t.Errorf("the API server rejects %s: %v", name, errs.ToAggregate())
			}
		})
	}
}

// The worked example: the committed CRD is what the generator produces by default from the
// example's types, and what it produces with -field-paths is testdata/widgets-field-paths.yaml;
// a second run changes nothing.
func TestExampleUpToDate(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	g, err := Load("k8s.io/apiextensions-apiserver/examples/feature-gates/markers/api/...")
	if err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join(root, "examples", "feature-gates", "markers", "crds")
	fieldPaths := filepath.Join("testdata", "widgets-field-paths.yaml")
	tmp := t.TempDir()
	b, err := os.ReadFile(fieldPaths)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "markers.example.com_widgets.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, golden string
		fieldPaths  bool
	}{
		{dir: committed, golden: filepath.Join(committed, "markers.example.com_widgets.yaml"), fieldPaths: false},
		{dir: tmp, golden: fieldPaths, fieldPaths: true},
	} {
		g.FieldPaths = tc.fieldPaths
		results, err := g.Process(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 1 {
			t.Fatalf("want one manifest in %s, got %d", tc.dir, len(results))
		}
		for _, r := range results {
			if r.Changed {
				old, _ := os.ReadFile(r.Path)
				t.Errorf("%s is not what featuregate-gen (fieldPaths=%v) writes (run it; -old +new):\n%s", tc.golden, tc.fieldPaths, cmp.Diff(string(old), string(r.Content)))
			}
			if !strings.Contains(string(r.Content), "name: AutoscalingGate") || strings.Contains(string(r.Content), "NotUsedByWidgetGate") {
				t.Errorf("%s: unexpected gates:\n%s", r.Path, r.Content)
			}
		}
	}
}
