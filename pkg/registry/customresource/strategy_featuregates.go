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
	"fmt"
	"maps"
	"strconv"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// FieldGates is the compiled field gating (KEP-2608) of one CRD revision. It is built once
// with the CRD's other serving state and shared, read-only, by the strategies of all the
// CRD's versions.
type FieldGates struct {
	// indexes are the compiled gates of each version's objects (featuregates.CompileVersions):
	// with conversion None, the gates' fieldPaths and every version's
	// x-kubernetes-feature-gate marks at the paths the version has; with a webhook, the
	// version's own marks, and the fieldPaths in the storage version. A version without
	// gated paths has none.
	indexes map[string]*featuregates.Index
	// storage is the index of the storage version.
	storage *featuregates.Index
	// acts is true when gating acts on writes: an effectively disabled path or a deprecated
	// gate in some version. Otherwise writes take upstream's path (the fast path), decided by
	// this one field.
	acts bool
	// deprecates is true when some version has a path of a deprecated gate: otherwise a
	// write draws no deprecation warning, and deprecationWarnings returns at once.
	deprecates     bool
	storageVersion schema.GroupVersion
	// crd is the CRD's name, and webhook describes its conversion webhook, for errors.
	crd, webhook string
	// resource is the CRD's plural name, a label of the field gate metrics.
	resource string
	// dropCounters caches the drop counter series of this revision (see dropCounter).
	dropCounters sync.Map
	// convertor converts objects between versions, without modifying its input (the
	// handler's is the safe converter, which copies it). It is nil when versions differ only
	// in apiVersion (conversion None): an object of any version is then gated as it is.
	convertor runtime.ObjectConvertor
	// stored reads the stored object in the storage version (see ReadStoredWith); nil without
	// a conversion webhook, or outside a server.
	stored rest.Getter
	// storageAlike are the versions whose index gates like the storage version's
	// (featuregates.Index.SameGating): with conversion None, every version whose schema has
	// the storage version's gated paths, so the storage version's step of prepare would find
	// nothing new.
	storageAlike map[string]bool
	// pruned are the versions (conversion None) whose schema lacks an effectively disabled
	// path of the storage version, or part of what the storage version's schema has below it
	// (featuregates.PrunesBelow): decoding in such a version prunes a value stored there, from
	// the request and from the object an update starts from, so the storage version's step of
	// prepare runs on the object as stored (see storedContent).
	pruned map[string]bool
	// unsendable are, by version other than the storage version, what a client of that
	// version cannot send as stored on the way to a disabled path of the storage version
	// (featuregates.Index.UnsendableIn), for the storage version's step of prepare: the
	// lists and maps the version's schema lacks (a version of pruned), which a write in that
	// version keeps as stored (featuregates.Index.PrepareForUpdateIn), and the items of lists
	// without keys that decoding in the version or in the storage version changes, which are
	// told apart as decoded. ownUnsendable are the same for the version's own step, by its
	// index: the object an update starts from was defaulted in the storage version when it
	// was read, the request in the client's.
	unsendable, ownUnsendable map[string]*featuregates.Unsendable
	// itemDefaults are, with a conversion webhook, the schemas (as they default) of the
	// versions other than the storage version that give defaults inside the items of lists
	// without keys (featuregates.DefaultsListItems): a write in such a version is gated in
	// the storage version against the stored object as the client's version decodes it (see
	// storedAsDecodedIn).
	itemDefaults map[string]*structuralschema.Structural
	// schemas are the versions' structural schemas, with a conversion webhook or when some
	// version is pruned: a deletion through another version runs in the storage version's
	// store (see REST.Delete), and what admission and the client see of the object is pruned
	// by that version's schema, as decoding there would (see asDecodedIn).
	schemas map[string]*structuralschema.Structural
	// deleter deletes in the storage version's store (see ReadStoredWith); nil when no
	// version is pruned and there is no webhook, or outside a server.
	deleter storageDeleter
}

