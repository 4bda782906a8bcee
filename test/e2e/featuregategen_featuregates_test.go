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

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

// runFeatureGateGen runs the featuregate-gen binary from the repository root.
func runFeatureGateGen(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "featuregate-gen"), args...)
	cmd.Dir = repoRoot
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// generateTwice runs featuregate-gen with args (and -crd-dir dir) on controller-gen's output
// for the example types, then once more, and returns the manifest after the first run. The
// second run must leave it byte-identical.
func generateTwice(t *testing.T, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	manifest := filepath.Join(dir, "markers.example.com_widgets.yaml")
	cgen, err := os.ReadFile(filepath.Join(repoRoot, "pkg", "generators", "markers", "testdata", "widgets-controller-gen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, cgen, 0o644); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"-paths", "./examples/feature-gates/markers/api/...", "-crd-dir", dir}, args...)
	if r := runFeatureGateGen(t, args...); r.err != nil || !strings.Contains(r.stdout, "written") {
		t.Fatalf("featuregate-gen %v: %v\n%s\n%s", args, r.err, r.stdout, r.stderr)
	}
	first, _ := os.ReadFile(manifest)
	if r := runFeatureGateGen(t, args...); r.err != nil || !strings.Contains(r.stdout, "unchanged") {
		t.Fatalf("second featuregate-gen run %v: %v\n%s\n%s", args, r.err, r.stdout, r.stderr)
	}
	second, _ := os.ReadFile(manifest)
	if !bytes.Equal(first, second) {
		t.Fatalf("the second run %v changed the manifest:\n%s", args, cmp.Diff(string(first), string(second)))
	}
	return first
}

// featuregate-gen on controller-gen's output for the example types. By default it marks
// each version's schema: the result is the committed example, and the server accepts it and
// gates as the markers declare; the admin's choice survives the author's re-apply. With
// -field-paths the result is pkg/generators/markers/testdata/widgets-field-paths.yaml. A second run is
// byte-identical in both modes.
func TestFeatureGateGen(t *testing.T) {
	fieldPaths := generateTwice(t, "-field-paths")
	wantFieldPaths, _ := os.ReadFile(filepath.Join(repoRoot, "pkg", "generators", "markers", "testdata", "widgets-field-paths.yaml"))
	if !bytes.Equal(fieldPaths, wantFieldPaths) {
		t.Errorf("the -field-paths manifest differs from pkg/generators/markers/testdata/widgets-field-paths.yaml:\n%s", cmp.Diff(string(wantFieldPaths), string(fieldPaths)))
	}

	first := generateTwice(t)
	committed, _ := os.ReadFile(filepath.Join(repoRoot, "examples", "feature-gates", "markers", "crds", "markers.example.com_widgets.yaml"))
	if !bytes.Equal(first, committed) {
		t.Errorf("the generated manifest differs from the committed example:\n%s", cmp.Diff(string(committed), string(first)))
	}

	// A group of its own, so that TestExamples' Widgets are not affected.
	crdYAML := strings.ReplaceAll(string(first), "markers.example.com", "gen.markers.example.com")
	const crd = "widgets.gen.markers.example.com"
	applyCRD(t, crdYAML, "--server-side", "--field-manager=crd-author")

	var listed struct {
		Items []struct {
			Gate, PreRelease, State string
			FieldPaths              []struct {
				Path string
				Live bool
			}
		}
	}
	if err := json.Unmarshal([]byte(mustFeaturegates(t, "list", crd, "-o", "json").stdout), &listed); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range listed.Items {
		for _, p := range it.FieldPaths {
			got = append(got, it.Gate+" "+it.PreRelease+" "+it.State+" "+p.Path+" live="+map[bool]string{true: "yes", false: "no"}[p.Live])
		}
	}
	sort.Strings(got)
	want := []string{
		"AutoscalingGate alpha disabled .spec.autoscaling live=no",
		"AutoscalingGate alpha disabled .status.currentScale live=no",
		"AutoscalingMetricsGate beta enabled .spec.autoscaling.metrics live=no",
		"BurstGate alpha disabled .spec.limits[*].burst live=no",
		"LegacyModeGate deprecated enabled .spec.legacyMode live=yes",
		"PortProtocolGate beta disabled .spec.ports[*].protocol live=no",
		"PriorityGate stable enabled .spec.priority live=yes",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the gates as the server evaluates them (-want +got):\n%s", diff)
	}

	widget, err := os.ReadFile(filepath.Join(repoRoot, "examples", "feature-gates", "markers", "widget.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	w := strings.ReplaceAll(string(widget), "markers.example.com", "gen.markers.example.com")
	r := mustKubectl(t, w, "create", "-n", "default", "--dry-run=server", "-o", "json", "-f", "-")
	assertExampleWarnings(t, r,
		".spec.autoscaling was dropped: feature gate AutoscalingGate (alpha) is disabled",
		".spec.ports[*].protocol was dropped: feature gate PortProtocolGate (beta) is disabled",
		".spec.limits[*].burst was dropped: feature gate BurstGate (alpha) is disabled",
		"spec.legacyMode is deprecated; set spec.mode instead")

	// The admin enables the alpha gate; the author's re-apply of the generated manifest
	// keeps it; the nested beta gate's field is then live too.
	mustFeaturegates(t, "enable", crd, "AutoscalingGate")
	mustKubectl(t, crdYAML, "apply", "--server-side", "--field-manager=crd-author", "-f", "-")
	checkGates(t, crd, map[string]string{
		"AutoscalingGate": "true", "AutoscalingMetricsGate": "unset", "PortProtocolGate": "unset",
		"BurstGate": "unset", "PriorityGate": "unset", "LegacyModeGate": "unset",
	})
	featuregatetest.WaitFor(t, 30*time.Second, "spec.autoscaling.metrics to be kept", func() bool {
		r := kubectl(t, w, "create", "-n", "default", "--dry-run=server", "-o", "json", "-f", "-")
		return r.err == nil && strings.Contains(r.stdout, `"metrics"`) && strings.Contains(r.stdout, `"minReplicas"`)
	})
}
