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

package stockpolicies

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/featuregatetest/writemodel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The differential fuzzer on both real backends: the write fuzzer's CRD (writemodel) on our
// server and on stock + featuregate-gen policies, the same random writes to both, and every
// result compared. BOTH_BACKENDS_WRITES sets the number of writes (default 120, make test);
// BOTH_BACKENDS_SEED the seed, which a failure prints.

var fuzzCRD = &crdInfo{name: "fuzzes.stable.example.com", group: "stable.example.com", version: "v1", resource: "fuzzes", kind: "Fuzz"}

// fuzzCRDObject is the write fuzzer's CRD as the integration test builds it, in version v1
// only, every gate alpha and enabled.
func fuzzCRDObject(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var gates []apiextensionsv1.CustomResourceDefinitionFeatureGate
	for _, g := range writemodel.Gates {
		gate := featuregatetest.Gate(g.Name, "alpha", g.Path)
		gate.Enabled = ptr.To(true)
		gates = append(gates, gate)
	}
	crd := featuregatetest.CronTabCRD(fuzzCRD.resource, gates...)
	var schema apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(writemodel.CRDSchemaYAML), &schema); err != nil {
		t.Fatal(err)
	}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = schema.Properties["spec"]
	crd.Spec.Versions[0].Subresources.Scale = nil
	// A kind of its own: the group has the CronTab of examples/ already.
	crd.Spec.Names.Kind, crd.Spec.Names.ListKind, crd.Spec.Names.Singular = fuzzCRD.kind, fuzzCRD.kind+"List", "fuzz"
	crd.TypeMeta.APIVersion, crd.TypeMeta.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	return crd
}

func envInt(t *testing.T, name string, def int64) int64 {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q is not a number", name, v)
	}
	return n
}

