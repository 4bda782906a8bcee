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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/featuregatetest/writemodel"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// TestFieldGatesNeverLost is issue 39's report, each case on the real server and etcd, every
// gate off: the writes that lost, moved or dropped a stored value before the rule of
// docs/reference/semantics.md ("Which new item continues a stored one") now keep it or
// are refused with 422 naming the gate, and nothing changes where they are refused.
func TestFieldGatesNeverLost(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := env.createCRD(t, writesCRD(t, "keptwrites"))
	objects := map[string]string{
		"tags-null":    `"spec":{"tags":["t1"]}`,
		"tags-absent":  `"spec":{"tags":["t1"],"backup":{"size":"1"}}`,
		"extra-null":   `"spec":{"extra":{"cpu":"1"}}`,
		"swap-edit":    `"spec":{"steps":[{"name":"a","retry":7},{"name":"b","retry":8}]}`,
		"swap-around":  `"spec":{"steps":[{"name":"a","retry":7},{"name":"b"},{"name":"c","retry":9}]}`,
		"swap-part":    `"spec":{"steps":[{"name":"a","retry":7,"sub":[{"v":0,"w":1}]},{"name":"b"},{"name":"c","retry":9,"sub":[{"v":0,"w":2}]}]}`,
		"equal-values": `"spec":{"steps":[{"name":"a","retry":3},{"name":"u","retry":3}]}`,
		"spec-null":    `"spec":{"steps":[{"name":"a","retry":7}],"ports":[{"name":"p","hostPort":1}]}`,
		"move-edit":    `"spec":{"steps":[{"name":"a","retry":7},{"name":"b"},{"name":"c"}]}`,
		"edit-all":     `"spec":{"steps":[{"name":"a","retry":7},{"name":"b","retry":8}]}`,
		"scalar":       `"spec":{"config":{"secret":"s","mode":"m"}}`,
		"null-item":    `"spec":{"steps":[{"name":"s1","retry":7}]}`,
		"remove-add":   `"spec":{"steps":[{"name":"a","retry":7},{"name":"b"}]}`,
		"remove-alone": `"spec":{"steps":[{"name":"a","retry":7},{"name":"b"}]}`,
		"typed-scalar": `"spec":{"backup":{"size":"1","encryption":"k"}}`,
		"required":     `"spec":{"backup":{"size":"1","encryption":"k"}}`,
		"remove-edit":  `"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3},{"name":"d","retry":4}]}`,
		"nested-front": `"spec":{"steps":[{"name":"a","sub":[{"v":0,"w":1}]},{"name":"m"},{"name":"b","sub":[{"v":0,"w":2}]}]}`,
		"nested-drop":  `"spec":{"steps":[{"name":"a","sub":[{"v":0,"w":1},{"v":1,"w":2}]},{"name":"m"},{"name":"b","sub":[{"v":2,"w":2},{"v":3,"w":3}]}]}`,
	}
	for name, content := range objects {
		env.create(t, crd, name, content)
	}
	env.warnings.Take()
	off := map[string]bool{}
	for _, g := range writemodel.Gates {
		off[g.Name] = true
	}
	env.setGates(t, crd, off)

	kept := func(t *testing.T, name, want string) {
		t.Helper()
		env.assertStored(t, crd, name, want, 1)
		env.warnings.Take()
	}
	refused := func(t *testing.T, name string, err error, path string, want string) {
		t.Helper()
		if !apierrors.IsInvalid(err) {
			t.Fatalf("%s: want 422 Invalid, got %v", name, err)
		}
		status, ok := err.(apierrors.APIStatus)
		if !ok || status.Status().Details == nil || len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Field != path {
			t.Fatalf("%s: want one cause at %s, got %v", name, path, err)
		}
		if !strings.Contains(err.Error(), "(alpha)") || !strings.Contains(err.Error(), "Gate") {
			t.Errorf("%s: the error does not name the gate: %v", name, err)
		}
		env.assertStored(t, crd, name, want, 1)
		env.warnings.Take()
	}
	merge := func(name, patch string) error {
		_, err := env.client(crd).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	}

	t.Run("a gated [*] list sent as null keeps the stored items", func(t *testing.T) {
		if err := merge("tags-null", `{"spec":{"tags":null}}`); err != nil {
			t.Fatal(err)
		}
		kept(t, "tags-null", objects["tags-null"])
	})
	t.Run("a gated [*] list left out of a PUT keeps the stored items", func(t *testing.T) {
		env.update(t, crd, "tags-absent", `"spec":{"backup":{"size":"1"}}`)
		kept(t, "tags-absent", objects["tags-absent"])
	})
	t.Run("a gated [*] map sent as null keeps the stored keys", func(t *testing.T) {
		if err := merge("extra-null", `{"spec":{"extra":null}}`); err != nil {
			t.Fatal(err)
		}
		kept(t, "extra-null", objects["extra-null"])
	})
	t.Run("two items swapped and both edited are refused", func(t *testing.T) {
		err := merge("swap-edit", `{"spec":{"steps":[{"name":"b","image":"v2","retry":8},{"name":"a","image":"v2","retry":7}]}}`)
		refused(t, "swap-edit", err, "spec.steps", objects["swap-edit"])
	})
	t.Run("two items swapped around an unchanged one and both edited are refused", func(t *testing.T) {
		err := merge("swap-around", `{"spec":{"steps":[{"name":"c2","retry":9},{"name":"b"},{"name":"a2","retry":7}]}}`)
		refused(t, "swap-around", err, "spec.steps", objects["swap-around"])
	})
	t.Run("two items swapped around an unchanged one, edited, and sent with part of their values are refused", func(t *testing.T) {
		err := merge("swap-part", `{"spec":{"steps":[{"name":"c2","retry":9},{"name":"b"},{"name":"a2","retry":7}]}}`)
		refused(t, "swap-part", err, "spec.steps", objects["swap-part"])
	})
	t.Run("items with equal values edited, one of them holding none, keep their own", func(t *testing.T) {
		// The manifest gives every step retry 3; c was added while the gate was off.
		if err := merge("equal-values", `{"spec":{"steps":[{"name":"a","retry":3},{"name":"u","retry":3},{"name":"c","retry":3}]}}`); err != nil {
			t.Fatal(err)
		}
		if err := merge("equal-values", `{"spec":{"steps":[{"name":"a2","retry":3},{"name":"u","retry":3},{"name":"c2","retry":3}]}}`); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "equal-values", `"spec":{"steps":[{"name":"a2","retry":3},{"name":"u","retry":3},{"name":"c2"}]}`, 3)
		env.warnings.Take()
	})
	t.Run("spec sent as null removes the lists whose items hold stored values, with them", func(t *testing.T) {
		if err := merge("spec-null", `{"spec":null}`); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "spec-null", ``, 2)
		env.warnings.Take()
	})
	t.Run("a holder removed while another item is edited in place keeps the edited item's value", func(t *testing.T) {
		env.update(t, crd, "remove-edit", `"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2","retry":3},{"name":"d","retry":4}]}`)
		env.assertStored(t, crd, "remove-edit", `"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2","retry":3},{"name":"d","retry":4}]}`, 2)
		env.warnings.Take()
	})
	t.Run("two items swapped around an unchanged one, edited, a nested item inserted in front, are refused", func(t *testing.T) {
		err := merge("nested-front", `{"spec":{"steps":[{"name":"b2","sub":[{"v":9},{"v":0,"w":2}]},{"name":"m"},{"name":"a2","sub":[{"v":9},{"v":0,"w":1}]}]}}`)
		refused(t, "nested-front", err, "spec.steps", objects["nested-front"])
	})
	t.Run("a nested item removed in front in two items around an unchanged one keeps the values", func(t *testing.T) {
		if err := merge("nested-drop", `{"spec":{"steps":[{"name":"a","sub":[{"v":1,"w":2}]},{"name":"m"},{"name":"b","sub":[{"v":3,"w":3}]}]}}`); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "nested-drop", `"spec":{"steps":[{"name":"a","sub":[{"v":1,"w":2}]},{"name":"m"},{"name":"b","sub":[{"v":3,"w":3}]}]}`, 2)
		env.warnings.Take()
	})
	t.Run("one item moved and edited is refused", func(t *testing.T) {
		err := merge("move-edit", `{"spec":{"steps":[{"name":"b"},{"name":"c"},{"name":"a","image":"v2","retry":7}]}}`)
		refused(t, "move-edit", err, "spec.steps", objects["move-edit"])
	})
	t.Run("neighbours edited, each sending back its stored value, keep their values", func(t *testing.T) {
		if err := merge("edit-all", `{"spec":{"steps":[{"name":"a","image":"v2","retry":7},{"name":"b","image":"v2","retry":8}]}}`); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "edit-all", `"spec":{"steps":[{"name":"a","image":"v2","retry":7},{"name":"b","image":"v2","retry":8}]}`, 2)
		env.warnings.Take()
	})
	t.Run("an untyped parent holding a stored value replaced by a scalar is refused", func(t *testing.T) {
		err := merge("scalar", `{"spec":{"config":"plain"}}`)
		refused(t, "scalar", err, "spec.config", objects["scalar"])
	})
	t.Run("an item holding a stored value replaced by null is refused", func(t *testing.T) {
		obj := env.get(t, crd, "null-item")
		obj.Object["spec"] = map[string]interface{}{"steps": []interface{}{nil}}
		_, err := env.client(crd).Update(context.Background(), obj, metav1.UpdateOptions{})
		refused(t, "null-item", err, "spec.steps[0]", objects["null-item"])
	})
	t.Run("an item removed while another is added is refused", func(t *testing.T) {
		err := merge("remove-add", `{"spec":{"steps":[{"name":"b"},{"name":"x"}]}}`)
		refused(t, "remove-add", err, "spec.steps", objects["remove-add"])
	})
	t.Run("a typed parent holding a stored value replaced by a scalar is refused, naming the gate", func(t *testing.T) {
		_, err := env.client(crd).Patch(context.Background(), "typed-scalar", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/backup","value":"x"}]`), metav1.PatchOptions{})
		refused(t, "typed-scalar", err, "spec.backup", objects["typed-scalar"])
	})
	t.Run("a parent recreated without its required property is refused, naming the gate", func(t *testing.T) {
		err := merge("required", `{"spec":{"backup":null}}`)
		refused(t, "required", err, "spec.backup", objects["required"])
		if !strings.Contains(err.Error(), `"size"`) {
			t.Errorf("the error does not name the required property: %v", err)
		}
	})
	t.Run("an item removed in a write that adds none goes with its value", func(t *testing.T) {
		if err := merge("remove-alone", `{"spec":{"steps":[{"name":"b"}]}}`); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "remove-alone", `"spec":{"steps":[{"name":"b"}]}`, 2)
		env.warnings.Take()
	})
}

