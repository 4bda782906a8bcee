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
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// wildcardsCRD gates a field of the items of lists without keys that are themselves the
// items of a list ([*][*]) or the values of a map, and a field below a [*] whose schema keeps
// unknown fields and has no type, so that the value's own type says whether it is a list or
// a map.
const wildcardsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: nests.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: nests, singular: nest, kind: Nest}
  customFeatureGates:
    featureGates:
    - {name: ListOfLists, preRelease: alpha, fieldPaths: ['.spec.ll[*][*].sec']}
    - {name: MapOfLists, preRelease: alpha, fieldPaths: ['.spec.ml[*][*].sec']}
    - {name: Untyped, preRelease: alpha, fieldPaths: ['.spec.free.entries[*].hidden']}
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
              ll:
                type: array
                items:
                  type: array
                  items: {type: object, properties: {id: {type: string}, sec: {type: string}}}
              ml:
                type: object
                additionalProperties:
                  type: array
                  items: {type: object, properties: {id: {type: string}, sec: {type: string}}}
              free:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  entries: {x-kubernetes-preserve-unknown-fields: true}
`

// serverCase is a write that the policies must answer as our server does.
type serverCase struct {
	name     string
	on       []string
	old, obj string
	// dropped tells that the result differs from what was sent (a value dropped or kept).
	dropped bool
	// refused tells that our server refuses the write: the policies must refuse it too (the
	// mutating policy failing, or the validating policy denying).
	refused bool
}

// TestNestedWildcardsMatchServer: the policies compile for a list without keys reached
// through [*][*], and below a [*] that keeps unknown fields without a type, and their result
// is our server's (its own gating, featuregates.Index), which the last guard lets pass.
func TestNestedWildcardsMatchServer(t *testing.T) {
	matchServer(t, wildcardsCRD, "Nest", []serverCase{
		{name: "list of lists, create", obj: "{ll: [[{id: a, sec: s}], [{id: b}]]}", dropped: true},
		{name: "list of lists, create, the gate on", on: []string{"ListOfLists"}, obj: "{ll: [[{id: a, sec: s}]]}"},
		{name: "list of lists, stored value kept", old: "{ll: [[{id: a, sec: s}]]}", obj: "{ll: [[{id: a}]]}", dropped: true},
		{name: "list of lists, inner items moved", old: "{ll: [[{id: a, sec: s}, {id: b}]]}", obj: "{ll: [[{id: b}, {id: a}]]}", dropped: true},
		{name: "list of lists, outer items moved", old: "{ll: [[{id: a, sec: s}], [{id: b}]]}", obj: "{ll: [[{id: b}], [{id: a}]]}", dropped: true},
		{name: "list of lists, a value sent beside a stored one", old: "{ll: [[{id: a, sec: s}]]}", obj: "{ll: [[{id: a, sec: s}, {id: c, sec: t}]]}", dropped: true},
		{name: "map of lists, create", obj: "{ml: {x: [{id: a, sec: s}]}}", dropped: true},
		{name: "map of lists, stored value kept", old: "{ml: {x: [{id: a, sec: s}, {id: b}]}}", obj: "{ml: {x: [{id: b}, {id: a}]}}", dropped: true},
		{name: "untyped, a list, create", obj: "{free: {entries: [{hidden: h, other: 1}]}}", dropped: true},
		{name: "untyped, a list, stored value kept", old: "{free: {entries: [{hidden: h, other: 1}]}}", obj: "{free: {entries: [{other: 2}]}}", dropped: true},
		{name: "untyped, a list, stored value changed", old: "{free: {entries: [{hidden: h, other: 1}]}}", obj: "{free: {entries: [{hidden: new, other: 1}]}}", dropped: true},
		{name: "untyped, a map, create", obj: "{free: {entries: {e1: {hidden: h}}}}", dropped: true},
		{name: "untyped, a map, stored value kept", old: "{free: {entries: {e1: {hidden: h}}}}", obj: "{free: {entries: {e1: {other: 1}}}}", dropped: true},
		{name: "untyped, a scalar", obj: "{free: {entries: plain}}"},
		{name: "untyped, a list, the gate on", on: []string{"Untyped"}, obj: "{free: {entries: [{hidden: h}]}}"},
	})
}

// emptyParentsCRD gates fields below objects, maps and lists inside the items of lists
// without keys, so that an item can be sent without what holds its stored value.
const emptyParentsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: holders.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: holders, singular: holder, kind: Holder}
  customFeatureGates:
    featureGates:
    - {name: Opts, preRelease: alpha, fieldPaths: ['.spec.steps[*].opts.x']}
    - {name: Tags, preRelease: alpha, fieldPaths: ['.spec.tagged[*].tg[*]']}
    - {name: Arr, preRelease: alpha, fieldPaths: ['.spec.arrays[*].arr[*]']}
    - {name: Deep, preRelease: alpha, fieldPaths: ['.spec.deep[*].a.b.x']}
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
              steps:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    opts: {type: object, nullable: true, properties: {x: {type: string}, w: {type: string}}}
              tagged:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    tg: {type: object, additionalProperties: {type: string}}
              arrays:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    arr: {type: array, items: {type: integer}}
              deep:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    a:
                      type: object
                      properties:
                        b: {type: object, properties: {x: {type: string}}}
`

