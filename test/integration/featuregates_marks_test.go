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

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/integration/conversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// portsWebhook starts a conversion webhook that converts featuregatetest.PortsCRD objects,
// for any group.
func portsWebhook(t *testing.T) *apiextensionsv1.WebhookClientConfig {
	t.Helper()
	tearDown, clientConfig, err := conversion.StartConversionWebhookServer(conversion.NewObjectConverterWebhookHandler(t, featuregatetest.ConvertPortsRaw))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tearDown)
	return clientConfig
}

// portsEnv is a featuregatetest.PortsCRD served by the in-process server.
type portsEnv struct {
	*gatesEnv
	crd *apiextensionsv1.CustomResourceDefinition
}

func (e *portsEnv) client(version string) dynamic.ResourceInterface {
	return e.dynamic.Resource(schema.GroupVersionResource{Group: e.crd.Spec.Group, Version: version, Resource: "endpoints"}).Namespace(gatesTestNamespace)
}

// object is an Endpoint in version with the given spec (JSON).
func (e *portsEnv) object(t *testing.T, version, name, spec string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	doc := fmt.Sprintf(`{"apiVersion":"%s/%s","kind":"Endpoint","metadata":{"name":%q,"namespace":%q},"spec":%s}`, e.crd.Spec.Group, version, name, gatesTestNamespace, spec)
	if err := json.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("bad object %s: %v", doc, err)
	}
	return u
}

// setPortGate enables or disables PortGate and waits until both versions gate writes that way.
func (e *portsEnv) setPortGate(t *testing.T, enabled bool) {
	t.Helper()
	p := fmt.Sprintf(`[{"op":"add","path":"/spec/customFeatureGates/featureGates/0/enabled","value":%t}]`, enabled)
	if _, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), e.crd.Name, types.JSONPatchType, []byte(p), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"v1", "v2"} {
		field := featuregatetest.PortField(version)
		err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			out, err := e.client(version).Create(ctx, e.object(t, version, "probe", fmt.Sprintf(`{%q:"1"}`, field)), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				return false, nil
			}
			_, found, _ := unstructured.NestedFieldNoCopy(out.Object, "spec", field)
			return found == enabled, nil
		})
		if err != nil {
			t.Fatalf("%s did not pick up PortGate enabled=%t in %s", e.crd.Name, enabled, version)
		}
	}
	e.warnings.Take()
}

// storedSpec reads an object's spec and apiVersion from etcd, with the port under the v2
// name whatever the storage version, so that objects stored in either version compare.
func (e *portsEnv) storedSpec(t *testing.T, name string) (apiVersion string, spec map[string]interface{}) {
	t.Helper()
	stored := e.stored(t, e.crd, name)
	if stored == nil {
		return "", nil
	}
	u := &unstructured.Unstructured{Object: stored}
	apiVersion = u.GetAPIVersion()
	if err := featuregatetest.ConvertPorts(u, e.crd.Spec.Group+"/v2"); err != nil {
		t.Fatal(err)
	}
	spec, _ = u.Object["spec"].(map[string]interface{})
	return apiVersion, spec
}

// outcome is what a write did: its error (or "") and warnings, the spec of the response (in
// the version sent), the generation, and the spec in etcd with the port under its v2 name.
type outcome struct {
	Err        string
	Warnings   []string
	Response   map[string]interface{}
	Generation int64
	Stored     map[string]interface{}
}

// write creates (old == "") or updates the object name in version with spec.
func (e *portsEnv) write(t *testing.T, version, name, spec string, create bool) outcome {
	t.Helper()
	obj := e.object(t, version, name, spec)
	var out *unstructured.Unstructured
	var err error
	if create {
		out, err = e.client(version).Create(context.Background(), obj, metav1.CreateOptions{})
	} else {
		cur, getErr := e.client(version).Get(context.Background(), name, metav1.GetOptions{})
		if getErr != nil {
			t.Fatal(getErr)
		}
		obj.SetResourceVersion(cur.GetResourceVersion())
		out, err = e.client(version).Update(context.Background(), obj, metav1.UpdateOptions{})
	}
	o := outcome{Warnings: e.warnings.Take()}
	if err != nil {
		o.Err = err.Error()
	} else {
		o.Response, _ = out.Object["spec"].(map[string]interface{})
		o.Generation = out.GetGeneration()
	}
	_, o.Stored = e.storedSpec(t, name)
	return o
}

