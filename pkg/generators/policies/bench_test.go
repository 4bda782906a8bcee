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
	"strings"
	"testing"
)

// flatCRD is make bench-e2e's CRD: n gated string fields .spec.fNN (one alpha gate each)
// and as many ungated ones.
func flatCRD(t testing.TB, n int) string {
	var gates, props strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&gates, "    - {name: G%03d, preRelease: alpha, fieldPaths: ['.spec.f%03d']}\n", i, i)
		fmt.Fprintf(&props, "              f%03d: {type: string}\n              u%03d: {type: string}\n", i, i)
	}
	return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: flats.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: flats, singular: flat, kind: Flat}
  customFeatureGates:
    featureGates:
` + gates.String() + `  versions:
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
` + props.String()
}

func flatObject(n int, rev int) map[string]interface{} {
	spec := map[string]interface{}{}
	for i := 0; i < n; i++ {
		spec[fmt.Sprintf("f%03d", i)] = fmt.Sprintf("gated value %d of revision %d", i, rev)
		spec[fmt.Sprintf("u%03d", i)] = fmt.Sprintf("live value %d of revision %d", i, rev)
	}
	return map[string]interface{}{
		"apiVersion": "t.example.com/v1", "kind": "Flat",
		"metadata": map[string]interface{}{"name": "x", "namespace": "default"},
		"spec":     spec,
	}
}

// BenchmarkFlatPolicies is the policies' CEL and JSON patch on make bench-e2e's writes (an
// update that changes every field, gated ones included, with half the gates disabled, and
// the same with every gate enabled), per policy run, at growing gate counts: the cost per
// write grows linearly with the gates (it grew with their square while each gate's variable
// searched the parameter object's list).
func BenchmarkFlatPolicies(b *testing.B) {
	for _, n := range []int{5, 50, 100} {
		b.Run(fmt.Sprintf("gates=%d", n), func(b *testing.B) { benchFlat(b, n) })
	}
}

func benchFlat(b *testing.B, n int) {
	res, err := Generate(mustCRD(b, flatCRD(b, n)))
	if err != nil {
		b.Fatal(err)
	}
	var on []string
	for i := 0; i < n; i += 2 {
		on = append(on, fmt.Sprintf("G%03d", i))
	}
	param := withStates(res, on...)
	old, obj := flatObject(n, 1), flatObject(n, 2)
	mutate := compileMutating(b, res.Mutating)
	allOn := make([]string, n)
	for i := range allOn {
		allOn[i] = fmt.Sprintf("G%03d", i)
	}
	allEnabled := withStates(res, allOn...)
	b.Run("mutating-all-enabled", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := mutate(allEnabled, obj, old); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mutating", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out, err := mutate(param, obj, old)
			if err != nil {
				b.Fatal(err)
			}
			if got, want := out["spec"].(map[string]interface{})["f001"], old["spec"].(map[string]interface{})["f001"]; got != want {
				b.Fatalf("f001 (gate disabled) is %v after the policy, want the stored %v", got, want)
			}
		}
	})
	kept, _ := mutate(param, obj, old)
	// The API server runs the policy again on its own result (reinvocation).
	b.Run("mutating-again", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := mutate(param, kept, old); err != nil {
				b.Fatal(err)
			}
		}
	})
	validate := compileValidating(b, res.Validating)
	b.Run("validating", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if failed := validate(param, kept, old, ""); len(failed) > 0 {
				b.Fatalf("the guard refused the policy's own result: %v", failed)
			}
		}
	})
}
