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
	"sync"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/controllers/featuregates"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// waitForRevision waits until the tracker has seen the CRD revision rv.
func waitForRevision(t testing.TB, tr *featuregates.Tracker, rv string) {
	t.Helper()
	eventually(t, time.Second, "the tracker sees resourceVersion "+rv, func() bool {
		crd := tr.CRD()
		return crd != nil && crd.ResourceVersion == rv
	})
}

func TestSourceFiresOnFlipsOnly(t *testing.T) {
	crd := createCRD(t, newCRD("flippers"))
	tr := startTracker(t, crd.Name)

	replicas, stop := startSource(t, tr, "replicas", "ReplicasGate")
	defer stop()
	any, stopAny := startSource(t, tr, "any")
	defer stopAny()
	// The no-gate source also follows the fields FieldEnabled was asked about.
	if fieldEnabled(t, tr, "v1", ".spec.mode") {
		t.Fatalf("FieldEnabled(v1, .spec.mode) = true while ModeGate is off")
	}

	// Updates that flip nothing: a label, a description in the schema.
	updated := updateCRD(t, crd.Name, func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Labels = map[string]string{"team": "widgets"}
	})
	waitForRevision(t, tr, updated.ResourceVersion)
	updated = updateCRD(t, crd.Name, func(c *apiextensionsv1.CustomResourceDefinition) {
		s := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		s.Description = "the widget's spec"
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = s
	})
	waitForRevision(t, tr, updated.ResourceVersion)
	// Setting a gate to the state it already has flips nothing either.
	updated = setGate(t, crd.Name, "ReplicasGate", false)
	waitForRevision(t, tr, updated.ResourceVersion)
	expectNoRequest(t, replicas, "updates that flip no gate", 300*time.Millisecond)
	expectNoRequest(t, any, "updates that flip no gate", 0)

	// A gate the first source does not name.
	updated = setGate(t, crd.Name, "ExtraGate", false)
	waitForRevision(t, tr, updated.ResourceVersion)
	expectRequest(t, any, "any", time.Second)
	expectNoRequest(t, replicas, "a flip of ExtraGate", 300*time.Millisecond)

	// The gate it names: the request comes within a second of the update.
	setGate(t, crd.Name, "ReplicasGate", true)
	expectRequest(t, replicas, "replicas", time.Second)
	expectRequest(t, any, "any", time.Second)

	// A field stops being gated while no gate flips: the no-gate source fires, as the
	// answer of FieldEnabled(v1, .spec.mode) changed.
	updated = updateCRD(t, crd.Name, func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.CustomFeatureGates.FeatureGates[2].FieldPaths = nil
	})
	waitForRevision(t, tr, updated.ResourceVersion)
	if !fieldEnabled(t, tr, "v1", ".spec.mode") {
		t.Errorf("FieldEnabled(v1, .spec.mode) = false after ModeGate stopped gating it")
	}
	expectRequest(t, any, "any", time.Second)
	expectNoRequest(t, replicas, "a field's liveness changed, no named gate flipped", 300*time.Millisecond)
}

func TestSourceNeedsMapFunction(t *testing.T) {
	tr, err := featuregates.NewTracker(cfg, "nomap.example.com")
	if err != nil {
		t.Fatal(err)
	}
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer queue.ShutDown()
	if err := tr.Source(nil).Start(context.Background(), queue); err == nil {
		t.Errorf("Start of a source without a map function: no error")
	}
}

// TestWithManager runs a controller-runtime manager with the tracker added as a runnable,
// a controller fed by the tracker's Source, and a controller that watches CRDs through the
// tracker's Predicate.
func TestWithManager(t *testing.T) {
	crd := createCRD(t, newCRD("managed"))
	tr, err := featuregates.NewTracker(cfg, crd.Name)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	if err := mgr.Add(tr); err != nil {
		t.Fatalf("mgr.Add(tracker): %v", err)
	}

	fromSource := &recorder{}
	err = builder.ControllerManagedBy(mgr).Named("gates-source").
		WatchesRawSource(tr.Source(func(context.Context) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "default", Name: "w1"}}}
		}, "ReplicasGate")).
		Complete(fromSource)
	if err != nil {
		t.Fatalf("building the source controller: %v", err)
	}
	fromPredicate := &recorder{}
	err = builder.ControllerManagedBy(mgr).Named("gates-predicate").
		Watches(&apiextensionsv1.CustomResourceDefinition{},
			handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
				return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetName()}}}
			}),
			builder.WithPredicates(tr.Predicate("ReplicasGate"))).
		Complete(fromPredicate)
	if err != nil {
		t.Fatalf("building the predicate controller: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !tr.WaitForCacheSync(syncCtx) || !mgr.GetCache().WaitForCacheSync(syncCtx) {
		t.Fatalf("caches did not sync")
	}
	// Let the predicate controller see the CRD as it is before anything changes.
	time.Sleep(500 * time.Millisecond)
	fromSource.reset()
	fromPredicate.reset()

	updated := setGate(t, crd.Name, "ExtraGate", false)
	waitForRevision(t, tr, updated.ResourceVersion)
	time.Sleep(300 * time.Millisecond)
	if n := fromSource.count(); n != 0 {
		t.Errorf("source controller reconciled %d times on a flip of ExtraGate, want 0", n)
	}
	if n := fromPredicate.count(); n != 0 {
		t.Errorf("predicate controller reconciled %d times on a flip of ExtraGate, want 0", n)
	}

	setGate(t, crd.Name, "ReplicasGate", true)
	eventually(t, time.Second, "the source controller reconciles w1", func() bool { return fromSource.has("default/w1") })
	eventually(t, time.Second, "the predicate controller reconciles the CRD", func() bool { return fromPredicate.has("/" + crd.Name) })
	if !tr.Enabled("ReplicasGate") {
		t.Errorf("Enabled(ReplicasGate) = false in the manager's tracker after the flip")
	}
}

