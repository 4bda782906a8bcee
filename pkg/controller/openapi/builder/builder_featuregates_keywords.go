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

package builder

import (
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregatedvalidations"
)

// withEffectiveKeywords returns the validation of a CRD version to publish: its
// x-kubernetes-feature-gated-validations compiled into the schema's own keywords for the
// CRD's current gate states (featuregatedvalidations.Compile), as the API server enforces
// them. So the published documents show the keywords in effect (a value validation that v2
// strips is stripped from them too), not the entries. It returns v itself when its schema
// has no entry. Like the server's validation, it does not depend on the
// CRDFieldLevelVersioning feature.
func withEffectiveKeywords(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsinternal.CustomResourceValidation) *apiextensionsinternal.CustomResourceValidation {
	return featuregatedvalidations.CompileCRDValidation(crd, v)
}
