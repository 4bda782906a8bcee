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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

// examplesNamespace holds the objects of TestExamples, so that they never meet the objects
// other tests create from the same files in the default namespace.
const examplesNamespace = "featuregates-examples"

// exampleFile is one YAML file under examples/ and the objects it holds.
type exampleFile struct {
	// path is relative to the repository root, with forward slashes.
	path string
	objs []map[string]interface{}
}

func (f exampleFile) isCRD() bool {
	for _, o := range f.objs {
		if o["kind"] == "CustomResourceDefinition" && strings.HasPrefix(o["apiVersion"].(string), "apiextensions.k8s.io/") {
			return true
		}
	}
	return false
}

// exampleChecks are the key behaviors of the examples, by file. Every other file must apply
// cleanly, and that is all that is checked.
var exampleChecks = map[string]func(t *testing.T, r result){
	"examples/feature-gates/crontab.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r, droppedWarning)
		obj := getJSON(t, "-n", examplesNamespace, "crontabs.stable.example.com", "my-new-cron-object")
		assertField(t, obj, nil, false, "spec", "replicas")
		assertField(t, obj, "my-awesome-cron-image", true, "spec", "image")
	},
	"examples/feature-gates/nested/database.yaml": func(t *testing.T, r result) {
		// One warning: the disabled parent covers its beta child.
		assertExampleWarnings(t, r, ".spec.backup was dropped: feature gate BackupGate (alpha) is disabled")
		obj := getJSON(t, "-n", examplesNamespace, "databases.gates.example.com", "orders")
		assertField(t, obj, nil, false, "spec", "backup")
		assertField(t, obj, "postgres", true, "spec", "engine")
	},
	"examples/feature-gates/list-map/gateway.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r, ".spec.listeners[*].tls was dropped: feature gate ListenerTLSGate (alpha) is disabled")
		obj := getJSON(t, "-n", examplesNamespace, "gateways.gates.example.com", "edge")
		listeners, _ := field(obj, "spec", "listeners")
		items, _ := listeners.([]interface{})
		if len(items) != 2 {
			t.Fatalf("spec.listeners = %v, want both listeners", listeners)
		}
		for _, it := range items {
			l := it.(map[string]interface{})
			if _, found := l["tls"]; found {
				t.Errorf("listener %v kept tls while ListenerTLSGate is disabled", l["name"])
			}
			if l["port"] == nil {
				t.Errorf("listener %v lost its port", l["name"])
			}
		}
	},
	// The CRD of this example is featuregate-gen's output (cmd/featuregate-gen) for the Go
	// types in examples/feature-gates/markers/api/v1: the gates are as the markers declare them.
	"examples/feature-gates/markers/widget.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r,
			".spec.autoscaling was dropped: feature gate AutoscalingGate (alpha) is disabled",
			".spec.ports[*].protocol was dropped: feature gate PortProtocolGate (beta) is disabled",
			".spec.limits[*].burst was dropped: feature gate BurstGate (alpha) is disabled",
			"spec.legacyMode is deprecated; set spec.mode instead")
		obj := getJSON(t, "-n", examplesNamespace, "widgets.markers.example.com", "gadget")
		assertField(t, obj, nil, false, "spec", "autoscaling")
		assertField(t, obj, float64(10), true, "spec", "priority")
		assertField(t, obj, true, true, "spec", "legacyMode")
		assertField(t, obj, float64(3), true, "spec", "size")
		assertField(t, obj, float64(100), true, "spec", "limits", "requests", "max")
		assertField(t, obj, nil, false, "spec", "limits", "requests", "burst")
	},
	"examples/feature-gates/deprecated/report.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r,
			".spec.legacyFormat was dropped: feature gate LegacyFormatGate (deprecated) is disabled",
			"spec.utcOffset is deprecated and will be removed in v2; set spec.timeZone instead")
		obj := getJSON(t, "-n", examplesNamespace, "reports.gates.example.com", "weekly")
		assertField(t, obj, "+02:00", true, "spec", "utcOffset")
		assertField(t, obj, nil, false, "spec", "legacyFormat")
	},
	"examples/feature-gates/rules/cache-eviction.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r)
		assertRejectedVariant(t, "examples/feature-gates/rules/cache-eviction.yaml", "evictionPolicy: LRU", "evictionPolicy: ARC",
			"evictionPolicy ARC needs the ARCEviction feature gate")
	},
	"examples/feature-gates/rules/cache-zones.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r)
		assertRejectedVariant(t, "examples/feature-gates/rules/cache-zones.yaml", "eu-west-1c]", "eu-west-1c, eu-west-1d]",
			"at most 3 zones while the ManyZones feature gate is disabled")
	},
	"examples/feature-gates/keywords/queue.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r)
		const path = "examples/feature-gates/keywords/queue.yaml"
		assertRejectedVariant(t, path, "mode: FIFO", "mode: Priority", `spec.mode: Unsupported value: "Priority"`)
		assertRejectedVariant(t, path, "maxDepth: 500", "maxDepth: 5000", "spec.maxDepth: Invalid value: 5000: spec.maxDepth in body should be less than or equal to 1000")
		// With its gate on, each value is accepted.
		withGates(t, "queues.gates.example.com", "PriorityMode", "DeepQueues")
		featuregatetest.WaitFor(t, 30*time.Second, "the Queue's gates to reach the server", func() bool {
			variant := strings.NewReplacer("name: jobs", "name: probe", "mode: FIFO", "mode: Priority", "maxDepth: 500", "maxDepth: 5000").Replace(readFile(t, path))
			return kubectl(t, variant, "create", "-n", examplesNamespace, "--dry-run=server", "-f", "-").err == nil
		})
	},
	"examples/feature-gates/requires/pipeline.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r,
			".spec.autoscaling was dropped: feature gate Autoscaling (alpha) is disabled",
			".spec.metricsSource was dropped: feature gate MetricsSource (stable) is disabled: requires ExternalMetrics or CustomMetrics, which are disabled")
		obj := getJSON(t, "-n", examplesNamespace, "pipelines.gates.example.com", "build")
		assertField(t, obj, nil, false, "spec", "autoscaling")
		assertField(t, obj, nil, false, "spec", "metricsSource")
		assertField(t, obj, float64(3), true, "spec", "stages")

		// What a create stores, after each gate change: predictive needs both features,
		// metricsSource either of its two.
		const path = "examples/feature-gates/requires/pipeline.yaml"
		stores := func(want map[string]bool) {
			t.Helper()
			featuregatetest.WaitFor(t, 30*time.Second, fmt.Sprintf("a Pipeline create to store %v", want), func() bool {
				probe := strings.Replace(readFile(t, path), "name: build", "name: probe", 1)
				r := kubectl(t, probe, "create", "-n", examplesNamespace, "--dry-run=server", "-o", "json", "-f", "-")
				if r.err != nil {
					return false
				}
				for field, stored := range want {
					if strings.Contains(r.stdout, `"`+field+`"`) != stored {
						return false
					}
				}
				return true
			})
		}
		withGates(t, "pipelines.gates.example.com", "Autoscaling")
		stores(map[string]bool{"maxReplicas": true, "predictive": false, "metricsSource": false})
		withGates(t, "pipelines.gates.example.com", "Predictions", "CustomMetrics")
		stores(map[string]bool{"maxReplicas": true, "predictive": true, "metricsSource": true})
	},
	"examples/feature-gates/rules/cache-keyprefix.yaml": func(t *testing.T, r result) {
		assertExampleWarnings(t, r)
		obj := getJSON(t, "-n", examplesNamespace, "caches.gates.example.com", "legacy")
		assertField(t, obj, "Legacy_Keys", true, "spec", "keyPrefix")
	},
}

