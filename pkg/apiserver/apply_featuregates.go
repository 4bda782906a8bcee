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

package apiserver

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// fieldManagerConvertor returns the object convertor of the field manager of server-side
// apply when it is not c itself: with conversion None, c with the objects it converts to a
// version whose decoding prunes a gated path of the storage version (featuregates.PrunesBelow)
// pruned with that version's schema, as decoding in that version prunes them. It returns nil
// when the field manager's convertor is c.
//
// With conversion None, gating keeps a stored value at a disabled path through a write in a
// version whose schema lacks the path, and the value stays once the gate is enabled again.
// The field manager converts the object to the version of every managedFields entry and types
// it with that version's schema; a value the version does not declare made that fail ("field
// not declared in schema", status 500, nothing stored), so every server-side apply in another
// version failed while such an entry existed. A manager of that version cannot own a field
// the version lacks, so the version's view of the object is the object as decoding in the
// version gives it. Only the field manager sees the pruned copies: the object that is stored
// and the objects of requests and responses are not touched, and the apply models, which
// decide what server-side apply accepts in a version, are the version's own.
func fieldManagerConvertor(c runtime.ObjectConvertor, crd *apiextensionsv1.CustomResourceDefinition, storageVersion string, schemas map[string]*structuralschema.Structural) runtime.ObjectConvertor {
	if !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) ||
		crd.Spec.CustomFeatureGates == nil || len(crd.Spec.Versions) < 2 || !featuregates.SharesShape(crd) {
		return nil
	}
	storage := schemas[storageVersion]
	if storage == nil {
		return nil
	}
	index := featuregates.CompileCRDVersion(crd, storageVersion, storage)
	if index == nil {
		return nil
	}
	prune := map[string]*structuralschema.Structural{}
	for _, v := range crd.Spec.Versions {
		s := schemas[v.Name]
		if v.Name == storageVersion || s == nil {
			continue
		}
		for _, p := range index.Paths() {
			if featuregates.PrunesBelow(p.Path, storage, s) {
				prune[v.Name] = s
				break
			}
		}
	}
	if len(prune) == 0 {
		return nil
	}
	return &pruningConvertor{ObjectConvertor: c, schemas: prune}
}

// pruningConvertor prunes the objects it converts to a version of schemas with the version's
// schema (see fieldManagerConvertor).
type pruningConvertor struct {
	runtime.ObjectConvertor
	schemas map[string]*structuralschema.Structural
}

// ConvertToVersion converts in, which it does not modify, and prunes the result when its
// version is one of c.schemas.
func (c *pruningConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	out, err := c.ObjectConvertor.ConvertToVersion(in, gv)
	if err != nil {
		return out, err
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return out, nil
	}
	s := c.schemas[u.GroupVersionKind().Version]
	if s == nil {
		return out, nil
	}
	if out == in {
		u = u.DeepCopy()
	}
	structuralpruning.Prune(u.Object, s, true)
	return u, nil
}

// scopeConvertor is the convertor of a custom resource's request scopes: the request
// handlers use the embedded one, the field manager forFieldManager (fieldManagerConvertorOf).
type scopeConvertor struct {
	runtime.ObjectConvertor
	forFieldManager runtime.ObjectConvertor
}

// withFieldManagerConvertor returns c for the request scopes, and forFieldManager for their
// field manager: c itself when forFieldManager is nil.
func withFieldManagerConvertor(c, forFieldManager runtime.ObjectConvertor) runtime.ObjectConvertor {
	if forFieldManager == nil {
		return c
	}
	return &scopeConvertor{ObjectConvertor: c, forFieldManager: forFieldManager}
}

// fieldManagerConvertorOf returns the convertor for the field manager of a request scope
// whose convertor is c (see withFieldManagerConvertor).
func fieldManagerConvertorOf(c runtime.ObjectConvertor) runtime.ObjectConvertor {
	if s, ok := c.(*scopeConvertor); ok {
		return s.forFieldManager
	}
	return c
}
