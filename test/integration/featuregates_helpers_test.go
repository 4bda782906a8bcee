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
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/integration/fixtures"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// These tests exercise CRD field feature gates (KEP-2608) through the real API server and a
// real etcd. Every assertion about persistence reads the object back from etcd.

const gatesTestNamespace = "default"

type gatesEnv struct {
	apiext   clientset.Interface
	dynamic  dynamic.Interface
	etcd     *clientv3.Client
	prefix   string
	warnings *featuregatetest.WarningRecorder
}

// startGatesServer starts the apiextensions test server against the integration etcd. An
// empty prefix picks a new one; passing the prefix of an earlier server reuses its data.
func startGatesServer(t *testing.T, prefix string) *gatesEnv {
	t.Helper()
	var flags []string
	if prefix != "" {
		flags = append(flags, "--etcd-prefix", prefix)
	}
	tearDown, config, options, err := fixtures.StartDefaultServer(t, flags...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tearDown)

	env := &gatesEnv{prefix: options.RecommendedOptions.Etcd.StorageConfig.Prefix, warnings: &featuregatetest.WarningRecorder{}}
	config = rest.CopyConfig(config)
	config.WarningHandler = env.warnings
	if env.apiext, err = clientset.NewForConfig(config); err != nil {
		t.Fatal(err)
	}
	if env.dynamic, err = dynamic.NewForConfig(config); err != nil {
		t.Fatal(err)
	}
	env.etcd, err = clientv3.New(clientv3.Config{Endpoints: fixtures.IntegrationEtcdServers(), DialTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.etcd.Close() })
	return env
}

func (e *gatesEnv) createCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	created, err := fixtures.CreateNewV1CustomResourceDefinition(crd, e.apiext, e.dynamic)
	if err != nil {
		t.Fatal(err)
	}
	e.warnings.Take()
	return created
}

func (e *gatesEnv) client(crd *apiextensionsv1.CustomResourceDefinition) dynamic.ResourceInterface {
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: "v1", Resource: crd.Spec.Names.Plural}
	return e.dynamic.Resource(gvr).Namespace(gatesTestNamespace)
}

// stored reads a custom resource straight from etcd; nil if there is no such key.
func (e *gatesEnv) stored(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name string) map[string]interface{} {
	t.Helper()
	key := path.Join("/", e.prefix, crd.Spec.Group, crd.Spec.Names.Plural, gatesTestNamespace, name)
	resp, err := e.etcd.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	var obj map[string]interface{}
	// utiljson keeps integers as int64, as unstructured objects expect.
	if err := utiljson.Unmarshal(resp.Kvs[0].Value, &obj); err != nil {
		t.Fatalf("stored value of %s is not JSON: %v", key, err)
	}
	return obj
}

// storedCRD reads a CRD straight from etcd.
func (e *gatesEnv) storedCRD(t *testing.T, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	key := path.Join("/", e.prefix, "apiextensions.k8s.io", "customresourcedefinitions", name)
	resp, err := e.etcd.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		t.Fatalf("no CRD %s in etcd", name)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(resp.Kvs[0].Value, crd); err != nil {
		t.Fatalf("stored CRD %s: %v", name, err)
	}
	return crd
}

// assertStored compares the spec and status kept in etcd, and the generation, with the
// expectation written as JSON object members, e.g. `"spec":{"image":"a"}`.
func (e *gatesEnv) assertStored(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name, want string, wantGeneration int64) {
	t.Helper()
	obj := e.stored(t, crd, name)
	if obj == nil {
		t.Fatalf("%s is not in etcd", name)
	}
	var wantObj map[string]interface{}
	if err := utiljson.Unmarshal([]byte("{"+want+"}"), &wantObj); err != nil {
		t.Fatalf("bad expectation %q: %v", want, err)
	}
	got := map[string]interface{}{}
	for _, k := range []string{"spec", "status"} {
		if v, ok := obj[k]; ok {
			got[k] = v
		}
	}
	if diff := cmp.Diff(wantObj, got); diff != "" {
		t.Errorf("%s in etcd (-want +got):\n%s", name, diff)
	}
	u := &unstructured.Unstructured{Object: obj}
	if g := u.GetGeneration(); g != wantGeneration {
		t.Errorf("%s in etcd has generation %d, want %d", name, g, wantGeneration)
	}
}

func (e *gatesEnv) assertWarnings(t *testing.T, want ...string) {
	t.Helper()
	got := e.warnings.Take()
	if len(want) == 0 && len(got) == 0 {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func crObject(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name, content string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	doc := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":%q,"metadata":{"name":%q,"namespace":%q}%s}`, crd.Spec.Group, crd.Spec.Names.Kind, name, gatesTestNamespace, prefixComma(content))
	if err := json.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("bad object %s: %v", doc, err)
	}
	return u
}

func prefixComma(s string) string {
	if s == "" {
		return ""
	}
	return "," + s
}

func (e *gatesEnv) create(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name, content string) *unstructured.Unstructured {
	t.Helper()
	out, err := e.client(crd).Create(context.Background(), crObject(t, crd, name, content), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return out
}

// update replaces spec (and leaves status alone) of an existing object.
func (e *gatesEnv) update(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name, content string) *unstructured.Unstructured {
	t.Helper()
	cur, err := e.client(crd).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := crObject(t, crd, name, content)
	next.SetResourceVersion(cur.GetResourceVersion())
	out, err := e.client(crd).Update(context.Background(), next, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update %s: %v", name, err)
	}
	return out
}

func (e *gatesEnv) patch(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name string, pt types.PatchType, data string, subresources ...string) *unstructured.Unstructured {
	t.Helper()
	opts := metav1.PatchOptions{}
	if pt == types.ApplyPatchType {
		opts.FieldManager = "author"
	}
	out, err := e.client(crd).Patch(context.Background(), name, pt, []byte(data), opts, subresources...)
	if err != nil {
		t.Fatalf("%s patch of %s %v: %v", pt, name, subresources, err)
	}
	return out
}

// setGate sets one gate's enabled field with a JSON patch, as the KEP's Story 1 does, and
// waits until the server gates writes with the new value. probe is a create that sends
// the gated field, whose JSON name is field: while the gate is disabled the dry-run result
// does not contain it.
func (e *gatesEnv) setGate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, index int, enabled bool, field string, probe string) {
	t.Helper()
	p := fmt.Sprintf(`[{"op":"add","path":"/spec/customFeatureGates/featureGates/%d/enabled","value":%t}]`, index, enabled)
	if _, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.JSONPatchType, []byte(p), metav1.PatchOptions{}); err != nil {
		t.Fatalf("enable=%t gate %d of %s: %v", enabled, index, crd.Name, err)
	}
	e.waitForGate(t, crd, field, probe, enabled)
}

func (e *gatesEnv) waitForGate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, field string, probe string, present bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		out, err := e.client(crd).Create(ctx, crObject(t, crd, "probe", probe), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, nil
		}
		spec, err := json.Marshal(out.Object["spec"])
		if err != nil {
			return false, err
		}
		return strings.Contains(string(spec), fmt.Sprintf("%q:", field)) == present, nil
	})
	if err != nil {
		t.Fatalf("the server did not pick up the gate change of %s: %v", crd.Name, err)
	}
	e.warnings.Take()
}

// enableFeature turns CRDFieldLevelVersioning on (or off) for the in-process server.
func enableFeature(t *testing.T, on bool) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, on)
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// fixturesWaitForCRD waits until a CRD that is already stored is served.
func fixturesWaitForCRD(e *gatesEnv, crd *apiextensionsv1.CustomResourceDefinition) error {
	return wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := e.client(crd).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
}
