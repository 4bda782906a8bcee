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
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/integration/conversion"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// prunedVersionCRD has conversion None, a status subresource, and two versions: v1, the
// storage version, has .spec.extra and .status.only, both gated by Extra (enabled); v2 has
// neither, so decoding in v2 prunes them. Deep (enabled) gates .spec.deep, which both
// versions have, but only v1 has .spec.deep.nested.
func prunedVersionCRD() *apiextensionsv1.CustomResourceDefinition {
	object := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"k": {Type: "string"}}}
	schema := func(full bool) *apiextensionsv1.CustomResourceValidation {
		deep := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"k": {Type: "string"}}}
		if full {
			deep.Properties["nested"] = object
		}
		spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"image": {Type: "string"}, "deep": deep}}
		status := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"phase": {Type: "string"}}}
		if full {
			spec.Properties["extra"], status.Properties["only"] = object, object
		}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec, "status": status}}}
	}
	status := &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(true), Subresources: status},
				{Name: "v2", Served: true, Schema: schema(false), Subresources: status},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "Extra", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.extra", ".status.only"}},
				{Name: "Deep", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.deep"}}}},
		},
	}
}

// TestFieldGatesPrunedVersionKeepsTheOtherPart: with the gate disabled, a write through v2
// (which lacks some gated fields, and part of one) keeps the stored values in both parts of
// the object: a status write the stored .spec.extra and .spec.deep.nested, a main write those
// and the stored .status.only, although decoding in v2 pruned them from the object the
// update starts from.
func TestFieldGatesPrunedVersionKeepsTheOtherPart(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	crd := env.createCRD(t, prunedVersionCRD())
	env.create(t, crd, "w", `"spec":{"image":"a","extra":{"k":"stored"},"deep":{"k":"d","nested":{"k":"stored"}}}`)
	env.patch(t, crd, "w", types.MergePatchType, `{"status":{"phase":"P","only":{"k":"stored"}}}`, "status")
	v2 := env.versionClient(crd, "v2")
	deep := map[string]interface{}{"k": "d", "nested": map[string]interface{}{"k": "stored"}}

	// Deep alone disabled: v2 has its path, not all of what is below it. (A write through v2
	// while Extra is enabled prunes .spec.extra as upstream does: its own object.)
	env.create(t, crd, "deep-only", `"spec":{"image":"a","deep":{"k":"d","nested":{"k":"stored"}}}`)
	env.setGate(t, crd, 1, false, "deep", `"spec":{"image":"p","deep":{"k":"p"}}`)
	if _, err := v2.Patch(ctx, "deep-only", types.MergePatchType, []byte(`{"spec":{"image":"b"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := env.stored(t, crd, "deep-only")["spec"].(map[string]interface{})["deep"]; !cmp.Equal(got, deep) {
		t.Errorf("Deep disabled, a write in v2: stored .spec.deep = %v, want %v", got, deep)
	}

	env.setGate(t, crd, 0, false, "extra", `"spec":{"image":"p","extra":{"k":"p"}}`)
	for _, w := range []struct {
		name, patch  string
		subresources []string
		want         map[string]interface{}
	}{
		{name: "status write in v2", patch: `{"status":{"phase":"Ready"}}`, subresources: []string{"status"},
			want: map[string]interface{}{"spec": map[string]interface{}{"image": "a", "extra": map[string]interface{}{"k": "stored"}, "deep": deep},
				"status": map[string]interface{}{"phase": "Ready", "only": map[string]interface{}{"k": "stored"}}}},
		{name: "main write in v2", patch: `{"spec":{"image":"b"}}`,
			want: map[string]interface{}{"spec": map[string]interface{}{"image": "b", "extra": map[string]interface{}{"k": "stored"}, "deep": deep},
				"status": map[string]interface{}{"phase": "Ready", "only": map[string]interface{}{"k": "stored"}}}},
	} {
		if _, err := v2.Patch(ctx, "w", types.MergePatchType, []byte(w.patch), metav1.PatchOptions{}, w.subresources...); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		stored := env.stored(t, crd, "w")
		if diff := cmp.Diff(w.want, map[string]interface{}{"spec": stored["spec"], "status": stored["status"]}); diff != "" {
			t.Errorf("%s: stored spec and status (-want +got):\n%s", w.name, diff)
		}
	}
}

// TestFieldGatesPrunedVersionDelete: with the gate disabled, a deletion through v2 that does
// not remove the object at once (a finalizer, orphan propagation, a collection) keeps the
// stored values that decoding in v2 prunes; the answers, and the update that removes the last
// finalizer, show the object as v2 does, without them.
//
// The same with a conversion webhook that changes apiVersion only: decoding in v2 prunes the
// values it gives back.
func TestFieldGatesPrunedVersionDelete(t *testing.T) {
	enableFeature(t, true)
	t.Run("None", func(t *testing.T) { testPrunedVersionDelete(t, startGatesServer(t, ""), prunedVersionCRD(), false) })
	t.Run("Webhook", func(t *testing.T) {
		webhook := &failOnce{failed: map[string]bool{}}
		tearDown, clientConfig, err := conversion.StartConversionWebhookServer(conversion.NewObjectConverterWebhookHandler(t, webhook.convert))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tearDown)
		crd := prunedVersionCRD()
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: clientConfig, ConversionReviewVersions: []string{"v1"}},
		}
		testPrunedVersionDelete(t, startGatesServer(t, ""), crd, true)
	})
}

func testPrunedVersionDelete(t *testing.T, env *gatesEnv, crd *apiextensionsv1.CustomResourceDefinition, webhook bool) {
	ctx := context.Background()
	crd = env.createCRD(t, crd)
	v2 := env.versionClient(crd, "v2")
	for _, name := range []string{"finalizer", "orphan", "collection-a", "collection-b", "other"} {
		obj := crObject(t, crd, name, `"spec":{"image":"a","extra":{"k":"stored"}}`)
		if strings.HasPrefix(name, "collection") {
			obj.SetLabels(map[string]string{"group": "collection"})
		}
		if name != "orphan" && name != "other" {
			obj.SetFinalizers([]string{"example.com/hold"})
		}
		if _, err := env.client(crd).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.patch(t, crd, name, types.MergePatchType, `{"status":{"phase":"P","only":{"k":"stored"}}}`, "status")
	}
	env.setGate(t, crd, 0, false, "extra", `"spec":{"image":"p","extra":{"k":"p"}}`)

	keeps := func(what, name string) {
		t.Helper()
		stored := env.stored(t, crd, name)
		if stored == nil {
			t.Fatalf("%s: %s is gone from etcd", what, name)
		}
		if stored["metadata"].(map[string]interface{})["deletionTimestamp"] == nil {
			t.Errorf("%s: %s has no deletionTimestamp", what, name)
		}
		want := map[string]interface{}{"spec": map[string]interface{}{"image": "a", "extra": map[string]interface{}{"k": "stored"}},
			"status": map[string]interface{}{"phase": "P", "only": map[string]interface{}{"k": "stored"}}}
		if diff := cmp.Diff(want, map[string]interface{}{"spec": stored["spec"], "status": stored["status"]}); diff != "" {
			t.Errorf("%s: stored spec and status of %s (-want +got):\n%s", what, name, diff)
		}
	}
	shownAsV2 := func(what string, obj map[string]interface{}) {
		t.Helper()
		if obj["apiVersion"] != "stable.example.com/v2" {
			t.Errorf("%s: apiVersion %v, want stable.example.com/v2", what, obj["apiVersion"])
		}
		if spec, _ := obj["spec"].(map[string]interface{}); spec == nil || spec["extra"] != nil || spec["image"] != "a" {
			t.Errorf("%s: spec %v, want v2's, image a and no extra", what, obj["spec"])
		}
		if status, _ := obj["status"].(map[string]interface{}); status == nil || status["only"] != nil {
			t.Errorf("%s: status %v, want v2's, without only", what, obj["status"])
		}
	}

	// A finalizer: the deletion only marks the object, and answers with it as v2 shows it.
	raw, err := env.apiext.ApiextensionsV1().RESTClient().Delete().
		AbsPath("/apis/stable.example.com/v2/namespaces", gatesTestNamespace, crd.Spec.Names.Plural, "finalizer").Do(ctx).Raw()
	if err != nil {
		t.Fatal(err)
	}
	var answer map[string]interface{}
	if err := utiljson.Unmarshal(raw, &answer); err != nil {
		t.Fatal(err)
	}
	shownAsV2("delete through v2, answer", answer)
	keeps("delete through v2 with a finalizer", "finalizer")

	// Orphan propagation adds the orphan finalizer, which no garbage collector removes here:
	// a write back of the object.
	orphan := metav1.DeletePropagationOrphan
	if err := v2.Delete(ctx, "orphan", metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	keeps("delete through v2 with orphan propagation", "orphan")

	// A collection, selected with v2's selectors: one page of one object, then the rest.
	if err := v2.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "group=collection", Limit: 1}); err != nil {
		t.Fatal(err)
	}
	keeps("deletecollection through v2, limit 1", "collection-a")
	if stored := env.stored(t, crd, "collection-b"); stored == nil || stored["metadata"].(map[string]interface{})["deletionTimestamp"] != nil {
		t.Fatalf("deletecollection through v2 with limit 1 deleted a second object: %v", stored)
	}
	if err := v2.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "group=collection"}); err != nil {
		t.Fatal(err)
	}
	keeps("deletecollection through v2", "collection-a")
	keeps("deletecollection through v2", "collection-b")
	if stored := env.stored(t, crd, "other"); stored == nil || stored["metadata"].(map[string]interface{})["deletionTimestamp"] != nil {
		t.Fatalf("deletecollection through v2 with a label selector deleted an object it does not select: %v", stored)
	}

	// A deletion that removes the object at once.
	if err := v2.Delete(ctx, "other", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if stored := env.stored(t, crd, "other"); stored != nil {
		t.Errorf("delete through v2 without finalizers: still in etcd: %v", stored["metadata"])
	}

	// Removing the last finalizer through v2 removes the object, and answers with it as v2
	// shows it. A webhook that does not give the stored values back cannot update the
	// object through v2 at all (see TestFieldGatesConversionWebhookFailsClosed): the
	// finalizer is removed through v1.
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	out, err := v2.Patch(ctx, "finalizer", types.MergePatchType, patch, metav1.PatchOptions{})
	if webhook {
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "does not round-trip gated fields") {
			t.Fatalf("last finalizer removed through v2 with a webhook that drops a stored value: %v, want a 500 that says so", err)
		}
		keeps("last finalizer removed through v2, refused", "finalizer")
		if out, err = env.client(crd).Patch(ctx, "finalizer", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	} else {
		if err != nil {
			t.Fatal(err)
		}
		shownAsV2("last finalizer removed through v2, answer", out.Object)
	}
	if stored := env.stored(t, crd, "finalizer"); stored != nil {
		t.Errorf("last finalizer removed: still in etcd: %v", stored["metadata"])
	}
}

// TestFieldGatesPrunedVersionNoop: with the gates disabled, a write through v2, whose decoding
// prunes the stored values at disabled paths from the object the update starts from, that
// changes nothing live changes nothing: the same resourceVersion, generation and stored
// object, no warning for the values v2 cannot show, and no watch event. A write that changes
// managedFields only (an apply that takes co-ownership) is persisted, and a live change moves
// the generation once. A live field that only v1 has (.spec.plain, ungated) is erased by a
// write through v2, as upstream erases it, without moving the generation.
func TestFieldGatesPrunedVersionNoop(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	def := prunedVersionCRD()
	v1Spec := def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	v1Spec.Properties["plain"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
	def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = v1Spec
	crd := env.createCRD(t, def)
	env.create(t, crd, "n", `"spec":{"image":"a","extra":{"k":"stored"},"deep":{"k":"d","nested":{"k":"stored"}}}`)
	env.patch(t, crd, "n", types.MergePatchType, `{"status":{"phase":"P","only":{"k":"stored"}}}`, "status")
	env.create(t, crd, "plain", `"spec":{"image":"a","plain":"p","extra":{"k":"stored"}}`)
	env.setGate(t, crd, 0, false, "extra", `"spec":{"image":"p","extra":{"k":"p"}}`)
	env.setGate(t, crd, 1, false, "deep", `"spec":{"image":"p","deep":{"k":"p"}}`)
	v2 := env.versionClient(crd, "v2")

	before := env.stored(t, crd, "n")
	cur, err := v2.Get(ctx, "n", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv, generation := cur.GetResourceVersion(), cur.GetGeneration()
	list, err := env.client(crd).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := env.client(crd).Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), FieldSelector: "metadata.name=n"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	env.warnings.Take()

	patch := func(data string, subresources ...string) func() (*unstructured.Unstructured, error) {
		return func() (*unstructured.Unstructured, error) {
			return v2.Patch(ctx, "n", types.MergePatchType, []byte(data), metav1.PatchOptions{}, subresources...)
		}
	}
	for _, tc := range []struct {
		name  string
		write func() (*unstructured.Unstructured, error)
		// warned is the path the one expected warning names; "" expects none.
		warned string
	}{
		{name: "merge patch of an unchanged live field", write: patch(`{"spec":{"image":"a"}}`)},
		{name: "PUT of the object as read", write: func() (*unstructured.Unstructured, error) {
			return v2.Update(ctx, cur.DeepCopy(), metav1.UpdateOptions{})
		}},
		{name: "status merge patch of an unchanged field", write: patch(`{"status":{"phase":"P"}}`, "status")},
		{name: "merge patch of a disabled field v2 has", write: patch(`{"spec":{"deep":{"k":"changed"}}}`), warned: ".spec.deep"},
		{name: "dry-run merge patch", write: func() (*unstructured.Unstructured, error) {
			return v2.Patch(ctx, "n", types.MergePatchType, []byte(`{"spec":{"image":"a"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		}},
	} {
		out, err := tc.write()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out.GetResourceVersion() != rv || out.GetGeneration() != generation {
			t.Errorf("%s: answered resourceVersion %s and generation %d, want %s and %d", tc.name, out.GetResourceVersion(), out.GetGeneration(), rv, generation)
		}
		if spec, _ := out.Object["spec"].(map[string]interface{}); spec["extra"] != nil {
			t.Errorf("%s: the answer shows .spec.extra, which v2 does not have: %v", tc.name, spec)
		}
		if status, _ := out.Object["status"].(map[string]interface{}); status["only"] != nil {
			t.Errorf("%s: the answer shows .status.only, which v2 does not have: %v", tc.name, status)
		}
		if diff := cmp.Diff(before, env.stored(t, crd, "n")); diff != "" {
			t.Errorf("%s: the stored object changed (-before +after):\n%s", tc.name, diff)
		}
		got := env.warnings.Take()
		switch {
		case tc.warned == "" && len(got) != 0:
			t.Errorf("%s: warnings %q, want none", tc.name, got)
		case tc.warned != "" && (len(got) != 1 || !strings.Contains(got[0], tc.warned)):
			t.Errorf("%s: warnings %q, want one about %s", tc.name, got, tc.warned)
		}
	}

	// The next event the watch sees is the next real change, made through v1.
	labelled := env.patch(t, crd, "n", types.MergePatchType, `{"metadata":{"labels":{"l":"1"}}}`)
	select {
	case ev := <-w.ResultChan():
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok || ev.Type != watch.Modified || u.GetResourceVersion() != labelled.GetResourceVersion() {
			t.Errorf("the first watch event after the writes that changed nothing is %s %v, want the label's change at resourceVersion %s", ev.Type, ev.Object, labelled.GetResourceVersion())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("no watch event for the label's change")
	}

	// An apply through v2 that only takes co-ownership of an unchanged field is persisted.
	applied, err := v2.Patch(ctx, "n", types.ApplyPatchType, []byte(`{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"n"},"spec":{"image":"a"}}`), metav1.PatchOptions{FieldManager: "co-owner"})
	if err != nil {
		t.Fatal(err)
	}
	if applied.GetResourceVersion() == labelled.GetResourceVersion() || applied.GetGeneration() != generation {
		t.Errorf("an apply taking co-ownership: resourceVersion %s (was %s), generation %d; want a new resourceVersion and generation %d", applied.GetResourceVersion(), labelled.GetResourceVersion(), applied.GetGeneration(), generation)
	}
	stored := &unstructured.Unstructured{Object: env.stored(t, crd, "n")}
	managers := map[string]bool{}
	for _, e := range stored.GetManagedFields() {
		managers[e.Manager] = true
	}
	if !managers["co-owner"] {
		t.Errorf("the stored managedFields have no entry of co-owner: %v", stored.GetManagedFields())
	}

	// A live change through v2 moves the generation once and keeps the stored values.
	if _, err := v2.Patch(ctx, "n", types.MergePatchType, []byte(`{"spec":{"image":"b"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	env.assertStored(t, crd, "n", `"spec":{"image":"b","extra":{"k":"stored"},"deep":{"k":"d","nested":{"k":"stored"}}},"status":{"phase":"P","only":{"k":"stored"}}`, generation+1)
	env.assertWarnings(t)

	// .spec.plain, live and only in v1, goes as upstream's write through v2 erases it.
	if _, err := env.versionClient(crd, "v2").Patch(ctx, "plain", types.MergePatchType, []byte(`{"spec":{"image":"a"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	env.assertStored(t, crd, "plain", `"spec":{"image":"a","extra":{"k":"stored"}}`, 1)
	env.assertWarnings(t)
}

// TestFieldGatesPrunedVersionDeleteAnswerFails: with a conversion webhook and the gate
// disabled, a deletion through v2 runs in v1's store; when the webhook fails only on
// converting the deleted object back to v2 for the answer, the deletion is done, and the 500
// says that it was persisted.
func TestFieldGatesPrunedVersionDeleteAnswerFails(t *testing.T) {
	enableFeature(t, true)
	convert := func(desiredAPIVersion string, in runtime.RawExtension) (runtime.RawExtension, error) {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(in.Raw); err != nil {
			return runtime.RawExtension{}, err
		}
		if desiredAPIVersion == "stable.example.com/v2" && u.GetDeletionTimestamp() != nil {
			return runtime.RawExtension{}, errors.New("chosen failure on the way back")
		}
		u.SetAPIVersion(desiredAPIVersion)
		raw, err := u.MarshalJSON()
		return runtime.RawExtension{Raw: raw}, err
	}
	tearDown, clientConfig, err := conversion.StartConversionWebhookServer(conversion.NewObjectConverterWebhookHandler(t, convert))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tearDown)
	env := startGatesServer(t, "")
	def := prunedVersionCRD()
	def.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: clientConfig, ConversionReviewVersions: []string{"v1"}},
	}
	crd := env.createCRD(t, def)
	obj := crObject(t, crd, "held", `"spec":{"image":"a","extra":{"k":"stored"}}`)
	obj.SetFinalizers([]string{"example.com/hold"})
	if _, err := env.client(crd).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.setGate(t, crd, 0, false, "extra", `"spec":{"image":"p","extra":{"k":"p"}}`)

	err = env.versionClient(crd, "v2").Delete(context.Background(), "held", metav1.DeleteOptions{})
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `the deletion of "held" was persisted`) || !strings.Contains(err.Error(), "chosen failure on the way back") {
		t.Fatalf("delete: got %v, want a 500 that says the deletion was persisted, with the webhook's message", err)
	}
	stored := env.stored(t, crd, "held")
	if stored == nil || stored["metadata"].(map[string]interface{})["deletionTimestamp"] == nil {
		t.Fatalf("the deletion was not persisted: %v", stored)
	}
	if got := stored["spec"].(map[string]interface{})["extra"]; !cmp.Equal(got, map[string]interface{}{"k": "stored"}) {
		t.Errorf("stored .spec.extra = %v, want the stored value kept", got)
	}
}

// TestFieldGatesPrunedVersionConcurrentPatches: with the gate disabled, concurrent merge
// patches through v2 without a resourceVersion (label changes and patches that change
// nothing) all succeed, as upstream's do: an attempt that started from an object older than
// the one read for gating is retried by the storage layer, not answered with 409. Every
// label is stored, and so is the gated value.
func TestFieldGatesPrunedVersionConcurrentPatches(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	crd := env.createCRD(t, prunedVersionCRD())
	env.create(t, crd, "c", `"spec":{"image":"a","extra":{"k":"stored"}}`)
	env.setGate(t, crd, 0, false, "extra", `"spec":{"image":"p","extra":{"k":"p"}}`)
	v2 := env.versionClient(crd, "v2")
	const writes = 40
	errs := make(chan error, writes)
	var wg sync.WaitGroup
	for i := range writes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			patch := `{"spec":{"image":"a"}}`
			if i%2 == 0 {
				patch = fmt.Sprintf(`{"metadata":{"labels":{"n%d":"v"}}}`, i)
			}
			_, err := v2.Patch(ctx, "c", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			t.Errorf("a concurrent patch failed: %v", err)
		}
	}
	stored := &unstructured.Unstructured{Object: env.stored(t, crd, "c")}
	for i := 0; i < writes; i += 2 {
		if _, ok := stored.GetLabels()[fmt.Sprintf("n%d", i)]; !ok {
			t.Errorf("label n%d is not stored", i)
		}
	}
	if got := stored.Object["spec"].(map[string]interface{})["extra"]; !cmp.Equal(got, map[string]interface{}{"k": "stored"}) {
		t.Errorf("stored .spec.extra = %v, want the stored value kept", got)
	}
	t.Logf("%d of %d concurrent patches failed", failed, writes)
}

// TestFieldGatesPrunedVersionRacingWrites: with the gate disabled, writes through v2 without
// a resourceVersion that race other writes get what upstream's get: a dry-run patch racing
// label patches succeeds, and a patch, a status patch or a forced apply racing the object's
// deletion succeeds, answers 404, or (the apply) creates the object; none answers 409. The
// stored value of the object that is never deleted is kept.
func TestFieldGatesPrunedVersionRacingWrites(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	crd := env.createCRD(t, prunedVersionCRD())
	env.create(t, crd, "c", `"spec":{"image":"a","extra":{"k":"stored"}}`)
	env.create(t, crd, "d", `"spec":{"image":"a","extra":{"k":"stored"}}`)
	env.setGate(t, crd, 0, false, "extra", `"spec":{"image":"p","extra":{"k":"p"}}`)
	v2 := env.versionClient(crd, "v2")

	var mu sync.Mutex
	var bad []string
	record := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			mu.Lock()
			bad = append(bad, what+": "+err.Error())
			mu.Unlock()
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	worker := func(write func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				write(i)
			}
		}()
	}
	merge := func(name, patch string, opts metav1.PatchOptions, subresources ...string) error {
		_, err := v2.Patch(ctx, name, types.MergePatchType, []byte(patch), opts, subresources...)
		return err
	}
	worker(func(i int) {
		record("label patch of c", merge("c", fmt.Sprintf(`{"metadata":{"labels":{"l%d":"v"}}}`, i), metav1.PatchOptions{}))
	})
	worker(func(int) {
		record("dry-run patch of c", merge("c", `{"spec":{"image":"b"}}`, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}))
	})
	worker(func(i int) {
		record("patch of d", merge("d", fmt.Sprintf(`{"spec":{"image":"i%d"}}`, i), metav1.PatchOptions{}))
	})
	worker(func(i int) {
		record("status patch of d", merge("d", fmt.Sprintf(`{"status":{"phase":"p%d"}}`, i), metav1.PatchOptions{}, "status"))
	})
	worker(func(i int) {
		_, err := v2.Patch(ctx, "d", types.ApplyPatchType, []byte(fmt.Sprintf(`{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"d"},"spec":{"image":"s%d"}}`, i)),
			metav1.PatchOptions{FieldManager: "applier", Force: ptr.To(true)})
		record("forced apply of d", err)
	})
	// Delete d and create it again, for at most 200 rounds or 5 seconds.
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 200 && time.Now().Before(deadline); i++ {
		if err := env.client(crd).Delete(ctx, "d", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete d: %v", err)
		}
		if _, err := env.client(crd).Create(ctx, crObject(t, crd, "d", `"spec":{"image":"a"}`), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Errorf("create d: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	for i, b := range bad {
		if i == 10 {
			t.Errorf("... and %d more", len(bad)-10)
			break
		}
		t.Error(b)
	}
	if got := env.stored(t, crd, "c")["spec"].(map[string]interface{})["extra"]; !cmp.Equal(got, map[string]interface{}{"k": "stored"}) {
		t.Errorf("stored .spec.extra of c = %v, want the stored value kept", got)
	}
}
