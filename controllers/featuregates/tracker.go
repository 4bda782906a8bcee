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

// Package featuregates lets a controller follow the field feature gates
// (spec.customFeatureGates, KEP-2608) of one CustomResourceDefinition.
//
// A Tracker watches that one CRD through an informer whose list and watch are restricted to
// it by name. For every revision of the CRD it keeps what the server's rules
// (k8s.io/apiextensions-apiserver/pkg/apihelpers) say about the CRD's gates, so that
// Enabled and FieldEnabled are lookups in memory: they make no API call, and cost about
// what a lookup in an informer's cache costs. Source and Predicate requeue a
// controller-runtime reconciler when a gate it depends on is turned on or off.
//
// The gates live in one of two places, the CRD's backend (see backend.go): the CRD's own
// spec.customFeatureGates on a kube-apiserver built with the fork, or, on a stock
// kube-apiserver with the admission policies of `featuregate-gen policies`, the
// CustomResourceFeatureGates object named like the CRD. The tracker follows both and
// answers alike.
package featuregates

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	apiextensionslisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// ErrCRDNotFound is returned (wrapped) by FieldEnabled while the tracked CRD does not exist,
// or before the tracker's informer has synced.
var ErrCRDNotFound = errors.New("CustomResourceDefinition not found")

// Tracker follows the feature gates of one CRD through an informer on that CRD alone.
//
// Create it with NewTracker or NewTrackerForClient, then run it with Start (or add it to a
// controller-runtime manager: it is a manager.Runnable). Its methods are safe for
// concurrent use.
type Tracker struct {
	crdName string

	factory      externalversions.SharedInformerFactory
	informer     cache.SharedIndexInformer
	lister       apiextensionslisters.CustomResourceDefinitionLister
	registration cache.ResourceEventHandlerRegistration

	// params follows the parameter object of the policies backend; nil when the tracker
	// was built without a dynamic client (native backend only).
	params *paramWatch

	// inMu guards in, what the informers last delivered.
	inMu sync.Mutex
	in   inputs

	// state is the snapshot of the current revision of the CRD and its parameter object;
	// never nil.
	state atomic.Pointer[snapshot]

	started atomic.Bool

	mu        sync.Mutex
	listeners map[*listener]struct{}
}

// inputs are the objects the tracker's answers come from: the CRD and, on the policies
// backend, its parameter object. Either is nil while it does not exist.
type inputs struct {
	crd   *apiextensionsv1.CustomResourceDefinition
	param *unstructured.Unstructured
}

// snapshot holds what the rules say about one revision of the CRD.
type snapshot struct {
	// backend is where the gates of this revision live; "" without gates.
	backend Backend
	// crd is nil when the CRD does not exist (or the informer has not synced yet). On the
	// policies backend it is a copy of the CRD with spec.customFeatureGates set from the
	// parameter object.
	crd *apiextensionsv1.CustomResourceDefinition
	// gates holds the effective state of every declared gate.
	gates map[string]bool

	// fields memoizes FieldEnabled answers of this revision. Readers load the map without
	// a lock; a miss computes the answer and publishes a copy of the map with it added.
	fields   atomic.Pointer[map[fieldKey]fieldAnswer]
	fieldsMu sync.Mutex
}

type fieldKey struct {
	version, path string
}

type fieldAnswer struct {
	enabled bool
	err     error
}

// NewTracker returns a Tracker for the CRD named crdName (for example
// "crontabs.stable.example.com"), which talks to the API server of cfg, on either backend.
// The CRD need not exist yet: the tracker picks it up when it is created.
func NewTracker(cfg *rest.Config, crdName string) (*Tracker, error) {
	if cfg == nil {
		return nil, fmt.Errorf("featuregates: NewTracker needs a rest.Config")
	}
	cs, err := clientset.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("featuregates: building a client for CRD %q: %w", crdName, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("featuregates: building a dynamic client for CRD %q: %w", crdName, err)
	}
	return NewTrackerForClients(cs, dyn, crdName)
}

// NewTrackerForClient is NewTracker with a clientset of the apiextensions API. Without a
// dynamic client it follows the native backend only: on a stock cluster it reports every
// field live. Use NewTrackerForClients there.
func NewTrackerForClient(client clientset.Interface, crdName string) (*Tracker, error) {
	return NewTrackerForClients(client, nil, crdName)
}