// NewFieldGates compiles the gates of a CRD for each of its versions, from the versions'
// structural schemas. It returns nil, and custom resources behave as upstream, when the
// CRDFieldLevelVersioning feature is off or no version has a gated path.
func NewFieldGates(crd *apiextensionsv1.CustomResourceDefinition, storageVersion string, schemas map[string]*structuralschema.Structural, convertor runtime.ObjectConvertor) *FieldGates {
	if !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) || crd.Spec.CustomFeatureGates == nil {
		return nil
	}
	specs := featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates)
	g := &FieldGates{
		indexes:        map[string]*featuregates.Index{},
		storageVersion: schema.GroupVersion{Group: crd.Spec.Group, Version: storageVersion},
		crd:            crd.Name,
		resource:       crd.Spec.Names.Plural,
	}
	// Every version at once (featuregates.CompileVersions): with conversion None, a mark in
	// any version gates its path in every version that has it, wherever the storage version
	// is, exactly as defaults, the OpenAPI and pkg/apihelpers see it.
	versions := make([]featuregates.VersionSchema, 0, len(crd.Spec.Versions)+1)
	hasStorage := false
	for _, v := range crd.Spec.Versions {
		versions = append(versions, featuregates.VersionSchema{Version: v.Name, Schema: schemas[v.Name]})
		hasStorage = hasStorage || v.Name == storageVersion
	}
	if !hasStorage {
		versions = append(versions, featuregates.VersionSchema{Version: storageVersion, Schema: schemas[storageVersion]})
	}
	sharedShape := featuregates.SharesShape(crd)
	g.indexes = featuregates.CompileVersions(specs, versions, storageVersion, sharedShape)
	if len(g.indexes) == 0 {
		return nil
	}
	for _, index := range g.indexes {
		g.acts = g.acts || index.HasDisabled() || index.HasDeprecated()
		g.deprecates = g.deprecates || index.HasDeprecated()
	}
	g.storage = g.indexes[storageVersion]
	g.compileUnsendable(versions, storageVersion, sharedShape && !crd.Spec.PreserveUnknownFields, g.WithoutDisabledDefaults(schemas))
	if !sharedShape {
		g.convertor = convertor
		g.webhook = describeWebhook(crd.Spec.Conversion.Webhook)
		if !crd.Spec.PreserveUnknownFields {
			g.schemas = schemas // decoding prunes by them
		}
	} else {
		g.storageAlike = map[string]bool{}
		for _, v := range versions {
			g.storageAlike[v.Version] = g.indexes[v.Version].SameGating(g.storage)
			if v.Version == storageVersion || v.Schema == nil || crd.Spec.PreserveUnknownFields {
				continue // with spec.preserveUnknownFields, decoding prunes nothing
			}
			for _, p := range g.storage.Paths() {
				if !p.EffectivelyEnabled && featuregates.PrunesBelow(p.Path, schemas[storageVersion], v.Schema) {
					if g.pruned == nil {
						g.pruned = map[string]bool{}
					}
					g.pruned[v.Version] = true
					g.schemas = schemas
					break
				}
			}
		}
	}
	return g
}

// compileUnsendable computes unsendable and ownUnsendable for every version other than the
// storage version, from the schemas by which decoding prunes and defaults (defaulting:
// without the defaults at disabled paths). shared says the versions share the storage
// version's shape (conversion None, and decoding prunes): a version's schema is then compared
// with the storage version's; through a conversion webhook, only defaults can tell a stored
// item from a sent one in the same version.
func (g *FieldGates) compileUnsendable(versions []featuregates.VersionSchema, storageVersion string, shared bool, defaulting map[string]*structuralschema.Structural) {
	like := defaulting[storageVersion]
	var viaWebhook *featuregates.Unsendable // the same for every version: the storage version's own defaults
	if !shared {
		viaWebhook = g.storage.UnsendableIn(like, nil)
	}
	for _, v := range versions {
		if v.Version == storageVersion || defaulting[v.Version] == nil {
			continue
		}
		var toStorage, own *featuregates.Unsendable
		if shared {
			toStorage = g.storage.UnsendableIn(defaulting[v.Version], like)
			own = g.indexes[v.Version].UnsendableIn(defaulting[v.Version], like)
		} else {
			toStorage = viaWebhook
			own = g.indexes[v.Version].UnsendableIn(defaulting[v.Version], nil)
		}
		if toStorage != nil {
			if g.unsendable == nil {
				g.unsendable = map[string]*featuregates.Unsendable{}
			}
			g.unsendable[v.Version] = toStorage
		}
		if own != nil {
			if g.ownUnsendable == nil {
				g.ownUnsendable = map[string]*featuregates.Unsendable{}
			}
			g.ownUnsendable[v.Version] = own
		}
		if !shared && g.storage.HasDisabled() && featuregates.DefaultsListItems(defaulting[v.Version]) {
			if g.itemDefaults == nil {
				g.itemDefaults = map[string]*structuralschema.Structural{}
			}
			g.itemDefaults[v.Version] = defaulting[v.Version]
		}
	}
}

