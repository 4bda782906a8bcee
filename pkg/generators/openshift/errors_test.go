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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A difference that gates cannot express is an error that names the CRD, the version, the
// file and the path; the CRD is not written.
func TestMergeErrors(t *testing.T) {
	const crdDir = "example/v1/zz_generated.featuregated-crd-manifests/widgets.example.openshift.io"
	for _, tc := range []struct {
		name string
		// edit changes the files of the synthetic group: file -> (old, new) text.
		edit map[string][2]string
		want string
	}{
		{
			name: "type",
			edit: map[string][2]string{"Beta.yaml": {"                maxLength: 5\n                type: string", "                maxLength: 5\n                type: integer"}},
			want: "widgets.example.openshift.io v1, Beta.yaml: .spec.name: type differs from AAA_ungated.yaml",
		},
		{
			name: "default",
			edit: map[string][2]string{"Beta.yaml": {"                maxLength: 5\n", "                maxLength: 5\n                default: x\n"}},
			want: "widgets.example.openshift.io v1, Beta.yaml: .spec.name: default differs from AAA_ungated.yaml",
		},
		{
			name: "a field that either gate adds, but not both together",
			edit: map[string][2]string{
				"Alpha.yaml":      {"              name:\n", "              owner:\n                type: string\n              name:\n"},
				"Alpha+Beta.yaml": {"              owner:\n", "              xowner:\n"},
			},
			want: "widgets.example.openshift.io v1, Alpha+Beta.yaml: .spec.owner: the field is in Alpha.yaml but not in this file; a gate cannot remove a field",
		},
		{
			name: "a field that a gate removes",
			edit: map[string][2]string{"Beta.yaml": {"              mode:\n", "              xmode:\n"}},
			want: "widgets.example.openshift.io v1, Beta.yaml: .spec.mode: the field is in AAA_ungated.yaml but not in this file; a gate cannot remove a field",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			copyTree(t, filepath.Join("testdata", "api"), tmp)
			for file, e := range tc.edit {
				path := filepath.Join(tmp, crdDir, file)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), e[0]) {
					t.Fatalf("%s has no %q", file, e[0])
				}
				if err := os.WriteFile(path, []byte(strings.Replace(string(data), e[0], e[1], 1)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Merge(Options{Dir: tmp})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), tc.want) {
				t.Errorf("errors %v, want one with %q", res.Errors, tc.want)
			}
			for _, f := range res.Files {
				if strings.HasPrefix(f.Name, "example/") {
					t.Errorf("%s was written", f.Name)
				}
			}
		})
	}
}
