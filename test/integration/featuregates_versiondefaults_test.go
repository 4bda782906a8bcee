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
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
)

// versionDefaultCRD has conversion None. Retry gates .spec.steps[*].retry, in the items of a
// list without keys. Only v2 defaults the items' mode to "x"; v1, the storage version, has no
// default. v2 has retry when hasRetry is set, and lacks it otherwise (a pruned version).
func versionDefaultCRD(t *testing.T, plural, kind string, hasRetry bool) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	const spec = `
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
            mode: {type: string%s}%s
`
	const retry = "\n            retry: {type: integer}"
	v2Retry := ""
	if hasRetry {
		v2Retry = retry
	}
	schema := func(s string) *apiextensionsv1.CustomResourceValidation {
		var props apiextensionsv1.JSONSchemaProps
		if err := yaml.Unmarshal([]byte(s), &props); err != nil {
			t.Fatal(err)
		}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind, ListKind: kind + "List"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(fmt.Sprintf(spec, "", retry))},
				{Name: "v2", Served: true, Schema: schema(fmt.Sprintf(spec, ", default: x", v2Retry))},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "Retry", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.steps[*].retry"}}}},
		},
	}
}

// TestFieldGatesVersionDefaultInListItems: with Retry disabled, items of a list without keys
// are told apart as the client's version decodes them (docs/reference/semantics.md, "Which
// new item continues a stored one"), with that version's defaults. Stored, the two steps
// differ in mode; a request in v2 gets mode "x" in every item, so a removal of one of them
// through v2 cannot say which one went and is refused, and nothing is lost; a write that
// sends them back as read keeps each retry with its own item.
func TestFieldGatesVersionDefaultInListItems(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	for _, tc := range []struct {
		name, plural, kind string
		hasRetry           bool
	}{
		{name: "v2 has retry", plural: "pipelines", kind: "Pipeline", hasRetry: true},
		{name: "v2 lacks retry", plural: "workflows", kind: "Workflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := env.createCRD(t, versionDefaultCRD(t, tc.plural, tc.kind, tc.hasRetry))
			const stored = `[{"name":"s","retry":1},{"name":"s","mode":"x","retry":2}]`
			env.create(t, crd, "d", `"spec":{"steps":`+stored+`}`)
			env.setGate(t, crd, 0, false, "retry", `"spec":{"steps":[{"name":"p","retry":1}]}`)
			v2 := env.versionClient(crd, "v2")
			steps := func(s string) interface{} {
				var v interface{}
				if err := utiljson.Unmarshal([]byte(s), &v); err != nil {
					t.Fatal(err)
				}
				return v
			}
			storedSteps := func() interface{} {
				spec, _ := env.stored(t, crd, "d")["spec"].(map[string]interface{})
				return spec["steps"]
			}

			for _, w := range []struct {
				name string
				pt   types.PatchType
				data string
			}{
				{name: "JSON patch removing the first", pt: types.JSONPatchType, data: `[{"op":"remove","path":"/spec/steps/0"}]`},
				{name: "JSON patch removing the second", pt: types.JSONPatchType, data: `[{"op":"remove","path":"/spec/steps/1"}]`},
				{name: "merge patch keeping one", pt: types.MergePatchType, data: `{"spec":{"steps":[{"name":"s"}]}}`},
			} {
				_, err := v2.Patch(ctx, "d", w.pt, []byte(w.data), metav1.PatchOptions{})
				if !apierrors.IsInvalid(err) {
					t.Errorf("%s through v2: %v, want 422", w.name, err)
				}
				if diff := cmp.Diff(steps(stored), storedSteps()); diff != "" {
					t.Errorf("%s through v2: stored steps (-want +got):\n%s", w.name, diff)
				}
			}

			// Sent back as read, each item keeps its retry, and gets v2's default.
			cur, err := v2.Get(ctx, "d", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v2.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("PUT through v2 of the object as read: %v", err)
			}
			want := steps(`[{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2}]`)
			if diff := cmp.Diff(want, storedSteps()); diff != "" {
				t.Errorf("PUT through v2 of the object as read: stored steps (-want +got):\n%s", diff)
			}
			// The items now look alike as stored too: a removal is still refused.
			if _, err := v2.Patch(ctx, "d", types.JSONPatchType, []byte(`[{"op":"remove","path":"/spec/steps/0"}]`), metav1.PatchOptions{}); !apierrors.IsInvalid(err) {
				t.Errorf("removing one of two look-alikes through v2: %v, want 422", err)
			}
			if diff := cmp.Diff(want, storedSteps()); diff != "" {
				t.Errorf("after the refused removal: stored steps (-want +got):\n%s", diff)
			}

			// Read through v2, every item renamed, written back. Where v2 has retry, each item
			// sends back what it read, and keeps its retry. Where v2 lacks it, its client can
			// neither see nor send the values, so nothing says which renamed item is which: the
			// write is refused, and nothing changes.
			cur, err = v2.Get(ctx, "d", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			items, _, _ := unstructured.NestedSlice(cur.Object, "spec", "steps")
			for i, it := range items {
				it.(map[string]interface{})["name"] = fmt.Sprintf("renamed%d", i)
			}
			if err := unstructured.SetNestedSlice(cur.Object, items, "spec", "steps"); err != nil {
				t.Fatal(err)
			}
			_, err = v2.Update(ctx, cur, metav1.UpdateOptions{})
			if !tc.hasRetry {
				if !apierrors.IsInvalid(err) {
					t.Errorf("PUT through v2 (without retry) of the object as read, every item renamed: %v, want 422", err)
				}
				if diff := cmp.Diff(want, storedSteps()); diff != "" {
					t.Errorf("after the refused renames: stored steps (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("PUT through v2 of the object as read, every item renamed: %v", err)
			}
			want = steps(`[{"name":"renamed0","mode":"x","retry":1},{"name":"renamed1","mode":"x","retry":2}]`)
			if diff := cmp.Diff(want, storedSteps()); diff != "" {
				t.Errorf("PUT through v2 of the object as read, every item renamed: stored steps (-want +got):\n%s", diff)
			}
		})
	}
}
