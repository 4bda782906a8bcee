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
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// featuregates runs `kubectl featuregates ARGS`: our kubectl finds the plugin
// kubectl-featuregates on PATH (the binary directory), as a user's kubectl would.
func featuregates(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binDir+"/kubectl", append([]string{"featuregates"}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KUBECONFIG="+controlPlane.Kubeconfig, "PATH="+binDir+":"+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

func mustFeaturegates(t *testing.T, args ...string) result {
	t.Helper()
	r := featuregates(t, args...)
	if r.err != nil {
		t.Fatalf("kubectl featuregates %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r
}

// failFeaturegates runs the plugin, expects it to fail, and checks its error message.
func failFeaturegates(t *testing.T, want string, args ...string) {
	t.Helper()
	r := featuregates(t, args...)
	if r.err == nil {
		t.Fatalf("kubectl featuregates %s succeeded; want an error containing %q\n%s", strings.Join(args, " "), want, r.stdout)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("kubectl featuregates %s: want an error containing %q, got:\n%s", strings.Join(args, " "), want, r.stderr)
	}
}

// enabledByGate reads the CRD's gates: name -> "true", "false" or "unset"; and the gates'
// names in list order.
func enabledByGate(t *testing.T, crd string) (map[string]string, []string) {
	t.Helper()
	obj := getJSON(t, "crd", crd)
	list, _ := field(obj, "spec", "customFeatureGates", "featureGates")
	out := map[string]string{}
	var order []string
	for _, g := range list.([]interface{}) {
		m := g.(map[string]interface{})
		name := m["name"].(string)
		order = append(order, name)
		if e, ok := m["enabled"]; ok {
			out[name] = fmt.Sprint(e)
		} else {
			out[name] = "unset"
		}
	}
	return out, order
}

func checkGates(t *testing.T, crd string, want map[string]string) []string {
	t.Helper()
	got, order := enabledByGate(t, crd)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("enabled of the gates of %s (-want +got):\n%s", crd, diff)
	}
	return order
}

// ownersOfEnabled returns the field managers that own featureGates[name=gate].enabled.
func ownersOfEnabled(t *testing.T, crd, gate string) map[string]string {
	t.Helper()
	obj := getJSON(t, "crd", crd, "--show-managed-fields")
	owners := map[string]string{}
	managed, _ := field(obj, "metadata", "managedFields")
	for _, mf := range managed.([]interface{}) {
		entry := mf.(map[string]interface{})
		fields, _ := entry["fieldsV1"].(map[string]interface{})
		if _, owns := field(fields, "f:spec", "f:customFeatureGates", "f:featureGates", fmt.Sprintf(`k:{"name":%q}`, gate), "f:enabled"); owns {
			owners[entry["manager"].(string)] = entry["operation"].(string)
		}
	}
	return owners
}

const pluginGates = `    - name: ReplicasFeatureGate
      preRelease: alpha
      fieldPaths: [.spec.replicas]
    - name: ImageGate
      preRelease: beta
      fieldPaths: [.spec.image]
    - name: CronGate
      preRelease: stable
      fieldPaths: [.spec.cronSpec]
`

// reversedPluginGates lists the same gates in the opposite order.
const reversedPluginGates = `    - name: CronGate
      preRelease: stable
      fieldPaths: [.spec.cronSpec]
    - name: ImageGate
      preRelease: beta
      fieldPaths: [.spec.image]
    - name: ReplicasFeatureGate
      preRelease: alpha
      fieldPaths: [.spec.replicas]
`

// The author manages the CRD with server-side apply: the plugin lists the gates, enables
// and disables them by name with server-side apply as cluster-admin, the author's re-apply
// keeps the admin's choices, and after the author reorders the gates the plugin still
// changes exactly the gate it names.
func TestPluginServerSideApply(t *testing.T) {
	const crd = "plugtabs.e2e.example.com"
	author := crontabCRD("plugtabs", pluginGates)
	applyCRD(t, author, "--server-side", "--field-manager=crd-author")

	// list: table and JSON.
	r := mustFeaturegates(t, "list", crd)
	for _, want := range []string{
		"CRD GATE STAGE ENABLED STATE FIELDS COMPONENT",
		crd + " ReplicasFeatureGate alpha <unset> disabled .spec.replicas <none>",
		crd + " ImageGate beta <unset> enabled .spec.image <none>",
		crd + " CronGate stable <unset> enabled .spec.cronSpec <none>",
	} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("list lacks %q:\n%s", want, r.stdout)
		}
	}
	var listed struct {
		Kind  string
		Items []struct {
			Gate, State string
			FieldPaths  []struct {
				Path string
				Live bool
			}
		}
	}
	if err := json.Unmarshal([]byte(mustFeaturegates(t, "list", crd, "-o", "json").stdout), &listed); err != nil {
		t.Fatal(err)
	}
	if listed.Kind != "FeatureGateList" || len(listed.Items) != 3 || listed.Items[0].Gate != "ReplicasFeatureGate" ||
		listed.Items[0].State != "disabled" || listed.Items[0].FieldPaths[0].Live {
		t.Errorf("list -o json: %+v", listed)
	}
	// Without arguments, every CRD with gates, this one included.
	if r := mustFeaturegates(t, "list"); !strings.Contains(r.stdout, crd) {
		t.Errorf("list without arguments lacks %s:\n%s", crd, r.stdout)
	}

	// enable by name: server-side apply as cluster-admin, and the server gates accordingly.
	r = mustFeaturegates(t, "enable", crd, "ReplicasFeatureGate")
	if !strings.Contains(r.stdout, "feature gate ReplicasFeatureGate enabled (server-side apply, field manager cluster-admin); state: enabled") {
		t.Errorf("enable printed:\n%s", r.stdout)
	}
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "true", "ImageGate": "unset", "CronGate": "unset"})
	if diff := cmp.Diff(map[string]string{"cluster-admin": "Apply"}, ownersOfEnabled(t, crd, "ReplicasFeatureGate")); diff != "" {
		t.Errorf("owners of ReplicasFeatureGate's enabled (-want +got):\n%s", diff)
	}
	waitForReplicasGate(t, crontab("plugtabs", "a", 3), true)

	// disable by name, with another field manager.
	mustFeaturegates(t, "disable", crd, "ImageGate", "--field-manager=ops")
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "true", "ImageGate": "false", "CronGate": "unset"})
	if diff := cmp.Diff(map[string]string{"ops": "Apply"}, ownersOfEnabled(t, crd, "ImageGate")); diff != "" {
		t.Errorf("owners of ImageGate's enabled (-want +got):\n%s", diff)
	}

	// The author re-applies the full CRD: the admin's choices stay.
	mustKubectl(t, author, "apply", "--server-side", "--field-manager=crd-author", "-f", "-")
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "true", "ImageGate": "false", "CronGate": "unset"})

	// The author reorders the gates; the next enable and disable still hit the named gate.
	mustKubectl(t, crontabCRD("plugtabs", reversedPluginGates), "apply", "--server-side", "--field-manager=crd-author", "-f", "-")
	order := checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "true", "ImageGate": "false", "CronGate": "unset"})
	if diff := cmp.Diff([]string{"CronGate", "ImageGate", "ReplicasFeatureGate"}, order); diff != "" {
		t.Fatalf("the author's reorder did not take (-want +got):\n%s", diff)
	}
	mustFeaturegates(t, "enable", crd, "ImageGate", "--field-manager=ops")
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "true", "ImageGate": "true", "CronGate": "unset"})
	mustFeaturegates(t, "disable", crd, "ReplicasFeatureGate")
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "false", "ImageGate": "true", "CronGate": "unset"})
	waitForReplicasGate(t, crontab("plugtabs", "a", 3), false)

	// status: why .spec.replicas is not live.
	r = mustFeaturegates(t, "status", crd)
	for _, want := range []string{
		"# " + crd + ", storage version v1",
		".spec.replicas ReplicasFeatureGate alpha no feature gate ReplicasFeatureGate (alpha) is disabled",
		".spec.image ImageGate beta yes",
		".spec.cronSpec CronGate stable yes",
	} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}

	// Errors.
	failFeaturegates(t, "is stable: a stable gate is always enabled and cannot be disabled", "disable", crd, "CronGate")
	failFeaturegates(t, `declares no feature gate named "NoSuchGate"; its gates are: CronGate, ImageGate, ReplicasFeatureGate`, "enable", crd, "NoSuchGate")
	failFeaturegates(t, `customresourcedefinition "nosuchtabs.e2e.example.com" not found`, "enable", "nosuchtabs.e2e.example.com", "ImageGate")
	failFeaturegates(t, `customresourcedefinition "nosuchtabs.e2e.example.com" not found`, "list", "nosuchtabs.e2e.example.com")
	if r := mustFeaturegates(t, "enable", crd, "CronGate"); !strings.Contains(r.stdout, "is stable and always enabled; nothing to change") {
		t.Errorf("enable of a stable gate printed:\n%s", r.stdout)
	}
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "false", "ImageGate": "true", "CronGate": "unset"})
}

