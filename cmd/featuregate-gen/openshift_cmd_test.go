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

// featuregate-gen openshift on the synthetic group: usage errors, a run that writes the merged
// CRD and the feature-set states, a second run that writes nothing (byte-identical output),
// and --help.
func TestRunOpenShift(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join("..", "..", "pkg", "generators", "openshift", "testdata", "api")
	steps := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantStderr string
	}{
		{name: "help", args: []string{"openshift", "--help"}, wantCode: 0, wantStderr: "Usage: featuregate-gen openshift --dir DIR --out DIR"},
		{name: "top-level help", args: []string{"--help"}, wantCode: 0, wantStderr: "openshift  merge OpenShift's per-gate CRD manifests"},
		{name: "no dir", args: []string{"openshift", "--out", out}, wantCode: 2, wantStderr: "Usage"},
		{name: "unknown group", args: []string{"openshift", "--dir", dir, "--out", out, "--groups", "nope/v1"}, wantCode: 1, wantStderr: "group nope/v1"},
		{name: "generate", args: []string{"openshift", "--dir", dir, "--out", out}, wantCode: 0, wantOut: "widgets.example.openshift.io.yaml: written"},
		{name: "second run", args: []string{"openshift", "--dir", dir, "--out", out, "--groups", "example/v1"}, wantCode: 0, wantOut: "widgets.example.openshift.io.yaml: unchanged"},
	}
	for _, s := range steps {
		var stdout, stderr bytes.Buffer
		code := run(s.args, &stdout, &stderr)
		if code != s.wantCode || !strings.Contains(stdout.String(), s.wantOut) || !strings.Contains(stderr.String(), s.wantStderr) {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want code %d, stdout with %q, stderr with %q", s.name, code, stdout.String(), stderr.String(), s.wantCode, s.wantOut, s.wantStderr)
		}
	}
	crd, err := os.ReadFile(filepath.Join(out, "example", "v1", "widgets.example.openshift.io.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The combination of Alpha.yaml and Beta.yaml is one stable gate that requires both.
	for _, want := range []string{"component: openshift", "- name: AlphaWithBeta\n      preRelease: stable\n      requires:\n      - Alpha\n      - Beta",
		"- name: Alpha\n      preRelease: alpha\n", "- name: Beta\n      preRelease: beta\n", "x-kubernetes-feature-gate: AlphaWithBeta"} {
		if !strings.Contains(string(crd), want) {
			t.Errorf("the merged CRD lacks %q:\n%s", want, crd)
		}
	}
	states, err := os.ReadFile(filepath.Join(out, "featuresets", "Default.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "clusterProfile: SelfManagedHA\nfeatureSet: Default\ngates:\n  Alpha: false\n  Beta: true\n"; string(states) != want {
		t.Errorf("featuresets/Default.yaml is\n%s\nwant\n%s", states, want)
	}
}
