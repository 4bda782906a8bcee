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

// `featuregate-gen policies` on the examples: help and usage, errors that name what to fix,
// the files it writes (a CRD without gates copied), a second run and --check that change
// nothing, and --check that finds an edited file.
func TestRunPolicies(t *testing.T) {
	out := t.TempDir()
	crds := strings.Join([]string{
		filepath.Join("..", "..", "examples", "feature-gates", "crontab-crd.yaml"),
		filepath.Join("..", "..", "examples", "feature-gates", "nested"),
	}, ",")
	plain := filepath.Join(t.TempDir(), "plain.yaml")
	if err := os.WriteFile(plain, []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: plains.p.example.com}\nspec:\n  group: p.example.com\n  scope: Namespaced\n  names: {plural: plains, kind: Plain}\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name                string
		args                []string
		wantCode            int
		wantOut, wantStderr string
	}{
		{name: "help", args: []string{"policies", "--help"}, wantCode: 0, wantStderr: "kubectl apply --server-side -f OUT/crds"},
		{name: "usage", args: []string{"policies"}, wantCode: 2, wantStderr: "Usage: featuregate-gen policies --crds"},
		{name: "top-level help lists it", args: []string{"--help"}, wantCode: 0, wantStderr: "policies   write gated CRDs for a stock kube-apiserver"},
		{name: "missing file", args: []string{"policies", "--crds", "nope.yaml", "--out", out}, wantCode: 1, wantStderr: "nope.yaml"},
		{name: "check before", args: []string{"policies", "--crds", crds, "--out", out, "--check"}, wantCode: 1, wantOut: "not up to date", wantStderr: "without --check"},
		{name: "generate", args: []string{"policies", "--crds", crds + "," + plain, "--out", out}, wantCode: 0, wantOut: "plains.p.example.com: no gates; copied as it is"},
		{name: "second run", args: []string{"policies", "--crds", crds + "," + plain, "--out", out}, wantCode: 0, wantOut: "unchanged"},
		{name: "check after", args: []string{"policies", "--crds", crds + "," + plain, "--out", out, "--check"}, wantCode: 0, wantOut: "Differences from a kube-apiserver that serves the gates itself"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(s.args, &stdout, &stderr)
		if code != s.wantCode || !strings.Contains(stdout.String(), s.wantOut) || !strings.Contains(stderr.String(), s.wantStderr) {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want code %d, stdout with %q, stderr with %q", s.name, code, stdout.String(), stderr.String(), s.wantCode, s.wantOut, s.wantStderr)
		}
	}
	for _, f := range []string{"crds/customresourcefeaturegates.featuregates.apiextensions.x-k8s.io.yaml", "crds/crontabs.stable.example.com.yaml",
		"policies/crontabs.stable.example.com.yaml", "crds/databases.gates.example.com.yaml", "policies/databases.gates.example.com.yaml", "crds/plains.p.example.com.yaml"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("not written: %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "policies", "plains.p.example.com.yaml")); err == nil {
		t.Error("a CRD without gates got policies")
	}
	edited := filepath.Join(out, "policies", "crontabs.stable.example.com.yaml")
	if err := os.WriteFile(edited, []byte("# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"policies", "--crds", crds + "," + plain, "--out", out, "--check"}, &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), edited+": not up to date") {
		t.Errorf("--check after an edit: code %d, stdout %q", code, stdout.String())
	}
}
