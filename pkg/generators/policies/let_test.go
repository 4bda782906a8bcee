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
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// TestLetKeepsLiteralsAndFields checks that a binding read in place does not rewrite a string
// literal or a field selection that spells the bound name: fields named like the generator's
// own names (pm, sq, sv0, nv0) under a gated path whose restore needs a parent the write left
// out. The stored value must come back; before, the JSON pointer "/spec/pm/x" became
// "/spec/(object.?spec.?pm)/x" and the write was refused.
func TestLetKeepsLiteralsAndFields(t *testing.T) {
	for _, field := range []string{"pm", "sq", "sv0", "nv0"} {
		t.Run(field, func(t *testing.T) {
			res, err := Generate(mustCRD(t, fmt.Sprintf(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing, listKind: ThingList}
  customFeatureGates:
    featureGates:
    - {name: X, preRelease: alpha, fieldPaths: ['.spec.%[1]s.x', '.spec.entries[*].%[1]s.x']}
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
              other: {type: string}
              %[1]s: {type: object, properties: {a: {type: string}, x: {type: integer}}}
              entries:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    %[1]s: {type: object, properties: {x: {type: integer}}}
`, field)))
			if err != nil {
				t.Fatal(err)
			}
			obj := func(spec string) map[string]interface{} {
				return mustObj(t, "{apiVersion: t.example.com/v1, kind: Thing, metadata: {name: t, namespace: default}, spec: "+spec+"}")
			}
			old := obj(fmt.Sprintf("{%[1]s: {x: 1}, entries: [{name: e, %[1]s: {x: 2}}]}", field))
			got, err := runMutating(t, res.Mutating, withStates(res), obj("{other: a, entries: [{name: e}]}"), old)
			if err != nil {
				t.Fatalf("the write that leaves the gated values' parents out was refused: %v", err)
			}
			want := obj(fmt.Sprintf("{other: a, %[1]s: {x: 1}, entries: [{name: e, %[1]s: {x: 2}}]}", field))
			if !equality.Semantic.DeepEqual(normalize(t, got), normalize(t, want)) {
				t.Fatalf("got %v, want the stored values back: %v", js(got), js(want))
			}
		})
	}
}
