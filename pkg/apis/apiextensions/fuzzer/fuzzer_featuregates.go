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

package fuzzer

import (
	"reflect"

	"sigs.k8s.io/randfill"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
)

var customFeatureGatePreReleases = []apiextensions.CustomFeatureGatePreRelease{
	apiextensions.CustomFeatureGateAlpha,
	apiextensions.CustomFeatureGateBeta,
	apiextensions.CustomFeatureGateStable,
	apiextensions.CustomFeatureGateDeprecated,
}

// customFeatureGateFuzzer fills a custom feature gate with values of the shape the API
// accepts, so that round-trip tests exercise realistic gates as well as random ones.
func customFeatureGateFuzzer(obj *apiextensions.CustomResourceDefinitionFeatureGate, c randfill.Continue) {
	c.FillNoCustom(obj)
	if c.Bool() {
		obj.PreRelease = customFeatureGatePreReleases[c.Intn(len(customFeatureGatePreReleases))]
	}
	if c.Bool() {
		obj.FieldPaths = append(obj.FieldPaths, ".spec.replicas", ".spec.containers[*].image")
	}
	if c.Bool() {
		obj.Requires = append(obj.Requires, "Example", "Example2")
	}
	if c.Bool() {
		obj.RequiresAnyOf = append(obj.RequiresAnyOf, "Example3", "Example4")
	}
}

// featureGatedValidationFuzzer fills an x-kubernetes-feature-gated-validations entry. Enum
// holds JSON values (interface{}), which the generic filler cannot make: every other field
// is filled by reflection, and Enum gets values of each JSON kind, as JSONSchemaProps's
// enum does.
func featureGatedValidationFuzzer(obj *apiextensions.FeatureGatedValidation, c randfill.Continue) {
	v := reflect.ValueOf(obj).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Name == "Enum" {
			continue
		}
		c.Fill(v.Field(i).Addr().Interface())
	}
	obj.Enum = nil
	if c.Bool() {
		obj.Enum = []apiextensions.JSON{c.Float64(), c.String(0), c.Bool()}
	}
}