// WithoutDisabledDefaults returns the CRD's structural schemas by version, where defaulting
// puts no value at a path that is effectively disabled in that version
// (featuregates.Index.WithoutDisabledDefaults). Defaulting happens when a request is decoded
// and when an object is read from storage, both before gating; the handler builds these
// schemas once per CRD revision. It returns schemas itself when no default is affected, or
// when g is nil (the feature is off, or the CRD has no gated path).
func (g *FieldGates) WithoutDisabledDefaults(schemas map[string]*structuralschema.Structural) map[string]*structuralschema.Structural {
	if g == nil {
		return schemas
	}
	var out map[string]*structuralschema.Structural
	for version, s := range schemas {
		index := g.indexes[version]
		if !index.HasDisabled() {
			continue
		}
		gated := index.WithoutDisabledDefaults(s)
		if gated == s {
			continue
		}
		if out == nil {
			out = maps.Clone(schemas)
		}
		out[version] = gated
	}
	if out == nil {
		return schemas
	}
	return out
}

// WithFieldGates returns the strategy with field gating; nil gates nothing.
func (a customResourceStrategy) WithFieldGates(g *FieldGates) customResourceStrategy {
	a.fieldGates = g
	return a
}

// mainScope is the part of the object a write to the main resource may change.
func (a customResourceStrategy) mainScope() featuregates.Scope {
	if a.status != nil {
		return featuregates.ScopeExceptStatus
	}
	return featuregates.ScopeAll
}

// prepare applies the gates to a create (old nil) or an update, before the generation is
// computed, in two steps:
//
//  1. in the version the client sent, with that version's index, before any conversion, so
//     that a conversion webhook never sees a value at a path disabled in that version;
//  2. when that is not the storage version, in the storage version, with its index: the
//     object is converted, gated, and converted back when gating changed it. A conversion
//     webhook that then does not give back what was gated fails the write (see
//     notRoundTripped): the persisted object never holds a value at a path that is disabled
//     in the storage version.
//
// Each dropped or not-applied value draws a warning, and is counted and audited; inside a
// gated write (see gatedWrite) only once the write is done, and only for the attempt that was
// persisted. When the write cannot be converted for gating, the write fails (see
// gatedWrite.fail).
func (g *FieldGates) prepare(ctx context.Context, obj, old runtime.Object, scope featuregates.Scope) {
	if g == nil || !g.acts {
		return // the fast path: nothing is converted or copied
	}
	w := gatedWriteFrom(ctx)
	w.startAttempt()
	newObj, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return // only unstructured objects are gated
	}
	gv := newObj.GroupVersionKind().GroupVersion()
	var changes []featuregates.Change
	if index := g.indexes[gv.Version]; index.HasDisabled() {
		oldContent, err := g.contentIn(old, gv)
		if err != nil {
			w.fail(err)
			return
		}
		sent := index.SentLists(newObj.UnstructuredContent(), scope)
		own := g.ownUnsendable[gv.Version] // nil in the storage version
		var fieldErr *field.Error
		changes, fieldErr = index.PrepareForUpdateIn(newObj.UnstructuredContent(), oldContent, scope, own)
		if fieldErr == nil {
			fieldErr = index.CheckKeptIn(newObj.UnstructuredContent(), oldContent, sent, scope, own)
		}
		if fieldErr != nil {
			w.fail(invalid(newObj, fieldErr))
			return
		}
	}
	if gv != g.storageVersion && (!g.storageAlike[gv.Version] || g.pruned[gv.Version]) && g.storage.HasDisabled() {
		storageChanges, err := g.prepareInStorageVersion(ctx, newObj, old, scope)
		if err != nil {
			w.fail(err)
			return
		}
		changes = append(changes, storageChanges...)
	}
	if len(changes) > 0 {
		w.record(ctx, g, changes, old == nil)
	}
}

