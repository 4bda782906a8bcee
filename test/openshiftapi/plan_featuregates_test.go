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

package openshiftapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// syntheticLayout is a folder laid out like openshift/api with one group: widgets.a.io with
// a Default and a TechPreviewNoUpgrade CRD, and suites ungated, gated on A, on -A, and on
// A and B.
func syntheticLayout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	payload := func(profile, fs string, enabled, disabled []string) string {
		list := func(names []string) string {
			var parts []string
			for _, n := range names {
				parts = append(parts, fmt.Sprintf(`{"name":%q}`, n))
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
		return fmt.Sprintf(`{"metadata":{"annotations":{%q:"true","release.openshift.io/feature-set":%q}},"status":{"featureGates":[{"enabled":%s,"disabled":%s}]}}`, profiles[profile], fs, list(enabled), list(disabled))
	}
	writeFile(t, filepath.Join(dir, "payload-manifests/featuregates/featureGate-4-10-SelfManagedHA-Default.yaml"), payload("SelfManagedHA", "Default", nil, []string{"A", "B"}))
	writeFile(t, filepath.Join(dir, "payload-manifests/featuregates/featureGate-4-10-SelfManagedHA-TechPreviewNoUpgrade.yaml"), payload("SelfManagedHA", "TechPreviewNoUpgrade", []string{"A"}, []string{"B"}))
	writeFile(t, filepath.Join(dir, "payload-manifests/featuregates/featureGate-4-10-Hypershift-Default.yaml"), payload("Hypershift", "Default", []string{"A", "B"}, nil))
	crd := func(fs string) string {
		return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.a.io
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
    release.openshift.io/feature-set: %s
spec:
  group: a.io
  names: {kind: Widget, plural: widgets}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
`, fs)
	}
	writeFile(t, filepath.Join(dir, "a/v1/zz_generated.crd-manifests/widgets-Default.crd.yaml"), crd("Default,OKD"))
	writeFile(t, filepath.Join(dir, "a/v1/zz_generated.crd-manifests/widgets-TechPreviewNoUpgrade.crd.yaml"), crd("TechPreviewNoUpgrade,CustomNoUpgrade"))
	suite := func(gates string) string {
		return fmt.Sprintf("name: s\ncrdName: widgets.a.io\nfeatureGates: %s\ntests:\n  onCreate:\n  - name: c\n    initial: |\n      apiVersion: a.io/v1\n      kind: Widget\n", gates)
	}
	writeFile(t, filepath.Join(dir, "a/v1/tests/widgets.a.io/AAA_ungated.yaml"), suite("[]"))
	writeFile(t, filepath.Join(dir, "a/v1/tests/widgets.a.io/A.yaml"), suite("[A]"))
	writeFile(t, filepath.Join(dir, "a/v1/tests/widgets.a.io/-A.yaml"), suite("[-A]"))
	writeFile(t, filepath.Join(dir, "a/v1/tests/widgets.a.io/A+B.yaml"), suite("[A, B]"))
	return dir
}

func TestPlan(t *testing.T) {
	dir := syntheticLayout(t)
	l, err := LoadLayout(dir, nil, "SelfManagedHA")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Suites) != 4 || len(l.States) != 3 {
		t.Fatalf("%d suites, feature sets %v", len(l.Suites), sortedKeys(l.States))
	}
	units, _, err := l.Plan(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range units {
		var suites []string
		for _, s := range u.Suites {
			suites = append(suites, filepath.Base(s.Path))
		}
		got[filepath.Base(u.StockFile.Path)] = strings.Join(u.FeatureSets, ",") + ": " + strings.Join(suites, " ")
	}
	want := map[string]string{
		// Default: A and B off. OKD has no payload file here, so it is not a feature set.
		"widgets-Default.crd.yaml": "Default: -A.yaml AAA_ungated.yaml",
		// CustomNoUpgrade: every gate on; TechPreviewNoUpgrade: A on, B off.
		"widgets-TechPreviewNoUpgrade.crd.yaml": "CustomNoUpgrade,TechPreviewNoUpgrade: A+B.yaml A.yaml AAA_ungated.yaml",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("units %v", got)
	}
	// A gate key splits feature sets that share a stock CRD but not the gate states.
	units, _, err = l.Plan(func(dir, crd, fs string) string { return fs })
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 3 {
		t.Errorf("with a gate key per feature set: %d units, want 3", len(units))
	}

	// Another profile reads other gate states.
	l, err = LoadLayout(dir, nil, "Hypershift")
	if err != nil {
		t.Fatal(err)
	}
	if !l.States["Default"]["A"] {
		t.Errorf("Hypershift's Default: %v", l.States["Default"])
	}
	for _, bad := range []struct{ groups []string }{{[]string{"nope"}}} {
		if _, err := LoadLayout(dir, bad.groups, "SelfManagedHA"); err == nil || !strings.Contains(err.Error(), `group "nope" has no test suites`) {
			t.Errorf("groups %v: err %v", bad.groups, err)
		}
	}
	if _, err := LoadLayout(dir, nil, "Nope"); err == nil {
		t.Error("an unknown profile is accepted")
	}
}

func TestSuiteWithUnknownGate(t *testing.T) {
	dir := syntheticLayout(t)
	writeFile(t, filepath.Join(dir, "a/v1/tests/widgets.a.io/C.yaml"), "name: s\ncrdName: widgets.a.io\nfeatureGates: [C]\nfeatureGate: X\ntests: {}\n")
	l, err := LoadLayout(dir, nil, "SelfManagedHA")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Suites {
		if strings.HasSuffix(s.Path, "C.yaml") && strings.Join(s.Ignored, ",") != "featureGate" {
			t.Errorf("ignored keys %v", s.Ignored)
		}
	}
	if _, _, err := l.Plan(nil); err == nil || !strings.Contains(err.Error(), "feature gate C is in no payload feature set") {
		t.Errorf("err %v", err)
	}
}

func TestCompareResults(t *testing.T) {
	base := func() *Result {
		return &Result{Pass: true, Step: "stored", Stored: `{"spec":{}}`}
	}
	tests := []struct {
		name                    string
		mutate                  func(*Result)
		wantDiffer, wantIntends int
	}{
		{"same", func(*Result) {}, 0, 0},
		{"verdict", func(r *Result) { r.Pass, r.Why = false, "x" }, 1, 0},
		{"stored", func(r *Result) { r.Stored = `{"spec":{"a":1}}` }, 1, 0},
		{"matched", func(r *Result) { r.Matched = true }, 1, 0},
		{"another warning", func(r *Result) { r.Warnings = []string{"something"} }, 1, 0},
		{"drop warning", func(r *Result) {
			r.Warnings = []string{".spec.x was dropped: feature gate Example (alpha) is disabled"}
		}, 0, 1},
		{"kept warning with a gate it requires any of", func(r *Result) {
			r.Warnings = []string{".spec.x was not updated: feature gate AOrB (stable) is disabled: requires A or B, which are disabled; the stored value was kept"}
		}, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ours := base()
			tc.mutate(ours)
			d, i := compareResults(base(), ours)
			if len(d) != tc.wantDiffer || len(i) != tc.wantIntends {
				t.Errorf("differing %q, intended %q", d, i)
			}
		})
	}
}

func TestForVerdict(t *testing.T) {
	got := map[string]interface{}{"apiVersion": "a/v1", "metadata": map[string]interface{}{"name": "n", "uid": "u", "generation": int64(2), "managedFields": []interface{}{}}, "spec": map[string]interface{}{"x": int64(1)}}
	want := map[string]interface{}{"apiVersion": "a/v1", "metadata": map[string]interface{}{"name": "n"}, "spec": map[string]interface{}{"x": float64(1)}}
	if fmt.Sprint(forVerdict(got)) != fmt.Sprint(forVerdict(want)) {
		t.Errorf("%v != %v", forVerdict(got), forVerdict(want))
	}
	if n := normalized(map[string]interface{}{"metadata": map[string]interface{}{"name": "test-abc", "generateName": "test-", "generation": 1}}, true); n != `{"metadata":{"generateName":"test-","generation":1}}` {
		t.Errorf("normalized %s", n)
	}
}
