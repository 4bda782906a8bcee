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
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

// unknownCRD gates fields below x-kubernetes-preserve-unknown-fields, where the schema does
// not say whether a [*] iterates a map's values or a list's items.
const unknownCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: plugs.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: plugs, singular: plug, kind: Plug}
  customFeatureGates:
    featureGates:
    - {name: Secrets, preRelease: alpha, fieldPaths: ['.spec.config.plugins[*].secret']}
    - {name: Token, preRelease: alpha, fieldPaths: ['.spec.config.token']}
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
              config:
                type: object
                x-kubernetes-preserve-unknown-fields: true
`

// TestGuard is the last guard of the stock policies: whatever mutators ran after ours, a
// write whose result holds a value at a disabled path that is not the stored one at the same
// place is refused, and one that holds only stored values there (moved with their items,
// where the rule allows it) passes.
func TestGuard(t *testing.T) {
	shapes, err := Generate(mustCRD(t, shapesCRD))
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := Generate(mustCRD(t, unknownCRD))
	if err != nil {
		t.Fatal(err)
	}
	thing := func(spec string) map[string]interface{} {
		return mustObj(t, "{apiVersion: t.example.com/v1, kind: Thing, metadata: {name: x, namespace: default}, spec: "+spec+"}")
	}
	plug := func(spec string) map[string]interface{} {
		return mustObj(t, "{apiVersion: t.example.com/v1, kind: Plug, metadata: {name: x, namespace: default}, spec: "+spec+"}")
	}
	for _, tc := range []struct {
		name     string
		res      *Result
		on       []string
		old, obj map[string]interface{}
		sub      string
		refused  string // the gated path the refusal names; "" when the write passes
	}{
		{name: "create with a value at a disabled field", res: shapes, obj: thing("{top: 1}"), refused: "spec.top"},
		{name: "create, the gate on", res: shapes, on: []string{"Top"}, obj: thing("{top: 1}")},
		{name: "stored value kept", res: shapes, old: thing("{top: 1}"), obj: thing("{top: 1, other: a}")},
		{name: "stored value changed", res: shapes, old: thing("{top: 1}"), obj: thing("{top: 2}"), refused: "spec.top"},
		{name: "stored value removed", res: shapes, old: thing("{top: 1}"), obj: thing("{other: a}"), refused: "spec.top"},
		{name: "stored value removed with its parent", res: shapes, old: thing("{outer: {a: x}}"), obj: thing("{}"), on: []string{"Inner"}, refused: "spec.outer"},
		{name: "map value lost from a kept key", res: shapes, old: thing("{limits: {x: {burst: 1, max: 2}}}"), obj: thing("{limits: {x: {max: 2}}}"), refused: "spec.limits[*].burst"},
		{name: "map key removed with its value", res: shapes, old: thing("{limits: {x: {burst: 1}, y: {max: 1}}}"), obj: thing("{limits: {y: {max: 1}}}")},
		{name: "map-list item removed with its value", res: shapes, old: thing("{keyed: [{name: a, tls: {mode: x}}, {name: b}]}"), obj: thing("{keyed: [{name: b}]}")},
		{name: "unknown fields: a parent replaced by a scalar", res: unknown, old: plug("{config: {token: t}}"), obj: plug("{config: plain}"), refused: "spec.config.token"},
		{name: "value below a disabled parent", res: shapes, on: []string{"Inner"}, old: thing("{outer: {a: x}}"), obj: thing("{outer: {a: x, inner: {x: 1}}}"), refused: "spec.outer"},
		{name: "nested gate off below a live parent", res: shapes, on: []string{"Outer"}, obj: thing("{outer: {inner: {x: 1}}}"), refused: "spec.outer.inner"},
		{name: "map-list item moved with its value", res: shapes, old: thing("{keyed: [{name: a, tls: {mode: x}}]}"), obj: thing("{keyed: [{name: b}, {name: a, tls: {mode: x}}]}")},
		{name: "map-list value changed", res: shapes, old: thing("{keyed: [{name: a, tls: {mode: x}}]}"), obj: thing("{keyed: [{name: a, tls: {mode: y}}]}"), refused: "spec.keyed[*].tls"},
		{name: "map-list value given to another item", res: shapes, old: thing("{keyed: [{name: a, tls: {mode: x}}]}"), obj: thing("{keyed: [{name: b, tls: {mode: x}}]}"), refused: "spec.keyed[*].tls"},
		{name: "items without keys swapped with their values", res: shapes, old: thing("{steps: [{name: a, retry: 1}, {name: b, retry: 2}]}"), obj: thing("{steps: [{name: b, retry: 2}, {name: a, retry: 1}]}")},
		{name: "a stored value copied into another item of a list without keys", res: shapes, old: thing("{steps: [{name: a, retry: 1}, {name: b}]}"), obj: thing("{steps: [{name: a, retry: 1}, {name: b, retry: 1}]}"), refused: "spec.steps[*].retry"},
		{name: "equal items with equal values, one moved", res: shapes, old: thing("{steps: [{name: a, retry: 1}, {name: a, retry: 1}, {name: b}]}"), obj: thing("{steps: [{name: b}, {name: a, retry: 1}, {name: a, retry: 1}]}")},
		{name: "a stored value removed in place in a list without keys", res: shapes, old: thing("{steps: [{name: a, retry: 1}, {name: b, retry: 2}]}"), obj: thing("{steps: [{name: a, retry: 1}, {name: b}]}"), refused: "spec.steps[*].retry"},
		{name: "a stored value changed in place in a list without keys", res: shapes, old: thing("{steps: [{name: a, retry: 1}]}"), obj: thing("{steps: [{name: a, retry: 2}]}"), refused: "spec.steps[*].retry"},
		{name: "values swapped between equal items in place", res: shapes, old: thing("{steps: [{name: a, retry: 1}, {name: a, retry: 2}]}"), obj: thing("{steps: [{name: a, retry: 2}, {name: a, retry: 1}]}"), refused: "spec.steps[*].retry"},
		{name: "a stored value removed in place, and a field the schema does not know added", res: shapes, old: thing("{steps: [{name: a, retry: 1}]}"), obj: thing("{steps: [{name: a, zzz: 1}]}"), refused: "spec.steps[*].retry"},
		{name: "items moved, equal items' values in place", res: shapes, old: thing("{steps: [{name: x}, {name: a, retry: 1}, {name: a}]}"), obj: thing("{steps: [{name: a, retry: 1}, {name: a}, {name: x}]}")},
		{name: "an item inserted before equal items", res: shapes, old: thing("{steps: [{name: b}, {name: a}, {name: a, retry: 2}]}"), obj: thing("{steps: [{name: new}, {name: b}, {name: a}, {name: a, retry: 2}]}")},
		{name: "an item edited besides its stored value, which it lost", res: shapes, old: thing("{steps: [{name: a, retry: 1}]}"), obj: thing("{steps: [{name: b}]}")},
		{name: "an item removed with its value", res: shapes, old: thing("{steps: [{name: a, retry: 1}, {name: b}]}"), obj: thing("{steps: [{name: b}]}")},
		{name: "a new value in a list without keys", res: shapes, old: thing("{steps: [{name: a, retry: 1}]}"), obj: thing("{steps: [{name: a, retry: 1}, {name: b, retry: 3}]}"), refused: "spec.steps[*].retry"},
		{name: "map value kept under its key", res: shapes, old: thing("{limits: {x: {burst: 1}}}"), obj: thing("{limits: {x: {burst: 1, max: 2}, y: {max: 1}}}")},
		{name: "map value under another key", res: shapes, old: thing("{limits: {x: {burst: 1}}}"), obj: thing("{limits: {y: {burst: 1}}}"), refused: "spec.limits[*].burst"},
		{name: "gated [*] of a map: a new key", res: shapes, old: thing("{tags: {a: '1'}}"), obj: thing("{tags: {a: '1', b: '2'}}"), refused: "spec.tags[*]"},
		{name: "gated [*] of a map: as stored", res: shapes, old: thing("{tags: {a: '1'}}"), obj: thing("{tags: {a: '1'}}")},
		{name: "two lists deep, moved", res: shapes, old: thing("{rules: [{name: r, filters: [{type: t, cors: {origin: o}}]}]}"), obj: thing("{rules: [{name: new}, {name: r, filters: [{type: t, cors: {origin: o}}]}]}")},
		{name: "two lists deep, new", res: shapes, old: thing("{rules: [{name: r, filters: [{type: t}]}]}"), obj: thing("{rules: [{name: r, filters: [{type: t, cors: {origin: o}}]}]}"), refused: "spec.rules[*].filters[*].cors"},
		{name: "scale writes are not judged", res: shapes, obj: thing("{top: 1}"), sub: "scale"},
		{name: "unknown fields: a map of plugins, create", res: unknown, obj: plug("{config: {plugins: {auth: {image: a, secret: s}}}}"), refused: "spec.config.plugins[*].secret"},
		{name: "unknown fields: a list of plugins, create", res: unknown, obj: plug("{config: {plugins: [{image: a, secret: s}]}}"), refused: "spec.config.plugins[*].secret"},
		{name: "unknown fields: a map of plugins, stored", res: unknown, old: plug("{config: {plugins: {auth: {secret: s}}}}"), obj: plug("{config: {plugins: {auth: {secret: s, image: b}}}}")},
		{name: "unknown fields: under another key", res: unknown, old: plug("{config: {plugins: {auth: {secret: s}}}}"), obj: plug("{config: {plugins: {other: {secret: s}}}}"), refused: "spec.config.plugins[*].secret"},
		{name: "unknown fields: plugins a scalar", res: unknown, obj: plug("{config: {plugins: none}}")},
		{name: "unknown fields: a parent of another kind", res: unknown, obj: plug("{config: {plugins: [1, 2], token: [t]}}"), refused: "spec.config.token"},
		{name: "unknown fields: plugin items of another kind", res: unknown, obj: plug("{config: {plugins: {a: 1, b: [x]}}}")},
		{name: "unknown fields: the gate on", res: unknown, on: []string{"Secrets"}, obj: plug("{config: {plugins: {auth: {secret: s}}}}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runValidating(t, tc.res.Validating, withStates(tc.res, tc.on...), tc.obj, tc.old, tc.sub)
			var guard []string
			for _, m := range got {
				if strings.Contains(m, "only the stored value may be here") {
					guard = append(guard, m)
				}
			}
			if len(got) != len(guard) {
				t.Errorf("refused by other checks than the guard: %q", got)
			}
			switch {
			case tc.refused == "" && len(guard) > 0:
				t.Errorf("refused: %q; want the write to pass", guard)
			case tc.refused != "" && len(guard) == 0:
				t.Errorf("passed; want a refusal at %s", tc.refused)
			case tc.refused != "" && !strings.HasPrefix(guard[0], tc.refused+": "):
				t.Errorf("refused at %q; want %s", guard[0], tc.refused)
			}
		})
	}
}

// TestMutatingUnknownFields: below x-kubernetes-preserve-unknown-fields, a gated [*] is a
// map's values or a list's items by the value's own type, as on our server; values of other
// kinds hold nothing there and are left alone.
func TestMutatingUnknownFields(t *testing.T) {
	res, err := Generate(mustCRD(t, unknownCRD))
	if err != nil {
		t.Fatal(err)
	}
	run := compileMutating(t, res.Mutating)
	plug := func(spec string) map[string]interface{} {
		return mustObj(t, "{apiVersion: t.example.com/v1, kind: Plug, metadata: {name: x, namespace: default}, spec: "+spec+"}")
	}
	for _, tc := range []struct {
		name           string
		old, obj, want map[string]interface{}
	}{
		{name: "map of plugins, create", obj: plug("{config: {plugins: {auth: {image: a, secret: s}}}}"), want: plug("{config: {plugins: {auth: {image: a}}}}")},
		{name: "list of plugins, create", obj: plug("{config: {plugins: [{image: a, secret: s}]}}"), want: plug("{config: {plugins: [{image: a}]}}")},
		{name: "map of plugins, stored value kept", old: plug("{config: {plugins: {auth: {secret: s}}}}"), obj: plug("{config: {plugins: {auth: {image: b}, other: {secret: t}}}}"), want: plug("{config: {plugins: {auth: {image: b, secret: s}, other: {}}}}")},
		{name: "list of plugins, stored value kept", old: plug("{config: {plugins: [{image: a, secret: s}]}}"), obj: plug("{config: {plugins: [{image: a}]}}"), want: plug("{config: {plugins: [{image: a, secret: s}]}}")},
		{name: "values of other kinds", obj: plug("{config: {plugins: {a: 1, b: [x]}, token: [t]}}"), want: plug("{config: {plugins: {a: 1, b: [x]}}}")},
		{name: "plugins a scalar", obj: plug("{config: {plugins: none}}"), want: plug("{config: {plugins: none}}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(withStates(res), normalize(t, tc.obj), normalize(t, tc.old))
			if err != nil {
				t.Fatal(err)
			}
			if js(got) != js(normalize(t, tc.want)) {
				t.Errorf("got  %s\nwant %s", js(got), js(normalize(t, tc.want)))
			}
		})
	}
}

// TestMutatingUntypedParent: below a field that keeps unknown fields and has no type, a value
// may be of any kind. Where it is not an object, it holds no gated field, and the policy
// leaves it as sent (it does not fail on selecting a field of a list or a scalar).
func TestMutatingUntypedParent(t *testing.T) {
	res, err := Generate(mustCRD(t, strings.Replace(unknownCRD, "                type: object\n                x-kubernetes-preserve-unknown-fields: true", "                x-kubernetes-preserve-unknown-fields: true", 1)))
	if err != nil {
		t.Fatal(err)
	}
	run := compileMutating(t, res.Mutating)
	plug := func(spec string) map[string]interface{} {
		return mustObj(t, "{apiVersion: t.example.com/v1, kind: Plug, metadata: {name: x, namespace: default}, spec: "+spec+"}")
	}
	for _, tc := range []struct {
		name           string
		old, obj, want map[string]interface{}
	}{
		{name: "made a list", old: plug("{config: {mode: m}}"), obj: plug("{config: [plain]}"), want: plug("{config: [plain]}")},
		{name: "made a scalar", old: plug("{config: {mode: m}}"), obj: plug("{config: plain}"), want: plug("{config: plain}")},
		{name: "created a list", obj: plug("{config: [plain]}"), want: plug("{config: [plain]}")},
		{name: "an object again", old: plug("{config: [plain]}"), obj: plug("{config: {token: t, mode: m}}"), want: plug("{config: {mode: m}}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(withStates(res), normalize(t, tc.obj), normalize(t, tc.old))
			if err != nil {
				t.Fatal(err)
			}
			if js(got) != js(normalize(t, tc.want)) {
				t.Errorf("got  %s\nwant %s", js(got), js(normalize(t, tc.want)))
			}
		})
	}
}

const nullableCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: nuls.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: nuls, singular: nul, kind: Nul}
  customFeatureGates:
    featureGates:
    - {name: Inner, preRelease: alpha, fieldPaths: ['.spec.outer.inner']}
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
              outer:
                type: object
                nullable: true
                properties:
                  a: {type: string}
                  inner: {type: integer}
`

