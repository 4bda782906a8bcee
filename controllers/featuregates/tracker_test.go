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

package featuregates_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/controllers/featuregates"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// startTracker starts a tracker of crdName for the duration of the test and waits for it
// to sync.
func startTracker(t testing.TB, crdName string) *featuregates.Tracker {
	t.Helper()
	return startTrackerOn(t, cfg, crdName)
}

// startTrackerOn is startTracker on the API server of c.
func startTrackerOn(t testing.TB, c *rest.Config, crdName string) *featuregates.Tracker {
	t.Helper()
	tr, err := featuregates.NewTracker(c, crdName)
	if err != nil {
		t.Fatalf("NewTracker: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start returned %v", err)
		}
	})
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !tr.WaitForCacheSync(syncCtx) {
		t.Fatalf("the tracker of %s did not sync", crdName)
	}
	return tr
}

func fieldEnabled(t testing.TB, tr *featuregates.Tracker, version, path string) bool {
	t.Helper()
	on, err := tr.FieldEnabled(version, path)
	if err != nil {
		t.Fatalf("FieldEnabled(%s, %s): %v", version, path, err)
	}
	return on
}

func TestTrackerFollowsTheCRD(t *testing.T) {
	crd := createCRD(t, newCRD("followers"))
	tr := startTracker(t, crd.Name)

	if tr.CRD() == nil || tr.CRD().Name != crd.Name {
		t.Fatalf("CRD() = %v, want %s", tr.CRD(), crd.Name)
	}
	if got := tr.Backend(); got != featuregates.BackendNative {
		t.Errorf("Backend() = %q, want %q", got, featuregates.BackendNative)
	}
	for gate, want := range map[string]bool{"ReplicasGate": false, "ExtraGate": true, "ModeGate": false, "Undeclared": false} {
		if got := tr.Enabled(gate); got != want {
			t.Errorf("Enabled(%s) = %v, want %v", gate, got, want)
		}
	}
	for path, want := range map[string]bool{".spec.replicas": false, ".spec.extra.size": true, ".spec.mode": false, ".metadata.name": true} {
		if got := fieldEnabled(t, tr, "v1", path); got != want {
			t.Errorf("FieldEnabled(v1, %s) = %v, want %v", path, got, want)
		}
	}
	// The rules' errors come through, and are remembered as errors.
	for i := 0; i < 2; i++ {
		if _, err := tr.FieldEnabled("v1", ".spec.nope"); err == nil {
			t.Errorf("FieldEnabled(v1, .spec.nope): no error for a path not in the schema")
		}
		if _, err := tr.FieldEnabled("v9", ".spec.replicas"); err == nil {
			t.Errorf("FieldEnabled(v9, .spec.replicas): no error for a version the CRD does not have")
		}
		if _, err := tr.FieldEnabled("v1", "spec..x"); err == nil {
			t.Errorf("FieldEnabled(v1, spec..x): no error for an invalid path")
		}
	}

	// An admin turns ReplicasGate on with kubectl: a JSON patch guarded by a test of the
	// gate's name, as the docs tell tools to do.
	kubectl(t, "patch", "crd", crd.Name, "--type=json", "-p",
		`[{"op":"test","path":"/spec/customFeatureGates/featureGates/0/name","value":"ReplicasGate"},`+
			`{"op":"add","path":"/spec/customFeatureGates/featureGates/0/enabled","value":true}]`)
	eventually(t, time.Second, "Enabled(ReplicasGate) after kubectl patch", func() bool { return tr.Enabled("ReplicasGate") })
	if !fieldEnabled(t, tr, "v1", ".spec.replicas") {
		t.Errorf("FieldEnabled(v1, .spec.replicas) = false after its gate was turned on")
	}

	// A client update turns ExtraGate off: the field below it goes off with it.
	setGate(t, crd.Name, "ExtraGate", false)
	eventually(t, time.Second, "FieldEnabled(v1, .spec.extra.size) off after a client update", func() bool {
		return !fieldEnabled(t, tr, "v1", ".spec.extra.size")
	})
	if tr.Enabled("ExtraGate") {
		t.Errorf("Enabled(ExtraGate) = true after it was turned off")
	}
	if !tr.Enabled("ReplicasGate") {
		t.Errorf("Enabled(ReplicasGate) = false; the other update did not touch it")
	}
	states := tr.GateStates()
	if want := map[string]bool{"ReplicasGate": true, "ExtraGate": false, "ModeGate": false}; !equalStates(states, want) {
		t.Errorf("GateStates() = %v, want %v", states, want)
	}
	states["ModeGate"] = true
	if tr.Enabled("ModeGate") {
		t.Errorf("GateStates returned the tracker's own map")
	}

	// The tracker's informer holds the one CRD only.
	list, err := tr.Lister().List(labels.Everything())
	if err != nil || len(list) != 1 || list[0].Name != crd.Name {
		t.Errorf("the tracker's lister holds %d CRDs (err %v), want only %s", len(list), err, crd.Name)
	}
}