func (e *gatesEnv) get(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := e.client(crd).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestFieldGatesNoopWrites: a write whose only change was gated away changes nothing: the
// same resourceVersion, the same generation, the same managedFields, and no watch event, for
// a merge patch, a PUT, a server-side apply by a second manager, an apply with force, and
// writes inside a list without keys (which a manager owns whole).
func TestFieldGatesNoopWrites(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := env.createCRD(t, writesCRD(t, "noopwrites"))
	created := env.create(t, crd, "noop", `"spec":{"steps":[{"name":"a","retry":7}],"config":{"secret":"s","mode":"m"},"backup":{"size":"1"}}`)
	env.warnings.Take()
	env.setGates(t, crd, map[string]bool{"RetryGate": true, "SecretGate": true, "EncryptionGate": true})
	cur, err := env.client(crd).Get(context.Background(), "noop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := cur.GetResourceVersion()
	list, err := env.client(crd).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := env.client(crd).Watch(context.Background(), metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), FieldSelector: "metadata.name=noop"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	apply := func(manager string, force bool, body string) error {
		_, err := env.client(crd).Patch(context.Background(), "noop", types.ApplyPatchType, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"noop"},"spec":`+body+`}`),
			metav1.PatchOptions{FieldManager: manager, Force: ptr.To(force)})
		return err
	}
	writes := []struct {
		name  string
		write func() error
	}{
		{"merge patch", func() error {
			_, err := env.client(crd).Patch(context.Background(), "noop", types.MergePatchType, []byte(`{"spec":{"steps":[{"name":"a","retry":9}],"config":{"secret":"t"}}}`), metav1.PatchOptions{})
			return err
		}},
		{"PUT", func() error {
			obj := cur.DeepCopy()
			obj.Object["spec"] = map[string]interface{}{"steps": []interface{}{map[string]interface{}{"name": "a"}}, "config": map[string]interface{}{"mode": "m"}, "backup": map[string]interface{}{"size": "1"}}
			_, err := env.client(crd).Update(context.Background(), obj, metav1.UpdateOptions{})
			return err
		}},
		// A field nobody owns, so that the apply is no conflict.
		{"apply by a second manager", func() error { return apply("second", false, `{"backup":{"encryption":"u"}}`) }},
		// A field another manager owns, with another value: a conflict, forced.
		{"apply with force", func() error { return apply("forced", true, `{"config":{"secret":"v"}}`) }},
		// Inside a list without keys, which a manager owns whole.
		{"JSON patch inside a list without keys", func() error {
			_, err := env.client(crd).Patch(context.Background(), "noop", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/steps/0/retry","value":99}]`), metav1.PatchOptions{FieldManager: "patcher"})
			return err
		}},
		{"apply with force inside a list without keys", func() error {
			return apply("forced-list", true, `{"steps":[{"name":"a","retry":11}]}`)
		}},
	}
	for _, tc := range writes {
		if err := tc.write(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		after, err := env.client(crd).Get(context.Background(), "noop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if after.GetResourceVersion() != rv || after.GetGeneration() != created.GetGeneration() {
			t.Errorf("%s: resourceVersion %s -> %s, generation %d -> %d; want both unchanged", tc.name, rv, after.GetResourceVersion(), created.GetGeneration(), after.GetGeneration())
		}
		if !writemodel.Equal(after.GetManagedFields(), cur.GetManagedFields()) {
			t.Errorf("%s: managedFields changed:\n%v\nwas\n%v", tc.name, after.GetManagedFields(), cur.GetManagedFields())
		}
	}
	env.warnings.Take()
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Bookmark {
			t.Errorf("a watch event after writes that changed nothing live: %s %v", ev.Type, ev.Object)
		}
	case <-time.After(2 * time.Second):
	}
}