// TestWritesOnBothBackends: objects are created on both backends with every gate on, every
// gate is turned off, and random writes of every family of the model-based fuzzer are sent
// as PUT to both. Each pair of results must be the same (the same answer, and the same
// stored spec), and each must be what the reference model gives; the one declared
// difference is the policies' older rule of list items (docs/guides/stock-clusters.md): inside
// .spec.steps, the list without keys whose items hold gated fields, stock may pair items
// otherwise, or refuse or accept where ours does not.
func TestWritesOnBothBackends(t *testing.T) {
	installed(t)
	ours, stock := backendByName(t, backendOurs), backendByName(t, backendStock)
	writes := int(envInt(t, "BOTH_BACKENDS_WRITES", 120))
	seed := envInt(t, "BOTH_BACKENDS_SEED", time.Now().UnixNano()%100000)
	t.Logf("seed %d (BOTH_BACKENDS_SEED=%d reproduces this run), %d writes", seed, seed, writes)
	r := rand.New(rand.NewSource(seed))
	g := &writemodel.Gen{R: r}

	// Install: the gated CRD on ours; on stock, the generated policies, then the stock CRD.
	crd := fuzzCRDObject(t)
	raw, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	gen := generate(t, crd.Name, raw)
	gen.installOnStock(t, stock)
	if _, err := ours.mustKubectl("", "apply", "--server-side", "-f", gen.in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ours.kubectl("", "delete", "--ignore-not-found", "-f", gen.in) })
	backends := []*backend{ours, stock}
	allOff := map[string]bool{}
	for _, g := range writemodel.Gates {
		allOff[g.Name] = true
	}
	model := writemodel.SchemaFor(allOff)
	// Rounds: every gate on, objects with every field created alike on both backends, every
	// gate off, then writes to those objects until the round's budget is spent or every
	// object differs between the backends (as declared).
	const objects, perRound = 12, 150
	var specs []map[string]interface{}
	var names []string
	var live []bool
	same, refusedBoth, declared, sent, rounds := 0, 0, 0, 0, 0
	families := map[string]int{}
	for n, inRound := 0, perRound; n < writes; n++ {
		if inRound == perRound || !anyTrue(live) {
			rounds++
			inRound = 0
			for _, b := range backends {
				setFuzzGates(t, b, true)
			}
			waitForModel(t, backends, true, g)
			specs, names, live = make([]map[string]interface{}, objects), make([]string, objects), make([]bool, objects)
			for i := range specs {
				spec := g.Spec()
				names[i], live[i] = fmt.Sprintf("fuzz-%d-%d", rounds, i), true
				for _, b := range backends {
					a := b.request(http.MethodPost, objectPath(fuzzCRD, "default", "", ""), nil, "application/json", fuzzObject(names[i], spec))
					if a.code != http.StatusCreated {
						t.Fatalf("%s: create %s: HTTP %d: %s", b.name, names[i], a.code, a.body)
					}
				}
				specs[i] = storedSpec(t, ours, names[i])
			}
			for _, b := range backends {
				setFuzzGates(t, b, false)
			}
			waitForModel(t, backends, false, g)
		}
		inRound++
		var pool []int
		for k, ok := range live {
			if ok {
				pool = append(pool, k)
			}
		}
		i := pool[r.Intn(len(pool))]
		sent++
		name := names[i]
		write, family := g.Write(specs[i], "")
		families[family]++
		want, refuse := model.Expect(map[string]interface{}{"spec": specs[i]}, map[string]interface{}{"spec": write})
		var codes [2]int
		var bodies [2]string
		var got [2]map[string]interface{}
		for k, b := range backends {
			cur := b.request(http.MethodGet, objectPath(fuzzCRD, "default", name, ""), nil, "", nil)
			rv, _, _ := unstructured.NestedString(cur.obj, "metadata", "resourceVersion")
			a := b.request(http.MethodPut, objectPath(fuzzCRD, "default", name, ""), nil, "application/json", fuzzObjectAt(name, rv, write))
			codes[k], bodies[k] = a.code, string(a.body)
			got[k] = storedSpec(t, b, name)
		}
		report := func(what string) string {
			return fmt.Sprintf("write %d (%s, seed %d): %s\nstored %s\nsent   %s\nmodel  %s (refuse %v)\nours   HTTP %d %s\nstock  HTTP %d %s",
				n, family, seed, what, jsonOf(specs[i]), jsonOf(write), jsonOf(want["spec"]), refuse, codes[0], jsonOf(got[0]), codes[1], jsonOf(got[1]))
		}
		oursOK, stockOK := codes[0] == http.StatusOK, codes[1] == http.StatusOK
		switch {
		case oursOK != !refuse || (oursOK && !writemodel.Equal(got[0], withoutNulls(want["spec"]))):
			t.Errorf("%s", report("our server differs from the reference model"))
		case !oursOK && !stockOK:
			refusedBoth++
			continue
		case oursOK == stockOK && writemodel.Equal(got[0], got[1]):
			same++
		case stepsOnly(model, specs[i], write, got, bodies, oursOK, stockOK):
			// The declared difference: the policies' older rule of list items.
			declared++
			live[i] = false // the backends now hold different objects
			continue
		default:
			t.Errorf("%s", report("the backends differ, and not as declared"))
			live[i] = false
			continue
		}
		if oursOK {
			specs[i] = got[0]
		}
	}
	keys := make([]string, 0, len(families))
	for f := range families {
		keys = append(keys, f)
	}
	sort.Strings(keys)
	var fam string
	for _, f := range keys {
		fam += fmt.Sprintf(" %s:%d", f, families[f])
	}
	t.Logf("%d rounds, %d writes sent: %d the same on both, %d refused by both, %d differ as declared (the policies' older rule of list items); families%s", rounds, sent, same, refusedBoth, declared, fam)
	if same+refusedBoth < sent/2 {
		t.Errorf("%d writes sent, %d of them alike on both: the run shows little", sent, same+refusedBoth)
	}
}

// withoutNulls is spec as the API server stores it: a null sent for a field that is not
// nullable (every field of .spec but backup) is dropped before the object is stored, which
// the model, written for gating alone, does not do.
func withoutNulls(spec interface{}) map[string]interface{} {
	m, _ := spec.(map[string]interface{})
	out := map[string]interface{}{}
	for k, v := range m {
		if v != nil || k == "backup" {
			out[k] = v
		}
	}
	return out
}

