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
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"sigs.k8s.io/yaml"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/featuregatetest/writemodel"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// writesCRD is the CRD of the write fuzzer: the crontab with writemodel.CRDSchemaYAML as its
// spec, and writemodel.Gates, every one alpha and enabled.
func writesCRD(t *testing.T, plural string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var gates []apiextensionsv1.CustomResourceDefinitionFeatureGate
	for _, g := range writemodel.Gates {
		gate := featuregatetest.Gate(g.Name, "alpha", g.Path)
		gate.Enabled = ptr.To(true)
		gates = append(gates, gate)
	}
	crd := featuregatetest.CronTabCRD(plural, gates...)
	var schema apiextensionsv1.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(writemodel.CRDSchemaYAML), &schema); err != nil {
		t.Fatal(err)
	}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = schema.Properties["spec"]
	crd.Spec.Versions[0].Subresources.Scale = nil
	// A second version of the same shape (conversion None): writes sent in it are gated in
	// it, then in the storage version v1.
	v2 := *crd.Spec.Versions[0].DeepCopy()
	v2.Name, v2.Storage = "v2", false
	// A third version (prunedVersion) without a gated field, .spec.ports[*].hostPort, and
	// without the map above one, .spec.limits: reading through it prunes the stored values,
	// and writes through it cannot send any. While the gate is off, the stored values are
	// kept (the map as stored, items and all), and while it is on, a write through v3 erases
	// them, as upstream's pruning does (docs/reference/semantics.md).
	v3 := *crd.Spec.Versions[0].DeepCopy()
	v3.Name, v3.Storage = prunedVersion, false
	delete(v3.Schema.OpenAPIV3Schema.Properties["spec"].Properties["ports"].Items.Schema.Properties, "hostPort")
	delete(v3.Schema.OpenAPIV3Schema.Properties["spec"].Properties, "limits")
	// v3 also defaults .spec.steps[*].mode, which the storage version does not, and lacks a
	// gated field of the steps, writemodel.LackedStepField: writes through v3 get the default
	// in every item and cannot send that field, the stored items have them or not, and the
	// rule tells them apart as v3 decodes them.
	steps := v3.Schema.OpenAPIV3Schema.Properties["spec"].Properties["steps"]
	mode := steps.Items.Schema.Properties["mode"]
	mode.Default = &apiextensionsv1.JSON{Raw: []byte(strconv.Quote(writemodel.DefaultMode))}
	steps.Items.Schema.Properties["mode"] = mode
	delete(steps.Items.Schema.Properties, writemodel.LackedStepField)
	crd.Spec.Versions = append(crd.Spec.Versions, v2, v3)
	return crd
}

// prunedVersion is the fuzzed CRD's version whose schema lacks .spec.ports[*].hostPort,
// .spec.limits and the steps' writemodel.LackedStepField, and defaults .spec.steps[*].mode.
const prunedVersion = "v3"

// versionClient is the client of the fuzzed CRD's objects in version (v1, v2 or v3).
func (e *gatesEnv) versionClient(crd *apiextensionsv1.CustomResourceDefinition, version string) dynamic.ResourceInterface {
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}
	return e.dynamic.Resource(gvr).Namespace(gatesTestNamespace)
}

// fuzzWrites is the number of writes of TestFieldGatesWritesAgainstModel: FUZZ_WRITES, or
// 300 (make test); make fuzz-writes FUZZ_WRITES=100000 runs more. FUZZ_SEED picks the seed.
func fuzzWrites(t *testing.T) (int, int64) {
	n, seed := 300, time.Now().UnixNano()%100000
	if v := os.Getenv("FUZZ_WRITES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("FUZZ_WRITES=%q is not a positive number", v)
		}
	}
	if v := os.Getenv("FUZZ_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("FUZZ_SEED=%q is not a number", v)
		}
	}
	return n, seed
}

