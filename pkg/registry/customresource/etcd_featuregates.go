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

package customresource

import (
	"context"
	"errors"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/util/dryrun"
	"k8s.io/apiserver/pkg/warning"
)

// gatedWrite is the field gating bookkeeping of one write to a custom resource whose CRD has
// field gates. The store may run the strategy more than once for one write: GuaranteedUpdate
// retries an update after a conflict with a fresh stored object. Each run of the strategy is
// an attempt; gating records its warnings, metrics and audit annotation with the attempt, and
// only the last attempt, the one whose result the response reports, reaches the response.
// An attempt that could not be gated fails the write before anything is persisted.
type gatedWrite struct {
	// warnings of the current attempt: values dropped or not applied, deprecated fields.
	warnings []string
	// changes of the current attempt, observed (metrics, audit) when the write is done.
	changes []featuregates.Change
	create  bool
	// dryRun is the write's dryRun=All: its drops are not counted (see observe).
	dryRun bool
	gates  *FieldGates
	// err is why the current attempt could not be gated; it fails the write.
	err error
	// storedOld is, for an update in a version of FieldGates.pruned, the stored object it
	// started from, in the storage version (see FieldGates.storedContent); nil otherwise.
	storedOld map[string]interface{}
	// comparedOld is, for such an update, the object it started from completed with the stored
	// values that decoding in its version pruned (see FieldGates.completeOld); nil otherwise.
	comparedOld map[string]interface{}
	// unchanged is the object such an update started from, when its result is the stored
	// object (see errUnchanged).
	unchanged runtime.Object
	// prunedIn is such an update's version, and prunedGates its CRD's gates: admission and
	// the answer see the objects as decoded there (see FieldGates.asDecodedIn).
	prunedIn    string
	prunedGates *FieldGates
	// stale is true when the attempt started from an object older than the stored one read
	// for gating (see FieldGates.storedContent): the storage layer will not persist it.
	stale bool
}

// errUnchanged ends an update in a version of FieldGates.pruned whose result, after gating
// and every validation, is the stored object: the update answers with the object it started
// from, and persists nothing. The storage layer cannot tell: it compares the result with the
// object as decoded in the request's version, which lacks the stored values that decoding
// pruned, and would write the same content again under a new resourceVersion.
var errUnchanged = errors.New("field feature gates: the update changes nothing")

type gatedWriteKey struct{}

// gatedWriteFrom returns the gated write of ctx, or nil outside one (a strategy called
// directly): nil records nothing and sends warnings and observations at once.
func gatedWriteFrom(ctx context.Context) *gatedWrite {
	w, _ := ctx.Value(gatedWriteKey{}).(*gatedWrite)
	return w
}

// startAttempt forgets what an earlier attempt recorded.
func (w *gatedWrite) startAttempt() {
	if w == nil {
		return
	}
	w.warnings, w.changes, w.gates, w.err = w.warnings[:0], nil, nil, nil
	w.storedOld, w.comparedOld, w.unchanged = nil, nil, nil
	w.prunedIn, w.prunedGates, w.stale = "", nil, false
}

// fail records why this attempt could not be gated. Outside a gated write there is no way
// to fail the write from the strategy; that does not happen in the server, where every write
// of a gated CRD is a gated write.
func (w *gatedWrite) fail(err error) {
	if w != nil {
		w.err = err
	}
}

// record keeps what gating changed in this attempt.
func (w *gatedWrite) record(ctx context.Context, g *FieldGates, changes []featuregates.Change, create bool) {
	if w == nil {
		for _, c := range changes {
			warning.AddWarning(ctx, "", c.Warning())
		}
		g.observe(ctx, changes, create, false)
		return
	}
	for _, c := range changes {
		w.warnings = append(w.warnings, c.Warning())
	}
	w.changes, w.create, w.gates = changes, create, g
}

// warn records warnings with this attempt and returns nil; outside a gated write it returns
// them, for the strategy's Warnings* to hand to the store.
func (w *gatedWrite) warn(texts []string) []string {
	if w == nil {
		return texts
	}
	w.warnings = append(w.warnings, texts...)
	return nil
}

// finish sends the last attempt's warnings and observations.
func (w *gatedWrite) finish(ctx context.Context) {
	for _, text := range w.warnings {
		warning.AddWarning(ctx, "", text)
	}
	if w.gates != nil && w.err == nil {
		w.gates.observe(ctx, w.changes, w.create, w.dryRun)
	}
}

func (w *gatedWrite) createValidation(next rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if w.err != nil {
			return w.err
		}
		if next == nil {
			return nil
		}
		return next(ctx, obj)
	}
}