// keepOwnersOfNoop makes an update whose only changes were gated away change nothing: when
// gating changed the write (a value dropped or a stored one kept), and the write changes
// nothing else (the generation did not move, so everything but metadata is old's, and the
// metadata is old's but for managedFields), newObj's managedFields are set back to old's.
// The storage layer then finds the object unchanged and persists nothing: the
// resourceVersion stays, and no watch event follows. The field manager computes managedFields
// before gating; without this, a client whose every change was gated away would still
// become an owner, or take a list without keys from its owner, in a new revision of the
// object. PrepareForUpdate calls it last.
func (g *FieldGates) keepOwnersOfNoop(ctx context.Context, newObj, oldObj *unstructured.Unstructured) {
	if g == nil || !g.acts || newObj.GetGeneration() != oldObj.GetGeneration() {
		return
	}
	w := gatedWriteFrom(ctx)
	if w == nil || w.err != nil || len(w.changes) == 0 {
		return
	}
	newMeta, _ := newObj.Object["metadata"].(map[string]interface{})
	oldMeta, _ := oldObj.Object["metadata"].(map[string]interface{})
	if newMeta == nil || oldMeta == nil || len(newMeta) > len(oldMeta)+1 {
		return
	}
	for k, v := range newMeta {
		if k == "managedFields" {
			continue
		}
		if ov, ok := oldMeta[k]; !ok || !equality.Semantic.DeepEqual(v, ov) {
			return
		}
	}
	for k := range oldMeta {
		if _, ok := newMeta[k]; !ok && k != "managedFields" {
			return
		}
	}
	if mf, ok := oldMeta["managedFields"]; ok {
		newMeta["managedFields"] = runtime.DeepCopyJSONValue(mf)
	} else {
		delete(newMeta, "managedFields")
	}
}

// prepareInStorageVersion is the second step of prepare: it gates newObj, which is not in the
// storage version, in the storage version, and writes the result back into newObj.
//
// With a conversion webhook it then checks, on every write, what the storage layer will
// persist: newObj converted to the storage version, over the whole object whatever the
// write's scope (a main write carries the stored status, a status write the stored spec,
// both converted there and back), against the stored object as it is in storage (see
// storedContent), not as the webhook gave it to this version's endpoint. Where that
// conversion would put a value at a disabled path, or change a stored one, the write fails
// (see notRoundTripped): the persisted object never gains a value at a path that is disabled
// in the storage version, whatever the webhook invents on the way.
func (g *FieldGates) prepareInStorageVersion(ctx context.Context, newObj *unstructured.Unstructured, old runtime.Object, scope featuregates.Scope) ([]featuregates.Change, error) {
	stored, back, err := g.toStorage(newObj)
	if err != nil {
		return nil, err
	}
	oldContent, err := g.storedContent(ctx, old)
	if err != nil {
		return nil, err
	}
	gv := newObj.GroupVersionKind().GroupVersion()
	if back != nil && oldContent != nil && g.itemDefaults[gv.Version] != nil {
		if oldContent, err = g.storedAsDecodedIn(old, gv, oldContent); err != nil {
			return nil, err
		}
	}
	// With conversion None, decoding in a version that lacks a disabled path of the storage
	// version also pruned the stored values of the part of the object the write does not
	// change (a status write carries the stored spec, a main write the stored status, as
	// decoded in this version): they come back as stored, and the last check covers them.
	rest, restPruned := scope.Rest()
	restPruned = restPruned && back == nil && g.pruned[gv.Version]
	check := scope
	if restPruned {
		check = featuregates.ScopeAll
		if status, ok := newObj.Object["status"]; ok && rest == featuregates.ScopeStatus {
			// A main write carries old's status itself (upstream's PrepareForUpdate): copy it,
			// so that putting the stored values back there leaves old as decoded in this
			// version, as admission and the answer of an unchanged write see it.
			newObj.Object["status"] = runtime.DeepCopyJSONValue(status)
		}
	}
	sent := g.storage.SentLists(stored.UnstructuredContent(), check)
	unsendable := g.unsendable[gv.Version]
	changes, fieldErr := g.storage.PrepareForUpdateIn(stored.UnstructuredContent(), oldContent, scope, unsendable)
	if fieldErr != nil {
		return nil, invalid(newObj, fieldErr)
	}
	if back == nil {
		// Conversion None: the gated object is newObj itself.
		if restPruned {
			// Not the write's doing: no warning.
			if _, fieldErr := g.storage.PrepareForUpdateIn(stored.UnstructuredContent(), oldContent, rest, unsendable); fieldErr != nil {
				return nil, invalid(newObj, fieldErr)
			}
		}
		if fieldErr := g.storage.CheckKeptIn(stored.UnstructuredContent(), oldContent, sent, check, unsendable); fieldErr != nil {
			return nil, invalid(newObj, fieldErr)
		}
		if g.pruned[gv.Version] {
			changes = g.afterPrunedDecoding(ctx, gv.Version, old, oldContent, changes)
		}
		return changes, nil
	}
	if len(changes) > 0 {
		if err := back(stored, newObj); err != nil {
			return nil, err
		}
		// The storage layer converts newObj again: check that conversion.
		if stored, _, err = g.toStorage(newObj); err != nil {
			return nil, err
		}
	}
	// Unchanged, stored is what the storage layer persists, and was just gated within the
	// write's scope: only the rest of the object is left to check.
	check = featuregates.ScopeAll
	if len(changes) == 0 {
		var hasRest bool
		if check, hasRest = scope.Rest(); !hasRest {
			return changes, nil
		}
	}
	left, fieldErr := g.storage.PrepareForUpdateIn(stored.UnstructuredContent(), oldContent, check, unsendable)
	if fieldErr != nil {
		return nil, invalid(newObj, fieldErr)
	}
	if len(left) > 0 {
		return nil, g.notRoundTripped(gv, left[0])
	}
	if fieldErr := g.storage.CheckKeptIn(stored.UnstructuredContent(), oldContent, sent, scope, unsendable); fieldErr != nil {
		return nil, invalid(newObj, fieldErr)
	}
	return changes, nil
}

