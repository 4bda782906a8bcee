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

package policies

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/generators/openshift"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

// httpRoute returns an HTTPRoute with rules rules, each with backends backendRefs of filters
// ExtensionRef filters each and filters rule filters, and a retry in each rule (a gated
// field).
func httpRoute(rules, backends, filters int) map[string]interface{} {
	filterList := func(prefix string) []interface{} {
		out := make([]interface{}, filters)
		for i := range out {
			out[i] = map[string]interface{}{"type": "ExtensionRef", "extensionRef": map[string]interface{}{
				"group": "example.com", "kind": "Filter", "name": fmt.Sprintf("%s-filter-%02d", prefix, i)}}
		}
		return out
	}
	rs := make([]interface{}, rules)
	for r := range rs {
		bs := make([]interface{}, backends)
		for b := range bs {
			bs[b] = map[string]interface{}{"name": fmt.Sprintf("backend-%02d-%02d", r, b), "port": int64(8080), "filters": filterList(fmt.Sprintf("b%02d-%02d", r, b))}
		}
		rs[r] = map[string]interface{}{
			"backendRefs": bs,
			"filters":     filterList(fmt.Sprintf("r%02d", r)),
			"retry":       map[string]interface{}{"attempts": int64(r + 1)},
		}
	}
	return map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]interface{}{"name": "big", "namespace": "default"},
		"spec":     map[string]interface{}{"parentRefs": []interface{}{map[string]interface{}{"name": "gw"}}, "rules": rs},
	}
}

// TestLargeHTTPRoute runs Gateway API's HTTPRoute policies, with the API server's own CEL
// cost limits (per expression and per policy), on large routes: a create, an update that
// changes only a label, and an update that edits one filter, each with every gate enabled
// and with every gate disabled. None may fail for its cost, and each must give the result
// our server gives: on create with the gates disabled the retries are dropped; on the
// updates the stored retries are kept.
func TestLargeHTTPRoute(t *testing.T) {
	data, err := os.ReadFile("../../../examples/gateway-api/crds/gateway.networking.k8s.io_httproutes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(mustCRD(t, string(data)))
	if err != nil {
		t.Fatal(err)
	}
	mutate := compileMutating(t, res.Mutating)
	validate := compileValidatingErr(t, res.Validating)
	var all []string
	for _, g := range res.Param.Spec.FeatureGates {
		all = append(all, g.Name)
	}
	// The stock server applies the stock CRD's defaults before admission.
	stock := structuralOf(t, res.CRD)
	for _, size := range [][3]int{{4, 16, 16}, {16, 16, 16}} {
		stored := httpRoute(size[0], size[1], size[2])
		structuraldefaulting.Default(stored, stock)
		js, _ := json.Marshal(stored)
		for _, on := range []bool{true, false} {
			param := withStates(res)
			if on {
				param = withStates(res, all...)
			}
			labelled := runtime.DeepCopyJSON(stored)
			labelled["metadata"].(map[string]interface{})["labels"] = map[string]interface{}{"touched": "yes"}
			edited := runtime.DeepCopyJSON(stored)
			rules := edited["spec"].(map[string]interface{})["rules"].([]interface{})
			last := rules[len(rules)-1].(map[string]interface{})["backendRefs"].([]interface{})
			last[len(last)-1].(map[string]interface{})["filters"].([]interface{})[0].(map[string]interface{})["extensionRef"].(map[string]interface{})["name"] = "edited"
			// Every filter renamed: no list is left as stored, every item is paired by content.
			renamed := runtime.DeepCopyJSON(stored)
			for _, r := range renamed["spec"].(map[string]interface{})["rules"].([]interface{}) {
				for _, b := range r.(map[string]interface{})["backendRefs"].([]interface{}) {
					for _, f := range b.(map[string]interface{})["filters"].([]interface{}) {
						ref := f.(map[string]interface{})["extensionRef"].(map[string]interface{})
						ref["name"] = ref["name"].(string) + "-renamed"
					}
				}
			}
			// The rules in reverse order, each unchanged: each stored retry moves with its rule.
			reversed := runtime.DeepCopyJSON(stored)
			rs := reversed["spec"].(map[string]interface{})["rules"].([]interface{})
			for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
				rs[i], rs[j] = rs[j], rs[i]
			}
			// Every list of filters in reverse order: every item is paired by content.
			shuffled := runtime.DeepCopyJSON(stored)
			for _, r := range shuffled["spec"].(map[string]interface{})["rules"].([]interface{}) {
				for _, b := range r.(map[string]interface{})["backendRefs"].([]interface{}) {
					fs := b.(map[string]interface{})["filters"].([]interface{})
					for i, j := 0, len(fs)-1; i < j; i, j = i+1, j-1 {
						fs[i], fs[j] = fs[j], fs[i]
					}
				}
			}
			for _, w := range []struct {
				name     string
				obj, old map[string]interface{}
			}{{"create", stored, nil}, {"label-only update", labelled, stored}, {"update of one filter", edited, stored},
				{"update of every filter", renamed, stored}, {"rules reversed", reversed, stored}, {"every list of filters reversed", shuffled, stored}} {
				t.Run(fmt.Sprintf("%dx%dx%d (%d KB)/gates enabled=%v/%s", size[0], size[1], size[2], len(js)/1024, on, w.name), func(t *testing.T) {
					out, err := mutate(param, w.obj, w.old)
					if err != nil {
						t.Fatalf("the mutating policy failed: %v", err)
					}
					want := runtime.DeepCopyJSON(w.obj)
					if !on && w.old == nil {
						for _, r := range want["spec"].(map[string]interface{})["rules"].([]interface{}) {
							delete(r.(map[string]interface{}), "retry")
						}
					}
					if !equality.Semantic.DeepEqual(out, want) {
						t.Fatalf("the mutating policy's result differs from our server's")
					}
					failed, err := validate(param, out, w.old, "")
					if err != nil {
						t.Fatalf("the validating policy failed: %v", err)
					}
					if len(failed) > 0 {
						t.Fatalf("the validating policy refused the write: %v", failed)
					}
				})
			}
		}
	}
}