// TestEmptyParentsMatchServer: an item of a list without keys sent without the object, map
// or list that holds its stored value at a disabled path, or with it empty or null, is the
// stored item, as on our server: a reorder, an insert or a removal keeps the value with it.
func TestEmptyParentsMatchServer(t *testing.T) {
	matchServer(t, emptyParentsCRD, "Holder", []serverCase{
		{name: "object left out, reordered", old: "{steps: [{name: a, opts: {x: x1}}, {name: b}]}", obj: "{steps: [{name: b}, {name: a}]}", dropped: true},
		{name: "object sent as null, reordered", old: "{steps: [{name: a, opts: {x: x1}}, {name: b}]}", obj: "{steps: [{name: b}, {name: a, opts: null}]}", dropped: true},
		{name: "object sent empty, reordered", old: "{steps: [{name: a, opts: {x: x1}}, {name: b}]}", obj: "{steps: [{name: b}, {name: a, opts: {}}]}", dropped: true},
		{name: "object left out, an item inserted", old: "{steps: [{name: a, opts: {x: x1}}, {name: b}]}", obj: "{steps: [{name: c}, {name: a}, {name: b}]}", dropped: true},
		{name: "object left out, the other item removed", old: "{steps: [{name: a, opts: {x: x1}}, {name: b}]}", obj: "{steps: [{name: a}]}", dropped: true},
		{name: "object with a live field, reordered", old: "{steps: [{name: a, opts: {x: x1, w: w1}}, {name: b}]}", obj: "{steps: [{name: b}, {name: a, opts: {w: w1}}]}", dropped: true},
		{name: "object with a live field changed is another item", old: "{steps: [{name: a, opts: {x: x1, w: w1}}]}", obj: "{steps: [{name: a, opts: {w: w2}}]}", dropped: true},
		{name: "gated map left out, reordered", old: "{tagged: [{name: a, tg: {k: v}}, {name: b}]}", obj: "{tagged: [{name: b}, {name: a}]}", dropped: true},
		{name: "gated map left out, the other item removed", old: "{tagged: [{name: a, tg: {k: v}}, {name: b}]}", obj: "{tagged: [{name: a}]}", dropped: true},
		{name: "gated list left out, reordered", old: "{arrays: [{name: a, arr: [1]}, {name: b}]}", obj: "{arrays: [{name: b}, {name: a}]}", dropped: true},
		{name: "gated list left out, the other item removed", old: "{arrays: [{name: a, arr: [1]}, {name: b}]}", obj: "{arrays: [{name: a}]}", dropped: true},
		{name: "deep parents left empty, reordered", old: "{deep: [{name: a, a: {b: {x: x1}}}, {name: b}]}", obj: "{deep: [{name: b}, {name: a, a: {}}]}", dropped: true},
		{name: "deep parents left empty below, reordered", old: "{deep: [{name: a, a: {b: {x: x1}}}, {name: b}]}", obj: "{deep: [{name: b}, {name: a, a: {b: {}}}]}", dropped: true},
		{name: "the gate on: an object left out is another item", on: []string{"Opts"}, old: "{steps: [{name: a, opts: {x: x1}}, {name: b}]}", obj: "{steps: [{name: b}, {name: a}]}"},
	})
}

