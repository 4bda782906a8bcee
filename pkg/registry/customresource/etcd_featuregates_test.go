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

package customresource_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	etcd3testing "k8s.io/apiserver/pkg/storage/etcd3/testing"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/warning"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

// recordedWarnings collects what a write adds to its response, as the API server's warning
// recorder does (which sends a text once).
type recordedWarnings struct {
	mu    sync.Mutex
	texts []string
}

func (r *recordedWarnings) AddWarning(_, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.texts {
		if t == text {
			return
		}
	}
	r.texts = append(r.texts, text)
}

// failingConvertor converts between the two versions of the gated CRD by changing
// apiVersion only, and fails every call while fail is set.
type failingConvertor struct {
	mu    sync.Mutex
	fail  bool
	calls int
}

func (c *failingConvertor) Convert(in, out, context interface{}) error {
	return errors.New("not used")
}

func (c *failingConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.fail {
		return nil, errors.New("conversion webhook for mygroup.example.com/v2, Kind=Noxu failed: chosen failure")
	}
	u := in.(*unstructured.Unstructured).DeepCopy()
	target, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("no target for %v", u.GroupVersionKind())
	}
	u.SetAPIVersion(target.GroupVersion().String())
	return u, nil
}

func (c *failingConvertor) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// newGatedStorage is a custom resource storage on a real etcd, whose CRD (storage version
// v1beta1) gates .spec.replicas with the disabled alpha gate ReplicasGate. With a convertor,
// the CRD has a conversion webhook and a second version, v2.
func newGatedStorage(t *testing.T, convertor runtime.ObjectConvertor) (customresource.CustomResourceStorage, *etcd3testing.EtcdTestServer) {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	server, etcdStorage := etcd3testing.NewUnsecuredEtcd3TestClientServer(t)
	t.Cleanup(func() { server.Terminate(t) })
	etcdStorage.Codec = unstructured.UnstructuredJSONScheme
	groupResource := schema.GroupResource{Group: "mygroup.example.com", Resource: "noxus"}
	restOptions := generic.RESTOptions{StorageConfig: etcdStorage.ForResource(groupResource), Decorator: generic.UndecoratedStorage, DeleteCollectionWorkers: 1, ResourcePrefix: "noxus"}
	kind := schema.GroupVersionKind{Group: "mygroup.example.com", Version: "v1beta1", Kind: "Noxu"}

	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group:    "mygroup.example.com",
		Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "noxus", Kind: "Noxu"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true, Storage: true}},
		CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "ReplicasGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, FieldPaths: []string{".spec.replicas"}},
		}},
	}}
	if convertor != nil {
		// The storage of the served version v2, whose writes are gated in v1beta1.
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: true})
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		kind.Version = "v2"
	}
	typer := newTyper()
	strategy := customresource.NewStrategy(typer, true, kind, nil, nil, nil, nil, nil, nil).
		WithFieldGates(customresource.NewFieldGates(crd, "v1beta1", nil, convertor))
	storage, err := customresource.NewStorage(groupResource, groupResource, kind,
		schema.GroupVersionKind{Group: "mygroup.example.com", Version: "v1beta1", Kind: "NoxuItemList"},
		strategy, restOptions, nil, rest.NewDefaultTableConvertor(groupResource), nil)
	if err != nil {
		t.Fatal(err)
	}
	return storage, server
}

func newTyper() runtime.ObjectTyper {
	return apiserver.UnstructuredObjectTyper{Delegate: runtime.NewScheme(), UnstructuredTyper: crdserverscheme.NewUnstructuredObjectTyper()}
}

func noxu(version, name, spec string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(fmt.Sprintf(`{"apiVersion":"mygroup.example.com/%s","kind":"Noxu","metadata":{"name":%q,"namespace":"default"},"spec":%s}`, version, name, spec))); err != nil {
		panic(err)
	}
	return u
}

// patchLike is an update that, like a patch, applies to whatever object the attempt read:
// it takes that object's resourceVersion.
type patchLike struct{ obj *unstructured.Unstructured }

func (p patchLike) Preconditions() *metav1.Preconditions { return nil }

func (p patchLike) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	out := p.obj.DeepCopy()
	out.SetResourceVersion(old.(*unstructured.Unstructured).GetResourceVersion())
	return out, nil
}

func nsContext() context.Context {
	return genericapirequest.WithNamespace(genericapirequest.NewContext(), "default")
}

// gatedContext is the context of a request, with a warning recorder.
func gatedContext() (context.Context, *recordedWarnings) {
	w := &recordedWarnings{}
	return warning.WithWarningRecorder(nsContext(), w), w
}