// TestFieldGatesStorageOnlyPath: with conversion None, gated fields that only the storage
// version's schema has (v2's .spec.extra and .spec.items[*].h; v1 has neither) keep their
// stored values when writes through v1, whose pruning removes them from the request and from
// the object the update starts from, update the object: whether the fields are gated by marks
// in v2's schema or by the gate's fieldPaths.
func TestFieldGatesStorageOnlyPath(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	for _, byMarks := range []bool{true, false} {
		name := map[bool]string{true: "marks", false: "fieldPaths"}[byMarks]
		t.Run(name, func(t *testing.T) {
			storageOnlyPath(t, env, name, byMarks)
		})
	}
}

func storageOnlyPath(t *testing.T, env *gatesEnv, name string, byMarks bool) {
	ctx := context.Background()
	group := strings.ToLower(name) + ".storageonly.example.com"
	versionSchema := func(storage bool) *apiextensionsv1.CustomResourceValidation {
		item := map[string]apiextensionsv1.JSONSchemaProps{"nm": {Type: "string"}}
		props := map[string]apiextensionsv1.JSONSchemaProps{"image": {Type: "string"}}
		if storage {
			extra, h := apiextensionsv1.JSONSchemaProps{Type: "string"}, apiextensionsv1.JSONSchemaProps{Type: "string"}
			if byMarks {
				extra.XFeatureGate, h.XFeatureGate = ptr.To("ExtraGate"), ptr.To("ExtraGate")
			}
			props["extra"], item["h"] = extra, h
		}
		props["items"] = apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: item}}}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: props}}}}
	}
	gate := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "ExtraGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true)}
	if !byMarks {
		gate.FieldPaths = []string{".spec.extra", ".spec.items[*].h"}
	}
	crd := env.createCRD(t, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Schema: versionSchema(false)},
				{Name: "v2", Served: true, Storage: true, Schema: versionSchema(true)},
			},
			Conversion:         &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{gate}},
		},
	})
	client := func(version string) dynamic.ResourceInterface {
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}
		return env.dynamic.Resource(gvr).Namespace(gatesTestNamespace)
	}
	items := func(h bool) []interface{} {
		first := map[string]interface{}{"nm": "1"}
		if h {
			first["h"] = "h1"
		}
		return []interface{}{first, map[string]interface{}{"nm": "2"}}
	}
	obj := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": group + "/v2", "kind": "Gadget",
		"metadata": map[string]interface{}{"name": "g"}, "spec": map[string]interface{}{"image": "a", "extra": "x", "items": items(true)}}}
	if _, err := client("v2").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := `[{"op":"test","path":"/spec/customFeatureGates/featureGates/0/name","value":"ExtraGate"},{"op":"replace","path":"/spec/customFeatureGates/featureGates/0/enabled","value":false}]`
	if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, crd.Name, types.JSONPatchType, []byte(p), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// Wait until a v2 create drops extra: the gate is off in the server.
	probe := obj.DeepCopy()
	probe.SetName("probe")
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		out, err := client("v2").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, nil
		}
		_, has := out.Object["spec"].(map[string]interface{})["extra"]
		return !has, nil
	}); err != nil {
		t.Fatalf("the server did not pick up the gate change: %v", err)
	}
	for i, write := range []func() error{
		func() error {
			_, err := client("v1").Patch(ctx, "g", types.MergePatchType, []byte(`{"metadata":{"labels":{"l":"1"}}}`), metav1.PatchOptions{})
			return err
		},
		func() error {
			_, err := client("v1").Patch(ctx, "g", types.MergePatchType, []byte(`{"spec":{"image":"b"}}`), metav1.PatchOptions{})
			return err
		},
		func() error {
			cur, err := client("v1").Get(ctx, "g", metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Object["spec"] = map[string]interface{}{"image": "c", "items": items(false)}
			_, err = client("v1").Update(ctx, cur, metav1.UpdateOptions{})
			return err
		},
	} {
		if err := write(); err != nil {
			t.Fatalf("write %d through v1: %v", i, err)
		}
		stored := env.stored(t, crd, "g")
		spec, _ := stored["spec"].(map[string]interface{})
		if spec["extra"] != "x" || !writemodel.Equal(spec["items"], items(true)) {
			t.Errorf("write %d through v1: stored spec %v, want extra: x and items[0].h: h1 kept", i, spec)
		}
	}
	env.warnings.Take()
}