// storedAsDecodedIn returns stored, the stored object an update in version gv (through a
// conversion webhook) started from, as the client of gv decodes it, in the storage version:
// old, the webhook's conversion of stored for gv's endpoint, defaulted by gv's schema (see
// itemDefaults) and converted to the storage version by the webhook, as the write's object
// was. The storage version's step tells items of lists without keys apart on it, as gv's
// client sees and sends them. It holds the stored values at disabled paths only when the
// webhook gives them back in their places: otherwise stored itself is returned, and the
// items are told apart as stored. So gating and the last check keep exactly the stored
// values either way.
func (g *FieldGates) storedAsDecodedIn(old runtime.Object, gv schema.GroupVersion, stored map[string]interface{}) (map[string]interface{}, error) {
	oldObj, ok := old.(*unstructured.Unstructured)
	if !ok || oldObj == nil || oldObj.GroupVersionKind().GroupVersion() != gv {
		return stored, nil
	}
	decoded := oldObj.DeepCopy()
	structuraldefaulting.Default(decoded.Object, g.itemDefaults[gv.Version])
	converted, _, err := g.toStorage(decoded)
	if err != nil {
		return nil, err
	}
	if !g.storage.SameDisabledValues(converted.UnstructuredContent(), stored) {
		return stored, nil
	}
	return converted.UnstructuredContent(), nil
}

// afterPrunedDecoding settles an update in a version of pruned (conversion None) once the
// storage version's step has put back the stored values that decoding in that version pruned
// from the object the update started from. Putting them back is not the write's doing: the
// version cannot show them, and the version's own step (the first of prepare) has already
// gated, and warned about, every value the client sent at a disabled path the version has.
// So the values kept here draw no warning and are not counted; a dropped value still is. The
// write keeps the stored object and old completed with those values (see completeOld): the
// generation is computed against the completed old (see comparedOld), and an update whose
// result is the stored object persists nothing (see errUnchanged).
func (g *FieldGates) afterPrunedDecoding(ctx context.Context, version string, old runtime.Object, stored map[string]interface{}, changes []featuregates.Change) []featuregates.Change {
	own := changes[:0:0]
	for _, c := range changes {
		if c.Kind != featuregates.NotApplied {
			own = append(own, c)
		}
	}
	if w := gatedWriteFrom(ctx); w != nil && g.stored != nil && stored != nil && !w.stale {
		w.storedOld, w.comparedOld = stored, g.completeOld(old, version, stored)
		w.prunedIn, w.prunedGates = version, g
	}
	return own
}