// TestFieldGatesConflictRetryWarnings forces GuaranteedUpdate to retry an update: the first
// attempt's admission writes the object in between, as another client would. The response
// carries the warnings of the attempt that was persisted, and none of the discarded one.
func TestFieldGatesConflictRetryWarnings(t *testing.T) {
	storage, server := newGatedStorage(t, nil)
	ctx, _ := gatedContext()
	if _, err := storage.CustomResource.Create(ctx, noxu("v1beta1", "a", `{"image":"one"}`), nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The stored value the concurrent writer leaves behind: replicas is stored (as if it was
	// written while the gate was enabled).
	concurrent := func() error {
		resp, err := server.V3Client.Client.Get(context.Background(), "", clientv3.WithPrefix())
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			if !strings.HasSuffix(string(kv.Key), "/noxus/default/a") {
				continue
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(kv.Value); err != nil {
				return err
			}
			if err := unstructured.SetNestedField(u.Object, int64(7), "spec", "replicas"); err != nil {
				return err
			}
			data, err := u.MarshalJSON()
			if err != nil {
				return err
			}
			// Straight to etcd, without gating: the value is "already stored".
			_, err = server.V3Client.Client.Put(context.Background(), string(kv.Key), string(data))
			return err
		}
		return errors.New("the object is not in etcd")
	}
	ctx, warnings := gatedContext()
	attempts := 0
	updateValidation := func(ctx context.Context, obj, old runtime.Object) error {
		attempts++
		if attempts == 1 {
			return concurrent()
		}
		return nil
	}
	// A patch that sets replicas to 2: each attempt applies it to the object it read.
	out, _, err := storage.CustomResource.Update(ctx, "a", patchLike{noxu("v1beta1", "a", `{"image":"two","replicas":2}`)},
		nil, updateValidation, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Fatalf("the update took %d attempt(s), want 2 (the test did not force a retry)", attempts)
	}
	// Attempt 1 saw no stored replicas and dropped the value; attempt 2 kept the stored 7.
	want := []string{".spec.replicas was not updated: feature gate ReplicasGate (alpha) is disabled; the stored value was kept"}
	if diff := cmp.Diff(want, warnings.texts); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if got, _, _ := unstructured.NestedInt64(out.(*unstructured.Unstructured).Object, "spec", "replicas"); got != 7 {
		t.Errorf("spec.replicas = %d, want the stored 7", got)
	}
}

// TestFieldGatesConversionFailsClosed: when a write cannot be converted to the storage
// version for gating, it fails, and nothing is persisted, even if the storage layer's own
// conversion would have succeeded.
func TestFieldGatesConversionFailsClosed(t *testing.T) {
	convertor := &failingConvertor{}
	storage, _ := newGatedStorage(t, convertor)

	convertor.fail = true
	ctx, warnings := gatedContext()
	_, err := storage.CustomResource.Create(ctx, noxu("v2", "b", `{"image":"one","replicas":3}`), nil, &metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "chosen failure") {
		t.Fatalf("create while conversion fails: err = %v, want the conversion failure", err)
	}
	if _, err := storage.CustomResource.Get(nsContext(), "b", &metav1.GetOptions{}); err == nil {
		t.Errorf("the failed create was persisted")
	}
	if len(warnings.texts) != 0 {
		t.Errorf("warnings of a failed conversion: %q", warnings.texts)
	}

	// The same create once the webhook works: replicas is dropped, in the storage version.
	convertor.fail = false
	ctx, warnings = gatedContext()
	out, err := storage.CustomResource.Create(ctx, noxu("v2", "b", `{"image":"one","replicas":3}`), nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(out.(*unstructured.Unstructured).Object, "spec", "replicas"); found {
		t.Errorf("spec.replicas was stored while ReplicasGate is disabled")
	}
	if diff := cmp.Diff([]string{".spec.replicas was dropped: feature gate ReplicasGate (alpha) is disabled"}, warnings.texts); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	// An update in v2 that fails to convert changes nothing.
	convertor.fail = true
	ctx, _ = gatedContext()
	_, _, err = storage.CustomResource.Update(ctx, "b", patchLike{noxu("v2", "b", `{"image":"two","replicas":4}`)},
		nil, nil, false, &metav1.UpdateOptions{})
	if err == nil || !strings.Contains(err.Error(), "chosen failure") {
		t.Fatalf("update while conversion fails: err = %v, want the conversion failure", err)
	}
	convertor.fail = false
	cur, err := storage.CustomResource.Get(nsContext(), "b", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if spec, _, _ := unstructured.NestedMap(cur.(*unstructured.Unstructured).Object, "spec"); !cmp.Equal(spec, map[string]interface{}{"image": "one"}) {
		t.Errorf("stored spec after the failed update = %v, want the unchanged {image: one}", spec)
	}
}

// TestFieldGatesNoDisabledGateNoConversion: with every gate enabled, writes are not
// converted for gating, so a failing convertor does not fail them here (the storage layer
// reports its own conversion failures).
func TestFieldGatesNoDisabledGateNoConversion(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	convertor := &failingConvertor{fail: true}
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group:      "mygroup.example.com",
		Versions:   []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Storage: true}, {Name: "v2"}},
		Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter},
		CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "ReplicasGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.replicas"}},
		}},
	}}
	kind := schema.GroupVersionKind{Group: "mygroup.example.com", Version: "v2", Kind: "Noxu"}
	s := customresource.NewStrategy(newTyper(), true, kind, nil, nil, nil, nil, nil, nil).
		WithFieldGates(customresource.NewFieldGates(crd, "v1beta1", nil, convertor))
	ctx, _ := gatedContext()
	obj := noxu("v2", "c", `{"replicas":1}`)
	s.PrepareForCreate(ctx, obj)
	if convertor.calls != 0 {
		t.Errorf("the convertor was called %d time(s) with no disabled gate", convertor.calls)
	}
}