// matchServer runs each case through the policies generated from crd and through our
// server's own gating (featuregates.Index): the results must be the same, and the last guard
// must let the policies' result pass.
func matchServer(t *testing.T, crdYAML, kind string, cases []serverCase) {
	t.Helper()
	crd := mustCRD(t, crdYAML)
	res, err := Generate(crd)
	if err != nil {
		t.Fatal(err)
	}
	run := compileMutating(t, res.Mutating)
	validate := compileValidating(t, res.Validating)
	object := func(spec string) map[string]interface{} {
		if spec == "" {
			return nil
		}
		return mustObj(t, "{apiVersion: t.example.com/v1, kind: "+kind+", metadata: {name: x, namespace: default}, spec: "+spec+"}")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gated := crd.DeepCopy()
			param := withStates(res, tc.on...)
			for i, g := range gated.Spec.CustomFeatureGates.FeatureGates {
				on := false
				for _, n := range tc.on {
					on = on || n == g.Name
				}
				gated.Spec.CustomFeatureGates.FeatureGates[i].Enabled = ptr.To(on)
			}
			ix := featuregates.CompileCRDVersion(gated, "v1", structuralOf(t, gated))
			obj, old := normalize(t, object(tc.obj)), normalize(t, object(tc.old))
			want := runtime.DeepCopyJSON(obj)
			if old == nil {
				ix.PrepareForCreate(want, featuregates.ScopeAll)
			} else if _, err := ix.PrepareForUpdate(want, old, featuregates.ScopeAll); (err != nil) != tc.refused {
				t.Fatalf("our server refuses the write: %v; want %t", err, tc.refused)
			}
			got, err := run(param, runtime.DeepCopyJSON(obj), old)
			if tc.refused {
				if err == nil {
					if denied := validate(param, got, old, ""); len(denied) == 0 {
						t.Errorf("our server refuses the write, the policies store %s", js(got))
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if js(got) != js(want) {
				t.Errorf("old    %s\nnew    %s\nours   %s\npolicy %s", js(old), js(obj), js(want), js(got))
			}
			if (js(got) != js(obj)) != tc.dropped {
				t.Errorf("the policy changed the write: %t, want %t (sent %s, stored %s)", js(got) != js(obj), tc.dropped, js(obj), js(got))
			}
			if denied := validate(param, got, old, ""); len(denied) > 0 {
				t.Errorf("the validating policy refuses the policy's result: %q", denied)
			}
		})
	}
}

// TestShapesMatchServerRandomly is TestMutatingPolicyMatchesServer on the CRDs above: random
// objects and random writes that move, insert, remove and edit items, and leave out, empty or
// null what holds their gated values, with random gate states.
func TestShapesMatchServerRandomly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		crd    string
		newGen func(*rand.Rand) writeGen
	}{
		{name: "holders", crd: emptyParentsCRD, newGen: func(r *rand.Rand) writeGen { return holderGen{objGen{r}} }},
		{name: "nests", crd: wildcardsCRD, newGen: func(r *rand.Rand) writeGen { return nestGen{objGen{r}} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := mustCRD(t, tc.crd)
			res, err := Generate(crd)
			if err != nil {
				t.Fatal(err)
			}
			run := compileMutating(t, res.Mutating)
			validate := compileValidating(t, res.Validating)
			for _, seed := range []int64{2608, 7} {
				t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
					compareWrites(t, crd, res, run, validate, tc.newGen, seed, 400)
				})
			}
		})
	}
}

// holderGen makes objects of emptyParentsCRD.
type holderGen struct{ objGen }

// holder returns what holds an item's gated value at field: left out (nil, false), null, an
// empty object, or one with the gated value, a live one, or both.
func (g holderGen) holder(field string) (interface{}, bool) {
	switch field {
	case "opts":
		switch g.r.Intn(6) {
		case 0:
			return nil, false
		case 1:
			return nil, true
		case 2:
			return map[string]interface{}{}, true
		case 3:
			return map[string]interface{}{"x": g.word()}, true
		case 4:
			return map[string]interface{}{"w": g.word()}, true
		}
		return map[string]interface{}{"x": g.word(), "w": g.word()}, true
	case "tg":
		switch g.r.Intn(3) {
		case 0:
			return nil, false
		case 1:
			return map[string]interface{}{}, true
		}
		return map[string]interface{}{g.word(): g.word()}, true
	case "arr":
		switch g.r.Intn(3) {
		case 0:
			return nil, false
		case 1:
			return []interface{}{}, true
		}
		return []interface{}{g.small()}, true
	}
	switch g.r.Intn(4) { // "a", of deep
	case 0:
		return nil, false
	case 1:
		return map[string]interface{}{}, true
	case 2:
		return map[string]interface{}{"b": map[string]interface{}{}}, true
	}
	return map[string]interface{}{"b": map[string]interface{}{"x": g.word()}}, true
}

