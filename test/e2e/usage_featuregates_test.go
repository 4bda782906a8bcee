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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

const (
	usageGroup     = "e2e.example.com"
	usagePlural    = "usagewidgets"
	usageNamespace = "featuregates-usage"
)

// usageCRD has two gates, both on while the objects are created: ReplicasGate guards
// .spec.replicas by its fieldPaths, TierGate guards .spec.tier by a mark of the (only,
// storage) version.
func usageCRD() *apiextensionsv1.CustomResourceDefinition {
	tierGate := "TierGate"
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: usagePlural + "." + usageGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: usageGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: usagePlural, Singular: "usagewidget", Kind: "UsageWidget", ListKind: "UsageWidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"image":    {Type: "string"},
						"replicas": {Type: "integer"},
						"tier":     {Type: "string", XFeatureGate: &tierGate},
					}}},
				}},
			}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "ReplicasGate", PreRelease: "alpha", Enabled: ptr(true), FieldPaths: []string{".spec.replicas"}},
				{Name: tierGate, PreRelease: "beta"},
			}},
		},
	}
}

// usageObject is object i of the deterministic mix: every object has an image, every 3rd
// replicas (0 included), every 7th a tier; even ones live in default, odd ones in
// usageNamespace.
func usageObject(i int) *unstructured.Unstructured {
	spec := map[string]interface{}{"image": fmt.Sprintf("img-%d", i)}
	if i%3 == 0 {
		spec["replicas"] = int64(i % 5)
	}
	if i%7 == 0 {
		spec["tier"] = "gold"
	}
	ns := "default"
	if i%2 == 1 {
		ns = usageNamespace
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": usageGroup + "/v1", "kind": "UsageWidget",
		"metadata": map[string]interface{}{"name": fmt.Sprintf("w-%05d", i), "namespace": ns},
		"spec":     spec,
	}}
}

// gateCount is how many objects hold a value at a gate's field, and the first of them in
// key order.
type gateCount struct {
	Objects  int      `json:"objects"`
	Examples []string `json:"examples"`
}

