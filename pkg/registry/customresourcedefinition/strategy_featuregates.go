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

package customresourcedefinition

import (
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// dropDisabledCustomFeatureGates drops spec.customFeatureGates, and the
// x-kubernetes-feature-gate marks of every version's schema, while the CRDFieldLevelVersioning
// feature gate is disabled, unless the old object already uses them: data that is already
// stored is never lost.
func dropDisabledCustomFeatureGates(newCRD, oldCRD *apiextensions.CustomResourceDefinition) {
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) {
		return
	}
	if oldCRD == nil || oldCRD.Spec.CustomFeatureGates == nil {
		newCRD.Spec.CustomFeatureGates = nil
	}
	if oldCRD == nil || !validation.HasFeatureGateMarks(&oldCRD.Spec) {
		validation.DropFeatureGateMarks(&newCRD.Spec)
	}
}

// gateWarnings are the fork's warnings for a CRD create (oldCRD nil) or update. On update, a
// gated field path that the new storage schema no longer has (whatever the feature's state:
// the field is kept where it is in use); while the CRDFieldLevelVersioning feature gate is
// enabled, gates that no field path and no CEL rule uses, and, with conversion None, a path
// that one version marks and another has unmarked (the mark gates it in both, see
// validation.FeatureGateMarkVersionWarnings), and a gate set to enabled that stays disabled
// because a gate it requires is disabled (validation.RequiresWarnings). (A schema default on a gated field
// path needs no warning: the server applies no default at an effectively disabled path, see
// featuregates.Index.WithoutDisabledDefaults.)
func gateWarnings(newCRD, oldCRD *apiextensions.CustomResourceDefinition) []string {
	var warnings []string
	if oldCRD != nil {
		warnings = validation.UnresolvedGatedPathWarnings(&newCRD.Spec, &oldCRD.Spec)
	}
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) {
		warnings = append(warnings, validation.UnusedGateWarnings(&newCRD.Spec)...)
		warnings = append(warnings, validation.FeatureGateMarkVersionWarnings(&newCRD.Spec)...)
		warnings = append(warnings, validation.RequiresWarnings(&newCRD.Spec)...)
	}
	return warnings
}