func (w *gatedWrite) updateValidation(next rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		if w.err != nil {
			return w.err
		}
		if next != nil {
			seen, seenOld := obj, old
			if w.prunedGates != nil {
				// As upstream's admission sees a write in this version: without the stored
				// values gating put back. Conversion None: nothing to fail.
				seen, _ = w.prunedGates.asDecodedIn(obj, w.prunedIn)
				seenOld, _ = w.prunedGates.asDecodedIn(old, w.prunedIn)
			}
			if err := next(ctx, seen, seenOld); err != nil {
				return err
			}
		}
		if w.storedOld != nil && unchangedFrom(obj, w.storedOld) {
			w.unchanged = old
			return errUnchanged
		}
		return nil
	}
}

// unchangedFrom reports whether obj, the result of an update in a version of
// FieldGates.pruned (conversion None), is the stored object: the same content but for
// apiVersion. An object whose last finalizer the update removes is never unchanged: the store
// deletes it.
func unchangedFrom(obj runtime.Object, stored map[string]interface{}) bool {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || (u.GetDeletionTimestamp() != nil && len(u.GetFinalizers()) == 0) {
		return false
	}
	content := u.UnstructuredContent()
	if len(content) != len(stored) {
		return false
	}
	for k, v := range content {
		if k == "apiVersion" {
			continue
		}
		if s, ok := stored[k]; !ok || !equality.Semantic.DeepEqual(v, s) {
			return false
		}
	}
	return true
}

// fieldGatesOf returns the field gating of a store's strategy; nil when it has none.
func fieldGatesOf(strategy interface{}) *FieldGates {
	switch s := strategy.(type) {
	case customResourceStrategy:
		return s.fieldGates
	case statusStrategy:
		return s.fieldGates
	}
	return nil
}

// gatesWrites reports whether a store's strategy acts on writes: its CRD has an effectively
// disabled path or a deprecated gate. Otherwise gating does nothing, and writes take
// upstream's path with no bookkeeping (the fast path).
func gatesWrites(strategy interface{}) bool {
	g := fieldGatesOf(strategy)
	return g != nil && g.acts
}

// ownershipKeepingObjectInfo is the updated object of a gated update with its managedFields
// made to follow gating (FieldGates.keepGatedOwnership). The field manager has computed
// them by the time the handler's UpdatedObject returns, and the strategy, which gates the
// values, runs after it.
type ownershipKeepingObjectInfo struct {
	rest.UpdatedObjectInfo
	gates *FieldGates
}

func (i ownershipKeepingObjectInfo) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	obj, err := i.UpdatedObjectInfo.UpdatedObject(ctx, oldObj)
	if err != nil {
		return obj, err
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		i.gates.keepGatedOwnership(u, oldObj)
	}
	return obj, nil
}

// Create is the store's Create; when gating acts on writes, it is a gated write.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if !gatesWrites(r.Store.CreateStrategy) {
		return r.Store.Create(ctx, obj, createValidation, options)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		fieldGatesOf(r.Store.CreateStrategy).keepGatedOwnership(u, nil)
	}
	w := &gatedWrite{dryRun: options != nil && dryrun.IsDryRun(options.DryRun)}
	out, err := r.Store.Create(context.WithValue(ctx, gatedWriteKey{}, w), obj, w.createValidation(createValidation), options)
	w.finish(ctx)
	return out, err
}

// Update is the store's Update; when gating acts on writes, it is a gated write.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return gatedUpdate(ctx, r.Store, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// gatedUpdate is store.Update; when gating acts on writes, it is a gated write. The main
// resource, the status and the scale subresources update through it.
func gatedUpdate(ctx context.Context, store *genericregistry.Store, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if !gatesWrites(store.UpdateStrategy) {
		return store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
	}
	objInfo = ownershipKeepingObjectInfo{UpdatedObjectInfo: objInfo, gates: fieldGatesOf(store.UpdateStrategy)}
	w := &gatedWrite{dryRun: options != nil && dryrun.IsDryRun(options.DryRun)}
	out, created, err := store.Update(context.WithValue(ctx, gatedWriteKey{}, w), name, objInfo,
		w.createValidation(createValidation), w.updateValidation(updateValidation), forceAllowCreate, options)
	if errors.Is(err, errUnchanged) && w.unchanged != nil {
		out, created, err = w.unchanged, false, nil
		if w.prunedGates != nil {
			out, _ = w.prunedGates.asDecodedIn(out, w.prunedIn) // conversion None: nothing to fail
		}
	}
	w.finish(ctx)
	// An update that removes the last finalizer of a deleted object answers with the object
	// it sent to storage, not one read back: through a pruned version, gating put the stored
	// values there, which this version does not show.
	if u, ok := out.(*unstructured.Unstructured); ok && u != nil && u.GetDeletionTimestamp() != nil {
		if g, v := fieldGatesOf(store.UpdateStrategy), u.GroupVersionKind().Version; g.pruned[v] {
			out, _ = g.asDecodedIn(out, v) // conversion None: nothing to fail
		}
	}
	return out, created, err
}
