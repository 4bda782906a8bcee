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

package customresource

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
)

// TestFieldGatesListsWithoutKeysProperties checks, through the real strategy and against
// upstream's in the same run, that gating never moves a stored value from one item of a list
// without keys to another, and never loses one while its item stays, on random writes that
// insert, remove, reorder, duplicate and edit items, in a list and in a list nested in its
// items:
//
//   - every item of the result holds, at the disabled paths, either nothing or exactly what
//     one stored item held, and each stored item's values are in at most one result item
//     (identical stored items aside);
//   - a write that only inserts, reorders or duplicates items, or only removes or reorders
//     them, gives every stored value to an item that is equal, outside the disabled paths, to
//     the stored one; and keeps the value of every stored item that is still there;
//   - a write that only edits items in place keeps each stored value at its index;
//   - no write that only inserts, reorders, duplicates or removes items is rejected, except
//     where the stored list has items equal outside the disabled paths that differ inside
//     them (which one a write removed or duplicated cannot be known); edits and mixed writes
//     may be rejected (422), with no other error;
//   - outside the disabled paths the result is upstream's.
//
// CI runs a fixed seed; explore with -fieldgates.seed and -fieldgates.iterations.
func TestFieldGatesListsWithoutKeysProperties(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	rng := rand.New(rand.NewSource(*propertySeed))
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Steps"}
	root := listsPropertySchema()
	var checked, kept, rejected int
	for i := 0; i < *propertyIterations; i++ {
		g := &listsGen{rng: rng}
		retryOff, wOff := rng.Intn(4) != 0, rng.Intn(2) == 0
		gates := []apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "RetryGate", PreRelease: "alpha", Enabled: ptr.To(!retryOff), FieldPaths: []string{".spec.steps[*].retry"}},
			{Name: "WeightGate", PreRelease: "alpha", Enabled: ptr.To(!wOff), FieldPaths: []string{".spec.steps[*].sub[*].w"}},
		}
		crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, gates...)
		fieldGates := NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": root}, nil)
		gated := NewStrategy(nil, true, kind, nil, nil, root, nil, nil, nil).WithFieldGates(fieldGates)
		upstream := NewStrategy(nil, true, kind, nil, nil, root, nil, nil, nil)

		oldSteps := g.steps()
		newSteps, class := g.mutate(oldSteps, retryOff, wOff)
		old := stepsObject(oldSteps)
		oldCopy := old.DeepCopy()
		newObj, upstreamObj := stepsObject(newSteps), stepsObject(newSteps)
		w := &gatedWrite{}
		ctx := context.WithValue(context.Background(), gatedWriteKey{}, w)
		gated.PrepareForUpdate(ctx, newObj, old)
		upstream.PrepareForUpdate(context.Background(), upstreamObj, old)

		where := func() string {
			o, _ := json.Marshal(oldCopy.Object["spec"])
			n, _ := json.Marshal(stepsObject(newSteps).Object["spec"])
			r, _ := json.Marshal(newObj.Object["spec"])
			return fmt.Sprintf("iteration %d (seed %d), %s write, retry off %t, w off %t\nold:    %s\nsent:   %s\nresult: %s", i, *propertySeed, class, retryOff, wOff, o, n, r)
		}
		if !equality.Semantic.DeepEqual(old.Object, oldCopy.Object) {
			t.Fatalf("the old object was mutated\n%s", where())
		}
		if w.err != nil {
			if !apierrors.IsInvalid(w.err) {
				t.Fatalf("the write failed with a non-422 error: %v\n%s", w.err, where())
			}
			// Edits in place may be refused: neighbours edited together that do not send back
			// their stored values, and an item edited away from an equal twin that holds other
			// values, cannot be told from items swapped (docs/reference/semantics.md).
			if class != "mixed" && class != "edits" && !equalItemsDiffer(oldSteps, retryOff, wOff) {
				t.Fatalf("a %s write was rejected: %v\n%s", class, w.err, where())
			}
			rejected++
			continue
		}
		hidden := func(item map[string]interface{}) interface{} { return hiddenOf(item, retryOff, wOff) }
		visible := func(item map[string]interface{}) interface{} { return visibleOf(item, retryOff, wOff) }
		result := stepsOf(newObj)
		// Every result item holds nothing hidden, or what one stored item held.
		used := map[int]bool{}
		for r, item := range result {
			h := hidden(item)
			if isEmptyHidden(h) {
				continue
			}
			checked++
			from := -1
			for o, stored := range oldSteps {
				if !used[o] && equality.Semantic.DeepEqual(hidden(stored), h) {
					from = o
					break
				}
			}
			if from < 0 {
				t.Fatalf("result item %d holds %v at disabled paths, which no stored item (not already used) held\n%s", r, h, where())
			}
			used[from] = true
			switch class {
			case "growth", "removal":
				if !equality.Semantic.DeepEqual(visible(item), visible(oldSteps[from])) {
					t.Fatalf("result item %d got the stored values of item %d, which it is not\n%s", r, from, where())
				}
			case "edits":
				if !equality.Semantic.DeepEqual(hidden(oldSteps[r]), h) {
					t.Fatalf("result item %d holds %v, the stored item at its index held %v\n%s", r, h, hidden(oldSteps[r]), where())
				}
			}
		}
		// A stored item that is still there keeps its values.
		if class != "mixed" {
			for o, stored := range oldSteps {
				if isEmptyHidden(hidden(stored)) {
					continue
				}
				stays := false
				if class == "edits" {
					stays = o < len(result)
				} else {
					for _, item := range result {
						if equality.Semantic.DeepEqual(visible(item), visible(stored)) {
							stays = true
						}
					}
				}
				if !stays {
					continue
				}
				found := false
				for _, item := range result {
					if equality.Semantic.DeepEqual(hidden(item), hidden(stored)) && (class == "edits" || equality.Semantic.DeepEqual(visible(item), visible(stored))) {
						found = true
					}
				}
				if !found {
					t.Fatalf("stored item %d is still there, but its values %v are not\n%s", o, hidden(stored), where())
				}
				kept++
			}
		}
		// Outside the disabled paths, upstream's result.
		got, want := make([]interface{}, len(result)), make([]interface{}, 0)
		for r, item := range result {
			got[r] = visible(item)
		}
		for _, item := range stepsOf(upstreamObj) {
			want = append(want, visible(item))
		}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("outside the disabled paths the result differs from upstream's\nupstream: %v\n%s", want, where())
		}
	}
	if checked == 0 || kept == 0 || rejected == 0 {
		t.Fatalf("the generator did not exercise every case: %d stored values checked, %d kept, %d writes rejected", checked, kept, rejected)
	}
	t.Logf("%d iterations: %d gated values checked, %d stored values of items that stayed kept, %d mixed writes rejected", *propertyIterations, checked, kept, rejected)
}

