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
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
)

// prunedListCRD has conversion None and a status subresource. Size gates values below
// lists and maps: a map (.spec.tiers), a list without keys inside an object
// (.spec.group.items), a list without keys (.spec.steps), a list-map (.spec.ports), and a
// list inside a list's items (.spec.rules[*].filters). v1, the storage version, has all of
// them; v2 has none of those lists and maps (its .spec.group has another property, its
// rules no filters), so a client of v2 can neither see nor send them.
func prunedListCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	const full = `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer}
      tiers: {type: object, additionalProperties: {type: object, properties: {size: {type: integer}, label: {type: string}}}}
      group: {type: object, properties: {other: {type: string}, items: {type: array, items: {type: object, properties: {x: {type: string}, note: {type: string}}}}}}
      steps: {type: array, items: {type: object, properties: {name: {type: string}, retry: {type: integer}}}}
      ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string}, hostPort: {type: integer}}}}
      rules: {type: array, items: {type: object, properties: {name: {type: string}, zone: {type: string}, filters: {type: array, items: {type: object, properties: {kind: {type: string}, secret: {type: string}}}}}}}
  status:
    type: object
    properties:
      phase: {type: string}
`
	const lacking = `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer}
      group: {type: object, properties: {other: {type: string}}}
      rules: {type: array, items: {type: object, properties: {name: {type: string}}}}
  status:
    type: object
    properties:
      phase: {type: string}
`
	schema := func(s string) *apiextensionsv1.CustomResourceValidation {
		var props apiextensionsv1.JSONSchemaProps
		if err := yaml.Unmarshal([]byte(s), &props); err != nil {
			t.Fatal(err)
		}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props}
	}
	status := &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(full), Subresources: status},
				{Name: "v2", Served: true, Schema: schema(lacking), Subresources: status},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "Size", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{
					".spec.tiers[*].size", ".spec.group.items[*].x", ".spec.steps[*].retry", ".spec.ports[*].hostPort", ".spec.rules[*].filters[*].secret"}}}},
		},
	}
}