// TestFieldGatesWritesAgainstModel is the model-based fuzzer on the real server and etcd:
// objects are written with every gate on, then random gates are turned off, and random
// writes of every family (writemodel.Families, plus creates and JSON patch move and copy)
// are sent as PUT, merge patch or JSON patch, through any of the three versions, some as dry-run. Each write must store what the
// reference model (test/featuregatetest/writemodel, written from the semantics page) says,
// read back from etcd, or be refused with 422 and change nothing where the model refuses
// it, and only there. A failure prints FUZZ_SEED to reproduce it.
func TestFieldGatesWritesAgainstModel(t *testing.T) {
	writes, seed := fuzzWrites(t)
	t.Logf("FUZZ_WRITES=%d FUZZ_SEED=%d", writes, seed)
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := env.createCRD(t, writesCRD(t, "fuzzwrites"))
	r := rand.New(rand.NewSource(seed))
	g := &writemodel.Gen{R: r}
	const objects, perRound = 4, 40

	type tally struct{ writes, refused int }
	families := map[string]*tally{}
	count := func(f string, refused bool) {
		if families[f] == nil {
			families[f] = &tally{}
		}
		families[f].writes++
		if refused {
			families[f].refused++
		}
	}
	var failures map[string]int
	if os.Getenv("FUZZ_KEEP_GOING") == "1" {
		failures = map[string]int{}
	}
	// tallies logs the writes per family so far, and the failures by kind and family.
	tallies := func() {
		var names []string
		for f := range families {
			names = append(names, f)
		}
		sort.Strings(names)
		for _, f := range names {
			t.Logf("%-14s %5d writes, %4d refused where the model refuses them", f, families[f].writes, families[f].refused)
		}
		var keys []string
		for k := range failures {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%-30s %d", k, failures[k])
		}
	}
	start := time.Now()
	done := 0
	for round := 0; done < writes; round++ {
		// A long run reports its figures on the way, so a run stopped early still has them.
		if done > 0 && done%10000 < perRound && writes > 10000 {
			t.Logf("after %d writes (%s), FUZZ_SEED=%d:", done, time.Since(start).Round(time.Second), seed)
			tallies()
		}
		// Every gate on: store values at every gated field.
		env.setGates(t, crd, map[string]bool{})
		for i := 0; i < objects; i++ {
			env.putSpec(t, crd, fmt.Sprintf("o%d", i), g.Spec())
		}
		off := map[string]bool{}
		for _, gate := range writemodel.Gates {
			off[gate.Name] = r.Intn(2) == 0
		}
		env.setGates(t, crd, off)
		model := writemodel.SchemaFor(off)
		for w := 0; w < perRound && done < writes; w++ {
			done++
			name := fmt.Sprintf("o%d", r.Intn(objects))
			c := fuzzCase{seed: seed, write: done, off: off, name: name, failures: failures}
			if r.Intn(20) == 0 {
				c.family, c.verb = "create", "POST"
				spec, _ := g.Write(g.Spec(), "")
				c.name = fmt.Sprintf("new%d", done)
				c.sent = decoded(map[string]interface{}{"spec": spec}, "v1", nil, nil)
				c.want, c.refused = model.Expect(nil, c.sent)
				env.fuzzCreate(t, crd, &c)
				count(c.family, c.refused)
				continue
			}
			stored, err := env.client(crd).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c.stored = map[string]interface{}{"spec": stored.Object["spec"]}
			storedSpec, _ := stored.Object["spec"].(map[string]interface{})
			if storedSpec == nil {
				storedSpec = map[string]interface{}{}
			}
			env.fuzzUpdate(t, crd, r, g, stored, storedSpec, &c)
			c.sent = decoded(c.sent, c.version, storedSpec, off)
			in := model
			if c.version == prunedVersion {
				in.ItemDefaults = map[string]map[string]interface{}{".spec.steps": {"mode": writemodel.DefaultMode}}
				in.ItemLacks = map[string][]string{".spec.steps": {writemodel.LackedStepField}}
			}
			c.want, c.refused = in.Expect(c.stored, c.sent)
			env.fuzzCheck(t, crd, stored, &c)
			count(c.family, c.refused)
		}
	}
	tallies()
	if len(failures) > 0 {
		t.Fatalf("%d writes: failures above (FUZZ_SEED=%d)", done, seed)
	}
	t.Logf("%d writes, 0 wrong results, 0 needless refusals", done)
}

