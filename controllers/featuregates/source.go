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

package featuregates

import (
	"context"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// listener is one started Source: a coalescing signal and the gates it cares about.
type listener struct {
	gates  []string
	signal chan struct{}
}

// interested reports whether a change from the gate states before to after (and, when
// fieldChanged, a change of some field's liveness) concerns the listener.
func (l *listener) interested(before, after map[string]bool, fieldChanged bool) bool {
	if gatesFlipped(before, after, l.gates) {
		return true
	}
	return len(l.gates) == 0 && fieldChanged
}

// trigger marks the listener as due; signals that arrive while one is pending merge.
func (l *listener) trigger() {
	select {
	case l.signal <- struct{}{}:
	default:
	}
}

// Source returns a controller-runtime source for a controller's WatchesRawSource. When the
// state of one of the named gates flips (of any gate the CRD declares, when none is named;
// then also when a field that FieldEnabled was asked about becomes live or stops being
// live), it calls mapFn and adds the requests it returns to the controller's queue. The CRD
// being created or deleted counts as the flips it causes. Updates of the CRD that change no
// such state enqueue nothing. Flips that come in quick succession may be merged into one
// call of mapFn, which sees the latest state.
//
// The source does not enqueue anything when it starts: the controller's own watches do
// that. It is a syncing source: the controller waits for the tracker's cache before it
// starts its workers, so the tracker must be started too (mgr.Add(tracker)).
func (t *Tracker) Source(mapFn func(ctx context.Context) []reconcile.Request, gates ...string) source.Source {
	return &gateSource{t: t, mapFn: mapFn, gates: append([]string(nil), gates...)}
}

type gateSource struct {
	t     *Tracker
	mapFn func(ctx context.Context) []reconcile.Request
	gates []string
}

var _ source.SyncingSource = &gateSource{}

func (s *gateSource) String() string {
	if len(s.gates) == 0 {
		return fmt.Sprintf("feature gates of CRD %s", s.t.crdName)
	}
	return fmt.Sprintf("feature gates %s of CRD %s", strings.Join(s.gates, ","), s.t.crdName)
}

// Start registers the source with the tracker and returns; a goroutine adds requests to
// queue until ctx is done.
func (s *gateSource) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	if s.mapFn == nil {
		return fmt.Errorf("featuregates: the source of CRD %s has no map function", s.t.crdName)
	}
	l := &listener{gates: s.gates, signal: make(chan struct{}, 1)}
	s.t.mu.Lock()
	s.t.listeners[l] = struct{}{}
	s.t.mu.Unlock()
	go func() {
		defer func() {
			s.t.mu.Lock()
			delete(s.t.listeners, l)
			s.t.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-l.signal:
				for _, req := range s.mapFn(ctx) {
					queue.Add(req)
				}
			}
		}
	}()
	return nil
}

// WaitForSync waits for the tracker's cache.
func (s *gateSource) WaitForSync(ctx context.Context) error {
	if !s.t.WaitForCacheSync(ctx) {
		return fmt.Errorf("featuregates: timed out waiting for the tracker of CRD %s to sync (is it started? mgr.Add(tracker)): %w", s.t.crdName, ctx.Err())
	}
	return nil
}

// Predicate returns a predicate for watches of CustomResourceDefinitions (for example
// builder.Watches(&apiextensionsv1.CustomResourceDefinition{}, handler,
// builder.WithPredicates(tracker.Predicate("MyGate")))). It passes only events of the
// tracked CRD in which the state of a named gate (of any declared gate, when none is
// named) changed, by the rules of apihelpers.IsCustomFeatureGateEnabled: an update that
// flips one, the creation of the CRD with one of them on, its deletion with one of them on.
// Generic events never pass. On the policies backend the gates change in the parameter
// object, not in the CRD: the predicate reads the events of a watch of ParamKind objects
// (unstructured, named like the tracked CRD) the same way. Source covers both backends.
//
// It reads the objects of the event, typed or unstructured; it does not use the tracker's
// informer, so it also works when the tracker is not started.
func (t *Tracker) Predicate(gates ...string) predicate.Predicate {
	gates = append([]string(nil), gates...)
	changed := func(before, after client.Object) bool {
		var a, b map[string]bool
		if before != nil {
			crd, ok := t.ownCRD(before)
			if !ok {
				return false
			}
			a = gateStates(crd)
		}
		if after != nil {
			crd, ok := t.ownCRD(after)
			if !ok {
				return false
			}
			b = gateStates(crd)
		}
		return gatesFlipped(a, b, gates)
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return changed(nil, e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return changed(e.ObjectOld, e.ObjectNew) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return changed(e.Object, nil) },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// ownCRD returns obj as a typed CRD when it is the tracked CRD.
func (t *Tracker) ownCRD(obj client.Object) (*apiextensionsv1.CustomResourceDefinition, bool) {
	if obj == nil || obj.GetName() != t.crdName {
		return nil, false
	}
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		return o, true
	case *unstructured.Unstructured:
		if gvk := o.GroupVersionKind(); gvk.Group == ParamGroup && gvk.Kind == ParamKind {
			// The policies backend: the parameter object's spec is the CRD's gates.
			gates, err := paramGates(o)
			if err != nil {
				return nil, false
			}
			return &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{CustomFeatureGates: gates}}, true
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.UnstructuredContent(), crd); err != nil {
			return nil, false
		}
		return crd, true
	case runtime.Unstructured:
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.UnstructuredContent(), crd); err != nil {
			return nil, false
		}
		return crd, true
	}
	return nil, false
}