// TestFieldGatesRecreatedParentDefaults: an object that gating recreates to hold a stored
// value (the write sent its parent as null) is stored with the defaults of its live fields,
// as decoding gives every object, and without the default of a disabled one: reads show what
// is stored, and writing back what was read changes nothing (same resourceVersion and
// generation). Before, the object was stored without them, reads showed them (defaulting on
// read), and that write stored them, moving both.
func TestFieldGatesRecreatedParentDefaults(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	str := func(def string) apiextensionsv1.JSONSchemaProps {
		s := apiextensionsv1.JSONSchemaProps{Type: "string"}
		if def != "" {
			s.Default = &apiextensionsv1.JSON{Raw: []byte(strconv.Quote(def))}
		}
		return s
	}
	backup := apiextensionsv1.JSONSchemaProps{Type: "object", Nullable: true, Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"size": str("1Gi"), "schedule": str("@daily"), "encryption": str(""), "keyRef": str("default-key")}}
	crd := env.createCRD(t, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"image": str(""), "backup": backup}}}}}}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "EncryptionGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.backup.encryption", ".spec.backup.keyRef"}}}},
		},
	})
	env.create(t, crd, "w", `"spec":{"image":"a","backup":{"size":"5Gi","schedule":"@hourly","encryption":"k","keyRef":"mine"}}`)
	env.setGate(t, crd, 0, false, "encryption", `"spec":{"image":"p","backup":{"encryption":"p"}}`)
	env.patch(t, crd, "w", types.MergePatchType, `{"spec":{"backup":null}}`)
	env.warnings.Take()
	want := map[string]interface{}{"image": "a", "backup": map[string]interface{}{"size": "1Gi", "schedule": "@daily", "encryption": "k", "keyRef": "mine"}}
	if got := env.stored(t, crd, "w")["spec"]; !cmp.Equal(got, want) {
		t.Fatalf("stored spec after the parent was sent as null (-want +got):\n%s", cmp.Diff(want, got))
	}
	read := env.get(t, crd, "w")
	if got := read.Object["spec"]; !cmp.Equal(got, want) {
		t.Errorf("read spec (-want +got):\n%s", cmp.Diff(want, got))
	}
	after, err := env.client(crd).Update(ctx, read, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.GetResourceVersion() != read.GetResourceVersion() || after.GetGeneration() != read.GetGeneration() {
		t.Errorf("writing back what was read: resourceVersion %s -> %s, generation %d -> %d; want both unchanged",
			read.GetResourceVersion(), after.GetResourceVersion(), read.GetGeneration(), after.GetGeneration())
	}
}