// NewTrackerForClients is NewTracker with a clientset of the apiextensions API and a
// dynamic client, which reads the parameter objects of the policies backend (nil: the
// native backend only).
func NewTrackerForClients(client clientset.Interface, dyn dynamic.Interface, crdName string) (*Tracker, error) {
	if client == nil {
		return nil, fmt.Errorf("featuregates: NewTrackerForClients needs a client")
	}
	if crdName == "" {
		return nil, fmt.Errorf("featuregates: the CRD name is empty; pass the CRD's metadata.name, such as crontabs.stable.example.com")
	}
	t := &Tracker{crdName: crdName, listeners: map[*listener]struct{}{}}
	t.state.Store(newSnapshot(inputs{}))
	t.factory = externalversions.NewSharedInformerFactoryWithOptions(client, 0,
		externalversions.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", crdName).String()
		}))
	crds := t.factory.Apiextensions().V1().CustomResourceDefinitions()
	t.informer = crds.Informer()
	t.lister = crds.Lister()
	reg, err := t.informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj interface{}, isInInitialList bool) {
			t.observe(asCRD(obj), !isInInitialList)
		},
		UpdateFunc: func(_, obj interface{}) {
			t.observe(asCRD(obj), true)
		},
		DeleteFunc: func(interface{}) {
			t.observe(nil, true)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("featuregates: watching CRD %q: %w", crdName, err)
	}
	t.registration = reg
	if dyn != nil {
		if t.params, err = newParamWatch(t, client, dyn); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func asCRD(obj interface{}) *apiextensionsv1.CustomResourceDefinition {
	crd, _ := obj.(*apiextensionsv1.CustomResourceDefinition)
	return crd
}

// CRDName returns the name of the tracked CRD.
func (t *Tracker) CRDName() string { return t.crdName }

// Start runs the tracker's informer until ctx is done, then returns nil. It makes the
// Tracker a controller-runtime manager.Runnable: mgr.Add(tracker). It returns an error when
// the tracker was started before.
func (t *Tracker) Start(ctx context.Context) error {
	if !t.started.CompareAndSwap(false, true) {
		return fmt.Errorf("featuregates: the tracker of CRD %q was started already", t.crdName)
	}
	if t.params != nil {
		t.params.start(ctx)
	}
	t.factory.Start(ctx.Done())
	<-ctx.Done()
	t.factory.Shutdown()
	if t.params != nil {
		t.params.shutdown()
	}
	return nil
}

// NeedLeaderElection tells a controller-runtime manager to run the tracker on every
// replica, as it runs caches: it only reads.
func (t *Tracker) NeedLeaderElection() bool { return false }

// WaitForCacheSync waits until the tracker has seen the CRD as it is (or seen that it does
// not exist), and its parameter object where the cluster serves that kind. It returns false
// when ctx is done first.
func (t *Tracker) WaitForCacheSync(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), t.HasSynced)
}

// HasSynced reports whether the tracker has seen the CRD as it is, and its parameter
// object where the cluster serves that kind.
func (t *Tracker) HasSynced() bool {
	return t.registration.HasSynced() && (t.params == nil || t.params.hasSynced())
}

// CRD returns the tracked CRD as the tracker last saw it, or nil when it does not exist.
// On the policies backend it is a copy whose spec.customFeatureGates is the parameter
// object's spec, as kubectl featuregates reads it. The object is shared: do not modify it.
func (t *Tracker) CRD() *apiextensionsv1.CustomResourceDefinition {
	return t.state.Load().crd
}

// Backend returns where the gates of the tracked CRD live now: BackendNative,
// BackendPolicies, or "" when the CRD does not exist or declares no gates on either.
func (t *Tracker) Backend() Backend {
	return t.state.Load().backend
}

// Lister returns the lister of the tracker's informer, which holds the tracked CRD only.
func (t *Tracker) Lister() apiextensionslisters.CustomResourceDefinitionLister { return t.lister }

// Enabled reports whether the CRD's feature gate named gate is enabled, by the rules of
// apihelpers.IsCustomFeatureGateEnabled. It is false when the CRD does not exist or does
// not declare the gate. It makes no API call and does not allocate.
//
// This is the gate's state. A field the gate guards may still be off because the gate of
// an ancestor field is off: ask FieldEnabled about fields.
func (t *Tracker) Enabled(gate string) bool {
	return t.state.Load().gates[gate]
}

// FieldEnabled reports whether the field at fieldPath of the CRD's objects of the given
// version is live, by apihelpers.IsFieldEnabled: whether the API server stores what a
// write sets there. See there for the path syntax and the errors. While the CRD does not
// exist it returns an error that wraps ErrCRDNotFound.
//
// The first question about a (version, fieldPath) in a revision of the CRD computes the
// answer; the next ones, and the same question after the CRD changes, are lookups.
func (t *Tracker) FieldEnabled(version, fieldPath string) (bool, error) {
	a := t.state.Load().field(t.crdName, fieldKey{version, fieldPath})
	return a.enabled, a.err
}