// TestPluginTogglesUnderOneFieldManager: the admin turns two gates of one CRD on, one after
// the other, with the default field manager. Each apply configuration carries every field
// the manager owns, so the second enable keeps the first gate on (a configuration with only
// the second gate would make the server remove the first gate's enabled).
func TestPluginTogglesUnderOneFieldManager(t *testing.T) {
	const crd = "onemgrtabs.e2e.example.com"
	applyCRD(t, crontabCRD("onemgrtabs", pluginGates), "--server-side", "--field-manager=crd-author")
	mustFeaturegates(t, "enable", crd, "ReplicasFeatureGate")
	mustFeaturegates(t, "enable", crd, "ImageGate")
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "true", "ImageGate": "true", "CronGate": "unset"})
	mustFeaturegates(t, "disable", crd, "ReplicasFeatureGate")
	checkGates(t, crd, map[string]string{"ReplicasFeatureGate": "false", "ImageGate": "true", "CronGate": "unset"})
	for _, gate := range []string{"ReplicasFeatureGate", "ImageGate"} {
		if diff := cmp.Diff(map[string]string{"cluster-admin": "Apply"}, ownersOfEnabled(t, crd, gate)); diff != "" {
			t.Errorf("owners of %s's enabled (-want +got):\n%s", gate, diff)
		}
	}
}

