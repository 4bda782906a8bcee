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
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregatedvalidations"
)

// compileFeatureGatedValidations returns the validation of one CRD version with its
// x-kubernetes-feature-gated-validations compiled, for the gate states of this CRD
// revision, into the schema's own keywords (featuregatedvalidations.Compile). The handler
// builds the version's schema validators (the main resource's and the status subresource's)
// from the result once per CRD revision, so the stock validator enforces the entries that
// apply, with its own messages, at the cost of the keywords themselves; a gate change is a
// CRD update, which rebuilds them. It returns v itself when its schema has no entry. Like
// gates in CEL rules, it follows the gates the CRD declares, whatever the state of the
// CRDFieldLevelVersioning feature.
func compileFeatureGatedValidations(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsinternal.CustomResourceValidation) *apiextensionsinternal.CustomResourceValidation {
	return featuregatedvalidations.CompileCRDValidation(crd, v)
}
