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
	"maps"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// FieldGates is the compiled field gating (KEP-2608) of one CRD revision. It is built once
// with the CRD's other serving state and shared, read-only, by the strategies of all the
// CRD's versions.
type FieldGates struct {
	index *featuregates.Index
	// acts is true when gating acts on writes: an effectively disabled path or a deprecated
	// gate. Otherwise writes take upstream's path (the fast path), decided by this one field.
	acts           bool
	storageVersion schema.GroupVersion
	// resource is the CRD's plural name, a label of the field gate metrics.
	resource string
	// dropCounters caches the drop counter series of this revision (see dropCounter).
	dropCounters sync.Map
	// convertor converts objects to the storage version and back. It is nil when versions
	// differ only in apiVersion (conversion None), and the gates apply as they are.
	convertor runtime.ObjectConvertor
	// gatedVersions are the versions whose objects have the gate paths as they are (see
	// featuregates.AppliesToVersion).
	gatedVersions map[string]bool
}

// NewFieldGates compiles the gates of a CRD against its storage version's structural
// schema. It returns nil, and custom resources behave as upstream, when the
// CRDFieldLevelVersioning feature is off or the CRD has no gated path.
func NewFieldGates(crd *apiextensionsv1.CustomResourceDefinition, storageVersion string, storageSchema *structuralschema.Structural, convertor runtime.ObjectConvertor) *FieldGates {
	if !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) || crd.Spec.CustomFeatureGates == nil {
		return nil
	}
	index := featuregates.Compile(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates), storageSchema)
	if index == nil {
		return nil
	}
	g := &FieldGates{index: index, acts: index.HasDisabled() || index.HasDeprecated(), storageVersion: schema.GroupVersion{Group: crd.Spec.Group, Version: storageVersion}, resource: crd.Spec.Names.Plural}
	if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter {
		g.convertor = convertor
	}
	g.gatedVersions = map[string]bool{}
	for _, v := range crd.Spec.Versions {
		if featuregates.AppliesToVersion(crd, v.Name) {
			g.gatedVersions[v.Name] = true
		}
	}
	return g
}

// WithoutDisabledDefaults returns the CRD's structural schemas by version, where defaulting
// puts no value at an effectively disabled path (featuregates.Index.WithoutDisabledDefaults)
// in the versions the gate paths apply to. Defaulting happens when a request is decoded and
// when an object is read from storage, both before gating; the handler builds these schemas
// once per CRD revision. It returns schemas itself when no default is affected, or when g is
// nil (the feature is off, or the CRD has no gated path).
func (g *FieldGates) WithoutDisabledDefaults(schemas map[string]*structuralschema.Structural) map[string]*structuralschema.Structural {
	if g == nil || !g.index.HasDisabled() {
		return schemas
	}
	var out map[string]*structuralschema.Structural
	for version, s := range schemas {
		if !g.gatedVersions[version] {
			continue
		}
		gated := g.index.WithoutDisabledDefaults(s)
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

// prepare applies the gates to a create (old nil) or an update, in the storage version,
// before the generation is computed. Each dropped or not-applied value draws a warning, and
// is counted and audited; inside a gated write (see gatedWrite) only once the write is done,
// and only for the attempt that was persisted. When the write cannot be brought to the
// storage version for gating, the write fails (see gatedWrite.fail).
func (g *FieldGates) prepare(ctx context.Context, obj, old runtime.Object, scope featuregates.Scope) {
	if g == nil || !g.acts {
		return // the fast path: nothing is converted or copied
	}
	w := gatedWriteFrom(ctx)
	w.startAttempt()
	if !g.index.HasDisabled() {
		return
	}
	newObj, stored, back, oldContent, err := g.inStorageVersion(obj, old)
	if err != nil {
		w.fail(err)
		return
	}
	if newObj == nil {
		return
	}
	changes := g.index.PrepareForUpdate(stored.UnstructuredContent(), oldContent, scope)
	if len(changes) == 0 {
		return
	}
	if back != nil {
		if err := back(stored, newObj); err != nil {
			w.fail(err)
			return
		}
	}
	w.record(ctx, g, changes, old == nil)
}

// deprecationWarnings returns the warnings for fields of deprecated gates the write uses.
// Inside a gated write they are recorded with the attempt instead, and nil is returned.
func (g *FieldGates) deprecationWarnings(ctx context.Context, obj, old runtime.Object, scope featuregates.Scope) []string {
	if g == nil || !g.acts || !g.index.HasDeprecated() {
		return nil
	}
	_, stored, _, oldContent, err := g.inStorageVersion(obj, old)
	if err != nil || stored == nil {
		return nil // with a disabled gate, prepare failed the write; without one, storage reports it
	}
	return gatedWriteFrom(ctx).warn(g.index.DeprecationWarnings(stored.UnstructuredContent(), oldContent, scope))
}

// inStorageVersion brings the request object, and the stored object when old is not nil,
// to the storage version. It returns the request object, its storage-version form with the
// function that writes that form back (see toStorage), and the stored object's content.
// Objects that are not unstructured are not gated: newObj is then nil.
func (g *FieldGates) inStorageVersion(obj, old runtime.Object) (newObj, stored *unstructured.Unstructured, back func(stored, into *unstructured.Unstructured) error, oldContent map[string]interface{}, err error) {
	newObj, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil, nil, nil, nil
	}
	if stored, back, err = g.toStorage(newObj); err != nil {
		return nil, nil, nil, nil, err
	}
	if old != nil {
		oldObj, isU := old.(*unstructured.Unstructured)
		if !isU {
			return nil, nil, nil, nil, nil
		}
		oldStored, _, err := g.toStorage(oldObj)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		oldContent = oldStored.UnstructuredContent()
	}
	return newObj, stored, back, oldContent, nil
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
	out, err := g.convertor.ConvertToVersion(obj.DeepCopy(), g.storageVersion)
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

// conversionError is the error of a write that could not be gated because a conversion
// failed. Like a conversion failure in the storage layer, it answers 500 with the
// converter's message.
func conversionError(from, to schema.GroupVersion, err error) error {
	return fmt.Errorf("field feature gates: cannot convert from %s to %s: %w", from, to, err)
}