// TestFieldGatesMapListBelowKeylessItems: with the gates off, a value stored in an item of a
// list of type map below an item of a list without keys has its place by that item's keys
// (docs/reference/semantics.md, rule 2): a holder removed while an edited neighbour sends its
// value at the same key is refused, whatever the index, and items edited and sent back as read
// keep their values, whatever the order of their map lists. A gated [*] list below the items
// counts as absent to the rule: items reordered without it keep theirs.
func TestFieldGatesMapListBelowKeylessItems(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	gate := featuregatetest.Gate("ProtoGate", "alpha", ".spec.steps[*].ports[*].proto")
	gate.Enabled = ptr.To(true)
	tags := featuregatetest.Gate("TagsGate", "alpha", ".spec.steps[*].tags[*]")
	tags.Enabled = ptr.To(true)
	crd := featuregatetest.CronTabCRD("mapbelows", gate, tags)
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["steps"] = apiextensionsv1.JSONSchemaProps{
		Type: "array",
		Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"name": str,
				"tags": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
				"ports": {
					Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"},
					Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", Required: []string{"name"},
						Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str, "proto": str},
					}},
				},
			},
		}},
	}
	crd = env.createCRD(t, crd)
	const moved = `"spec":{"steps":[{"name":"a","ports":[{"name":"http","proto":"TCP"}]},{"name":"z"},{"name":"b","ports":[{"name":"dns"},{"name":"http"}]}]}`
	const reordered = `"spec":{"steps":[{"name":"a","ports":[{"name":"http","proto":"TCP"},{"name":"dns","proto":"UDP"}]},{"name":"b","ports":[{"name":"x","proto":"SCTP"}]}]}`
	env.create(t, crd, "moved", moved)
	env.create(t, crd, "reordered", reordered)
	env.create(t, crd, "tagged", `"spec":{"steps":[{"name":"a","tags":["x"]},{"name":"b","tags":["y"]}]}`)
	// TagsGate off first, without waiting (a probe cannot tell an emptied list by its name);
	// the server has it once it has ProtoGate's later change.
	if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.JSONPatchType,
		[]byte(`[{"op":"add","path":"/spec/customFeatureGates/featureGates/1/enabled","value":false}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	env.setGate(t, crd, 0, false, "proto", `"spec":{"steps":[{"name":"p","ports":[{"name":"q","proto":"TCP"}]}]}`)

	for _, patch := range []string{`{"spec":{"steps":[{"name":"b"},{"name":"a"}]}}`, `{"spec":{"steps":[{"name":"a","tags":null},{"name":"b","tags":null}]}}`} {
		if _, err := env.client(crd).Patch(context.Background(), "tagged", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("items reordered without their gated [*] lists (%s): %v", patch, err)
		}
	}
	env.assertStored(t, crd, "tagged", `"spec":{"steps":[{"name":"a","tags":["x"]},{"name":"b","tags":["y"]}]}`, 3)

	_, err := env.client(crd).Patch(context.Background(), "moved", types.MergePatchType,
		[]byte(`{"spec":{"steps":[{"name":"z"},{"name":"b2","ports":[{"name":"dns"},{"name":"http","proto":"TCP"}]}]}}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "ProtoGate") {
		t.Errorf("a holder removed while an edited item sends its value at the same key: %v, want 422 naming ProtoGate", err)
	}
	env.assertStored(t, crd, "moved", moved, 1)

	if _, err := env.client(crd).Patch(context.Background(), "reordered", types.MergePatchType,
		[]byte(`{"spec":{"steps":[{"name":"a2","ports":[{"name":"dns","proto":"UDP"},{"name":"http","proto":"TCP"}]},{"name":"b2","ports":[{"name":"x","proto":"SCTP"}]}]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("two items edited and sent back as read, a map list reordered: %v", err)
	}
	env.assertStored(t, crd, "reordered", `"spec":{"steps":[{"name":"a2","ports":[{"name":"dns","proto":"UDP"},{"name":"http","proto":"TCP"}]},{"name":"b2","ports":[{"name":"x","proto":"SCTP"}]}]}`, 2)
}
