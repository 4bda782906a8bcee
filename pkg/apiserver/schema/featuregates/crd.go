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
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// SpecsFromV1 returns the gates a CRD declares in spec.customFeatureGates, in the form
// Compile takes. gates may be nil. It is the one place that reads the v1 API types, so the
// callers that compile a v1 CRD's gates (the custom-resource strategy, the OpenAPI builder)
// read the same fields.
func SpecsFromV1(gates *apiextensionsv1.CustomResourceDefinitionFeatureGates) []GateSpec {
	if gates == nil || len(gates.FeatureGates) == 0 {
		return nil
	}
	specs := make([]GateSpec, len(gates.FeatureGates))
	for i, g := range gates.FeatureGates {
		specs[i] = GateSpec{
			Name:               g.Name,
			PreRelease:         string(g.PreRelease),
			Enabled:            g.Enabled,
			Default:            g.Default,
			DeprecationWarning: g.FieldDeprecationWarning,
			FieldPaths:         g.FieldPaths,
			Requires:           g.Requires,
			RequiresAnyOf:      g.RequiresAnyOf,
		}
	}
	return specs
}

// SharesShape reports whether the versions of the CRD share one shape: the CRD has no
// conversion webhook (conversion None), so its versions differ only in apiVersion. Then the
// gates' fieldPaths, and the marks of every version, gate every version whose schema has the
// path (CompileVersions); with a webhook, each version has its own marks.
func SharesShape(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter
}

// StructuralSchemas returns the structural schema of every version of the CRD, in the CRD's
// order, for CompileVersions; a version whose schema is missing, cannot be converted or is
// not structural has a nil Schema (the API server accepts only structural schemas).
func StructuralSchemas(crd *apiextensionsv1.CustomResourceDefinition) []VersionSchema {
	out := make([]VersionSchema, len(crd.Spec.Versions))
	for i, v := range crd.Spec.Versions {
		out[i].Version = v.Name
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
			continue
		}
		if s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema); err == nil {
			out[i].Schema = s
		}
	}
	return out
}

// CompileCRDVersion builds the index of one version of the CRD, whose structural schema is
// schema, as CompileVersions does for the API server: with a shared shape (SharesShape), from
// the gates' fieldPaths and the marks of every version's schema (StructuralSchemas) at the
// paths schema has; otherwise from schema's own marks and, in the storage version, the
// fieldPaths. schema may be a form of the version's schema that keeps its properties and
// marks, such as the published one. It returns nil when the version has no gated path.
func CompileCRDVersion(crd *apiextensionsv1.CustomResourceDefinition, version string, schema *structuralschema.Structural) *Index {
	specs := SpecsFromV1(crd.Spec.CustomFeatureGates)
	if !SharesShape(crd) {
		return CompileVersion(specs, schema, AppliesToVersion(crd, version))
	}
	versions := StructuralSchemas(crd)
	all := make([]*structuralschema.Structural, len(versions))
	for i, v := range versions {
		all[i] = v.Schema
		if v.Version == version && schema != nil {
			all[i] = schema
		}
	}
	return CompileSharedShape(specs, schema, all)
}

// AppliesToVersion reports whether gate paths, which are paths of the storage version, are
// also paths of the given version's objects: always for the storage version, and for every
// version when the CRD has no conversion webhook (versions then differ only in apiVersion).
// With a webhook, other versions are gated only after conversion to the storage version.
func AppliesToVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	if SharesShape(crd) {
		return true
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name == version
		}
	}
	return false
}

// SpecsFromInternal is SpecsFromV1 for the internal API types, which CRD validation and the
// CRD strategy see. It converts with the generated conversion, so that SpecsFromV1 stays the
// one place that maps API fields to GateSpec.
func SpecsFromInternal(gates *apiextensions.CustomResourceDefinitionFeatureGates) []GateSpec {
	if gates == nil {
		return nil
	}
	var v1 apiextensionsv1.CustomResourceDefinitionFeatureGates
	// The conversion of these plain structs cannot fail.
	_ = apiextensionsv1.Convert_apiextensions_CustomResourceDefinitionFeatureGates_To_v1_CustomResourceDefinitionFeatureGates(gates, &v1, nil)
	return SpecsFromV1(&v1)
}