// TestMutatingMatchesServerOnParents: the mutating policy's result is our server's where a
// write leaves out or nulls what holds stored values: a nullable parent sent as null is
// recreated to hold them; a gated [*] list or map left out or sent as null is the same as
// sent unchanged. The last guard lets each result pass.
func TestMutatingMatchesServerOnParents(t *testing.T) {
	for _, tc := range []struct{ name, crd, kind, old, obj string }{
		{name: "parent sent as null", crd: nullableCRD, kind: "Nul", old: "{outer: {a: x, inner: 1}}", obj: "{outer: null}"},
		{name: "parent left out", crd: nullableCRD, kind: "Nul", old: "{outer: {a: x, inner: 1}}", obj: "{}"},
		{name: "null parent, nothing stored", crd: nullableCRD, kind: "Nul", old: "{outer: {a: x}}", obj: "{outer: null}"},
		{name: "create with a null parent", crd: nullableCRD, kind: "Nul", obj: "{outer: null}"},
		{name: "gated [*] map left out", crd: shapesCRD, kind: "Thing", old: "{tags: {a: '1'}}", obj: "{other: x}"},
		{name: "gated [*] map sent as null", crd: shapesCRD, kind: "Thing", old: "{tags: {a: '1'}}", obj: "{tags: null}"},
		{name: "gated [*] map sent empty", crd: shapesCRD, kind: "Thing", old: "{tags: {a: '1'}}", obj: "{tags: {}}"},
		{name: "gated [*] map's parent left out", crd: shapesCRD, kind: "Thing", old: "{tags: {a: '1'}}", obj: "null"},
		{name: "gated [*] map, nothing stored, left out", crd: shapesCRD, kind: "Thing", old: "{tags: {}}", obj: "{}"},
		{name: "gated [*] map, new items dropped", crd: shapesCRD, kind: "Thing", old: "{other: x}", obj: "{tags: {b: '2'}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := mustCRD(t, tc.crd)
			res, err := Generate(crd)
			if err != nil {
				t.Fatal(err)
			}
			obj := func(spec string) map[string]interface{} {
				return normalize(t, mustObj(t, "{apiVersion: t.example.com/v1, kind: "+tc.kind+", metadata: {name: x, namespace: default}, spec: "+spec+"}"))
			}
			ix := featuregates.CompileCRDVersion(crd, "v1", structuralOf(t, crd))
			var old map[string]interface{}
			if tc.old != "" {
				old = obj(tc.old)
			}
			want := obj(tc.obj)
			if old != nil {
				if _, ferr := ix.PrepareForUpdate(want, old, featuregates.ScopeAll); ferr != nil {
					t.Fatalf("our server refuses the write: %v", ferr)
				}
			} else {
				ix.PrepareForCreate(want, featuregates.ScopeAll)
			}
			got, err := runMutating(t, res.Mutating, withStates(res), obj(tc.obj), old)
			if err != nil {
				t.Fatal(err)
			}
			if js(got) != js(want) {
				t.Errorf("policy %s\nours   %s", js(got), js(want))
			}
			if denied := runValidating(t, res.Validating, withStates(res), got, old, ""); len(denied) > 0 {
				t.Errorf("the validating policy refuses the result: %q", denied)
			}
		})
	}
}