func startPortsEnv(t *testing.T, env *gatesEnv, group, storage string, webhook *apiextensionsv1.WebhookClientConfig) *portsEnv {
	t.Helper()
	e := &portsEnv{gatesEnv: env}
	e.crd = env.createCRD(t, featuregatetest.PortsCRD(group, storage, webhook))
	// createCRD waits for the storage version only; wait for v2 to be served too.
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := e.client("v2").List(ctx, metav1.ListOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	return e
}

// portsScenario is the same sequence of writes, each named after its step with suffix: the
// gating decisions of one storage version, to compare with the other's.
func portsScenario(t *testing.T, e *portsEnv, suffix string) map[string]outcome {
	t.Helper()
	got := map[string]outcome{}
	e.setPortGate(t, false)
	got["v1 create, gate off"] = e.write(t, "v1", "off-v1"+suffix, `{"host":"a","hostPort":"80"}`, true)
	got["v2 create, gate off"] = e.write(t, "v2", "off-v2"+suffix, `{"host":"a","port":"80"}`, true)
	e.setPortGate(t, true)
	got["v1 create, gate on"] = e.write(t, "v1", "on-v1"+suffix, `{"host":"a","hostPort":"81"}`, true)
	got["v2 create, gate on"] = e.write(t, "v2", "on-v2"+suffix, `{"host":"a","port":"82"}`, true)
	e.setPortGate(t, false)
	got["v2 update of a v1 object, gate off"] = e.write(t, "v2", "on-v1"+suffix, `{"host":"b","port":"99"}`, false)
	got["v1 update of a v2 object removing the port, gate off"] = e.write(t, "v1", "on-v2"+suffix, `{"host":"b"}`, false)
	got["v1 update that only changes the port, gate off"] = e.write(t, "v1", "on-v1"+suffix, `{"host":"b","hostPort":"98"}`, false)
	e.setPortGate(t, true)
	got["v1 update, gate on"] = e.write(t, "v1", "on-v2"+suffix, `{"host":"c","hostPort":"83"}`, false)
	got["v2 update, gate on"] = e.write(t, "v2", "off-v1"+suffix, `{"host":"c","port":"84"}`, false)
	return got
}

// TestFieldGateMarksStorageVersionSwitch is the test sttts' review of KEP-2608 asks for: a
// CRD whose gated field is hostPort in v1 and port in v2, marked in each version's schema,
// with no fieldPaths and a conversion webhook that renames it. Writes in both versions, with
// the gate off and on, are checked in etcd; then the storage version moves from v1 to v2 and
// every object is migrated, without touching the gates: every object keeps its values, and
// the same writes get the same decisions.
func TestFieldGateMarksStorageVersionSwitch(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	e := startPortsEnv(t, env, "marks.example.com", "v1", portsWebhook(t))

	before := portsScenario(t, e, "-a")
	off := func(name string) string {
		return name + " was dropped: feature gate PortGate (alpha) is disabled"
	}
	kept := func(name string) string {
		return name + " was not updated: feature gate PortGate (alpha) is disabled; the stored value was kept"
	}
	m := func(kv ...string) map[string]interface{} {
		out := map[string]interface{}{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	want := map[string]outcome{
		"v1 create, gate off": {Warnings: []string{off(".spec.hostPort")}, Response: m("host", "a"), Generation: 1, Stored: m("host", "a")},
		"v2 create, gate off": {Warnings: []string{off(".spec.port")}, Response: m("host", "a"), Generation: 1, Stored: m("host", "a")},
		"v1 create, gate on":  {Response: m("host", "a", "hostPort", "81"), Generation: 1, Stored: m("host", "a", "port", "81")},
		"v2 create, gate on":  {Response: m("host", "a", "port", "82"), Generation: 1, Stored: m("host", "a", "port", "82")},
		"v2 update of a v1 object, gate off": {Warnings: []string{kept(".spec.port")},
			Response: m("host", "b", "port", "81"), Generation: 2, Stored: m("host", "b", "port", "81")},
		"v1 update of a v2 object removing the port, gate off": {Warnings: []string{kept(".spec.hostPort")},
			Response: m("host", "b", "hostPort", "82"), Generation: 2, Stored: m("host", "b", "port", "82")},
		// Only a gated value changed: nothing is applied, and the generation stays.
		"v1 update that only changes the port, gate off": {Warnings: []string{kept(".spec.hostPort")},
			Response: m("host", "b", "hostPort", "81"), Generation: 2, Stored: m("host", "b", "port", "81")},
		"v1 update, gate on": {Response: m("host", "c", "hostPort", "83"), Generation: 3, Stored: m("host", "c", "port", "83")},
		"v2 update, gate on": {Response: m("host", "c", "port", "84"), Generation: 2, Stored: m("host", "c", "port", "84")},
	}
	if diff := cmp.Diff(want, before); diff != "" {
		t.Fatalf("storage version v1 (-want +got):\n%s", diff)
	}
	for _, name := range []string{"off-v1-a", "on-v1-a"} {
		if apiVersion, _ := e.storedSpec(t, name); apiVersion != "marks.example.com/v1" {
			t.Errorf("%s is stored as %s, want marks.example.com/v1", name, apiVersion)
		}
	}

	// Switch the storage version to v2. The gates are not touched.
	crd, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), e.crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gatesBefore := crd.Spec.CustomFeatureGates.DeepCopy()
	crd.Spec.Versions[0].Storage, crd.Spec.Versions[1].Storage = false, true
	if crd, err = e.apiext.ApiextensionsV1().CustomResourceDefinitions().Update(context.Background(), crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gatesBefore, crd.Spec.CustomFeatureGates); diff != "" {
		t.Fatalf("the storage version switch changed the gates (-before +after):\n%s", diff)
	}
	e.crd = crd
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		name := fmt.Sprintf("switch-%d", time.Now().UnixNano())
		if _, err := e.client("v1").Create(ctx, e.object(t, "v1", name, `{"host":"x"}`), metav1.CreateOptions{}); err != nil {
			return false, nil
		}
		apiVersion, _ := e.storedSpec(t, name)
		return apiVersion == "marks.example.com/v2", e.client("v1").Delete(ctx, name, metav1.DeleteOptions{})
	}); err != nil {
		t.Fatalf("the server did not switch the storage version to v2: %v", err)
	}
	e.warnings.Take()

	// Migrate every object, as the storage version migrator does: read it, write it back.
	list, err := e.client("v2").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	storedBefore := map[string]map[string]interface{}{}
	for _, item := range list.Items {
		_, storedBefore[item.GetName()] = e.storedSpec(t, item.GetName())
		if _, err := e.client("v2").Update(context.Background(), &item, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("migrating %s: %v", item.GetName(), err)
		}
	}
	if len(storedBefore) != 4 {
		t.Fatalf("migrated %d objects, want 4", len(storedBefore))
	}
	for name, spec := range storedBefore {
		apiVersion, after := e.storedSpec(t, name)
		if apiVersion != "marks.example.com/v2" {
			t.Errorf("%s is stored as %s after the migration, want marks.example.com/v2", name, apiVersion)
		}
		if diff := cmp.Diff(spec, after); diff != "" {
			t.Errorf("%s changed in the migration (-before +after):\n%s", name, diff)
		}
	}
	if w := e.warnings.Take(); len(w) != 0 {
		t.Errorf("the migration drew warnings: %q", w)
	}

	// The same writes, with storage version v2, get the same decisions.
	after := portsScenario(t, e, "-b")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("decisions with storage version v2 differ from those with v1 (-v1 +v2):\n%s", diff)
	}
}

