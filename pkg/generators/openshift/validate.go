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

package openshift

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
)

// serverValidation runs the API server's CRD validation on a merged CRD manifest, as the
// server decodes it: the gates, marks, gated keywords and every CEL rule, with its estimated
// cost against the budget, must be accepted. A gated keyword keeps the loosest form on its
// node, which is what CEL cost estimates read: where only a gate's file bounds a list or a
// string that a rule of that gate iterates, the merged CRD can exceed the budget that each
// file alone meets.
func serverValidation(content []byte) (field.ErrorList, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(content, crd); err != nil {
		return nil, err
	}
	return crdmerge.ServerValidation(crd)
}
