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
		}
	}
	return specs
}

// AppliesToVersion reports whether gate paths, which are paths of the storage version, are
// also paths of the given version's objects: always for the storage version, and for every
// version when the CRD has no conversion webhook (versions then differ only in apiVersion).
// With a webhook, other versions are gated only after conversion to the storage version.
func AppliesToVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
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
