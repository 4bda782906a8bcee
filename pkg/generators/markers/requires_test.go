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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequiresMarker checks requires=A;B and requiresAnyOf=A;C of the gate marker: the gate
// gets requires and requiresAnyOf, and the package gates they name go into the CRD although
// no field of the kind uses them.
func TestRequiresMarker(t *testing.T) {
	base := testPkg[:strings.LastIndex(testPkg, "/")]
	g, err := Load(base + "/requires")
	if err != nil {
		t.Fatal(err)
	}
	crd := strings.NewReplacer("test.example.com", "requires.example.com", "Thing", "Combo", "things", "combos", "thing", "combo").Replace(thingCRD)
	crd = strings.Replace(crd, "            maximum: 9007199254740993\n", "            properties:\n              both:\n                type: string\n              either:\n                type: string\n", 1)
	for _, fieldPaths := range []bool{false, true} {
		g.FieldPaths = fieldPaths
		got, _, err := g.ProcessManifest([]byte(crd))
		if err != nil {
			t.Fatalf("fieldPaths=%v: %v", fieldPaths, err)
		}
		out := string(got)
		i := strings.Index(out, "  customFeatureGates:\n")
		if i < 0 {
			t.Fatalf("fieldPaths=%v: no customFeatureGates in\n%s", fieldPaths, out)
		}
		gates := out[i : strings.Index(out[i:], "  group:")+i]
		want := `  customFeatureGates:
    featureGates:
    - name: Example
      preRelease: alpha
    - default: false
      name: Example2
      preRelease: beta
    - name: ExampleWithExample2
      preRelease: stable
      requires:
      - Example
      - Example2
    - name: Third
      preRelease: alpha
    - name: ExampleOrThird
      preRelease: stable
      requiresAnyOf:
      - Example
      - Third
`
		if fieldPaths {
			want = `  customFeatureGates:
    featureGates:
    - fieldPaths: []
      name: Example
      preRelease: alpha
    - default: false
      fieldPaths: []
      name: Example2
      preRelease: beta
    - fieldPaths:
      - .spec.both
      name: ExampleWithExample2
      preRelease: stable
      requires:
      - Example
      - Example2
    - fieldPaths: []
      name: Third
      preRelease: alpha
    - fieldPaths:
      - .spec.either
      name: ExampleOrThird
      preRelease: stable
      requiresAnyOf:
      - Example
      - Third
`
		}
		if diff := cmp.Diff(want, gates); diff != "" {
			t.Errorf("fieldPaths=%v: gates (-want +got):\n%s", fieldPaths, diff)
		}
		again, _, err := g.ProcessManifest(got)
		if err != nil || string(again) != out {
			t.Errorf("fieldPaths=%v: a second run changed the manifest (err %v):\n%s", fieldPaths, err, cmp.Diff(out, string(again)))
		}
	}
}