var holderLists = map[string]string{"steps": "opts", "tagged": "tg", "arrays": "arr", "deep": "a"}

func (g holderGen) item(list string) map[string]interface{} {
	it := map[string]interface{}{"name": g.word()}
	if v, ok := g.holder(holderLists[list]); ok {
		it[holderLists[list]] = v
	}
	return it
}

func (g holderGen) object() map[string]interface{} {
	spec := map[string]interface{}{}
	for _, list := range []string{"steps", "tagged", "arrays", "deep"} {
		if g.maybe() {
			var items []interface{}
			for i, n := 0, g.r.Intn(4); i < n; i++ {
				items = append(items, g.item(list))
			}
			spec[list] = items
		}
	}
	return map[string]interface{}{"apiVersion": "t.example.com/v1", "kind": "Holder",
		"metadata": map[string]interface{}{"name": "t", "namespace": "default"}, "spec": spec}
}

func (g holderGen) edit(old map[string]interface{}) map[string]interface{} {
	obj := runtime.DeepCopyJSON(old)
	spec := obj["spec"].(map[string]interface{})
	for _, list := range []string{"steps", "tagged", "arrays", "deep"} {
		l, ok := spec[list].([]interface{})
		switch g.r.Intn(4) {
		case 0:
			delete(spec, list)
		case 1:
			if ok {
				spec[list] = g.editItems(list, l)
			}
		case 2:
			if ok {
				spec[list] = g.editItems(list, g.editItems(list, l))
			}
		}
	}
	return obj
}

// editItems swaps, removes or inserts an item, or sends one with what holds its gated value
// made anew (left out, emptied, nulled or changed).
func (g holderGen) editItems(list string, l []interface{}) []interface{} {
	out := append([]interface{}(nil), l...)
	switch g.r.Intn(4) {
	case 0:
		if len(out) > 1 {
			i, j := g.r.Intn(len(out)), g.r.Intn(len(out))
			out[i], out[j] = out[j], out[i]
		}
	case 1:
		if len(out) > 0 {
			i := g.r.Intn(len(out))
			out = append(out[:i], out[i+1:]...)
		}
	case 2:
		i := g.r.Intn(len(out) + 1)
		out = append(out[:i], append([]interface{}{g.item(list)}, out[i:]...)...)
	default:
		if len(out) > 0 {
			i := g.r.Intn(len(out))
			it := runtime.DeepCopyJSONValue(out[i]).(map[string]interface{})
			delete(it, holderLists[list])
			if v, ok := g.holder(holderLists[list]); ok {
				it[holderLists[list]] = v
			}
			out[i] = it
		}
	}
	return out
}

// nestGen makes objects of wildcardsCRD.
type nestGen struct{ objGen }

func (g nestGen) leaf() map[string]interface{} {
	it := map[string]interface{}{"id": g.word()}
	if g.maybe() {
		it["sec"] = g.word()
	}
	return it
}

func (g nestGen) inner() []interface{} {
	var l []interface{}
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		l = append(l, g.leaf())
	}
	return l
}

func (g nestGen) entry() map[string]interface{} {
	e := map[string]interface{}{"other": g.small()}
	if g.maybe() {
		e["hidden"] = g.word()
	}
	return e
}