// completeOld returns the content of old, the object an update in a version of pruned started
// from, as decoded in that version, with the stored values at disabled paths that the
// decoding pruned put back, as gating puts them back into the new object; nil when gating
// cannot complete it. Compared with the completed old, the new object differs only where the
// write changed a live field, as in upstream's comparison of the two in that version.
func (g *FieldGates) completeOld(old runtime.Object, version string, stored map[string]interface{}) map[string]interface{} {
	oldObj, ok := old.(*unstructured.Unstructured)
	if !ok || oldObj == nil {
		return nil
	}
	completed := oldObj.DeepCopy().UnstructuredContent()
	if _, fieldErr := g.storage.PrepareForUpdateIn(completed, stored, featuregates.ScopeAll, g.unsendable[version]); fieldErr != nil {
		return nil
	}
	return completed
}

// comparedOld returns what PrepareForUpdate compares an update's new object with to decide
// whether the generation moves: old itself, or, for an update in a version of pruned, old
// completed as the new object was (see completeOld). Compared with old, which lacks the
// stored values that gating put back into the new object, a write that changes nothing live
// would move the generation.
func (g *FieldGates) comparedOld(ctx context.Context, old map[string]interface{}) map[string]interface{} {
	if g == nil || len(g.pruned) == 0 {
		return old
	}
	if w := gatedWriteFrom(ctx); w != nil && w.err == nil && w.comparedOld != nil {
		return w.comparedOld
	}
	return old
}

// ReadStoredWith gives g the REST of the storage version's endpoint, whose objects are
// decoded in the storage version, so that a write sent in another version is checked
// against the object as stored (see storedContent): through a conversion webhook, and, with
// conversion None, through a version whose schema lacks a disabled path of the storage
// version (see pruned: its pruning removed the stored value there from the object the update
// starts from), whether a mark or a gate's fieldPaths gates the path. Deletions through those
// versions run in that REST's store (see REST.Delete). The handler calls it once, before the
// CRD's endpoints serve; g may be nil.
func (g *FieldGates) ReadStoredWith(storageVersionREST *REST) {
	if g == nil || storageVersionREST == nil || !g.storage.HasDisabled() {
		return
	}
	if g.convertor != nil || len(g.pruned) > 0 {
		g.stored, g.deleter = storageVersionREST, storageVersionREST
	}
}

// storedContent returns the content of the stored object that old, the object of an update
// as decoded for the request's version, was read from, in the storage version: nil for a
// create. With a conversion webhook and old in another version, old is the webhook's
// conversion of the stored object, which a webhook that does not round-trip may have changed
// on the way (and would change again on the way back, hiding the change); so the object is
// read again from the storage version's endpoint. When that read finds another resource
// version than old's, the write is answered with a conflict, which the storage layer's retry,
// or the client's, resolves with a fresh object.
func (g *FieldGates) storedContent(ctx context.Context, old runtime.Object) (map[string]interface{}, error) {
	oldObj, ok := old.(*unstructured.Unstructured)
	if !ok || oldObj == nil {
		return nil, nil
	}
	if gv := oldObj.GroupVersionKind().GroupVersion(); g.stored == nil || gv == g.storageVersion || (g.convertor == nil && !g.pruned[gv.Version]) {
		return g.contentIn(old, g.storageVersion)
	}
	obj, err := g.stored.Get(ctx, oldObj.GetName(), &metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return g.staleAttempt(ctx, old, fmt.Errorf("the object was deleted while it was updated"))
		}
		return nil, fmt.Errorf("field feature gates: cannot read the stored object in the storage version %s: %w", g.storageVersion.Version, err)
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("field feature gates: the storage version's endpoint returned %T", obj)
	}
	if u.GetResourceVersion() != oldObj.GetResourceVersion() {
		modified := fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again")
		if newerResourceVersion(u.GetResourceVersion(), oldObj.GetResourceVersion()) {
			return g.staleAttempt(ctx, old, modified)
		}
		return nil, g.conflict(oldObj.GetName(), modified)
	}
	return u.UnstructuredContent(), nil
}