type fuzzCase struct {
	seed         int64
	write        int
	off          map[string]bool
	name         string
	family, verb string
	version      string
	dryRun       bool
	patch        string
	stored, sent map[string]interface{}
	want         map[string]interface{}
	refused      bool
	got          map[string]interface{}
	err          error
	// failures counts the failures by kind and family when the run keeps going
	// (FUZZ_KEEP_GOING=1); nil stops at the first one.
	failures map[string]int
}

// fail reports a failure of kind ("wrong result", "needless refusal"): it stops the test, or,
// with FUZZ_KEEP_GOING=1, counts it by family and logs the first three of each.
func (c *fuzzCase) fail(t *testing.T, kind, what string) {
	t.Helper()
	if c.failures == nil {
		t.Fatalf("%s:\n%s", what, c)
	}
	key := kind + ": " + c.family
	c.failures[key]++
	if c.failures[key] <= 3 {
		t.Errorf("%s:\n%s", what, c)
	}
}

func (c *fuzzCase) String() string {
	j := func(v interface{}) string { b, _ := json.Marshal(v); return string(b) }
	var off []string
	for g, o := range c.off {
		if o {
			off = append(off, g)
		}
	}
	sort.Strings(off)
	return fmt.Sprintf("FUZZ_SEED=%d, write %d (%s, %s in %s, dry-run %t) of %s, gates off %v\nstored: %s\npatch:  %s\nsent:   %s\nmodel:  %s (refused %t)\ngot:    %s\nerror:  %v",
		c.seed, c.write, c.family, c.verb, c.version, c.dryRun, c.name, off, j(c.stored), c.patch, j(c.sent), j(c.want), c.refused, j(c.got), c.err)
}

// setGates sets every gate of writemodel.Gates to on unless off says so, and waits until the
// server gates by the new states: a dry-run create with a value at every gated field keeps
// exactly the fields of the gates that are on.
func (e *gatesEnv) setGates(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, off map[string]bool) {
	t.Helper()
	var ops []string
	for i, g := range writemodel.Gates {
		ops = append(ops, fmt.Sprintf(`{"op":"test","path":"/spec/customFeatureGates/featureGates/%d/name","value":%q},{"op":"replace","path":"/spec/customFeatureGates/featureGates/%d/enabled","value":%t}`, i, g.Name, i, !off[g.Name]))
	}
	if _, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.JSONPatchType, []byte("["+strings.Join(ops, ",")+"]"), metav1.PatchOptions{}); err != nil {
		t.Fatalf("setting the gates of %s: %v", crd.Name, err)
	}
	probe := map[string]interface{}{
		"steps": []interface{}{map[string]interface{}{"name": "p", "retry": int64(1), "note": "p", "labels": []interface{}{"p"},
			"vars": []interface{}{map[string]interface{}{"name": "p", "secret": "p"}}, "sub": []interface{}{map[string]interface{}{"w": int64(1)}}}},
		"ports":  []interface{}{map[string]interface{}{"name": "p", "hostPort": int64(1)}},
		"limits": map[string]interface{}{"p": map[string]interface{}{"max": int64(1)}},
		"tags":   []interface{}{"p"},
		"extra":  map[string]interface{}{"p": "p"},
		"config": map[string]interface{}{"secret": "p"},
		"backup": map[string]interface{}{"size": "p", "encryption": "p"},
	}
	model := writemodel.SchemaFor(off)
	want, _ := model.Expect(nil, map[string]interface{}{"spec": probe})
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		obj := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]interface{}{"name": "probe"}, "spec": probe}}
		out, err := e.client(crd).Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, nil
		}
		return writemodel.Equal(out.Object["spec"], want["spec"]), nil
	})
	if err != nil {
		t.Fatalf("the server did not pick up the gate states %v of %s: %v", off, crd.Name, err)
	}
	e.warnings.Take()
}

