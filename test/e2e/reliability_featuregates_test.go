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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
)

type clients struct {
	dynamic  dynamic.Interface
	apiext   clientset.Interface
	warnings *featuregatetest.WarningRecorder
}

func clientsFor(t *testing.T, kubeconfig string) clients {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c := clients{warnings: &featuregatetest.WarningRecorder{}}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = c.warnings
	cfg.QPS, cfg.Burst = 500, 1000
	if c.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if c.apiext, err = clientset.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return c
}

// storedSpec reads a custom resource's spec straight from etcd (kube-apiserver's /registry).
func storedSpec(t *testing.T, etcd *clientv3.Client, group, plural, name string) (map[string]interface{}, bool) {
	t.Helper()
	resp, err := etcd.Get(context.Background(), fmt.Sprintf("/registry/%s/%s/default/%s", group, plural, name))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return nil, false
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(resp.Kvs[0].Value, &obj); err != nil {
		t.Fatalf("stored %s is not JSON: %v", name, err)
	}
	spec, _ := obj["spec"].(map[string]interface{})
	return spec, true
}

func etcdClient(t *testing.T) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{controlPlane.EtcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func replicasCRD(plural string, enabled *bool) *apiextensionsv1.CustomResourceDefinition {
	kind := "Skew" + fmt.Sprint(len(plural))
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".e2e.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "e2e.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: plural[:len(plural)-1], Kind: kind + plural[:1], ListKind: kind + plural[:1] + "List"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"replicas": {Type: "integer"}, "image": {Type: "string"},
					}}},
				}},
			}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{{
				Name: "ReplicasFeatureGate", PreRelease: "alpha", Enabled: enabled, FieldPaths: []string{".spec.replicas"},
			}}},
		},
	}
}

func createAndWait(t *testing.T, c clients, crd *apiextensionsv1.CustomResourceDefinition) schema.GroupVersionResource {
	t.Helper()
	if _, err := c.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: "v1", Resource: crd.Spec.Names.Plural}
	featuregatetest.WaitFor(t, 30*time.Second, crd.Name+" to be served", func() bool {
		_, err := c.dynamic.Resource(gvr).Namespace("default").List(context.Background(), metav1.ListOptions{})
		return err == nil
	})
	return gvr
}

// Two kube-apiservers share one etcd, one with CRDFieldLevelVersioning on (A, the suite's) and
// one with it off (B), as during a rolling upgrade. Writes alternate between them; a model
// says what each should store. A never loses a stored value; B writes as upstream does; the
// CRD keeps its gates whichever server updates it.
func TestHASkewFeatureOnAndOff(t *testing.T) {
	ports, err := featuregatetest.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := localup.Start(context.Background(), localup.Options{
		Dir: t.TempDir(), BinDir: binDir, APIServerPort: ports[0],
		EtcdURL: controlPlane.EtcdURL, PKIDir: controlPlane.PKIDir,
		FeatureGates: "CRDFieldLevelVersioning=false",
	})
	if err != nil {
		t.Fatalf("cannot start the second kube-apiserver: %v", err)
	}
	defer b.Stop()
	on, off := clientsFor(t, controlPlane.Kubeconfig), clientsFor(t, b.Kubeconfig)
	etcd := etcdClient(t)

	crd := replicasCRD("skewtabs", nil) // alpha, disabled
	gvr := createAndWait(t, on, crd)
	featuregatetest.WaitFor(t, 30*time.Second, "B to serve the CRD", func() bool {
		_, err := off.dynamic.Resource(gvr).Namespace("default").List(context.Background(), metav1.ListOptions{})
		return err == nil
	})

	// The CRD keeps its gates when the server with the feature off updates it.
	if _, err := off.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"updated-by":"feature-off"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := on.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.CustomFeatureGates == nil || len(got.Spec.CustomFeatureGates.FeatureGates) != 1 {
		t.Fatalf("the CRD lost its gates when the feature-off server updated it: %+v", got.Spec.CustomFeatureGates)
	}

	rng := rand.New(rand.NewSource(2608))
	const objects, writes = 4, 120
	model := map[string]map[string]interface{}{} // name -> stored spec
	lost := 0
	for i := 0; i < writes; i++ {
		name := fmt.Sprintf("obj-%d", rng.Intn(objects))
		viaOn := rng.Intn(2) == 0
		c := off
		if viaOn {
			c = on
		}
		sent := map[string]interface{}{"image": fmt.Sprintf("img-%d", i)}
		if rng.Intn(3) > 0 {
			sent["replicas"] = int64(rng.Intn(10))
		}
		obj := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "e2e.example.com/v1", "kind": crd.Spec.Names.Kind,
			"metadata": map[string]interface{}{"name": name, "namespace": "default"}, "spec": sent,
		}}
		old, exists := model[name]
		var err error
		if !exists {
			_, err = c.dynamic.Resource(gvr).Namespace("default").Create(context.Background(), obj, metav1.CreateOptions{})
		} else {
			var cur *unstructured.Unstructured
			cur, err = c.dynamic.Resource(gvr).Namespace("default").Get(context.Background(), name, metav1.GetOptions{})
			if err == nil {
				obj.SetResourceVersion(cur.GetResourceVersion())
				_, err = c.dynamic.Resource(gvr).Namespace("default").Update(context.Background(), obj, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			t.Fatalf("write %d (%s via feature-on=%t): %v", i, name, viaOn, err)
		}
		// The model: the feature-on server keeps a stored replicas and drops a new one; the
		// feature-off server stores what it is sent.
		want := map[string]interface{}{"image": sent["image"]}
		if viaOn {
			if r, ok := old["replicas"]; ok {
				want["replicas"] = r
			}
		} else if r, ok := sent["replicas"]; ok {
			want["replicas"] = r
		}
		model[name] = want
		stored, ok := storedSpec(t, etcd, gvr.Group, gvr.Resource, name)
		if !ok {
			t.Fatalf("write %d: %s is not in etcd", i, name)
		}
		if fmt.Sprint(stored) != fmt.Sprint(want) {
			if _, had := old["replicas"]; had && stored["replicas"] == nil {
				lost++
			}
			t.Fatalf("write %d (%s via feature-on=%t, sent %v, stored before %v): etcd has %v, want %v", i, name, viaOn, sent, old, stored, want)
		}
	}
	t.Logf("HA skew: %d writes alternating between a feature-on and a feature-off server, %d stored values lost", writes, lost)
}