// withGates enables the gates of a CRD with kubectl featuregates, and disables them again
// when the test ends, so that a second run sees the example as the first did.
func withGates(t *testing.T, crd string, gates ...string) {
	t.Helper()
	for _, g := range gates {
		mustFeaturegates(t, "enable", crd, g)
		t.Cleanup(func() { mustFeaturegates(t, "disable", crd, g) })
	}
}

// readFile reads a file of the repository.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertRejectedVariant checks that the example at path, with old replaced by new, is
// rejected by a server-side dry-run with an error containing want: the value that a
// disabled gate's rule does not accept yet.
func assertRejectedVariant(t *testing.T, path, old, new, want string) {
	t.Helper()
	manifest, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	variant := strings.Replace(string(manifest), old, new, 1)
	if variant == string(manifest) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	r := kubectl(t, variant, "create", "-n", examplesNamespace, "--dry-run=server", "-f", "-")
	if r.err == nil || !strings.Contains(r.stderr, want) {
		t.Errorf("%s with %q: err=%v stderr=%q, want a rejection containing %q", path, new, r.err, r.stderr, want)
	}
}

// TestExamples applies every YAML file under examples/ with our kubectl, as a user would:
// the CRDs first, waiting until each is established, then everything else, into a namespace
// of its own. Each apply must succeed, and the key behavior of the feature-gate examples is
// checked.
func TestExamples(t *testing.T) {
	files := readExampleFiles(t)
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.path] = true
	}
	for path := range exampleChecks {
		if !seen[path] {
			t.Errorf("%s has a check but is not under examples/ any more", path)
		}
	}

	mustKubectl(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+examplesNamespace+"\n", "apply", "-f", "-")

	var crds, others []exampleFile
	for _, f := range files {
		if !f.isCRD() {
			others = append(others, f)
			continue
		}
		for _, o := range f.objs {
			if o["kind"] != "CustomResourceDefinition" {
				t.Fatalf("%s mixes CustomResourceDefinitions with other objects; keep CRDs in files of their own, so they can be applied first", f.path)
			}
		}
		crds = append(crds, f)
	}

	for _, f := range crds {
		r := mustKubectl(t, "", "apply", "-n", examplesNamespace, "-f", f.path)
		if w := featuregatetest.KubectlWarnings(r.stderr); len(w) != 0 {
			t.Errorf("kubectl apply -f %s warned: %q", f.path, w)
		}
		for _, o := range f.objs {
			name := o["metadata"].(map[string]interface{})["name"].(string)
			mustKubectl(t, "", "wait", "--for=condition=Established", "--timeout=30s", "crd/"+name)
		}
	}

	for _, f := range others {
		t.Run(f.path, func(t *testing.T) {
			// A create each time, so that a re-run sees the same warnings.
			mustKubectl(t, "", "delete", "-n", examplesNamespace, "--ignore-not-found", "-f", f.path)
			r := mustKubectl(t, "", "apply", "-n", examplesNamespace, "-f", f.path)
			if check, ok := exampleChecks[f.path]; ok {
				check(t, r)
			}
		})
	}

	t.Run("admin guide", testAdminGuideCommands)
	t.Run("gating values and rules", testRulesRecipes)
}