func TestTrackerCRDAbsentThenCreatedThenDeleted(t *testing.T) {
	crd := newCRD("latecomers")
	crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptrTo(true) // ReplicasGate on
	tr := startTracker(t, crd.Name)

	if tr.CRD() != nil {
		t.Fatalf("CRD() = %v before the CRD exists", tr.CRD())
	}
	if tr.Enabled("ReplicasGate") || tr.Enabled("ExtraGate") {
		t.Errorf("a gate is enabled before the CRD exists")
	}
	if _, err := tr.FieldEnabled("v1", ".spec.replicas"); !errors.Is(err, featuregates.ErrCRDNotFound) {
		t.Errorf("FieldEnabled before the CRD exists: error %v, want ErrCRDNotFound", err)
	}
	if tr.GateStates() != nil {
		t.Errorf("GateStates() = %v before the CRD exists", tr.GateStates())
	}

	queue, stop := startSource(t, tr, "WidgetCreated")
	defer stop()

	createCRD(t, crd)
	eventually(t, time.Second, "Enabled(ReplicasGate) after the CRD was created", func() bool { return tr.Enabled("ReplicasGate") })
	if !fieldEnabled(t, tr, "v1", ".spec.replicas") || !fieldEnabled(t, tr, "v1", ".spec.extra") {
		t.Errorf("fields of enabled gates are off after the CRD was created")
	}
	expectRequest(t, queue, "WidgetCreated", time.Second)

	if err := crdCS.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting CRD %s: %v", crd.Name, err)
	}
	eventually(t, 10*time.Second, "CRD() nil after the CRD was deleted", func() bool { return tr.CRD() == nil })
	if tr.Enabled("ReplicasGate") {
		t.Errorf("Enabled(ReplicasGate) = true after the CRD was deleted")
	}
	if _, err := tr.FieldEnabled("v1", ".spec.replicas"); !errors.Is(err, featuregates.ErrCRDNotFound) {
		t.Errorf("FieldEnabled after the CRD was deleted: error %v, want ErrCRDNotFound", err)
	}
	expectRequest(t, queue, "WidgetCreated", time.Second)
}

func TestTrackerStartTwice(t *testing.T) {
	tr := startTracker(t, "twice.example.com")
	if err := tr.Start(context.Background()); err == nil {
		t.Errorf("a second Start returned no error")
	}
}

func TestNewTrackerErrors(t *testing.T) {
	if _, err := featuregates.NewTracker(nil, "x.example.com"); err == nil {
		t.Errorf("NewTracker(nil config): no error")
	}
	if _, err := featuregates.NewTracker(cfg, ""); err == nil {
		t.Errorf("NewTracker with an empty CRD name: no error")
	}
	if _, err := featuregates.NewTrackerForClient(nil, "x.example.com"); err == nil {
		t.Errorf("NewTrackerForClient(nil client): no error")
	}
}

// startSource starts tr.Source(gates...) on a queue of its own; its map function returns
// one request named name.
func startSource(t testing.TB, tr *featuregates.Tracker, name string, gates ...string) (workqueue.TypedRateLimitingInterface[reconcile.Request], func()) {
	t.Helper()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	ctx, cancel := context.WithCancel(context.Background())
	src := tr.Source(func(context.Context) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
	}, gates...)
	if err := src.Start(ctx, queue); err != nil {
		t.Fatalf("starting the source: %v", err)
	}
	return queue, func() { cancel(); queue.ShutDown() }
}

// expectRequest waits up to d for the queue to hold the request named name, and takes it.
func expectRequest(t testing.TB, queue workqueue.TypedRateLimitingInterface[reconcile.Request], name string, d time.Duration) {
	t.Helper()
	eventually(t, d, "a request from the source", func() bool { return queue.Len() > 0 })
	req, _ := queue.Get()
	queue.Done(req)
	queue.Forget(req)
	if req.Name != name {
		t.Errorf("the source enqueued %v, want %s", req, name)
	}
}

// expectNoRequest checks that the queue stays empty for d.
func expectNoRequest(t testing.TB, queue workqueue.TypedRateLimitingInterface[reconcile.Request], why string, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	if n := queue.Len(); n != 0 {
		t.Errorf("%s: the source enqueued %d requests, want none", why, n)
	}
}

func equalStates(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func ptrTo[T any](v T) *T { return &v }