// GateStates returns a copy of the effective state of every gate the CRD declares, keyed
// by name; nil when the CRD does not exist or declares none.
func (t *Tracker) GateStates() map[string]bool {
	gates := t.state.Load().gates
	if gates == nil {
		return nil
	}
	out := make(map[string]bool, len(gates))
	for k, v := range gates {
		out[k] = v
	}
	return out
}

func newSnapshot(in inputs) *snapshot {
	crd, backend := gatedCRD(in)
	s := &snapshot{backend: backend, crd: crd, gates: gateStates(crd)}
	empty := map[fieldKey]fieldAnswer{}
	s.fields.Store(&empty)
	return s
}

// gateStates returns the effective state of each gate the CRD declares, as
// apihelpers.IsCustomFeatureGateEnabled gives it.
func gateStates(crd *apiextensionsv1.CustomResourceDefinition) map[string]bool {
	if crd == nil || crd.Spec.CustomFeatureGates == nil || len(crd.Spec.CustomFeatureGates.FeatureGates) == 0 {
		return nil
	}
	states := make(map[string]bool, len(crd.Spec.CustomFeatureGates.FeatureGates))
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		if g.Name == "" {
			continue
		}
		if _, seen := states[g.Name]; seen {
			continue
		}
		enabled, _ := apihelpers.IsCustomFeatureGateEnabled(crd, g.Name)
		states[g.Name] = enabled
	}
	return states
}

// field returns the memoized answer for k, computing it on a miss.
func (s *snapshot) field(crdName string, k fieldKey) fieldAnswer {
	if a, ok := (*s.fields.Load())[k]; ok {
		return a
	}
	s.fieldsMu.Lock()
	defer s.fieldsMu.Unlock()
	old := *s.fields.Load()
	if a, ok := old[k]; ok {
		return a
	}
	var a fieldAnswer
	if s.crd == nil {
		a.err = fmt.Errorf("field %s of version %s: CRD %s: %w (or the tracker has not synced yet)", k.path, k.version, crdName, ErrCRDNotFound)
	} else {
		a.enabled, a.err = apihelpers.IsFieldEnabled(s.crd, k.version, k.path)
	}
	next := make(map[fieldKey]fieldAnswer, len(old)+1)
	for key, v := range old {
		next[key] = v
	}
	next[k] = a
	s.fields.Store(&next)
	return a
}

// askedFields returns the questions FieldEnabled was asked in this revision.
func (s *snapshot) askedFields() map[fieldKey]fieldAnswer {
	return *s.fields.Load()
}

// observe installs the snapshot of a new revision of the CRD (nil: the CRD is gone), and
// tells the listeners what changed when notify is set.
func (t *Tracker) observe(crd *apiextensionsv1.CustomResourceDefinition, notify bool) {
	t.update(func(in *inputs) { in.crd = crd }, notify)
}

// observeParam is observe for the parameter object (nil: it is gone).
func (t *Tracker) observeParam(param *unstructured.Unstructured, notify bool) {
	t.update(func(in *inputs) { in.param = param }, notify)
}

// update applies set to the inputs and, when they changed, installs their snapshot and tells
// the listeners what changed (when notify is set).
func (t *Tracker) update(set func(*inputs), notify bool) {
	t.inMu.Lock()
	defer t.inMu.Unlock()
	in := t.in
	set(&in)
	if sameCRD(in.crd, t.in.crd) && sameParam(in.param, t.in.param) {
		return
	}
	t.in = in
	prev := t.state.Load()
	next := newSnapshot(in)
	// Answer again, for the new revision, the field questions of the previous one: the
	// reconciler's next FieldEnabled is a lookup, and the listeners can compare.
	prevFields := prev.askedFields()
	fieldChanged := false
	for k, a := range prevFields {
		b := next.field(t.crdName, k)
		if a.enabled != b.enabled || (a.err == nil) != (b.err == nil) {
			fieldChanged = true
		}
	}
	t.state.Store(next)
	if !notify {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for l := range t.listeners {
		if l.interested(prev.gates, next.gates, fieldChanged) {
			l.trigger()
		}
	}
}

// gatesFlipped reports whether any of the named gates (every gate either map has, when
// none is named) has a different state in a than in b; an absent gate is off.
func gatesFlipped(a, b map[string]bool, gates []string) bool {
	if len(gates) > 0 {
		for _, g := range gates {
			if a[g] != b[g] {
				return true
			}
		}
		return false
	}
	for g, on := range a {
		if b[g] != on {
			return true
		}
	}
	for g, on := range b {
		if a[g] != on {
			return true
		}
	}
	return false
}