// testAdminGuideCommands runs the commands of docs/guides/cluster-admins.md on the
// nested example, whose BackupGate guards .spec.backup of Databases.
func testAdminGuideCommands(t *testing.T) {
	const (
		crd      = "databases.gates.example.com"
		database = "examples/feature-gates/nested/database.yaml"
	)
	// The steps below leave the CRD owned by server-side apply managers; delete it, so that a
	// re-run installs it again with client-side apply, as the first run did.
	t.Cleanup(func() { mustKubectl(t, "", "delete", "crd", crd, "--wait", "--timeout=60s") })
	manifest, err := os.ReadFile(filepath.Join(repoRoot, database))
	if err != nil {
		t.Fatal(err)
	}
	probe := strings.Replace(string(manifest), "name: orders", "name: probe", 1)
	waitForBackup := func(enabled bool) {
		t.Helper()
		featuregatetest.WaitFor(t, 30*time.Second, fmt.Sprintf("BackupGate enabled=%t to reach the server", enabled), func() bool {
			r := kubectl(t, probe, "create", "-n", examplesNamespace, "--dry-run=server", "-o", "json", "-f", "-")
			return r.err == nil && strings.Contains(r.stdout, `"backup"`) == enabled
		})
	}
	backup := func() (interface{}, bool) {
		return field(getJSON(t, "-n", examplesNamespace, "databases.gates.example.com", "orders"), "spec", "backup")
	}
	enabledOf := func() string {
		return mustKubectl(t, "", "get", "crd", crd, "-o", `jsonpath={.spec.customFeatureGates.featureGates[?(@.name=="BackupGate")].enabled}`).stdout
	}

	// Seeing the gates.
	r := mustKubectl(t, "", "get", "crd", crd, "-o", `jsonpath={range .spec.customFeatureGates.featureGates[*]}{.name}{"\t"}{.preRelease}{"\tenabled="}{.enabled}{"\tdefault="}{.default}{"\n"}{end}`)
	wantList := "BackupGate\talpha\tenabled=\tdefault=\nBackupEncryptionGate\tbeta\tenabled=\tdefault=\n"
	if r.stdout != wantList {
		t.Errorf("the gate listing printed %q, want %q", r.stdout, wantList)
	}

	// kubectl patch, guarded by a test operation.
	mustKubectl(t, "", "patch", "crd", crd, "--type", "json", "-p", `[
  {"op": "test", "path": "/spec/customFeatureGates/featureGates/0/name", "value": "BackupGate"},
  {"op": "add",  "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": true}
]`)
	waitForBackup(true)
	mustKubectl(t, "", "apply", "-n", examplesNamespace, "-f", database)
	if _, found := backup(); !found {
		t.Fatal("spec.backup was not stored after BackupGate was enabled")
	}
	if r := kubectl(t, "", "patch", "crd", crd, "--type", "json", "-p",
		`[{"op": "test", "path": "/spec/customFeatureGates/featureGates/0/name", "value": "BackupEncryptionGate"}, {"op": "add", "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": false}]`); r.err == nil {
		t.Error("a JSON patch whose test operation names another gate succeeded")
	}

	// The CRD was installed with client-side apply. As the authors' guide asks, the author
	// moves to server-side apply; kubectl hands the client-side apply's fields to the
	// author's manager. Only then can the admin use server-side apply.
	if got := managers(t, crd); !strings.Contains(got, "kubectl-client-side-apply\tUpdate\n") {
		t.Errorf("managers of %s before the author's server-side apply:\n%s", crd, got)
	}
	r = mustKubectl(t, "", "apply", "--server-side", "--field-manager=database-operator", "-f", "examples/feature-gates/nested/database-crd.yaml")
	if got := managers(t, crd); strings.Contains(got, "kubectl-client-side-apply") || !strings.Contains(got, "database-operator\tApply\n") {
		t.Errorf("managers of %s after the author's server-side apply:\n%s", crd, got)
	}
	if got := enabledOf(); got != "true" {
		t.Errorf("enabled = %q after the author's server-side apply, want the admin's true", got)
	}

	// Server-side apply under the admin's own field manager: the first apply conflicts with
	// kubectl patch's manager.
	ssa := func(enabled string, extra ...string) result {
		m := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + crd +
			"\nspec:\n  customFeatureGates:\n    featureGates:\n    - name: BackupGate\n" + enabled
		return kubectl(t, m, append([]string{"apply", "--server-side", "--field-manager=cluster-admin", "-f", "-"}, extra...)...)
	}
	if r := ssa("      enabled: false\n"); r.err == nil || !strings.Contains(r.stderr, "conflict") {
		t.Errorf("the first server-side apply did not report the conflict with kubectl patch: %v\n%s", r.err, r.stderr)
	}
	if r := ssa("      enabled: false\n", "--force-conflicts"); r.err != nil || r.stderr != "" {
		t.Fatalf("server-side apply --force-conflicts: %v\n%s", r.err, r.stderr)
	}
	waitForBackup(false)
	if got := enabledOf(); got != "false" {
		t.Errorf("enabled = %q after the admin's apply, want false", got)
	}

	// The stored value is frozen: a change is not applied and warns; the generation stays.
	before, _ := backup()
	changed := strings.Replace(string(manifest), "retentionDays: 7", "retentionDays: 30", 1)
	r = mustKubectl(t, changed, "apply", "-n", examplesNamespace, "-f", "-")
	if diff := cmp.Diff([]string{".spec.backup was not updated: feature gate BackupGate (alpha) is disabled; the stored value was kept"}, featuregatetest.KubectlWarnings(r.stderr)); diff != "" {
		t.Errorf("warnings of the update (-want +got):\n%s", diff)
	}
	if after, _ := backup(); !cmp.Equal(before, after) {
		t.Errorf("spec.backup changed from %v to %v while BackupGate is disabled", before, after)
	}

	// Handing the decision back: apply without enabled.
	if r := ssa(""); r.err != nil {
		t.Fatalf("server-side apply without enabled: %v\n%s", r.err, r.stderr)
	}
	if got := enabledOf(); got != "" {
		t.Errorf("enabled = %q after the admin's apply without it, want it removed", got)
	}

	// Dry-run, as the guide suggests.
	r = mustKubectl(t, "", "apply", "-n", examplesNamespace, "--dry-run=server", "-f", database, "-o", "yaml")
	if !strings.Contains(r.stdout, "kind: Database") {
		t.Errorf("the dry-run printed no Database:\n%s", r.stdout)
	}
}