// equalItemsDiffer reports whether two stored items are equal outside the disabled paths but
// differ inside them.
func equalItemsDiffer(steps []map[string]interface{}, retryOff, wOff bool) bool {
	for i := range steps {
		for j := i + 1; j < len(steps); j++ {
			if equality.Semantic.DeepEqual(visibleOf(steps[i], retryOff, wOff), visibleOf(steps[j], retryOff, wOff)) &&
				!equality.Semantic.DeepEqual(hiddenOf(steps[i], retryOff, wOff), hiddenOf(steps[j], retryOff, wOff)) {
				return true
			}
		}
	}
	return false
}

// listsPropertySchema: .spec.steps is an atomic list of {name, retry, sub}, sub an atomic list
// of {v, w}.
func listsPropertySchema() *structuralschema.Structural {
	leaf := func(t string) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: t}}
	}
	obj := func(props map[string]structuralschema.Structural) *structuralschema.Structural {
		return &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: props}
	}
	sub := obj(map[string]structuralschema.Structural{"v": leaf("integer"), "w": leaf("integer")})
	step := obj(map[string]structuralschema.Structural{
		"name":  leaf("string"),
		"retry": leaf("integer"),
		"sub":   {Generic: structuralschema.Generic{Type: "array"}, Extensions: structuralschema.Extensions{XListType: ptr.To("atomic")}, Items: sub},
	})
	return obj(map[string]structuralschema.Structural{"spec": *obj(map[string]structuralschema.Structural{
		"steps": {Generic: structuralschema.Generic{Type: "array"}, Extensions: structuralschema.Extensions{XListType: ptr.To("atomic")}, Items: step},
	})})
}

type listsGen struct {
	rng  *rand.Rand
	next int64
}

// unique returns a new value each time, so that every stored gated value can be traced.
func (g *listsGen) unique() int64 {
	g.next++
	return 100 + g.next
}

func (g *listsGen) steps() []map[string]interface{} {
	n := g.rng.Intn(5)
	out := make([]map[string]interface{}, n)
	for i := range out {
		out[i] = g.step()
	}
	return out
}

// step is a new item: a name from a small set (so equal items are common), maybe a retry,
// maybe a sub list whose items maybe have a w.
func (g *listsGen) step() map[string]interface{} {
	item := map[string]interface{}{"name": []string{"a", "b", "c"}[g.rng.Intn(3)]}
	if g.rng.Intn(2) == 0 {
		item["retry"] = g.unique()
	}
	if g.rng.Intn(2) == 0 {
		var sub []interface{}
		for k := g.rng.Intn(3); k >= 0; k-- {
			s := map[string]interface{}{"v": int64(g.rng.Intn(2))}
			if g.rng.Intn(2) == 0 {
				s["w"] = g.unique()
			}
			sub = append(sub, s)
		}
		item["sub"] = sub
	}
	return item
}

