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
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/cel/environment"
)

// customFeatureGatesCELOptions returns the options that make the custom-resource strategy
// compile the CRD's x-kubernetes-validations rules with featureGates declared, holding the
// states of this CRD revision. It is called once per CRD revision, when the handler builds
// the revision's serving state, so the rules see a gate change from the next revision on and
// nothing is evaluated per request. It returns nil, and the rules compile as upstream's,
// when the CRD declares no gates. It does not depend on the CRDFieldLevelVersioning
// feature: a CRD that kept its gates while the feature is off keeps the rules that read them.
func customFeatureGatesCELOptions(crd *apiextensionsv1.CustomResourceDefinition) []cel.ValidatorOption {
	states := featuregates.States(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates))
	if len(states) == 0 {
		return nil
	}
	envSet, err := cel.FeatureGatesEnvSet(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), states)
	if err != nil {
		// CRD validation compiled these rules in the same environment, so this does not
		// happen; if it did, rules naming featureGates report a compile error per write.
		utilruntime.HandleError(err)
		return nil
	}
	return []cel.ValidatorOption{cel.WithBaseEnvSet(envSet)}
}
