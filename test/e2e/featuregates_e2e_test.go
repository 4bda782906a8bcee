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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

const (
	droppedWarning    = ".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled"
	notUpdatedWarning = ".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"
)

// crontabCRD is the KEP's crontab under another plural, with the given gate YAML items.
func crontabCRD(plural, gates string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[1]s.e2e.example.com
spec:
  group: e2e.example.com
  scope: Namespaced
  names: {plural: %[1]s, singular: %[2]s, kind: %[3]s}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              image: {type: string}
              replicas: {type: integer}
  customFeatureGates:
    featureGates:
%[4]s`, plural, strings.TrimSuffix(plural, "s"), strings.ToUpper(plural[:1])+strings.TrimSuffix(plural[1:], "s"), gates)
}

func crontab(plural, name string, replicas int) string {
	kind := strings.ToUpper(plural[:1]) + strings.TrimSuffix(plural[1:], "s")
	return fmt.Sprintf(`{"apiVersion":"e2e.example.com/v1","kind":%q,"metadata":{"name":%q,"namespace":"default"},
"spec":{"cronSpec":"* * * * */5","image":"my-awesome-cron-image","replicas":%d}}`, kind, name, replicas)
}

// waitForReplicasGate waits until a server-side dry-run create keeps (enabled) or drops
// spec.replicas for the CRD with the given plural in group group.
func waitForReplicasGate(t *testing.T, manifest string, enabled bool) {
	t.Helper()
	featuregatetest.WaitFor(t, 30*time.Second, fmt.Sprintf("the gate to be enabled=%t", enabled), func() bool {
		r := kubectl(t, manifest, "create", "--dry-run=server", "-o", "json", "-f", "-")
		return r.err == nil && strings.Contains(r.stdout, `"replicas"`) == enabled
	})
}

// The KEP's Story 1, with the files in examples/: a field is dropped while its gate is off;
// the admin enables the gate with the KEP's JSON patch; the field is then set, and the
// generation moves only when a live field changes.
func TestKubectlStory1(t *testing.T) {
	// The KEP's CRD sets enabled: false, so that its "replace" below finds a value; the
	// example leaves enabled to the admin.
	applyCRD(t, strings.Replace(readExample(t, "crontab-crd.yaml"), "      default: false\n", "      default: false\n      enabled: false\n", 1))
	cr := readExample(t, "crontab.yaml")
	probe := strings.Replace(cr, "name: my-new-cron-object", "name: probe", 1)

	r := mustKubectl(t, "", "apply", "-f", "examples/feature-gates/crontab.yaml")
	if diff := cmp.Diff([]string{droppedWarning}, featuregatetest.KubectlWarnings(r.stderr)); diff != "" {
		t.Errorf("warnings of the create (-want +got):\n%s", diff)
	}
	obj := getJSON(t, "crontab", "my-new-cron-object")
	if v, found := field(obj, "spec", "replicas"); found {
		t.Errorf("spec.replicas = %v was stored while its gate is disabled", v)
	}
	if g, _ := field(obj, "metadata", "generation"); g != float64(1) {
		t.Errorf("generation = %v, want 1", g)
	}

	// Exactly the KEP's command.
	mustKubectl(t, "", "patch", "customresourcedefinitions.apiextensions.k8s.io", "crontabs.stable.example.com",
		"--type", "json", "--patch", `[{"op": "replace", "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": true}]`)
	waitForReplicasGate(t, probe, true)

	r = mustKubectl(t, "", "apply", "-f", "examples/feature-gates/crontab.yaml")
	if w := featuregatetest.KubectlWarnings(r.stderr); len(w) != 0 {
		t.Errorf("unexpected warnings: %q", w)
	}
	obj = getJSON(t, "crontab", "my-new-cron-object")
	if v, _ := field(obj, "spec", "replicas"); v != float64(3) {
		t.Errorf("spec.replicas = %v after enabling the gate, want 3", v)
	}
	if g, _ := field(obj, "metadata", "generation"); g != float64(2) {
		t.Errorf("generation = %v, want 2", g)
	}

	// Disable it again with a merge patch: the stored value stays, an update of it is not
	// applied and draws a warning, and the generation does not move.
	mustKubectl(t, "", "patch", "crd", "crontabs.stable.example.com", "--type", "merge", "--patch",
		`{"spec":{"customFeatureGates":{"featureGates":[{"name":"ReplicasFeatureGate","preRelease":"alpha","default":false,"enabled":false,"fieldPaths":[".spec.replicas"]}]}}}`)
	waitForReplicasGate(t, probe, false)
	r = mustKubectl(t, "", "patch", "crontab", "my-new-cron-object", "--type", "merge", "--patch", `{"spec":{"replicas":5}}`)
	if diff := cmp.Diff([]string{notUpdatedWarning}, featuregatetest.KubectlWarnings(r.stderr)); diff != "" {
		t.Errorf("warnings of the gated-away update (-want +got):\n%s", diff)
	}
	obj = getJSON(t, "crontab", "my-new-cron-object")
	if v, _ := field(obj, "spec", "replicas"); v != float64(3) {
		t.Errorf("spec.replicas = %v, want the stored 3", v)
	}
	if g, _ := field(obj, "metadata", "generation"); g != float64(2) {
		t.Errorf("generation = %v after a gated-away update, want 2", g)
	}
}

// KEP Scenario 1 with server-side apply: the admin's field manager owns one gate's enabled;
// the CRD author's re-apply leaves it alone, and an attempt to set it is upstream's conflict.
func TestKubectlServerSideApplyOwnership(t *testing.T) {
	gates := `    - name: ReplicasFeatureGate
      preRelease: alpha
      fieldPaths: [.spec.replicas]
    - name: ImageGate
      preRelease: beta
      fieldPaths: [.spec.image]
`
	author := crontabCRD("ssatabs", gates)
	applyCRD(t, author, "--server-side", "--field-manager=crd-author")
	admin := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ssatabs.e2e.example.com
spec:
  customFeatureGates:
    featureGates:
    - name: ReplicasFeatureGate
      enabled: true
`
	mustKubectl(t, admin, "apply", "--server-side", "--field-manager=cluster-admin", "-f", "-")
	mustKubectl(t, author, "apply", "--server-side", "--field-manager=crd-author", "-f", "-")

	crd := getJSON(t, "crd", "ssatabs.e2e.example.com", "--show-managed-fields")
	gatesList, _ := field(crd, "spec", "customFeatureGates")
	if !strings.Contains(fmt.Sprint(gatesList), "enabled:true") {
		t.Errorf("the admin's enabled was lost: %v", gatesList)
	}
	managed, _ := field(crd, "metadata")
	owners := map[string]bool{}
	for _, mf := range managed.(map[string]interface{})["managedFields"].([]interface{}) {
		entry := mf.(map[string]interface{})
		fields, _ := entry["fieldsV1"].(map[string]interface{})
		if _, owns := field(fields, "f:spec", "f:customFeatureGates", "f:featureGates", `k:{"name":"ReplicasFeatureGate"}`, "f:enabled"); owns {
			owners[entry["manager"].(string)] = true
		}
	}
	if diff := cmp.Diff(map[string]bool{"cluster-admin": true}, owners); diff != "" {
		t.Errorf("owners of featureGates[name=ReplicasFeatureGate].enabled (-want +got):\n%s", diff)
	}

	withEnabled := crontabCRD("ssatabs", strings.Replace(gates, "      preRelease: alpha\n", "      preRelease: alpha\n      enabled: false\n", 1))
	r := kubectl(t, withEnabled, "apply", "--server-side", "--field-manager=crd-author", "-f", "-")
	if r.err == nil {
		t.Fatal("the author's apply of enabled succeeded; want a conflict with cluster-admin")
	}
	wantConflict := `conflict with "cluster-admin": .spec.customFeatureGates.featureGates[name="ReplicasFeatureGate"].enabled`
	if !strings.Contains(r.stderr, "Apply failed with 1 conflict") || !strings.Contains(r.stderr, wantConflict) {
		t.Errorf("want upstream's apply conflict naming %q, got:\n%s", wantConflict, r.stderr)
	}
}

