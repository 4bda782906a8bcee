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
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// crdForApplyModels returns the CRD whose versions' schemas build the type converter of
// server-side apply: crd itself, or, with conversion None, a copy in which every version's
// schema also declares the storage version's gated paths that it lacks.
//
// With conversion None, gating keeps a stored value at a disabled path of the storage version
// through a write in a version whose schema lacks that path (featuregates.PrunesBelow); the
// value stays after the gate is enabled again. The stored object then holds a field that such
// a version's schema does not declare, and the field manager, which converts the object to the
// version of each manager's entry in managedFields, would refuse it ("field not declared in
// schema", a 500, nothing stored). In the copy, each gated path of the storage version gets
// the storage version's schema at the first step that the other version lacks, where that
// version's node is an object of declared properties; a node that keeps unknown fields, a map
// and a node of another type are left as they are. Only the apply models see the copy: every
// version's validation, pruning, defaulting and published OpenAPI keep its own schema, so no
// request in such a version can set the field.
func crdForApplyModels(crd *apiextensionsv1.CustomResourceDefinition, storageVersion string, schemas map[string]*structuralschema.Structural) *apiextensionsv1.CustomResourceDefinition {
	if !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) ||
		crd.Spec.CustomFeatureGates == nil || len(crd.Spec.Versions) < 2 || !featuregates.SharesShape(crd) {
		return crd
	}
	var storage *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Name == storageVersion && v.Schema != nil {
			storage = v.Schema.OpenAPIV3Schema
		}
	}
	if storage == nil || schemas[storageVersion] == nil {
		return crd
	}
	index := featuregates.CompileCRDVersion(crd, storageVersion, schemas[storageVersion])
	if index == nil {
		return crd
	}
	var out *apiextensionsv1.CustomResourceDefinition
	for i, v := range crd.Spec.Versions {
		if v.Name == storageVersion || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		for _, p := range index.Paths() {
			if !lacksPath(storage, v.Schema.OpenAPIV3Schema, p.Path.Steps()) {
				continue
			}
			if out == nil {
				out = crd.DeepCopy()
			}
			addPath(storage, out.Spec.Versions[i].Schema.OpenAPIV3Schema, p.Path.Steps())
		}
	}
	if out == nil {
		return crd
	}
	return out
}

// lacksPath reports whether addPath would add to v the storage schema's property at some
// step of steps.
func lacksPath(storage, v *apiextensionsv1.JSONSchemaProps, steps []featuregates.Step) bool {
	for _, st := range steps {
		if storage == nil || v == nil || storage.Type != v.Type {
			return false
		}
		if st.Wildcard {
			storage, v = itemsOrValues(storage), itemsOrValues(v)
			continue
		}
		sp, ok := storage.Properties[st.Field]
		if !ok {
			return false
		}
		vp, ok := v.Properties[st.Field]
		if !ok {
			return declaresProperties(v)
		}
		storage, v = &sp, &vp
	}
	return false
}

// addPath adds to v, which it changes in place, the storage schema's property at the first
// step of steps that v lacks (see lacksPath).
func addPath(storage, v *apiextensionsv1.JSONSchemaProps, steps []featuregates.Step) {
	if len(steps) == 0 || storage == nil || v == nil || storage.Type != v.Type {
		return
	}
	st := steps[0]
	if st.Wildcard {
		addPath(itemsOrValues(storage), itemsOrValues(v), steps[1:])
		return
	}
	sp, ok := storage.Properties[st.Field]
	if !ok {
		return
	}
	vp, ok := v.Properties[st.Field]
	if !ok {
		if declaresProperties(v) {
			if v.Properties == nil {
				v.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
			}
			v.Properties[st.Field] = *sp.DeepCopy()
		}
		return
	}
	addPath(&sp, &vp, steps[1:])
	v.Properties[st.Field] = vp
}

// declaresProperties reports whether s is an object whose fields are the ones it declares:
// not a map and not a node that keeps unknown fields.
func declaresProperties(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.Type == "object" && s.AdditionalProperties == nil &&
		(s.XPreserveUnknownFields == nil || !*s.XPreserveUnknownFields)
}

// itemsOrValues is the schema of a list's items or of a map's values; nil for other nodes.
func itemsOrValues(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	switch {
	case s.Items != nil:
		return s.Items.Schema
	case s.AdditionalProperties != nil:
		return s.AdditionalProperties.Schema
	}
	return nil
}
