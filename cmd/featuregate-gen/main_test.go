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

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// markersTestdata holds the worked example's inputs and outputs, shared with the tests of
// package markers.
var markersTestdata = filepath.Join("..", "..", "pkg", "generators", "markers", "testdata")

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version"} {
		var out, errOut bytes.Buffer
		if code := run([]string{arg}, &out, &errOut); code != 0 {
			t.Errorf("%s: exit %d, %s", arg, code, errOut.String())
		}
		if want := "featuregate-gen devel (KEP-2608 field feature gates, Kubernetes v1.37.1, go"; !strings.HasPrefix(out.String(), want) {
			t.Errorf("%s printed %q, want it to start with %q", arg, out.String(), want)
		}
	}
}

// The command on the worked example: controller-gen's output (widgets-controller-gen.yaml in markersTestdata) is not up to date in
// either mode; a run writes exactly the mode's output (by default the committed example, with
// -field-paths widgets-field-paths.yaml); a second run and -check in the same mode change
// nothing, and -check in the other mode reports the manifest; switching modes rewrites it.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "markers.example.com_widgets.yaml")
	orig, err := os.ReadFile(filepath.Join(markersTestdata, "widgets-controller-gen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	marks, err := os.ReadFile(filepath.Join("..", "..", "examples", "feature-gates", "markers", "crds", "markers.example.com_widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fieldPaths, err := os.ReadFile(filepath.Join(markersTestdata, "widgets-field-paths.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	paths := "-paths=k8s.io/apiextensions-apiserver/examples/feature-gates/markers/api/..."
	steps := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantFile   []byte
		wantStderr string
	}{
		{name: "usage", args: nil, wantCode: 2, wantFile: orig, wantStderr: "Usage: featuregate-gen -paths ./api/... -crd-dir config/crd/bases [-field-paths] [-check]"},
		{name: "stray argument", args: []string{paths, "-crd-dir", dir, "extra"}, wantCode: 2, wantFile: orig, wantStderr: "Usage"},
		{name: "bad package", args: []string{"-paths=./nope/...", "-crd-dir", dir}, wantCode: 1, wantFile: orig, wantStderr: "featuregate-gen:"},
		{name: "check before", args: []string{paths, "-crd-dir", dir, "-check"}, wantCode: 1, wantOut: "not up to date", wantFile: orig,
			wantStderr: "run featuregate-gen without -check"},
		{name: "check -field-paths before", args: []string{paths, "-crd-dir", dir, "-field-paths", "-check"}, wantCode: 1, wantOut: "not up to date", wantFile: orig,
			wantStderr: "run featuregate-gen -field-paths without -check"},
		{name: "generate", args: []string{paths, "-crd-dir", dir}, wantCode: 0, wantOut: "written", wantFile: marks},
		{name: "second run", args: []string{paths, "-crd-dir", dir}, wantCode: 0, wantOut: "unchanged", wantFile: marks},
		{name: "check after", args: []string{paths, "-crd-dir", dir, "-check"}, wantCode: 0, wantOut: "unchanged", wantFile: marks},
		{name: "check -field-paths after marks", args: []string{paths, "-crd-dir", dir, "-check", "-field-paths"}, wantCode: 1, wantOut: "not up to date", wantFile: marks},
		{name: "generate -field-paths over marks", args: []string{paths, "-crd-dir", dir, "-field-paths"}, wantCode: 0, wantOut: "written", wantFile: fieldPaths},
		{name: "second -field-paths run", args: []string{paths, "-crd-dir", dir, "-field-paths"}, wantCode: 0, wantOut: "unchanged", wantFile: fieldPaths},
		{name: "check -field-paths after", args: []string{paths, "-crd-dir", dir, "-field-paths", "-check"}, wantCode: 0, wantOut: "unchanged", wantFile: fieldPaths},
		{name: "check after -field-paths", args: []string{paths, "-crd-dir", dir, "-check"}, wantCode: 1, wantOut: "not up to date", wantFile: fieldPaths},
		{name: "generate over -field-paths", args: []string{paths, "-crd-dir", dir}, wantCode: 0, wantOut: "written", wantFile: marks},
	}
	for _, s := range steps {
		var out, errOut bytes.Buffer
		code := run(s.args, &out, &errOut)
		if code != s.wantCode || !strings.Contains(out.String(), s.wantOut) || !strings.Contains(errOut.String(), s.wantStderr) {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want code %d, stdout with %q, stderr with %q", s.name, code, out.String(), errOut.String(), s.wantCode, s.wantOut, s.wantStderr)
		}
		got, _ := os.ReadFile(manifest)
		if !bytes.Equal(got, s.wantFile) {
			t.Errorf("%s: the manifest is not as expected:\n%s", s.name, got)
		}
	}
}