// TestPairingBound checks the bound that the generator declares for Gateway API's HTTPRoute
// filters (a list without keys, maxItems 16, 256 of them in a route): a write that moves the
// items of every list of filters whose stored items hold a value at a disabled path (cors)
// re-pairs every list by content. Within the declared number of lists it is accepted, each
// stored value kept with its own item; beyond it, it is refused for its CEL cost: nothing is
// stored, and nothing moved or lost.
func TestPairingBound(t *testing.T) {
	data, err := os.ReadFile("../../../examples/gateway-api/crds/gateway.networking.k8s.io_httproutes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(mustCRD(t, string(data)))
	if err != nil {
		t.Fatal(err)
	}
	fits := -1
	for _, d := range res.Differences {
		if d.Path == ".spec.rules[*].backendRefs[*].filters[*]" {
			if _, err := fmt.Sscanf(d.What[strings.Index(d.What, "more than about "):], "more than about %d", &fits); err != nil {
				t.Fatalf("the declared bound does not give a number of lists: %s", d.What)
			}
		}
	}
	if fits < 8 {
		t.Fatalf("the generator declares a bound of %d lists for the filters of backendRefs, want one (and at least 8)", fits)
	}
	mutate := compileMutating(t, res.Mutating)
	validate := compileValidatingErr(t, res.Validating)
	stock := structuralOf(t, res.CRD)
	param := withStates(res) // every gate disabled
	for _, c := range []struct {
		rules   int
		refused bool
	}{{rules: fits / 16}, {rules: (2*fits + 15) / 16, refused: true}} {
		lists := c.rules * 16
		t.Run(fmt.Sprintf("%d lists (declared bound %d)", lists, fits), func(t *testing.T) {
			stored := httpRoute(c.rules, 16, 16)
			structuraldefaulting.Default(stored, stock)
			filterLists := func(obj map[string]interface{}, each func(fs []interface{})) {
				for _, r := range obj["spec"].(map[string]interface{})["rules"].([]interface{}) {
					for _, b := range r.(map[string]interface{})["backendRefs"].([]interface{}) {
						each(b.(map[string]interface{})["filters"].([]interface{}))
					}
				}
			}
			filterLists(stored, func(fs []interface{}) {
				fs[0].(map[string]interface{})["cors"] = map[string]interface{}{"allowCredentials": true}
			})
			moved := runtime.DeepCopyJSON(stored)
			filterLists(moved, func(fs []interface{}) {
				delete(fs[0].(map[string]interface{}), "cors")
				for i, j := 0, len(fs)-1; i < j; i, j = i+1, j-1 {
					fs[i], fs[j] = fs[j], fs[i]
				}
			})
			// The client sent the moved lists without the cors values (the gate is off); the
			// policy must put each back into its own item, now the last of its list.
			out, err := mutate(param, moved, stored)
			if c.refused {
				if err == nil || !strings.Contains(err.Error(), "cost limit exceeded") {
					t.Fatalf("beyond the declared bound, want the write refused for its CEL cost, got error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("within the declared bound, the mutating policy failed: %v", err)
			}
			if failed, err := validate(param, out, stored, ""); err != nil || len(failed) > 0 {
				t.Fatalf("within the declared bound, the validating policy refused the write: %v %v", err, failed)
			}
			for _, r := range out["spec"].(map[string]interface{})["rules"].([]interface{}) {
				for _, b := range r.(map[string]interface{})["backendRefs"].([]interface{}) {
					fs := b.(map[string]interface{})["filters"].([]interface{})
					for i, f := range fs {
						if _, has := f.(map[string]interface{})["cors"]; has != (i == len(fs)-1) {
							t.Fatalf("filter %d of %d holds cors: %v; want the stored cors only in the last (the stored first, moved)", i, len(fs), has)
						}
					}
				}
			}
		})
	}
}

// TestLargeClusterVersion runs the policies generated for OpenShift's ClusterVersion (merged
// from its feature-set CRDs, OPENSHIFT_API_DIR) on status writes with 140 conditionalUpdates
// (a list without keys, maxItems 500, with gated fields in its items): a condition changed
// in one item, and the list reordered, with every gate on, and off with and without stored
// values at the gated fields. Each must give our server's result within the API server's
// cost limits, but for the reordering of items that hold stored values at disabled paths,
// which the generator declares beyond 100 items: that write must be refused for its cost.
func TestLargeClusterVersion(t *testing.T) {
	dir := os.Getenv("OPENSHIFT_API_DIR")
	if dir == "" {
		t.Skip("OPENSHIFT_API_DIR is not set (make test-unit sets it)")
	}
	merged, err := openshift.Merge(openshift.Options{Dir: dir, Groups: []string{"config/v1"}})
	if err != nil {
		t.Fatal(err)
	}
	var crd string
	for _, f := range merged.Files {
		if f.Name == "config/v1/clusterversions.config.openshift.io.yaml" {
			crd = string(f.Content)
		}
	}
	if crd == "" {
		t.Fatal("the merge wrote no clusterversions.config.openshift.io")
	}
	res, err := Generate(mustCRD(t, crd))
	if err != nil {
		t.Fatal(err)
	}
	declared := false
	for _, d := range res.Differences {
		declared = declared || (d.Path == ".status.conditionalUpdates[*]" && strings.Contains(d.What, "more than about 100 items"))
	}
	if !declared {
		t.Fatalf("the generator does not declare the bound of .status.conditionalUpdates[*] (100 items): %v", res.Differences)
	}
	mutate := compileMutating(t, res.Mutating)
	validate := compileValidatingErr(t, res.Validating)
	object := func(n int, gated bool) map[string]interface{} {
		updates := make([]interface{}, n)
		for i := range updates {
			risk := map[string]interface{}{"name": fmt.Sprintf("Risk%03d", i), "url": "https://example.com/risk", "message": "a known issue",
				"matchingRules": []interface{}{map[string]interface{}{"type": "Always"}}}
			u := map[string]interface{}{
				"release": map[string]interface{}{"version": fmt.Sprintf("4.99.%d", i), "image": fmt.Sprintf("quay.io/example/release@sha256:%064d", i)},
				"risks":   []interface{}{risk},
				"conditions": []interface{}{map[string]interface{}{"type": "Recommended", "status": "False", "reason": "KnownIssue",
					"message": "a known issue", "lastTransitionTime": "2026-01-01T00:00:00Z"}},
			}
			if gated {
				u["riskNames"] = []interface{}{risk["name"]}
			}
			updates[i] = u
		}
		return map[string]interface{}{
			"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
			"metadata": map[string]interface{}{"name": "version"},
			"spec":     map[string]interface{}{"clusterID": "00000000-0000-0000-0000-000000000000"},
			"status": map[string]interface{}{"availableUpdates": nil, "observedGeneration": int64(1), "versionHash": "x",
				"desired":            map[string]interface{}{"version": "4.98.0", "image": "quay.io/example/release@sha256:0"},
				"conditionalUpdates": updates},
		}
	}
	var all []string
	for _, g := range res.Param.Spec.FeatureGates {
		all = append(all, g.Name)
	}
	for _, c := range []struct {
		name    string
		on      bool
		gated   bool
		reorder bool
		refused bool
	}{
		{name: "gates on, one condition changed", on: true, gated: true},
		{name: "gates on, reordered", on: true, gated: true, reorder: true},
		{name: "gates off, nothing stored at them, one condition changed"},
		{name: "gates off, nothing stored at them, reordered", reorder: true},
		{name: "gates off, values stored at them, one condition changed", gated: true},
		{name: "gates off, values stored at them, reordered", gated: true, reorder: true, refused: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			param := withStates(res)
			if c.on {
				param = withStates(res, all...)
			}
			stored := object(140, c.gated)
			write := runtime.DeepCopyJSON(stored)
			updates := write["status"].(map[string]interface{})["conditionalUpdates"].([]interface{})
			if c.reorder {
				for i, j := 0, len(updates)-1; i < j; i, j = i+1, j-1 {
					updates[i], updates[j] = updates[j], updates[i]
				}
			} else {
				updates[70].(map[string]interface{})["conditions"].([]interface{})[0].(map[string]interface{})["status"] = "True"
			}
			out, err := mutate(param, write, stored)
			if c.refused {
				// The pairing variable stops at the cost limit; the mutation that reads it
				// fails with that error, or with CEL's internal error for an error value
				// where it concatenates lists: either way the write is refused.
				if err == nil {
					t.Fatalf("beyond the declared bound, want the write refused, got the object back")
				}
				return
			}
			if err != nil {
				t.Fatalf("the mutating policy failed: %v", err)
			}
			if !equality.Semantic.DeepEqual(out, write) {
				t.Fatalf("the mutating policy changed the write; our server stores it as sent")
			}
			if failed, err := validate(param, out, stored, "status"); err != nil || len(failed) > 0 {
				t.Fatalf("the validating policy refused the write: %v %v", err, failed)
			}
		})
	}
}