// kubectl explain describes the new field from the published OpenAPI.
func TestKubectlExplain(t *testing.T) {
	r := mustKubectl(t, "", "explain", "customresourcedefinitions.spec.customFeatureGates.featureGates")
	for _, want := range []string{"FIELD: featureGates <[]CustomResourceDefinitionFeatureGate>", "preRelease", "fieldPaths", "enabled", "default", "fieldDeprecationWarning"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("kubectl explain does not show %q:\n%s", want, r.stdout)
		}
	}
}

// A server-side dry-run returns the gated result and the warnings, and persists nothing.
func TestKubectlDryRun(t *testing.T) {
	applyCRD(t, crontabCRD("drytabs", "    - {name: ReplicasFeatureGate, preRelease: alpha, fieldPaths: [.spec.replicas]}\n"))
	r := mustKubectl(t, crontab("drytabs", "dry", 3), "apply", "--dry-run=server", "-o", "json", "-f", "-")
	if strings.Contains(r.stdout, `"replicas"`) {
		t.Errorf("the dry-run result kept spec.replicas:\n%s", r.stdout)
	}
	if diff := cmp.Diff([]string{droppedWarning}, featuregatetest.KubectlWarnings(r.stderr)); diff != "" {
		t.Errorf("warnings of the dry-run (-want +got):\n%s", diff)
	}
	r = kubectl(t, "", "get", "drytabs", "dry")
	if r.err == nil || !strings.Contains(r.stderr, "NotFound") {
		t.Errorf("the dry-run persisted the object: %s %s", r.stdout, r.stderr)
	}
}

// An invalid gate is rejected with a readable error that names each field.
func TestKubectlInvalidGate(t *testing.T) {
	bad := crontabCRD("badtabs", "    - {name: replicas gate, preRelease: gamma, fieldPaths: [.metadata.name, .spec.nope]}\n")
	r := kubectl(t, bad, "apply", "-f", "-")
	if r.err == nil {
		t.Fatal("an invalid gate was accepted")
	}
	for _, want := range []string{
		`The CustomResourceDefinition "badtabs.e2e.example.com" is invalid`,
		"spec.customFeatureGates.featureGates[0].name",
		`spec.customFeatureGates.featureGates[0].preRelease: Unsupported value: "gamma"`,
		"spec.customFeatureGates.featureGates[0].fieldPaths[0]",
		"spec.customFeatureGates.featureGates[0].fieldPaths[1]",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the error does not contain %q:\n%s", want, r.stderr)
		}
	}
	if r := kubectl(t, "", "get", "crd", "badtabs.e2e.example.com"); r.err == nil {
		t.Error("the invalid CRD was stored")
	}
}

func readExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "feature-gates", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
