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
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/integration/conversion"
)

const marksGroup = "marks.e2e.example.com"

// storedEndpoint reads an Endpoint of marksGroup from etcd: its apiVersion and spec.
func storedEndpoint(t *testing.T, name string) (string, map[string]interface{}) {
	t.Helper()
	resp, err := etcdClient(t).Get(context.Background(), fmt.Sprintf("/registry/%s/endpoints/default/%s", marksGroup, name))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		t.Fatalf("%s is not in etcd", name)
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(resp.Kvs[0].Value, &obj); err != nil {
		t.Fatalf("stored %s is not JSON: %v", name, err)
	}
	spec, _ := obj["spec"].(map[string]interface{})
	apiVersion, _ := obj["apiVersion"].(string)
	return apiVersion, spec
}

// endpointManifest is an Endpoint of marksGroup in version with spec (JSON).
// A resourceVersion, when not empty, makes it a manifest for kubectl replace.
func endpointManifest(version, name, resourceVersion, spec string) string {
	return fmt.Sprintf(`{"apiVersion":"%s/%s","kind":"Endpoint","metadata":{"name":%q,"namespace":"default","resourceVersion":%q},"spec":%s}`, marksGroup, version, name, resourceVersion, spec)
}

// TestFieldGateMarksE2E runs the storage version switch of KEP-2608's reviewers against the
// binaries, with our kubectl: featuregatetest.PortsCRD (v1 spec.hostPort, v2 spec.port, both
// marked with PortGate, no fieldPaths) behind a conversion webhook that this test serves on
// 127.0.0.1. Writes in both versions are checked in etcd; each version's published OpenAPI
// and kubectl explain show that version's own field; the storage version moves from v1 to v2
// and every object is migrated with kubectl replace, without touching the gates.
func TestFieldGateMarksE2E(t *testing.T) {
	tearDown, webhook, err := conversion.StartConversionWebhookServer(conversion.NewObjectConverterWebhookHandler(t, featuregatetest.ConvertPortsRaw))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tearDown)
	crd := featuregatetest.PortsCRD(marksGroup, "v1", webhook)
	crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	manifest, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	applyCRD(t, string(manifest))
	t.Cleanup(func() { kubectl(t, "", "delete", "crd", crd.Name, "--wait=false") })
	resource := func(version string) string { return "endpoints." + version + "." + marksGroup }

	// write sends a manifest with kubectl create (or replace, with the object's current
	// resourceVersion: custom resources allow no unconditional update), and returns the
	// warnings.
	write := func(verb, version, name, spec string) []string {
		t.Helper()
		resourceVersion := ""
		if verb == "replace" {
			rv, _ := field(getJSON(t, resource(version), name), "metadata", "resourceVersion")
			resourceVersion, _ = rv.(string)
		}
		r := mustKubectl(t, endpointManifest(version, name, resourceVersion, spec), verb, "-f", "-")
		return featuregatetest.KubectlWarnings(r.stderr)
	}
	// setGate enables or disables PortGate and waits until a v1 dry run honours it.
	setGate := func(enabled bool) {
		t.Helper()
		mustKubectl(t, "", "patch", "crd", crd.Name, "--type", "json", "--patch",
			fmt.Sprintf(`[{"op":"test","path":"/spec/customFeatureGates/featureGates/0/name","value":"PortGate"},{"op":"add","path":"/spec/customFeatureGates/featureGates/0/enabled","value":%t}]`, enabled))
		featuregatetest.WaitFor(t, 30*time.Second, fmt.Sprintf("PortGate enabled=%t to be served", enabled), func() bool {
			r := kubectl(t, endpointManifest("v1", "probe", "", `{"hostPort":"1"}`), "create", "--dry-run=server", "-o", "json", "-f", "-")
			return r.err == nil && strings.Contains(r.stdout, `"hostPort"`) == enabled
		})
	}
	dropped := func(path string) []string {
		return []string{path + " was dropped: feature gate PortGate (alpha) is disabled"}
	}
	kept := func(path string) []string {
		return []string{path + " was not updated: feature gate PortGate (alpha) is disabled; the stored value was kept"}
	}
	expectStored := func(name, apiVersion string, spec map[string]interface{}) {
		t.Helper()
		gotVersion, gotSpec := storedEndpoint(t, name)
		if gotVersion != apiVersion || !cmp.Equal(spec, gotSpec) {
			t.Errorf("%s in etcd: %s %v, want %s %v", name, gotVersion, gotSpec, apiVersion, spec)
		}
	}
	expectWarnings := func(step string, want, got []string) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: warnings (-want +got):\n%s", step, diff)
		}
	}
	spec := func(kv ...string) map[string]interface{} {
		out := map[string]interface{}{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	v1, v2 := marksGroup+"/v1", marksGroup+"/v2"

	// PortGate is alpha, so off: each version drops its own field, before any conversion.
	setGate(false)
	expectWarnings("v1 create", dropped(".spec.hostPort"), write("create", "v1", "off-v1", `{"host":"a","hostPort":"80"}`))
	expectStored("off-v1", v1, spec("host", "a"))
	expectWarnings("v2 create", dropped(".spec.port"), write("create", "v2", "off-v2", `{"host":"a","port":"80"}`))
	expectStored("off-v2", v1, spec("host", "a"))

	// Each version's published OpenAPI, and kubectl explain, show that version's field.
	for _, tc := range []struct{ version, field string }{{"v1", "hostPort"}, {"v2", "port"}} {
		featuregatetest.WaitFor(t, 30*time.Second, "/openapi/v3 of "+tc.version+" to mark "+tc.field, func() bool {
			r := kubectl(t, "", "get", "--raw", "/openapi/v3/apis/"+marksGroup+"/"+tc.version)
			var doc map[string]interface{}
			if r.err != nil || json.Unmarshal([]byte(r.stdout), &doc) != nil {
				return false
			}
			prop, _ := field(doc, "components", "schemas", "com.example.e2e.marks."+tc.version+".Endpoint", "properties", "spec", "properties", tc.field)
			p, _ := prop.(map[string]interface{})
			state, _ := p["x-kubernetes-feature-gate-state"].(map[string]interface{})
			return p["x-kubernetes-feature-gate"] == "PortGate" && state["enabled"] == false && state["preRelease"] == "alpha"
		})
		r := mustKubectl(t, "", "explain", "endpoints.spec."+tc.field, "--api-version", marksGroup+"/"+tc.version)
		if !strings.Contains(r.stdout, "Alpha (feature gate PortGate, disabled).") {
			t.Errorf("kubectl explain of %s in %s does not show the stage note:\n%s", tc.field, tc.version, r.stdout)
		}
	}

	setGate(true)
	expectWarnings("v1 create, gate on", nil, write("create", "v1", "on-v1", `{"host":"a","hostPort":"81"}`))
	expectStored("on-v1", v1, spec("host", "a", "hostPort", "81"))
	expectWarnings("v2 create, gate on", nil, write("create", "v2", "on-v2", `{"host":"a","port":"82"}`))
	expectStored("on-v2", v1, spec("host", "a", "hostPort", "82"))

	setGate(false)
	expectWarnings("v2 replace, gate off", kept(".spec.port"), write("replace", "v2", "on-v1", `{"host":"b","port":"99"}`))
	expectStored("on-v1", v1, spec("host", "b", "hostPort", "81"))

	// Switch the storage version to v2; the gates are not touched.
	gatesBefore, _ := field(getJSON(t, "crd", crd.Name), "spec", "customFeatureGates")
	mustKubectl(t, "", "patch", "crd", crd.Name, "--type", "json", "--patch",
		`[{"op":"replace","path":"/spec/versions/0/storage","value":false},{"op":"replace","path":"/spec/versions/1/storage","value":true}]`)
	gatesAfter, _ := field(getJSON(t, "crd", crd.Name), "spec", "customFeatureGates")
	if diff := cmp.Diff(gatesBefore, gatesAfter); diff != "" {
		t.Fatalf("the storage version switch changed the gates (-before +after):\n%s", diff)
	}
	probe := 0
	featuregatetest.WaitFor(t, 30*time.Second, "new objects to be stored as v2", func() bool {
		probe++
		name := fmt.Sprintf("switch-%d", probe)
		write("create", "v1", name, `{"host":"x"}`)
		apiVersion, _ := storedEndpoint(t, name)
		mustKubectl(t, "", "delete", resource("v1"), name)
		return apiVersion == v2
	})

	// Migrate every object, as the storage version migrator does: read, write back.
	list := mustKubectl(t, "", "get", resource("v2"), "-o", "json")
	r := mustKubectl(t, list.stdout, "replace", "-f", "-")
	expectWarnings("migration", nil, featuregatetest.KubectlWarnings(r.stderr))
	expectStored("off-v1", v2, spec("host", "a"))
	expectStored("off-v2", v2, spec("host", "a"))
	expectStored("on-v1", v2, spec("host", "b", "port", "81"))
	expectStored("on-v2", v2, spec("host", "a", "port", "82"))

	// The same decisions with the gate off, now that v2 is the storage version.
	expectWarnings("v1 create after the switch", dropped(".spec.hostPort"), write("create", "v1", "after-v1", `{"host":"a","hostPort":"80"}`))
	expectStored("after-v1", v2, spec("host", "a"))
	expectWarnings("v1 replace after the switch", kept(".spec.hostPort"), write("replace", "v1", "on-v2", `{"host":"c"}`))
	expectStored("on-v2", v2, spec("host", "c", "port", "82"))
}
