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
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/warning"
)

// FieldGates is the compiled field gating (KEP-2608) of one CRD revision. It is built once
// with the CRD's other serving state and shared, read-only, by the strategies of all the
// CRD's versions.
type FieldGates struct {
	index          *featuregates.Index
	storageVersion schema.GroupVersion
	// resource is the CRD's plural name, a label of the field gate metrics.
	resource string
	// dropCounters caches the drop counter series of this revision (see dropCounter).
	dropCounters sync.Map
	// convertor converts objects to the storage version and back. It is nil when versions
	// differ only in apiVersion (conversion None), and the gates apply as they are.
	convertor runtime.ObjectConvertor
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
	g := &FieldGates{index: index, storageVersion: schema.GroupVersion{Group: crd.Spec.Group, Version: storageVersion}, resource: crd.Spec.Names.Plural}
	if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter {
		g.convertor = convertor
	}
	return g
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
// is counted and audited (see observe).
func (g *FieldGates) prepare(ctx context.Context, obj, old runtime.Object, scope featuregates.Scope) {
	if g == nil || !g.index.HasDisabled() {
		return // the fast path: nothing is converted or copied
	}
	newObj, stored, back, oldContent, ok := g.inStorageVersion(obj, old)
	if !ok {
		return
	}
	changes := g.index.PrepareForUpdate(stored.UnstructuredContent(), oldContent, scope)
	if len(changes) == 0 {
		return
	}
	if back != nil && !back(stored, newObj) {
		return
	}
	for _, c := range changes {
		warning.AddWarning(ctx, "", c.Warning())
	}
	g.observe(ctx, changes, old == nil)
}

// deprecationWarnings returns the warnings for fields of deprecated gates the write uses.
func (g *FieldGates) deprecationWarnings(obj, old runtime.Object, scope featuregates.Scope) []string {
	if g == nil || !g.index.HasDeprecated() {
		return nil
	}
	_, stored, _, oldContent, ok := g.inStorageVersion(obj, old)
	if !ok {
		return nil
	}
	return g.index.DeprecationWarnings(stored.UnstructuredContent(), oldContent, scope)
}

// inStorageVersion brings the request object, and the stored object when old is not nil,
// to the storage version. It returns the request object, its storage-version form with the
// function that writes that form back (see toStorage), and the stored object's content.
func (g *FieldGates) inStorageVersion(obj, old runtime.Object) (newObj, stored *unstructured.Unstructured, back func(stored, into *unstructured.Unstructured) bool, oldContent map[string]interface{}, ok bool) {
	newObj, ok = obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil, nil, nil, false
	}
	if stored, back, ok = g.toStorage(newObj); !ok {
		return nil, nil, nil, nil, false
	}
	if old != nil {
		oldObj, isU := old.(*unstructured.Unstructured)
		if !isU {
			return nil, nil, nil, nil, false
		}
		oldStored, _, converted := g.toStorage(oldObj)
		if !converted {
			return nil, nil, nil, nil, false
		}
		oldContent = oldStored.UnstructuredContent()
	}
	return newObj, stored, back, oldContent, true
}

// toStorage returns the object in the storage version, and a function that writes a
// modified storage-version object back into the request object. With conversion None, or
// when the object is already in the storage version, it is the object itself and back is
// nil. When the conversion fails, ok is false and the write is left as it is: the storage
// layer converts with the same webhook and reports the failure.
func (g *FieldGates) toStorage(obj *unstructured.Unstructured) (stored *unstructured.Unstructured, back func(stored, into *unstructured.Unstructured) bool, ok bool) {
	gv := obj.GroupVersionKind().GroupVersion()
	if g.convertor == nil || gv == g.storageVersion {
		return obj, nil, true
	}
	out, err := g.convertor.ConvertToVersion(obj.DeepCopy(), g.storageVersion)
	if err != nil {
		return nil, nil, false
	}
	stored, ok = out.(*unstructured.Unstructured)
	if !ok {
		return nil, nil, false
	}
	return stored, func(stored, into *unstructured.Unstructured) bool {
		converted, err := g.convertor.ConvertToVersion(stored, gv)
		if err != nil {
			return false
		}
		u, ok := converted.(*unstructured.Unstructured)
		if !ok {
			return false
		}
		into.Object = u.Object
		return true
	}, true
}