// nestedCSACRD has a parent gate over .spec.backup and a child gate over
// .spec.backup.encryption, in the given order.
func nestedCSACRD(parentFirst bool) string {
	parent := `    - name: BackupGate
      preRelease: alpha
      fieldPaths: [.spec.backup]
`
	child := `    - name: EncryptionGate
      preRelease: beta
      fieldPaths: [.spec.backup.encryption]
`
	gates := parent + child
	if !parentFirst {
		gates = child + parent
	}
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: csadbs.e2e.example.com
spec:
  group: e2e.example.com
  scope: Namespaced
  names: {plural: csadbs, singular: csadb, kind: CsaDb}
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
              engine: {type: string}
              backup:
                type: object
                properties:
                  schedule: {type: string}
                  encryption:
                    type: object
                    properties:
                      key: {type: string}
  customFeatureGates:
    component: csadbs.e2e.example.com
    featureGates:
` + gates
}

// The author installs the CRD with client-side kubectl apply: the plugin detects it and
// writes with a JSON patch guarded by the gate's name; after the author reorders the
// gates (client-side again), the plugin still changes exactly the gate it names.
func TestPluginClientSideApply(t *testing.T) {
	const crd = "csadbs.e2e.example.com"
	applyCRD(t, nestedCSACRD(true)) // plain, client-side kubectl apply

	// Before: the child is live by its own gate but not, because the parent is off.
	r := mustFeaturegates(t, "list", crd)
	if want := crd + " EncryptionGate beta <unset> enabled .spec.backup.encryption (off: BackupGate) " + crd; !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
		t.Errorf("list lacks %q:\n%s", want, r.stdout)
	}
	r = mustFeaturegates(t, "status", crd, ".spec.backup.encryption.key", ".spec.engine")
	for _, want := range []string{
		".spec.backup.encryption.key - - no parent .spec.backup is disabled by feature gate BackupGate (alpha)",
		".spec.engine - - yes",
	} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}

	r = mustFeaturegates(t, "enable", crd, "BackupGate")
	if !strings.Contains(r.stdout, "feature gate BackupGate enabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: enabled") {
		t.Errorf("enable on a client-side-applied CRD printed:\n%s", r.stdout)
	}
	checkGates(t, crd, map[string]string{"BackupGate": "true", "EncryptionGate": "unset"})
	if diff := cmp.Diff(map[string]string{"cluster-admin": "Update"}, ownersOfEnabled(t, crd, "BackupGate")); diff != "" {
		t.Errorf("owners of BackupGate's enabled (-want +got):\n%s", diff)
	}
	// The rest of the CRD is untouched: the schema and the other gate are still there.
	if r := mustKubectl(t, "", "get", "crd", crd, "-o", "jsonpath={.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.backup.properties.schedule.type}"); r.stdout != "string" {
		t.Errorf("the schema changed: %q", r.stdout)
	}
	r = mustFeaturegates(t, "status", crd, ".spec.backup.encryption.key")
	if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), ".spec.backup.encryption.key - - yes") {
		t.Errorf("status after enabling the parent:\n%s", r.stdout)
	}

	// The author reorders the gates with client-side apply, which replaces the whole list
	// (the admin's enabled goes with it: documented). Then two toggles by name.
	mustKubectl(t, nestedCSACRD(false), "apply", "-f", "-")
	order := checkGates(t, crd, map[string]string{"BackupGate": "unset", "EncryptionGate": "unset"})
	if diff := cmp.Diff([]string{"EncryptionGate", "BackupGate"}, order); diff != "" {
		t.Fatalf("the author's reorder did not take (-want +got):\n%s", diff)
	}
	mustFeaturegates(t, "disable", crd, "EncryptionGate")
	checkGates(t, crd, map[string]string{"BackupGate": "unset", "EncryptionGate": "false"})
	mustFeaturegates(t, "enable", crd, "BackupGate")
	checkGates(t, crd, map[string]string{"BackupGate": "true", "EncryptionGate": "false"})
	r = mustFeaturegates(t, "status", crd)
	for _, want := range []string{
		".spec.backup BackupGate alpha yes",
		".spec.backup.encryption EncryptionGate beta no feature gate EncryptionGate (beta) is disabled",
		".spec.backup.encryption.key - - no parent .spec.backup.encryption is disabled by feature gate EncryptionGate (beta)",
	} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}

	// Forcing server-side apply is possible too; --method=patch on an SSA CRD likewise.
	mustFeaturegates(t, "disable", crd, "BackupGate", "--method=patch")
	checkGates(t, crd, map[string]string{"BackupGate": "false", "EncryptionGate": "false"})
}