// TestFieldGateMarksProperty: random objects, sent in either version with random gate
// states, give the same admission result, warnings, response and stored object (up to the
// port's name) whichever version is the storage one. Two CRDs that differ only in their
// group and storage version take the same writes. The seed is logged; a failure names it.
func TestFieldGateMarksProperty(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	webhook := portsWebhook(t)
	a := startPortsEnv(t, env, "v1stored.example.com", "v1", webhook)
	b := startPortsEnv(t, env, "v2stored.example.com", "v2", webhook)

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	const objects, rounds = 12, 4
	randomSpec := func(version string) string {
		spec := map[string]interface{}{}
		if v := []string{"", "a", "b"}[r.Intn(3)]; v != "" {
			spec["host"] = v
		}
		if v := []string{"", "80", "81"}[r.Intn(3)]; v != "" {
			spec[featuregatetest.PortField(version)] = v
		}
		if n := r.Intn(3); n > 0 {
			spec["tags"] = []interface{}{"x", "y"}[:n]
		}
		raw, _ := json.Marshal(spec)
		return string(raw)
	}
	exists := map[string]bool{}
	var steps []string
	for round := 0; round < rounds; round++ {
		enabled := r.Intn(2) == 0
		a.setPortGate(t, enabled)
		b.setPortGate(t, enabled)
		for i := 0; i < objects; i++ {
			name := fmt.Sprintf("p%d", r.Intn(objects))
			version := []string{"v1", "v2"}[r.Intn(2)]
			spec := randomSpec(version)
			step := fmt.Sprintf("round %d (PortGate enabled=%t): %s %s in %s with spec %s", round, enabled, map[bool]string{true: "update", false: "create"}[exists[name]], name, version, spec)
			steps = append(steps, step)
			create := !exists[name]
			exists[name] = true
			got := [2]outcome{a.write(t, version, name, spec, create), b.write(t, version, name, spec, create)}
			// Errors name the group; nothing else in an outcome does.
			got[1].Err = strings.ReplaceAll(got[1].Err, "v2stored", "v1stored")
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Fatalf("seed %d, %s: storage version v1 and v2 disagree (-v1 +v2):\n%s\nsteps so far:\n%s", seed, step, diff, strings.Join(steps, "\n"))
			}
			if got[0].Err != "" {
				t.Fatalf("seed %d, %s: %s", seed, step, got[0].Err)
			}
		}
	}
	names := make([]string, 0, len(exists))
	for name := range exists {
		names = append(names, name)
	}
	sort.Strings(names)
	t.Logf("%d writes to %d objects agree", rounds*objects, len(names))
}