func (g nestGen) object() map[string]interface{} {
	spec := map[string]interface{}{}
	if g.maybe() {
		var ll []interface{}
		for i, n := 0, g.r.Intn(3); i < n; i++ {
			ll = append(ll, g.inner())
		}
		spec["ll"] = ll
	}
	if g.maybe() {
		ml := map[string]interface{}{}
		for _, k := range []string{"x", "y"} {
			if g.maybe() {
				ml[k] = g.inner()
			}
		}
		spec["ml"] = ml
	}
	if g.maybe() {
		var entries interface{}
		switch g.r.Intn(3) {
		case 0:
			entries = []interface{}{g.entry(), g.entry()}[:g.r.Intn(3)]
		case 1:
			entries = map[string]interface{}{g.word(): g.entry()}
		default:
			entries = g.word()
		}
		spec["free"] = map[string]interface{}{"entries": entries}
	}
	return map[string]interface{}{"apiVersion": "t.example.com/v1", "kind": "Nest",
		"metadata": map[string]interface{}{"name": "t", "namespace": "default"}, "spec": spec}
}

// editLeaves swaps, removes, inserts an item, or sends one without its gated value.
func (g nestGen) editLeaves(l []interface{}, item func() interface{}) []interface{} {
	out := append([]interface{}(nil), l...)
	switch g.r.Intn(4) {
	case 0:
		if len(out) > 1 {
			i, j := g.r.Intn(len(out)), g.r.Intn(len(out))
			out[i], out[j] = out[j], out[i]
		}
	case 1:
		if len(out) > 0 {
			i := g.r.Intn(len(out))
			out = append(out[:i], out[i+1:]...)
		}
	case 2:
		i := g.r.Intn(len(out) + 1)
		out = append(out[:i], append([]interface{}{item()}, out[i:]...)...)
	default:
		if len(out) > 0 {
			i := g.r.Intn(len(out))
			if m, ok := runtime.DeepCopyJSONValue(out[i]).(map[string]interface{}); ok {
				delete(m, "sec")
				delete(m, "hidden")
				out[i] = m
			}
		}
	}
	return out
}

func (g nestGen) edit(old map[string]interface{}) map[string]interface{} {
	obj := runtime.DeepCopyJSON(old)
	spec := obj["spec"].(map[string]interface{})
	fresh := g.object()["spec"].(map[string]interface{})
	if ll, ok := spec["ll"].([]interface{}); ok && g.maybe() {
		if len(ll) > 0 && g.maybe() {
			i := g.r.Intn(len(ll))
			inner, _ := ll[i].([]interface{})
			ll[i] = g.editLeaves(inner, func() interface{} { return g.leaf() })
		} else {
			ll = g.editLeaves(ll, func() interface{} { return g.inner() })
		}
		spec["ll"] = ll
	} else if g.maybe() {
		spec["ll"] = fresh["ll"]
	}
	if ml, ok := spec["ml"].(map[string]interface{}); ok && g.maybe() {
		for _, k := range sortedKeys(ml) {
			inner, _ := ml[k].([]interface{})
			ml[k] = g.editLeaves(inner, func() interface{} { return g.leaf() })
		}
	} else if g.maybe() {
		spec["ml"] = fresh["ml"]
	}
	if free, ok := spec["free"].(map[string]interface{}); ok && g.maybe() {
		switch e := free["entries"].(type) {
		case []interface{}:
			free["entries"] = g.editLeaves(e, func() interface{} { return g.entry() })
		case map[string]interface{}:
			for _, k := range sortedKeys(e) {
				if m, ok := e[k].(map[string]interface{}); ok && g.maybe() {
					delete(m, "hidden")
				}
			}
		}
	} else if g.maybe() {
		spec["free"] = fresh["free"]
	}
	for k, v := range spec {
		if v == nil {
			delete(spec, k)
		}
	}
	return obj
}

