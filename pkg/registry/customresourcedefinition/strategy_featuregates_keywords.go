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

// dropDisabledFeatureGatedValidations drops the x-kubernetes-feature-gated-validations of
// every version's schema while the CRDFieldLevelVersioning feature gate is disabled, unless
// the old object already has some: data that is already stored is never lost (as for
// spec.customFeatureGates and the x-kubernetes-feature-gate marks).
func dropDisabledFeatureGatedValidations(newCRD, oldCRD *apiextensions.CustomResourceDefinition) {
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) {
		return
	}
	if oldCRD == nil || !validation.HasFeatureGatedValidations(&oldCRD.Spec) {
		validation.DropFeatureGatedValidations(&newCRD.Spec)
	}
}