// putSpec creates or replaces the object name with spec.
func (e *gatesEnv) putSpec(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name string, spec map[string]interface{}) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]interface{}{"name": name}, "spec": spec}}
	if cur, err := e.client(crd).Get(context.Background(), name, metav1.GetOptions{}); err == nil {
		obj.SetResourceVersion(cur.GetResourceVersion())
		if _, err := e.client(crd).Update(context.Background(), obj, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("replacing %s: %v", name, err)
		}
	} else if _, err := e.client(crd).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	e.warnings.Take()
}

func (e *gatesEnv) fuzzCreate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, c *fuzzCase) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]interface{}{"name": c.name}, "spec": c.sent["spec"]}}
	_, c.err = e.client(crd).Create(context.Background(), obj, metav1.CreateOptions{})
	e.warnings.Take()
	stored := e.stored(t, crd, c.name)
	if stored != nil {
		c.got = map[string]interface{}{"spec": stored["spec"]}
	}
	switch {
	case c.refused && c.err == nil, c.refused && !apierrors.IsInvalid(c.err):
		c.fail(t, "wrong result", fmt.Sprintf("the model refuses the write, the server answered %v", c.err))
	case c.refused && stored != nil:
		c.fail(t, "wrong result", "a refused create stored an object")
	case c.refused:
	case c.err != nil:
		c.fail(t, "needless refusal", "the server refused a write the model accepts")
	case !writemodel.Equal(c.got["spec"], c.want["spec"]):
		c.fail(t, "wrong result", "the server stored something other than the model")
	}
	if err := e.client(crd).Delete(context.Background(), c.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// fuzzUpdate sends a write made from the stored object (as read) as PUT, merge patch or JSON
// patch, and records in c what the server received: the object after the patch.
func (e *gatesEnv) fuzzUpdate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, r *rand.Rand, g *writemodel.Gen, stored *unstructured.Unstructured, storedSpec map[string]interface{}, c *fuzzCase) {
	t.Helper()
	ctx := context.Background()
	c.dryRun = r.Intn(10) == 0
	switch r.Intn(4) {
	case 0:
		c.version = "v2"
	case 1:
		c.version = prunedVersion
	default:
		c.version = "v1"
	}
	client := e.versionClient(crd, c.version)
	var dry []string
	if c.dryRun {
		dry = []string{metav1.DryRunAll}
	}
	storedJSON, err := json.Marshal(map[string]interface{}{"spec": storedSpec})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(pt types.PatchType, patch []byte) {
		c.patch = string(patch)
		var effective []byte
		if pt == types.MergePatchType {
			effective, err = jsonpatch.MergePatch(storedJSON, patch)
		} else {
			var p jsonpatch.Patch
			if p, err = jsonpatch.DecodePatch(patch); err == nil {
				effective, err = p.Apply(storedJSON)
			}
		}
		if err != nil {
			t.Fatalf("the fuzzer's own patch does not apply: %v\n%s", err, c)
		}
		c.sent = map[string]interface{}{}
		if err := json.Unmarshal(effective, &c.sent); err != nil {
			t.Fatal(err)
		}
		_, c.err = client.Patch(ctx, c.name, pt, patch, metav1.PatchOptions{DryRun: dry})
	}
	// JSON patch's own move and copy of a list item.
	if steps, ok := storedSpec["steps"].([]interface{}); ok && len(steps) > 1 && r.Intn(8) == 0 {
		from, to := r.Intn(len(steps)), r.Intn(len(steps))
		op := "move"
		if r.Intn(2) == 0 {
			op = "copy"
		}
		c.family, c.verb = "json-"+op, "JSON patch"
		apply(types.JSONPatchType, []byte(fmt.Sprintf(`[{"op":%q,"from":"/spec/steps/%d","path":"/spec/steps/%d"}]`, op, from, to)))
		return
	}
	spec, family := g.Write(storedSpec, "")
	c.family = family
	sentJSON, err := json.Marshal(map[string]interface{}{"spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	switch r.Intn(3) {
	case 0:
		c.verb = "PUT"
		c.sent = map[string]interface{}{"spec": spec}
		c.patch = string(sentJSON)
		obj := stored.DeepCopy()
		obj.Object["spec"] = spec
		obj.SetAPIVersion("stable.example.com/" + c.version)
		_, c.err = client.Update(ctx, obj, metav1.UpdateOptions{DryRun: dry})
	case 1:
		c.verb = "merge patch"
		patch, err := jsonpatch.CreateMergePatch(storedJSON, sentJSON)
		if err != nil {
			t.Fatal(err)
		}
		apply(types.MergePatchType, patch)
	default:
		c.verb = "JSON patch"
		value, _ := json.Marshal(spec)
		apply(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec","value":`+string(value)+`}]`))
	}
}

// fuzzCheck compares what the server did with the model: the stored object read back from
// etcd, the resourceVersion where the write was refused or a dry-run.
func (e *gatesEnv) fuzzCheck(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, before *unstructured.Unstructured, c *fuzzCase) {
	t.Helper()
	e.warnings.Take()
	after := e.stored(t, crd, c.name)
	c.got = map[string]interface{}{"spec": after["spec"]}
	unchanged := writemodel.Equal(after["spec"], before.Object["spec"])
	switch {
	case c.refused && c.err == nil, c.refused && !apierrors.IsInvalid(c.err):
		c.fail(t, "wrong result", fmt.Sprintf("the model refuses the write, the server answered %v", c.err))
	case c.refused && !unchanged:
		c.fail(t, "wrong result", "a refused write changed the stored object")
	case c.refused:
	case c.err != nil:
		c.fail(t, "needless refusal", "the server refused a write the model accepts")
	case c.dryRun && !unchanged:
		c.fail(t, "wrong result", "a dry-run changed the stored object")
	case c.dryRun:
	case !writemodel.Equal(c.got["spec"], c.want["spec"]):
		c.fail(t, "wrong result", "the server stored something other than the model")
	}
}

// decoded is the object as the server decodes it in version: a null at a field that is not
// nullable and has no default is pruned (every field of the fuzzed spec but backup), and so
// are, in prunedVersion, every port's hostPort, every step's writemodel.LackedStepField and
// .spec.limits, where every step without a mode gets writemodel.DefaultMode. What the model gates in the
// storage version then follows the rule for a map the client's version lacks: while MaxGate
// is off (in off) and the stored map (in stored, the stored spec) holds a max, the write
// leaves it as stored.
func decoded(obj map[string]interface{}, version string, stored map[string]interface{}, off map[string]bool) map[string]interface{} {
	spec, ok := obj["spec"].(map[string]interface{})
	if !ok {
		return obj
	}
	for k, v := range spec {
		if v == nil && k != "backup" {
			delete(spec, k)
		}
	}
	if version != prunedVersion {
		return obj
	}
	if steps, ok := spec["steps"].([]interface{}); ok {
		for _, s := range steps {
			if step, ok := s.(map[string]interface{}); ok {
				if step["mode"] == nil {
					step["mode"] = writemodel.DefaultMode
				}
				delete(step, writemodel.LackedStepField)
			}
		}
	}
	if ports, ok := spec["ports"].([]interface{}); ok {
		for _, p := range ports {
			if port, ok := p.(map[string]interface{}); ok {
				delete(port, "hostPort")
			}
		}
	}
	delete(spec, "limits")
	if limits, ok := stored["limits"].(map[string]interface{}); ok && off["MaxGate"] {
		for _, v := range limits {
			if item, ok := v.(map[string]interface{}); ok && item["max"] != nil {
				spec["limits"] = runtime.DeepCopyJSONValue(limits)
				break
			}
		}
	}
	return obj
}