// mixedCRD: a list without keys whose items hold a live gated field beside one that is off,
// a map in items with a named key and a [*] both gated, a gated [*] list with a gated field
// below its items, and lists below a [*] at a field without a type.
const mixedCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: mixes.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: mixes, singular: mix, kind: Mix}
  customFeatureGates:
    featureGates:
    - {name: Live, preRelease: alpha, fieldPaths: ['.spec.steps[*].live']}
    - {name: OptX, preRelease: alpha, fieldPaths: ['.spec.steps[*].opts.x']}
    - {name: Gold, preRelease: alpha, fieldPaths: ['.spec.p[*].m.gold.x']}
    - {name: MapV, preRelease: alpha, fieldPaths: ['.spec.p[*].m[*].v']}
    - {name: Tags, preRelease: alpha, fieldPaths: ['.spec.r[*].tags[*]']}
    - {name: TagZ, preRelease: alpha, fieldPaths: ['.spec.r[*].tags[*].z']}
    - {name: Ent, preRelease: alpha, fieldPaths: ['.spec.holder.entries[*].x']}
    - {name: Inner, preRelease: alpha, fieldPaths: ['.spec.holder.entries[*].inner[*].z']}
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
              steps:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    live: {type: string}
                    opts: {type: object, properties: {x: {type: string}, w: {type: string}}}
              p:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    m:
                      type: object
                      additionalProperties:
                        type: object
                        properties: {x: {type: string}, v: {type: string}, w: {type: string}}
              r:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    tags:
                      type: array
                      items: {type: object, properties: {z: {type: string}, w: {type: string}}}
              holder:
                type: object
                properties:
                  entries: {x-kubernetes-preserve-unknown-fields: true}