// storedUsage counts, straight from etcd, the stored objects of the CRD and those with a
// value at .spec.replicas and at .spec.tier, reading the keys in order, 1000 at a time.
func storedUsage(t *testing.T, etcd *clientv3.Client) (objects int, byGate map[string]*gateCount) {
	t.Helper()
	prefix := fmt.Sprintf("/registry/%s/%s/", usageGroup, usagePlural)
	byGate = map[string]*gateCount{"ReplicasGate": {Examples: []string{}}, "TierGate": {Examples: []string{}}}
	fields := map[string]string{"ReplicasGate": "replicas", "TierGate": "tier"}
	key, end := prefix, clientv3.GetPrefixRangeEnd(prefix)
	for {
		resp, err := etcd.Get(context.Background(), key, clientv3.WithRange(end), clientv3.WithLimit(1000))
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range resp.Kvs {
			var obj map[string]interface{}
			if err := json.Unmarshal(kv.Value, &obj); err != nil {
				t.Fatalf("stored %s is not JSON: %v", kv.Key, err)
			}
			objects++
			spec, _ := obj["spec"].(map[string]interface{})
			for gate, f := range fields {
				if _, ok := spec[f]; ok {
					c := byGate[gate]
					c.Objects++
					if len(c.Examples) < 3 {
						c.Examples = append(c.Examples, strings.TrimPrefix(string(kv.Key), prefix))
					}
				}
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return objects, byGate
		}
		key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// usageReport is the part of `kubectl featuregates usage -o json` that the test compares.
type usageReport struct {
	Kind    string `json:"kind"`
	Version string `json:"version"`
	Objects int    `json:"objects"`
	Gates   []struct {
		Gate  string `json:"gate"`
		State string `json:"state"`
		gateCount
	} `json:"gates"`
}

// runUsage runs `kubectl featuregates usage CRD -o json ARGS` and checks that it sent the
// server pages cluster-wide list requests.
func runUsage(t *testing.T, pages int, args ...string) (usageReport, time.Duration) {
	t.Helper()
	before := clusterLists(t)
	start := time.Now()
	r := mustFeaturegates(t, append([]string{"usage", usagePlural + "." + usageGroup, "-o", "json"}, args...)...)
	took := time.Since(start)
	if got := clusterLists(t) - before; got != pages {
		t.Errorf("usage %v sent %d list requests, want %d", args, got, pages)
	}
	var report usageReport
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("usage -o json printed no JSON: %v\n%s", err, r.stdout)
	}
	return report, took
}

// clusterLists is the number of cluster-wide list requests for the CRD's objects that
// kube-apiserver has answered, by its apiserver_request_total.
func clusterLists(t *testing.T) int {
	t.Helper()
	n := 0.0
	for _, s := range scrape(t, "apiserver_request_total", map[string]string{
		"verb": "LIST", "group": usageGroup, "version": "v1", "resource": usagePlural, "scope": "cluster"}) {
		n += s.value
	}
	return int(n)
}

// TestFeatureGatesUsage10000 creates 10,000 custom resources with a known mix of gated
// fields, then checks that `kubectl featuregates usage` (the real plugin, through our
// kubectl) counts what etcd holds, page after page, and that `disable` prints the same count.
func TestFeatureGatesUsage10000(t *testing.T) {
	const objects, workers = 10000, 16
	c := clientsFor(t, controlPlane.Kubeconfig)
	etcd := etcdClient(t)
	mustKubectl(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+usageNamespace+"\n", "apply", "-f", "-")
	crd := usageCRD()
	gvr := createAndWait(t, c, crd)
	t.Cleanup(func() {
		start := time.Now()
		err := c.apiext.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s: %v", crd.Name, err)
			return
		}
		featuregatetest.WaitFor(t, 5*time.Minute, crd.Name+" and its objects to be deleted", func() bool {
			_, err := c.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), crd.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
		t.Logf("deleting the CRD and its %d objects took %v", objects, time.Since(start).Round(100*time.Millisecond))
	})

	// Create the objects, 16 at a time.
	start := time.Now()
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				obj := usageObject(i)
				if _, err := c.dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("creating %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
					cancel()
					return
				}
			}
		}()
	}
feed:
	for i := 0; i < objects; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	created := time.Since(start)
	if w := c.warnings.Take(); len(w) > 0 {
		t.Errorf("creating the objects with both gates on drew warnings: %q", w[:min(len(w), 3)])
	}

	// The model, and etcd, counted independently.
	model := map[string]int{}
	for i := 0; i < objects; i++ {
		if i%3 == 0 {
			model["ReplicasGate"]++
		}
		if i%7 == 0 {
			model["TierGate"]++
		}
	}
	stored, byGate := storedUsage(t, etcd)
	if stored != objects || byGate["ReplicasGate"].Objects != model["ReplicasGate"] || byGate["TierGate"].Objects != model["TierGate"] {
		t.Fatalf("etcd holds %d objects, %d with replicas and %d with a tier; the model says %d, %d and %d",
			stored, byGate["ReplicasGate"].Objects, byGate["TierGate"].Objects, objects, model["ReplicasGate"], model["TierGate"])
	}

	// The plugin, with the default page size: 20 pages.
	report, took := runUsage(t, 20)
	got := map[string]gateCount{}
	for _, g := range report.Gates {
		if g.State != "enabled" {
			t.Errorf("%s is %s, want enabled", g.Gate, g.State)
		}
		got[g.Gate] = g.gateCount
	}
	want := map[string]gateCount{"ReplicasGate": *byGate["ReplicasGate"], "TierGate": *byGate["TierGate"]}
	if report.Kind != "FeatureGateUsage" || report.Version != "v1" || report.Objects != stored {
		t.Errorf("usage: kind %q, version %q, %d objects scanned; want FeatureGateUsage, v1, %d", report.Kind, report.Version, report.Objects, stored)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage counts and examples, etcd (-) against the plugin (+):\n%s", diff)
	}
	table := mustFeaturegates(t, "usage", crd.Name).stdout
	t.Logf("kubectl featuregates usage %s:\n%s", crd.Name, table)

	// disable prints the same count before it acts. The CRD's creator set enabled, so the
	// admin's server-side apply takes the field over.
	disableStart := time.Now()
	r := mustFeaturegates(t, "disable", crd.Name, "ReplicasGate", "--force-conflicts")
	disableTook := time.Since(disableStart)
	wantLine := fmt.Sprintf("%d objects hold values at the fields of ReplicasGate (examples: %s); they are kept, and writes can no longer change them.",
		want["ReplicasGate"].Objects, strings.Join(want["ReplicasGate"].Examples, ", "))
	if lines := strings.Split(r.stdout, "\n"); lines[0] != wantLine || !strings.Contains(r.stdout, "feature gate ReplicasGate disabled") {
		t.Errorf("disable printed:\n%s\nwant its first line to be:\n%s", r.stdout, wantLine)
	}

	// With the gate off, the values are kept: another scan, in pages of 999, counts the same.
	after, tookAfter := runUsage(t, 11, "ReplicasGate", "--chunk-size=999")
	if len(after.Gates) != 1 || after.Gates[0].State != "disabled" || !cmp.Equal(after.Gates[0].gateCount, want["ReplicasGate"]) || after.Objects != stored {
		t.Errorf("usage after disable: %+v; want ReplicasGate disabled with %+v of %d objects", after, want["ReplicasGate"], stored)
	}
	t.Logf("usage: %d objects created by %d workers in %v; usage scanned them in %v (20 pages of 500) and in %v (11 pages of 999); disable with its count took %v; "+
		"ReplicasGate %d, TierGate %d objects, as in etcd",
		objects, workers, created.Round(100*time.Millisecond), took.Round(10*time.Millisecond), tookAfter.Round(10*time.Millisecond),
		disableTook.Round(10*time.Millisecond), got["ReplicasGate"].Objects, got["TierGate"].Objects)
}