type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, req.Namespace+"/"+req.Name)
	return reconcile.Result{}, nil
}

func (r *recorder) has(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seen {
		if s == key {
			return true
		}
	}
	return false
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = nil
}

// TestPredicate checks the predicate on events built by hand: typed and unstructured
// objects, other CRDs, creations and deletions.
func TestPredicate(t *testing.T) {
	const name = "preds.preds.example.com"
	tr, err := featuregates.NewTracker(cfg, name)
	if err != nil {
		t.Fatal(err)
	}
	base := newCRD("preds")
	with := func(mutate func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
		c := base.DeepCopy()
		mutate(c)
		return c
	}
	replicasOn := with(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptrTo(true)
	})
	extraOff := with(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.CustomFeatureGates.FeatureGates[1].Enabled = ptrTo(false)
	})
	labelled := with(func(c *apiextensionsv1.CustomResourceDefinition) { c.Labels = map[string]string{"a": "b"} })
	other := with(func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "others.preds.example.com" })
	otherOn := with(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Name = "others.preds.example.com"
		c.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptrTo(true)
	})
	noGates := with(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.CustomFeatureGates = nil })
	toUnstructured := func(c *apiextensionsv1.CustomResourceDefinition) client.Object {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
		if err != nil {
			t.Fatal(err)
		}
		return &unstructured.Unstructured{Object: u}
	}

	named := tr.Predicate("ReplicasGate")
	all := tr.Predicate()
	tests := []struct {
		name       string
		old, new   client.Object
		create     client.Object
		delete     client.Object
		named, all bool
	}{
		{name: "named gate flips on", old: base, new: replicasOn, named: true, all: true},
		{name: "named gate flips off", old: replicasOn, new: base, named: true, all: true},
		{name: "another gate flips", old: base, new: extraOff, named: false, all: true},
		{name: "unrelated update", old: base, new: labelled, named: false, all: false},
		{name: "unstructured objects", old: toUnstructured(base), new: toUnstructured(replicasOn), named: true, all: true},
		{name: "another CRD", old: other, new: otherOn, named: false, all: false},
		{name: "gates removed, beta ExtraGate was on", old: base, new: noGates, named: false, all: true},
		{name: "created with the named gate on", create: replicasOn, named: true, all: true},
		{name: "created with only a beta gate on", create: base, named: false, all: true},
		{name: "created without gates", create: noGates, named: false, all: false},
		{name: "another CRD created", create: otherOn, named: false, all: false},
		{name: "deleted with the named gate on", delete: replicasOn, named: true, all: true},
		{name: "deleted with the named gate off", delete: base, named: false, all: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []struct {
				which string
				want  bool
				pred  interface {
					Create(event.CreateEvent) bool
					Update(event.UpdateEvent) bool
					Delete(event.DeleteEvent) bool
					Generic(event.GenericEvent) bool
				}
			}{{"Predicate(ReplicasGate)", tc.named, named}, {"Predicate()", tc.all, all}} {
				var got bool
				switch {
				case tc.create != nil:
					got = p.pred.Create(event.CreateEvent{Object: tc.create})
				case tc.delete != nil:
					got = p.pred.Delete(event.DeleteEvent{Object: tc.delete})
				default:
					got = p.pred.Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new})
				}
				if got != p.want {
					t.Errorf("%s = %v, want %v", p.which, got, p.want)
				}
				if p.pred.Generic(event.GenericEvent{Object: replicasOn}) {
					t.Errorf("%s passes a generic event", p.which)
				}
			}
		})
	}
}