`

// TestMixedShapesMatchServer: only the paths that are off take part in no comparison of
// items (a live gated field tells items apart); a map's named key and its [*] are both left
// out; a gated [*] with a gated field below it counts as absent; and a value below a field
// without a type that a write turns into a value of another kind is refused, not lost.
func TestMixedShapesMatchServer(t *testing.T) {
	matchServer(t, mixedCRD, "Mix", []serverCase{
		{name: "a live gated field tells equal items apart", on: []string{"Live"}, old: "{steps: [{name: x, live: '1', opts: {x: X}}, {name: x, live: '2'}]}", obj: "{steps: [{name: x, live: '2'}, {name: x, live: '1'}]}", dropped: true},
		{name: "both off: items equal outside them", old: "{steps: [{name: x, live: '1', opts: {x: X}}, {name: y}]}", obj: "{steps: [{name: y}, {name: x}]}", dropped: true},
		{name: "a named key and [*] of a map, reordered", old: "{p: [{name: a, m: {gold: {x: X}}}, {name: b}]}", obj: "{p: [{name: b}, {name: a}]}", dropped: true},
		{name: "a named key's gate on, the map's [*] off, reordered", on: []string{"Gold"}, old: "{p: [{name: a, m: {gold: {v: V1}}}, {name: b, m: {gold: {v: V2}}}]}", obj: "{p: [{name: b, m: {gold: {}}}, {name: a, m: {gold: {}}}]}", dropped: true},
		{name: "a named key's gate on, items equal but for it", on: []string{"Gold"}, old: "{p: [{name: a, m: {gold: {x: '1', v: V1}}}, {name: a, m: {gold: {x: '2', v: V2}}}]}", obj: "{p: [{name: a, m: {gold: {x: '2'}}}, {name: a, m: {gold: {x: '1'}}}]}", dropped: true},
		{name: "a named key and [*], the [*] off, an item swapped with its stored value", old: "{p: [{name: a}, {name: a, m: {gold: {v: '2'}}}]}", obj: "{p: [{name: a, m: {gold: {v: '2'}}}, {name: a}]}"},
		{name: "a named key and [*], the key's gate on, an item swapped with its stored value", on: []string{"Gold"}, old: "{p: [{name: a}, {name: a, m: {gold: {v: '2'}}}]}", obj: "{p: [{name: a, m: {gold: {v: '2'}}}, {name: a}]}"},
		{name: "a named key and [*], items rotated", old: "{p: [{name: a, m: {gold: {v: '2'}}}, {name: b}, {name: a}]}", obj: "{p: [{name: b}, {name: a}, {name: a, m: {gold: {v: '2'}}}]}"},
		{name: "a named key and [*], items equal but for the [*]'s values, swapped", old: "{p: [{name: a, m: {gold: {v: '1'}}}, {name: a, m: {gold: {v: '2'}}}]}", obj: "{p: [{name: a, m: {gold: {v: '2'}}}, {name: a, m: {gold: {v: '1'}}}]}"},
		{name: "a named key and [*] of a map, other content", old: "{p: [{name: a, m: {gold: {x: X, w: '1'}}}, {name: b}]}", obj: "{p: [{name: b}, {name: a, m: {gold: {w: '1'}}}]}", dropped: true},
		{name: "a gated [*] with a gated field below, left out", old: "{r: [{name: a, tags: [{w: '1', z: Z}]}, {name: b}]}", obj: "{r: [{name: b}, {name: a}]}", dropped: true},
		{name: "untyped: a list below, create", obj: "{holder: {entries: [{inner: [{z: z1, o: 1}]}]}}", dropped: true},
		{name: "untyped: a list below, reordered", old: "{holder: {entries: [{inner: [{z: z1}, {o: 2}]}]}}", obj: "{holder: {entries: [{inner: [{o: 2}, {}]}]}}", dropped: true},
		{name: "untyped: list turned into a map", old: "{holder: {entries: [{x: X1, o: 1}, {o: 2}]}}", obj: "{holder: {entries: {a: {x: X1, o: 1}}}}", refused: true},
		{name: "untyped: map turned into a list", old: "{holder: {entries: {k1: {x: X1, o: 1}, k2: {o: 2}}}}", obj: "{holder: {entries: [{o: 1}, {o: 2}]}}", refused: true},
		{name: "untyped: list turned into a scalar", old: "{holder: {entries: [{x: X1}]}}", obj: "{holder: {entries: str}}", refused: true},
		{name: "untyped: list without stored values turned into a map", old: "{holder: {entries: [{o: 1}]}}", obj: "{holder: {entries: {a: {o: 1}}}}"},
	})
}

// sortedKeys returns m's keys in order, so that a seed replays the same writes.
func sortedKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestNamedKeyAndWildcardGaps: a map inside items of a list without keys whose named key and
// [*] are both gated and off, where our server has gaps (docs/reference/api.md, known gaps):
// it refuses a write that only swaps such items sent without their stored values, where the
// policies pair them in place (the older rule); and it drops the [*]'s stored value at the
// named key when the write leaves the map out, where the policies keep it. Neither loses a
// value on stock.
func TestNamedKeyAndWildcardGaps(t *testing.T) {
	res, err := Generate(mustCRD(t, mixedCRD))
	if err != nil {
		t.Fatal(err)
	}
	run := compileMutating(t, res.Mutating)
	validate := compileValidating(t, res.Validating)
	mix := func(spec string) map[string]interface{} {
		return normalize(t, mustObj(t, "{apiVersion: t.example.com/v1, kind: Mix, metadata: {name: x, namespace: default}, spec: "+spec+"}"))
	}
	for _, tc := range []struct{ name, old, obj, want string }{
		{name: "swapped without their values: paired in place",
			old:  "{p: [{name: a, m: {gold: {x: X1, v: V1}}}, {name: b, m: {gold: {x: X2, v: V2}}}]}",
			obj:  "{p: [{name: b, m: {gold: {}}}, {name: a, m: {gold: {}}}]}",
			want: "{p: [{name: b, m: {gold: {x: X1, v: V1}}}, {name: a, m: {gold: {x: X2, v: V2}}}]}"},
		{name: "the map left out: both values kept",
			old:  "{p: [{name: a, m: {gold: {x: X, v: '2'}}}]}",
			obj:  "{p: [{name: a}]}",
			want: "{p: [{name: a, m: {gold: {x: X, v: '2'}}}]}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			param := withStates(res)
			old := mix(tc.old)
			got, err := run(param, mix(tc.obj), old)
			if err != nil {
				t.Fatal(err)
			}
			if want := mix(tc.want); js(got) != js(want) {
				t.Errorf("got  %s\nwant %s", js(got["spec"]), js(want["spec"]))
			}
			if denied := validate(param, got, old, ""); len(denied) > 0 {
				t.Errorf("the validating policy refuses the result: %q", denied)
			}
		})
	}
}

// TestNamedKeyDifferenceListed: the generator lists the map whose named key and [*] are both
// gated, inside items of a list without keys, among the CRD's differences, and no other.
func TestNamedKeyDifferenceListed(t *testing.T) {
	for _, tc := range []struct {
		crd  string
		want []string
	}{
		{crd: mixedCRD, want: []string{".spec.p[*].m"}},
		{crd: emptyParentsCRD},
		{crd: wildcardsCRD},
	} {
		res, err := Generate(mustCRD(t, tc.crd))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range res.Differences {
			if strings.Contains(d.What, "named keys and [*] are both gated") {
				got = append(got, d.Path)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: listed at %q, want %q", res.CRD.Name, got, tc.want)
		}
	}
}