// usageDefaultsCRD has two gates, both alpha and off, whose fields have schema defaults:
// ReplicasGate guards .spec.replicas (default 1), PoolSizeGate .spec.pools[*].size
// (default 3, in each item).
func usageDefaultsCRD() *apiextensionsv1.CustomResourceDefinition {
	pool := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"name": {Type: "string"},
		"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`3`)}},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "usagedefaults." + usageGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: usageGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "usagedefaults", Singular: "usagedefault", Kind: "UsageDefault", ListKind: "UsageDefaultList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"image":    {Type: "string"},
						"replicas": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`1`)}},
						"pools":    {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &pool}},
					}}},
				}},
			}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "ReplicasGate", PreRelease: "alpha", FieldPaths: []string{".spec.replicas"}},
				{Name: "PoolSizeGate", PreRelease: "alpha", FieldPaths: []string{".spec.pools[*].size"}},
			}},
		},
	}
}

// TestFeatureGatesUsageDefaults checks that `kubectl featuregates usage` counts what etcd
// holds, although the server applies the schema's defaults to every object it lists: objects
// written while a defaulted gated field's gate was off hold no value there, so once the gate
// is on, and the server defaults the field on read, they are still not counted.
func TestFeatureGatesUsageDefaults(t *testing.T) {
	const before, after = 7, 2
	c := clientsFor(t, controlPlane.Kubeconfig)
	etcd := etcdClient(t)
	crd := usageDefaultsCRD()
	gvr := createAndWait(t, c, crd)
	t.Cleanup(func() {
		err := c.apiext.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s: %v", crd.Name, err)
		}
	})
	create := func(name string, spec map[string]interface{}) {
		t.Helper()
		obj := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": usageGroup + "/v1", "kind": "UsageDefault",
			"metadata": map[string]interface{}{"name": name, "namespace": "default"},
			"spec":     spec,
		}}
		if _, err := c.dynamic.Resource(gvr).Namespace("default").Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
	}
	// stored counts, straight from etcd, the objects with a value at .spec.replicas and at
	// .spec.pools[*].size.
	stored := func() (objects, replicas, sizes int) {
		t.Helper()
		prefix := fmt.Sprintf("/registry/%s/%s/", usageGroup, crd.Spec.Names.Plural)
		resp, err := etcd.Get(context.Background(), prefix, clientv3.WithPrefix())
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range resp.Kvs {
			var obj struct {
				Spec map[string]interface{} `json:"spec"`
			}
			if err := json.Unmarshal(kv.Value, &obj); err != nil {
				t.Fatalf("stored %s is not JSON: %v", kv.Key, err)
			}
			objects++
			if _, ok := obj.Spec["replicas"]; ok {
				replicas++
			}
			pools, _ := obj.Spec["pools"].([]interface{})
			for _, p := range pools {
				if _, ok := p.(map[string]interface{})["size"]; ok {
					sizes++
					break
				}
			}
		}
		return objects, replicas, sizes
	}
	usage := func() map[string]int {
		t.Helper()
		r := mustFeaturegates(t, "usage", crd.Name, "-o", "json")
		var report usageReport
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
			t.Fatalf("usage -o json printed no JSON: %v\n%s", err, r.stdout)
		}
		got := map[string]int{"objects": report.Objects}
		for _, g := range report.Gates {
			got[g.Gate] = g.Objects
		}
		return got
	}

	// Written while both gates are off: the server drops the values, and stores no default.
	for i := 0; i < before; i++ {
		create(fmt.Sprintf("off-%d", i), map[string]interface{}{
			"image": fmt.Sprintf("img-%d", i), "replicas": int64(5), "pools": []interface{}{map[string]interface{}{"name": "p", "size": int64(7)}},
		})
	}
	c.warnings.Take()
	if objects, replicas, sizes := stored(); objects != before || replicas != 0 || sizes != 0 {
		t.Fatalf("etcd holds %d objects, %d with replicas, %d with a pool size; want %d, 0, 0", objects, replicas, sizes, before)
	}

	mustFeaturegates(t, "enable", crd.Name, "ReplicasGate")
	mustFeaturegates(t, "enable", crd.Name, "PoolSizeGate")
	// The server now defaults both fields when it reads the objects.
	featuregatetest.WaitFor(t, 30*time.Second, "the defaults of the enabled gates on read", func() bool {
		u, err := c.dynamic.Resource(gvr).Namespace("default").Get(context.Background(), "off-0", metav1.GetOptions{})
		if err != nil {
			return false
		}
		replicas, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
		pools, _, _ := unstructured.NestedSlice(u.Object, "spec", "pools")
		return replicas == 1 && len(pools) == 1 && pools[0].(map[string]interface{})["size"] == int64(3)
	})
	if diff := cmp.Diff(map[string]int{"objects": before, "ReplicasGate": 0, "PoolSizeGate": 0}, usage()); diff != "" {
		t.Errorf("usage after enable, of %d objects that hold no gated value in etcd (-want +got):\n%s", before, diff)
	}

	// Written with the gates on: values other than the defaults are stored and counted.
	for i := 0; i < after; i++ {
		create(fmt.Sprintf("on-%d", i), map[string]interface{}{
			"image": "img", "replicas": int64(5), "pools": []interface{}{map[string]interface{}{"name": "p"}, map[string]interface{}{"name": "q", "size": int64(7)}},
		})
	}
	objects, replicas, sizes := stored()
	if objects != before+after || replicas != after || sizes != after {
		t.Fatalf("etcd holds %d objects, %d with replicas, %d with a pool size; want %d, %d, %d", objects, replicas, sizes, before+after, after, after)
	}
	if diff := cmp.Diff(map[string]int{"objects": objects, "ReplicasGate": replicas, "PoolSizeGate": sizes}, usage()); diff != "" {
		t.Errorf("usage, etcd (-) against the plugin (+):\n%s", diff)
	}
	r := mustFeaturegates(t, "disable", crd.Name, "ReplicasGate")
	want := fmt.Sprintf("%d objects hold values at the fields of ReplicasGate (examples: default/on-0, default/on-1); they are kept, and writes can no longer change them.", after)
	if first, _, _ := strings.Cut(r.stdout, "\n"); first != want {
		t.Errorf("disable printed:\n%s\nwant its first line to be:\n%s", r.stdout, want)
	}
}
