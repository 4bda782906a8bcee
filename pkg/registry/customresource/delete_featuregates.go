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
	"fmt"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
)

// storageDeleter deletes objects in the storage version's store (see REST.Delete).
type storageDeleter interface {
	rest.GracefulDeleter
}

// Delete is the store's Delete. Through a version other than the storage version, when the
// stored object may hold a value at a disabled path that this version's decoding removes
// (FieldGates.pruned, conversion None) or that a conversion webhook may not give back, it
// deletes in the storage version's store instead: a deletion that does not remove the object
// at once (finalizers, orphan or foreground propagation) writes the object back, and this
// version's store would write it back as decoded here, without the stored value. Admission
// and the answer see the object as decoded in this version (asDecodedIn), as upstream's do.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	g, version := r.deletesInStorageVersion()
	if g == nil {
		return r.Store.Delete(ctx, name, deleteValidation, options)
	}
	out, deleted, err := g.deleter.Delete(ctx, name, g.validateDecodedIn(version, deleteValidation), options)
	if err != nil {
		return out, deleted, err
	}
	decoded, err := g.asDecodedIn(out, version)
	if err != nil {
		// The deletion is done; only its answer cannot be given in this version.
		return nil, deleted, fmt.Errorf("the deletion of %q was persisted, but the object cannot be shown in version %s: %w", name, version, err)
	}
	return decoded, deleted, nil
}

// deleteCollectionPageSize is the page of the lists of DeleteCollection, upstream's.
const deleteCollectionPageSize = 10000

// DeleteCollection is the store's DeleteCollection. Through a version that deletes in the
// storage version's store (see Delete), it lists the objects here, with this version's
// selectors and in pages as upstream does (one page when the client set a limit), and
// deletes them one by one through Delete; an object already gone is skipped, as upstream
// skips it. The answer is the list of every object listed, as upstream's is.
func (r *REST) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	if g, _ := r.deletesInStorageVersion(); g == nil {
		return r.Store.DeleteCollection(ctx, deleteValidation, options, listOptions)
	}
	if listOptions == nil {
		listOptions = &metainternalversion.ListOptions{}
	} else {
		listOptions = listOptions.DeepCopy()
	}
	onePage := listOptions.Limit > 0
	if !onePage {
		listOptions.Limit = deleteCollectionPageSize
	}
	var first runtime.Object
	var all []runtime.Object
	for {
		list, err := r.Store.List(ctx, listOptions)
		if err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			accessor, err := meta.Accessor(item)
			if err != nil {
				return nil, err
			}
			if _, _, err := r.Delete(ctx, accessor.GetName(), deleteValidation, options.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
				return nil, err
			}
		}
		if onePage {
			return list, nil
		}
		if first == nil {
			first = list
		}
		all = append(all, items...)
		m, err := meta.ListAccessor(list)
		if err != nil {
			return nil, err
		}
		if m.GetContinue() == "" {
			if err := meta.SetList(first, all); err != nil {
				return nil, err
			}
			return first, nil
		}
		listOptions.Continue = m.GetContinue()
		listOptions.ResourceVersion, listOptions.ResourceVersionMatch = "", ""
	}
}

// deletesInStorageVersion returns the field gates of r's CRD and r's version when deletions
// through r run in the storage version's store (see Delete), and nil otherwise.
func (r *REST) deletesInStorageVersion() (*FieldGates, string) {
	s, ok := r.Store.DeleteStrategy.(customResourceStrategy)
	if !ok || s.fieldGates == nil || s.fieldGates.deleter == nil {
		return nil, ""
	}
	g, version := s.fieldGates, s.kind.Version
	if version == g.storageVersion.Version || (g.convertor == nil && !g.pruned[version]) {
		return nil, ""
	}
	return g, version
}

// validateDecodedIn returns next, called with the object as decoded in version (asDecodedIn)
// instead of the object of the storage version's store, which is not modified. When the
// object cannot be converted, the deletion fails with the conversion's error.
func (g *FieldGates) validateDecodedIn(version string, next rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	if next == nil {
		return nil
	}
	return func(ctx context.Context, obj runtime.Object) error {
		decoded, err := g.asDecodedIn(obj, version)
		if err != nil {
			return err
		}
		return next(ctx, decoded)
	}
}

// asDecodedIn returns obj, an object read in the storage version, as decoding in version gives
// it: a copy converted to that version (with conversion None, only apiVersion changes),
// pruned by that version's schema, without the nulls that pruning removes there, and with the
// metadata of the resources it embeds coerced by that schema as reading from storage does
// (unknown and malformed metadata fields dropped). Any other object is returned as it is: a
// status, or nil. obj is not modified.
func (g *FieldGates) asDecodedIn(obj runtime.Object, version string) (runtime.Object, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u == nil {
		return obj, nil
	}
	gv := schema.GroupVersion{Group: g.storageVersion.Group, Version: version}
	var out *unstructured.Unstructured
	if from := u.GroupVersionKind().GroupVersion(); g.convertor != nil && from != gv {
		converted, err := g.convertor.ConvertToVersion(u, gv) // the safe converter: a copy
		if err != nil {
			return nil, conversionError(from, gv, err)
		}
		if out, ok = converted.(*unstructured.Unstructured); !ok {
			return nil, conversionError(from, gv, fmt.Errorf("the conversion returned %T", converted))
		}
	} else {
		out = u.DeepCopy()
	}
	out.SetAPIVersion(gv.String())
	if s := g.schemas[version]; s != nil {
		structuralpruning.Prune(out.Object, s, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(out.Object, s)
		if err, _ := schemaobjectmeta.CoerceWithOptions(nil, out.Object, s, false, schemaobjectmeta.CoerceOptions{DropInvalidFields: true}); err != nil {
			return nil, fmt.Errorf("field feature gates: cannot coerce the embedded metadata of %q as decoded in %s: %w", u.GetName(), gv, err)
		}
	}
	return out, nil
}