// readExampleFiles returns every .yaml or .yml file under examples/, in path order.
func readExampleFiles(t *testing.T) []exampleFile {
	t.Helper()
	var files []exampleFile
	root := filepath.Join(repoRoot, "examples")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// examples/gateway-api is applied by TestGatewayAPILosslessDisable and by
		// make test-gateway-api, server-side: its CRDs are too large for a client-side apply.
		if d.IsDir() && path == filepath.Join(root, "gateway-api") {
			return filepath.SkipDir
		}
		if d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(repoRoot, path)
		if err != nil {
			return err
		}
		f := exampleFile{path: filepath.ToSlash(rel)}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var obj map[string]interface{}
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			if obj == nil {
				continue // an empty document
			}
			if _, ok := obj["apiVersion"].(string); !ok {
				t.Fatalf("%s: a document without apiVersion", f.path)
			}
			f.objs = append(f.objs, obj)
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no YAML files under %s", root)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files
}

func assertExampleWarnings(t *testing.T, r result, want ...string) {
	t.Helper()
	got := featuregatetest.KubectlWarnings(r.stderr)
	sort.Strings(got)
	want = append([]string(nil), want...)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// managers lists the field managers of an object and their operations, one per line.
func managers(t *testing.T, crd string) string {
	t.Helper()
	return mustKubectl(t, "", "get", "crd", crd, "--show-managed-fields", "-o",
		`jsonpath={range .metadata.managedFields[*]}{.manager}{"\t"}{.operation}{"\n"}{end}`).stdout
}

// assertField checks that the field at path is present with the value want, or absent.
func assertField(t *testing.T, obj map[string]interface{}, want interface{}, present bool, path ...string) {
	t.Helper()
	got, found := field(obj, path...)
	switch {
	case found != present:
		t.Errorf(".%s present = %t (value %v), want %t", strings.Join(path, "."), found, got, present)
	case present && !cmp.Equal(got, want):
		t.Errorf(".%s = %v, want %v", strings.Join(path, "."), got, want)
	}
}

// testRulesRecipes runs the gated enum value of examples/feature-gates/rules/ against the
// real binaries: ARC is rejected while ARCEviction is off, accepted once an admin enables it
// with kubectl patch, and a cache that stored ARC can still be updated after the gate is
// turned off again, as long as the update keeps the value (ratcheting).
func testRulesRecipes(t *testing.T) {
	const (
		crd   = "caches.gates.example.com"
		cache = "examples/feature-gates/rules/cache-eviction.yaml"
		msg   = "evictionPolicy ARC needs the ARCEviction feature gate"
	)
	manifest, err := os.ReadFile(filepath.Join(repoRoot, cache))
	if err != nil {
		t.Fatal(err)
	}
	arc := strings.Replace(strings.Replace(string(manifest), "evictionPolicy: LRU", "evictionPolicy: ARC", 1), "name: sessions", "name: arc", 1)
	setARC := func(enabled bool) {
		t.Helper()
		mustKubectl(t, "", "patch", "crd", crd, "--type", "json", "-p", fmt.Sprintf(`[
  {"op": "test", "path": "/spec/customFeatureGates/featureGates/0/name", "value": "ARCEviction"},
  {"op": "add",  "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": %t}
]`, enabled))
		featuregatetest.WaitFor(t, 30*time.Second, fmt.Sprintf("ARCEviction enabled=%t to reach the server", enabled), func() bool {
			r := kubectl(t, strings.Replace(arc, "name: arc", "name: probe", 1), "create", "-n", examplesNamespace, "--dry-run=server", "-f", "-")
			return (r.err == nil) == enabled
		})
	}
	// Leave the CRD as the examples installed it, so that a re-run starts with the gate off.
	t.Cleanup(func() {
		kubectl(t, "", "delete", "-n", examplesNamespace, "--ignore-not-found", "cache", "arc")
		mustKubectl(t, "", "patch", "crd", crd, "--type", "json", "-p", `[
  {"op": "test", "path": "/spec/customFeatureGates/featureGates/0/name", "value": "ARCEviction"},
  {"op": "remove", "path": "/spec/customFeatureGates/featureGates/0/enabled"}
]`)
	})

	if r := kubectl(t, arc, "create", "-n", examplesNamespace, "-f", "-"); r.err == nil || !strings.Contains(r.stderr, msg) {
		t.Fatalf("ARC with ARCEviction off: err=%v stderr=%q, want a rejection containing %q", r.err, r.stderr, msg)
	}
	setARC(true)
	mustKubectl(t, arc, "create", "-n", examplesNamespace, "-f", "-")
	setARC(false)
	// The stored ARC is kept by an update that changes another field.
	mustKubectl(t, "", "patch", "-n", examplesNamespace, "cache", "arc", "--type", "merge", "-p", `{"spec":{"sizeMiB":1024}}`)
	// Setting ARC anew is rejected again.
	if r := kubectl(t, "", "patch", "-n", examplesNamespace, "cache", "sessions", "--type", "merge", "-p", `{"spec":{"evictionPolicy":"ARC"}}`); r.err == nil || !strings.Contains(r.stderr, msg) {
		t.Errorf("update to ARC with ARCEviction off again: err=%v stderr=%q, want a rejection containing %q", r.err, r.stderr, msg)
	}
}