// mutate returns the list a client sends, and the class of the write: "growth" (items
// inserted, duplicated or reordered), "removal" (items removed or reordered), each item
// unchanged; "edits" (items changed in place, outside the disabled paths, the length
// unchanged) or "mixed" (any of those together: an item removed and another inserted at its
// place is an item edited in place, for instance). At the disabled paths, a client sends the
// values it read, or leaves them out, or changes them.
func (g *listsGen) mutate(old []map[string]interface{}, retryOff, wOff bool) ([]map[string]interface{}, string) {
	cur := make([]map[string]interface{}, len(old))
	for i, item := range old {
		cur[i] = deepCopyItem(item)
	}
	class := []string{"growth", "removal", "edits", "mixed"}[g.rng.Intn(4)]
	for k := 1 + g.rng.Intn(3); k > 0; k-- {
		op := g.rng.Intn(5)
		switch class {
		case "growth":
			op = []int{0, 2, 3}[g.rng.Intn(3)]
		case "removal":
			op = 1 + g.rng.Intn(2)
		case "edits":
			op = 4
		}
		switch {
		case op == 0: // insert
			at := g.rng.Intn(len(cur) + 1)
			cur = append(cur[:at], append([]map[string]interface{}{g.step()}, cur[at:]...)...)
		case op == 1 && len(cur) > 0: // remove
			at := g.rng.Intn(len(cur))
			cur = append(cur[:at], cur[at+1:]...)
		case op == 2: // reorder
			g.rng.Shuffle(len(cur), func(i, j int) { cur[i], cur[j] = cur[j], cur[i] })
		case op == 3 && len(cur) > 0: // duplicate
			at := g.rng.Intn(len(cur))
			cur = append(cur, deepCopyItem(cur[at]))
		case op == 4 && len(cur) > 0: // edit in place, outside the gated paths
			at := g.rng.Intn(len(cur))
			cur[at]["name"] = cur[at]["name"].(string) + "x"
			if sub, ok := cur[at]["sub"].([]interface{}); ok && len(sub) > 0 && g.rng.Intn(2) == 0 {
				sub[0].(map[string]interface{})["v"] = int64(7)
			}
		}
	}
	// What the client does with the values it read at the disabled paths.
	for _, item := range cur {
		switch r := g.rng.Intn(3); {
		case !retryOff:
		case r == 0:
			delete(item, "retry")
		case r == 1:
			if _, ok := item["retry"]; ok {
				item["retry"] = int64(1)
			}
		}
		if sub, ok := item["sub"].([]interface{}); ok && wOff && g.rng.Intn(2) == 0 {
			for _, s := range sub {
				delete(s.(map[string]interface{}), "w")
			}
		}
	}
	return cur, class
}

func deepCopyItem(item map[string]interface{}) map[string]interface{} {
	b, _ := json.Marshal(item)
	var out map[string]interface{}
	_ = json.Unmarshal(b, &out)
	return normalizeNumbers(out).(map[string]interface{})
}

// normalizeNumbers turns the float64 of encoding/json into int64, as the API server decodes.
func normalizeNumbers(v interface{}) interface{} {
	switch x := v.(type) {
	case float64:
		return int64(x)
	case map[string]interface{}:
		for k, c := range x {
			x[k] = normalizeNumbers(c)
		}
	case []interface{}:
		for i, c := range x {
			x[i] = normalizeNumbers(c)
		}
	}
	return v
}

func stepsObject(steps []map[string]interface{}) *unstructured.Unstructured {
	items := make([]interface{}, len(steps))
	for i, s := range steps {
		items[i] = deepCopyItem(s)
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "stable.example.com/v1",
		"kind":       "Steps",
		"metadata":   map[string]interface{}{"name": "s", "namespace": "default", "generation": int64(1)},
		"spec":       map[string]interface{}{"steps": items},
	}}
}

func stepsOf(u *unstructured.Unstructured) []map[string]interface{} {
	items, _, _ := unstructured.NestedSlice(u.Object, "spec", "steps")
	out := make([]map[string]interface{}, len(items))
	for i, it := range items {
		out[i] = it.(map[string]interface{})
	}
	return out
}

// hiddenOf is what an item holds at the disabled paths: its retry, and the w of each sub item
// by index.
func hiddenOf(item map[string]interface{}, retryOff, wOff bool) interface{} {
	h := map[string]interface{}{}
	if retryOff {
		if r, ok := item["retry"]; ok {
			h["retry"] = r
		}
	}
	if wOff {
		var ws []interface{}
		any := false
		sub, _ := item["sub"].([]interface{})
		for _, s := range sub {
			w, ok := s.(map[string]interface{})["w"]
			any = any || ok
			ws = append(ws, w)
		}
		if any {
			h["w"] = ws
		}
	}
	return h
}

func isEmptyHidden(h interface{}) bool { return len(h.(map[string]interface{})) == 0 }

// visibleOf is the item without its values at the disabled paths.
func visibleOf(item map[string]interface{}, retryOff, wOff bool) interface{} {
	c := deepCopyItem(item)
	if retryOff {
		delete(c, "retry")
	}
	if wOff {
		if sub, ok := c["sub"].([]interface{}); ok {
			for _, s := range sub {
				delete(s.(map[string]interface{}), "w")
			}
		}
	}
	return c
}
