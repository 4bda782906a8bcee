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

package featuregategen

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testPkg = "k8s.io/apiextensions-apiserver/cmd/featuregate-gen/featuregategen/testdata/api/v1"

var (
	loadOnce sync.Once
	loaded   *Generator
	loadErr  error
)

func testGenerator(t *testing.T) *Generator {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = Load(testPkg, testPkg[:strings.LastIndex(testPkg, "/")]+"/common") })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
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
	g := testGenerator(t)
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

func TestProcessManifest(t *testing.T) {
	otherDoc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep   # a comment, kept\n"
	tests := []struct {
		name      string
		in        string
		want      string
		wantNotes int
	}{{
		name: "controller-gen output gets the gates; everything else is kept byte for byte",
		in:   thingCRD,
		want: withGates(thingGates),
	}, {
		name: "an admin's enabled is preserved, other hand edits of the gates are not",
		in: withGates(strings.Replace(strings.Replace(thingGates, "      name: SharedGate\n", "      name: SharedGate\n      enabled: false\n", 1),
			"preRelease: alpha\n    - fieldPaths:\n      - .spec.shared.secret", "preRelease: beta\n    - fieldPaths:\n      - .spec.shared.secret", 1)),
		want: withGates(strings.Replace(thingGates, "    - fieldPaths:\n      - .spec.shared.secret\n", "    - enabled: false\n      fieldPaths:\n      - .spec.shared.secret\n", 1)),
	}, {
		name: "a gate that is no longer declared is removed",
		in:   withGates(thingGates + "    - fieldPaths: [.spec.gone]\n      name: GoneGate\n      preRelease: alpha\n"),
		want: withGates(thingGates),
	}, {
		name:      "other documents and CRDs of other groups are left alone",
		in:        otherDoc + strings.Replace(thingCRD, "test.example.com", "elsewhere.example.com", -1) + thingCRD,
		want:      otherDoc + strings.Replace(thingCRD, "test.example.com", "elsewhere.example.com", -1) + withGates(thingGates),
		wantNotes: 1,
	}}
	g := testGenerator(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, notes, err := g.ProcessManifest([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("manifest (-want +got):\n%s", diff)
			}
			if len(notes) != tc.wantNotes {
				t.Errorf("notes = %q, want %d", notes, tc.wantNotes)
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

func TestLoadErrors(t *testing.T) {
	base := testPkg[:strings.LastIndex(testPkg, "/")]
	tests := []struct {
		name, pkg, group, kind, wantErr string
	}{
		{"undeclared gate", base + "/bad", "bad.example.com", "Bad", "fields are gated by NobodyDeclaredMe, which no +customfeaturegates:gate declares"},
		{"gated inline field", base + "/badinline", "badinline.example.com", "Bad", "+customfeaturegates:gatedBy on the inline field In of BadSpec"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Load(tc.pkg)
			if err != nil {
				t.Fatal(err)
			}
			crd := strings.NewReplacer("test.example.com", tc.group, "Thing", tc.kind).Replace(thingCRD)
			_, _, err = g.ProcessManifest([]byte(crd))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
	if _, err := Load(base + "/doesnotexist"); err == nil {
		t.Error("Load of a missing package succeeded")
	}
}

// The worked example: the committed CRD is what the generator produces from the example's
// types, and a second run changes nothing.
func TestExampleUpToDate(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	g, err := Load("k8s.io/apiextensions-apiserver/examples/feature-gates/markers/api/...")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "examples", "feature-gates", "markers", "crds")
	results, err := g.Process(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("want one manifest in %s, got %d", dir, len(results))
	}
	for _, r := range results {
		if r.Changed {
			old, _ := os.ReadFile(r.Path)
			t.Errorf("%s is not what featuregate-gen writes (run it; -old +new):\n%s", r.Path, cmp.Diff(string(old), string(r.Content)))
		}
		if !strings.Contains(string(r.Content), "name: AutoscalingGate") || strings.Contains(string(r.Content), "NotUsedByWidgetGate") {
			t.Errorf("%s: unexpected gates:\n%s", r.Path, r.Content)
		}
	}
}