// staleAttempt is storedContent's answer when the stored object is newer than old, the object
// the update's attempt started from, or gone. The storage layer's write of this attempt is
// conditioned on old's resourceVersion and cannot succeed: the storage layer retries with the
// object as stored now, or answers 404, as upstream's does (a dry run, which writes nothing,
// answers with what the attempt computed from old, as upstream's dry run does). So the
// attempt is marked stale, never ends as unchanged (see errUnchanged), and is gated against
// old itself, consistently with the rest of it. Outside a gated write it is a conflict.
func (g *FieldGates) staleAttempt(ctx context.Context, old runtime.Object, why error) (map[string]interface{}, error) {
	w := gatedWriteFrom(ctx)
	if w == nil {
		name := ""
		if oldObj, ok := old.(*unstructured.Unstructured); ok && oldObj != nil {
			name = oldObj.GetName()
		}
		return nil, g.conflict(name, why)
	}
	w.stale = true
	return g.contentIn(old, g.storageVersion)
}

// conflict is the 409 of an update to the named object of g's CRD.
func (g *FieldGates) conflict(name string, why error) error {
	return apierrors.NewConflict(schema.GroupResource{Group: g.storageVersion.Group, Resource: g.resource}, name, why)
}

// newerResourceVersion reports whether resourceVersion a is later than b; false when either
// is not an etcd revision.
func newerResourceVersion(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x > y
}

// deprecationWarnings returns the warnings for fields of deprecated gates the write uses, by
// the index of the version the client sent; when that version has no deprecated path of its
// own, by the storage version's index, on the object converted to the storage version.
// Inside a gated write they are recorded with the attempt instead, and nil is returned.
func (g *FieldGates) deprecationWarnings(ctx context.Context, obj, old runtime.Object, scope featuregates.Scope) []string {
	if g == nil || !g.deprecates {
		return nil
	}
	newObj, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	gv := newObj.GroupVersionKind().GroupVersion()
	index, content := g.indexes[gv.Version], newObj.UnstructuredContent()
	if !index.HasDeprecated() {
		if gv == g.storageVersion || !g.storage.HasDeprecated() {
			return nil
		}
		stored, _, err := g.toStorage(newObj)
		if err != nil {
			return nil // with a disabled gate, prepare failed the write; without one, storage reports it
		}
		index, content, gv = g.storage, stored.UnstructuredContent(), g.storageVersion
	}
	oldContent, err := g.contentIn(old, gv)
	if err != nil {
		return nil
	}
	return gatedWriteFrom(ctx).warn(index.DeprecationWarnings(content, oldContent, scope))
}

// contentIn returns the content of the stored object old in version gv: nil when old is nil
// (a create) or not unstructured, old's own content when it is in gv or versions differ only
// in apiVersion (conversion None), and otherwise the content of a converted copy.
func (g *FieldGates) contentIn(old runtime.Object, gv schema.GroupVersion) (map[string]interface{}, error) {
	oldObj, ok := old.(*unstructured.Unstructured)
	if !ok || oldObj == nil {
		return nil, nil
	}
	from := oldObj.GroupVersionKind().GroupVersion()
	if g.convertor == nil || from == gv {
		return oldObj.UnstructuredContent(), nil
	}
	out, err := g.convertor.ConvertToVersion(oldObj, gv)
	if err != nil {
		return nil, conversionError(from, gv, err)
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, conversionError(from, gv, fmt.Errorf("the converter returned %T", out))
	}
	return u.UnstructuredContent(), nil
}