// Several clients update custom resources while a gate is flipped on and off. No request
// fails except with a conflict; each write is gated by one CRD revision (either the new
// value is stored with no warning, or the stored one is kept with the warning); no stored
// value is lost.
func TestGateFlipsUnderLoad(t *testing.T) {
	admin := clientsFor(t, controlPlane.Kubeconfig)
	crd := replicasCRD("fliptabs", ptr(true))
	gvr := createAndWait(t, admin, crd)
	const clientCount, updatesPerClient, flips = 4, 40, 16
	for i := 0; i < clientCount; i++ {
		obj := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "e2e.example.com/v1", "kind": crd.Spec.Names.Kind,
			"metadata": map[string]interface{}{"name": fmt.Sprintf("obj-%d", i), "namespace": "default"},
			"spec":     map[string]interface{}{"image": "a", "replicas": int64(1)},
		}}
		if _, err := admin.dynamic.Resource(gvr).Namespace("default").Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clientCount+1)
	var mu sync.Mutex
	var applied, gated, conflicts int
	done := make(chan struct{})
	go func() { // the flipper
		defer close(done)
		for i := 0; i < flips && ctx.Err() == nil; i++ {
			p := fmt.Sprintf(`[{"op":"replace","path":"/spec/customFeatureGates/featureGates/0/enabled","value":%t}]`, i%2 == 1)
			if _, err := admin.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, crd.Name, types.JSONPatchType, []byte(p), metav1.PatchOptions{}); err != nil {
				errs <- fmt.Errorf("flip %d: %w", i, err)
				return
			}
			time.Sleep(150 * time.Millisecond)
		}
	}()
	for w := 0; w < clientCount; w++ {
		w := w
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clientsFor(t, controlPlane.Kubeconfig)
			res := c.dynamic.Resource(gvr).Namespace("default")
			name := fmt.Sprintf("obj-%d", w)
			for i := 0; i < updatesPerClient; i++ {
				cur, err := res.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					errs <- err
					return
				}
				oldReplicas, _, _ := unstructured.NestedInt64(cur.Object, "spec", "replicas")
				sent := oldReplicas + 1
				_ = unstructured.SetNestedField(cur.Object, sent, "spec", "replicas")
				_ = unstructured.SetNestedField(cur.Object, fmt.Sprintf("img-%d", i), "spec", "image")
				c.warnings.Take()
				out, err := res.Update(ctx, cur, metav1.UpdateOptions{})
				warnings := c.warnings.Take()
				if err != nil {
					if isConflict(err) {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue
					}
					errs <- fmt.Errorf("client %d update %d: %w", w, i, err)
					return
				}
				got, found, _ := unstructured.NestedInt64(out.Object, "spec", "replicas")
				switch {
				case !found:
					errs <- fmt.Errorf("client %d update %d: the stored replicas %d was lost", w, i, oldReplicas)
					return
				case got == sent && len(warnings) == 0:
					mu.Lock()
					applied++
					mu.Unlock()
				case got == oldReplicas && len(warnings) == 1:
					mu.Lock()
					gated++
					mu.Unlock()
				default:
					errs <- fmt.Errorf("client %d update %d: sent %d over %d, stored %d, warnings %q: not one consistent gate state", w, i, sent, oldReplicas, got, warnings)
					return
				}
			}
		}()
	}
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if applied == 0 || gated == 0 {
		t.Errorf("the flips did not interleave with the writes: %d applied, %d gated", applied, gated)
	}
	t.Logf("flips under load: %d clients x %d updates, %d flips: %d applied, %d gated (value kept), %d conflicts, 0 stored values lost",
		clientCount, updatesPerClient, flips, applied, gated, conflicts)
}

func ptr[T any](v T) *T { return &v }

func isConflict(err error) bool {
	type statusErr interface{ Status() metav1.Status }
	if s, ok := err.(statusErr); ok {
		return s.Status().Code == 409
	}
	return false
}