// TestFieldGatesPrunedVersionLacksTheList: with Size disabled, every kind of write through v2,
// whose schema lacks the lists and maps that hold the stored values, keeps those lists and maps
// as stored (docs/reference/semantics.md, "What a write does", step 2): the client of v2 could
// not send them. A write that changes nothing live persists nothing. With Size enabled, a
// write through v2 erases them, as upstream's does.
func TestFieldGatesPrunedVersionLacksTheList(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	crd := env.createCRD(t, prunedListCRD(t))
	const lists = `"tiers":{"gold":{"size":5,"label":"g"},"free":{"label":"f"}},` +
		`"group":{"items":[{"x":"X1","note":"n1"},{"note":"n2"}]},` +
		`"steps":[{"name":"a","retry":3},{"name":"b"}],` +
		`"ports":[{"name":"http","hostPort":8080}],` +
		`"rules":[{"name":"r","filters":[{"kind":"k","secret":"s1"}]}]`
	var want map[string]interface{}
	if err := utiljson.Unmarshal([]byte(`{`+lists+`}`), &want); err != nil {
		t.Fatal(err)
	}
	v2 := env.versionClient(crd, "v2")
	env.create(t, crd, "g", `"spec":{"replicas":1,`+lists+`}`)
	// Two items that look alike through v2, one holding a value in the list v2 lacks, and a
	// live field v2 lacks too.
	const lookAlikes = `{"rules":[{"name":"r1","zone":"a","filters":[{"kind":"k","secret":"s2"}]},{"name":"r1"}]}`
	env.create(t, crd, "h", `"spec":`+lookAlikes)
	env.setGate(t, crd, 0, false, "retry", `"spec":{"steps":[{"name":"p","retry":1}]}`)

	keptLists := func(what string) {
		t.Helper()
		spec, _ := env.stored(t, crd, "g")["spec"].(map[string]interface{})
		for k, v := range want {
			if group, ok := spec["group"].(map[string]interface{}); ok && k == "group" && group["other"] != nil {
				// The JSON patch below sets .spec.group.other through v2.
				v = map[string]interface{}{"items": want["group"].(map[string]interface{})["items"], "other": group["other"]}
			}
			if diff := cmp.Diff(v, spec[k]); diff != "" {
				t.Errorf("%s: stored .spec.%s (-want +got):\n%s", what, k, diff)
			}
		}
	}
	get := func() *metav1.ObjectMeta {
		t.Helper()
		out, err := v2.Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if k == "group" || k == "rules" {
				continue
			}
			if _, ok := out.Object["spec"].(map[string]interface{})[k]; ok {
				t.Errorf("v2 shows .spec.%s", k)
			}
		}
		return &metav1.ObjectMeta{ResourceVersion: out.GetResourceVersion(), Generation: out.GetGeneration()}
	}

	for _, w := range []struct {
		name string
		// write sends the write through v2.
		write func() error
		// live says whether the write changes something live: then the generation moves
		// (status writes aside) and a new resourceVersion is stored.
		live, status bool
	}{
		{name: "merge patch of a live field", live: true, write: func() error {
			_, err := v2.Patch(ctx, "g", types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{})
			return err
		}},
		{name: "JSON patch of the group's other property", live: true, write: func() error {
			_, err := v2.Patch(ctx, "g", types.JSONPatchType, []byte(`[{"op":"add","path":"/spec/group/other","value":"o"}]`), metav1.PatchOptions{})
			return err
		}},
		{name: "PUT of the object as read", write: func() error {
			cur, err := v2.Get(ctx, "g", metav1.GetOptions{})
			if err == nil {
				_, err = v2.Update(ctx, cur, metav1.UpdateOptions{})
			}
			return err
		}},
		{name: "empty merge patch", write: func() error {
			_, err := v2.Patch(ctx, "g", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		}},
		{name: "status write", live: true, status: true, write: func() error {
			_, err := v2.Patch(ctx, "g", types.MergePatchType, []byte(`{"status":{"phase":"Ready"}}`), metav1.PatchOptions{}, "status")
			return err
		}},
		{name: "label patch", live: true, status: true, write: func() error {
			_, err := v2.Patch(ctx, "g", types.MergePatchType, []byte(`{"metadata":{"labels":{"l":"v"}}}`), metav1.PatchOptions{})
			return err
		}},
		{name: "apply with force by another manager", live: true, write: func() error {
			_, err := v2.Patch(ctx, "g", types.ApplyPatchType,
				[]byte(`{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"g"},"spec":{"replicas":3}}`),
				metav1.PatchOptions{FieldManager: "other", Force: ptr.To(true)})
			return err
		}},
		{name: "dry-run merge patch", write: func() error {
			_, err := v2.Patch(ctx, "g", types.MergePatchType, []byte(`{"spec":{"replicas":9}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}},
	} {
		before := get()
		if err := w.write(); err != nil {
			t.Fatalf("%s through v2: %v", w.name, err)
		}
		after := get()
		keptLists(w.name + " through v2")
		switch {
		case !w.live && after.ResourceVersion != before.ResourceVersion:
			t.Errorf("%s through v2 changes nothing live, but resourceVersion moved from %s to %s", w.name, before.ResourceVersion, after.ResourceVersion)
		case w.live && after.ResourceVersion == before.ResourceVersion:
			t.Errorf("%s through v2 changes something live, but nothing was stored", w.name)
		}
		if moved := after.Generation != before.Generation; moved != (w.live && !w.status) {
			t.Errorf("%s through v2: generation %d -> %d", w.name, before.Generation, after.Generation)
		}
	}

	// Through v2, h's rules read [{r1}, {r1}]: a removal of either item is refused, since
	// which one went cannot be told, and a label patch keeps each item's filters (and erases
	// the live zone v2 lacks, as upstream's does).
	hRules := func(s string) interface{} {
		var m map[string]interface{}
		if err := utiljson.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m["rules"]
	}
	_, err := v2.Patch(ctx, "h", types.JSONPatchType, []byte(`[{"op":"remove","path":"/spec/rules/0"}]`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("removing one of two look-alike items of h through v2: %v, want 422", err)
	}
	if diff := cmp.Diff(hRules(lookAlikes), env.stored(t, crd, "h")["spec"].(map[string]interface{})["rules"]); diff != "" {
		t.Errorf("h's stored rules after the refused removal (-want +got):\n%s", diff)
	}
	if _, err := v2.Patch(ctx, "h", types.MergePatchType, []byte(`{"metadata":{"labels":{"l":"v"}}}`), metav1.PatchOptions{}); err != nil {
		t.Errorf("label patch of h through v2: %v", err)
	}
	wantRules := hRules(`{"rules":[{"name":"r1","filters":[{"kind":"k","secret":"s2"}]},{"name":"r1"}]}`)
	if diff := cmp.Diff(wantRules, env.stored(t, crd, "h")["spec"].(map[string]interface{})["rules"]); diff != "" {
		t.Errorf("h's stored rules after a label patch (-want +got):\n%s", diff)
	}

	// Enabled, the lists and maps are live, and a write through v2 erases them, as upstream's.
	env.setGate(t, crd, 0, true, "retry", `"spec":{"steps":[{"name":"p","retry":1}]}`)
	if _, err := v2.Patch(ctx, "g", types.MergePatchType, []byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	spec, _ := env.stored(t, crd, "g")["spec"].(map[string]interface{})
	for _, k := range []string{"tiers", "steps", "ports"} {
		if v, ok := spec[k]; ok {
			t.Errorf("Size enabled, a write through v2 kept .spec.%s = %v", k, v)
		}
	}
}