// stepsOnly reports whether the two backends' answers differ only in .spec.steps, the list
// without keys whose items hold gated fields, where the policies pair items by their older
// rule (the declared difference): both stored a result, equal but for steps; or one refused
// the write for its steps (the refusal names spec.steps) while the other stored what the
// model gives for the same write with the stored steps, but for steps.
func stepsOnly(model writemodel.Schema, stored, write map[string]interface{}, got [2]map[string]interface{}, bodies [2]string, oursOK, stockOK bool) bool {
	if oursOK && stockOK {
		return writemodel.Equal(copyWithout(got[0], "steps"), copyWithout(got[1], "steps"))
	}
	refusing, storing := 1, 0
	if stockOK {
		refusing, storing = 0, 1
	}
	if !strings.Contains(bodies[refusing], "spec.steps") {
		return false
	}
	same := copyWithout(write, "steps")
	if st, ok := stored["steps"]; ok {
		same["steps"] = st
	}
	want, refused := model.Expect(map[string]interface{}{"spec": stored}, map[string]interface{}{"spec": same})
	if refused {
		return false
	}
	return writemodel.Equal(copyWithout(got[storing], "steps"), copyWithout(withoutNulls(want["spec"]), "steps"))
}

func copyWithout(m map[string]interface{}, key string) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func fuzzObject(name string, spec map[string]interface{}) []byte {
	return fuzzObjectAt(name, "", spec)
}

// fuzzObjectAt is an object of the fuzzed CRD at resourceVersion rv (none when "").
func fuzzObjectAt(name, rv string, spec map[string]interface{}) []byte {
	meta := map[string]interface{}{"name": name, "namespace": "default"}
	if rv != "" {
		meta["resourceVersion"] = rv
	}
	b, _ := json.Marshal(map[string]interface{}{
		"apiVersion": fuzzCRD.group + "/" + fuzzCRD.version, "kind": fuzzCRD.kind,
		"metadata": meta,
		"spec":     spec,
	})
	return b
}

func jsonOf(v interface{}) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// storedSpec reads the object's spec from etcd.
func storedSpec(t *testing.T, b *backend, name string) map[string]interface{} {
	t.Helper()
	obj, err := b.etcdObject(fuzzCRD, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := obj["spec"].(map[string]interface{})
	return spec
}

// setFuzzGates sets every gate of the fuzzed CRD to on, with one guarded JSON patch of the
// object that holds the states on b.
func setFuzzGates(t *testing.T, b *backend, on bool) {
	t.Helper()
	resource, path := "customresourcedefinition", "/spec/customFeatureGates/featureGates"
	if b.name == backendStock {
		resource, path = "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io", "/spec/featureGates"
	}
	var ops []map[string]interface{}
	for i, g := range writemodel.Gates {
		p := fmt.Sprintf("%s/%d", path, i)
		ops = append(ops,
			map[string]interface{}{"op": "test", "path": p + "/name", "value": g.Name},
			map[string]interface{}{"op": "add", "path": p + "/enabled", "value": on})
	}
	patch, _ := json.Marshal(ops)
	if _, err := b.mustKubectl("", "patch", resource, fuzzCRD.name, "--type", "json", "-p", string(patch)); err != nil {
		t.Fatal(err)
	}
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// waitForModel waits until a dry-run create of a spec with every field stores, on every
// backend, what the model gives with every gate on (or every gate off).
func waitForModel(t *testing.T, backends []*backend, on bool, g *writemodel.Gen) {
	t.Helper()
	off := map[string]bool{}
	for _, gate := range writemodel.Gates {
		off[gate.Name] = !on
	}
	model := writemodel.SchemaFor(off)
	spec := g.Spec()
	want, _ := model.Expect(nil, map[string]interface{}{"spec": spec})
	for _, b := range backends {
		deadline := time.Now().Add(60 * time.Second)
		for {
			a := b.request(http.MethodPost, objectPath(fuzzCRD, "default", "", ""), map[string]string{"dryRun": "All"}, "application/json", fuzzObject("probe", spec))
			var obj map[string]interface{}
			_ = json.Unmarshal(a.body, &obj)
			if a.code == http.StatusCreated && writemodel.Equal(obj["spec"], want["spec"]) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the gates (all on: %v) are not in effect after 60s: HTTP %d %v %s\nwant %s", b.name, on, a.code, a.err, a.body, jsonOf(want["spec"]))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