// toStorage returns the object in the storage version, and a function that writes a
// modified storage-version object back into the request object. With conversion None, or
// when the object is already in the storage version, it is the object itself and back is
// nil. A conversion failure is returned, and fails the write: it is never left ungated.
func (g *FieldGates) toStorage(obj *unstructured.Unstructured) (stored *unstructured.Unstructured, back func(stored, into *unstructured.Unstructured) error, err error) {
	if g.convertor == nil {
		return obj, nil, nil // conversion None: every version has the storage version's shape
	}
	gv := obj.GroupVersionKind().GroupVersion()
	if gv == g.storageVersion {
		return obj, nil, nil
	}
	out, err := g.convertor.ConvertToVersion(obj, g.storageVersion)
	if err != nil {
		return nil, nil, conversionError(gv, g.storageVersion, err)
	}
	stored, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, nil, conversionError(gv, g.storageVersion, fmt.Errorf("the converter returned %T", out))
	}
	return stored, func(stored, into *unstructured.Unstructured) error {
		converted, err := g.convertor.ConvertToVersion(stored, gv)
		if err != nil {
			return conversionError(g.storageVersion, gv, err)
		}
		u, ok := converted.(*unstructured.Unstructured)
		if !ok {
			return conversionError(g.storageVersion, gv, fmt.Errorf("the converter returned %T", converted))
		}
		into.Object = u.Object
		return nil
	}, nil
}

// invalid is the error of a write that gating cannot apply without moving or losing a stored
// value (see featuregates.Index.PrepareForUpdate and CheckKept): 422, like a validation
// error, which validation reports in place of its own (see refused).
func invalid(obj *unstructured.Unstructured, err *field.Error) error {
	errs := field.ErrorList{err}
	return &gatingRefusal{StatusError: apierrors.NewInvalid(obj.GroupVersionKind().GroupKind(), obj.GetName(), errs), errs: errs}
}

// gatingRefusal is a 422 of gating, with its field errors.
type gatingRefusal struct {
	*apierrors.StatusError
	errs field.ErrorList
}

// refused returns the field errors of the write in ctx when gating refused it (see invalid),
// and nil otherwise. The strategy's validation returns them instead of its own: gating
// refuses a write before validation runs, and validation's errors on the object gating could
// not settle (a parent of another type, a parent recreated without its required property)
// would not say that a stored value at a field that is not live is the reason.
func (g *FieldGates) refused(ctx context.Context) field.ErrorList {
	if g == nil || !g.acts {
		return nil
	}
	w := gatedWriteFrom(ctx)
	if w == nil || w.err == nil {
		return nil
	}
	var r *gatingRefusal
	if errors.As(w.err, &r) {
		return r.errs
	}
	return nil
}

// conversionError is the error of a write that could not be gated because a conversion
// failed. Like a conversion failure in the storage layer, it answers 500 with the
// converter's message.
func conversionError(from, to schema.GroupVersion, err error) error {
	return fmt.Errorf("field feature gates: cannot convert from %s to %s: %w", from, to, err)
}

// notRoundTripped is the error of a write whose conversion to the storage version, after
// gating there, still puts a value at a disabled path (or changes a kept one): the conversion
// webhook does not give back what gating left. Storing the value would let a disabled field
// in; leaving it out is impossible, since the storage layer converts the request object with
// the same webhook. So the write fails, and the error names the path, the gate and the
// webhook, whose author must make the conversion round-trip that field. Like a conversion
// failure, it answers 500.
func (g *FieldGates) notRoundTripped(from schema.GroupVersion, c featuregates.Change) error {
	what := "puts a value"
	if c.Kind == featuregates.NotApplied {
		what = "changes the stored value"
	}
	return fmt.Errorf("field feature gates: the conversion webhook of CustomResourceDefinition %s (%s) does not round-trip gated fields: converting this %s object to the storage version %s %s at %s, which feature gate %s (%s) disables there; nothing was persisted",
		g.crd, g.webhook, from.Version, g.storageVersion.Version, what, c.Path.Path.String(), c.Path.Gate.Name, c.Path.Gate.PreRelease)
}

// describeWebhook names a conversion webhook's endpoint for an error message.
func describeWebhook(w *apiextensionsv1.WebhookConversion) string {
	switch {
	case w == nil || w.ClientConfig == nil:
		return "conversion webhook"
	case w.ClientConfig.Service != nil:
		s := w.ClientConfig.Service
		path := ""
		if s.Path != nil {
			path = *s.Path
		}
		return featuregates.Printable(fmt.Sprintf("service %s/%s%s", s.Namespace, s.Name, path))
	case w.ClientConfig.URL != nil:
		return featuregates.Printable("URL " + *w.ClientConfig.URL)
	}
	return "conversion webhook"
}
