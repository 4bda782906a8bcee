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
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// staleDefinitions stands for the definitions a kube-apiserver generates in k8s.io/kubernetes:
// the CRD spec without customFeatureGates, and types of other API groups.
func staleDefinitions(common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	return map[string]common.OpenAPIDefinition{
		apiextensionsv1.CustomResourceDefinitionSpec{}.OpenAPIModelName(): {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Type: []string{"object"}, Properties: map[string]spec.Schema{"group": *spec.StringProperty()},
		}}},
		"io.k8s.api.core.v1.Pod": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{Description: "stock pod"}}},
	}
}

func TestUseFieldGateOpenAPIDefinitions(t *testing.T) {
	specName := apiextensionsv1.CustomResourceDefinitionSpec{}.OpenAPIModelName()
	gateName := apiextensionsv1.CustomResourceDefinitionFeatureGate{}.OpenAPIModelName()
	namer := func(name string) (string, spec.Extensions) { return name, nil }
	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/components/schemas/" + name) }

	v2 := &common.Config{GetDefinitions: staleDefinitions, GetDefinitionName: namer}
	v3 := &common.OpenAPIV3Config{GetDefinitions: staleDefinitions, GetDefinitionName: namer, Definitions: staleDefinitions(ref)}
	c := &genericapiserver.Config{OpenAPIConfig: v2, OpenAPIV3Config: v3}
	useFieldGateOpenAPIDefinitions(c)

	check := func(t *testing.T, where string, defs map[string]common.OpenAPIDefinition) {
		t.Helper()
		if _, ok := defs[specName].Schema.Properties["customFeatureGates"]; !ok {
			t.Errorf("%s: %s has no customFeatureGates", where, specName)
		}
		if _, ok := defs[specName].Schema.Properties["group"]; !ok {
			t.Errorf("%s: %s lost its other properties", where, specName)
		}
		if _, ok := defs[gateName]; !ok {
			t.Errorf("%s: %s is not defined", where, gateName)
		}
		if defs["io.k8s.api.core.v1.Pod"].Schema.Description != "stock pod" {
			t.Errorf("%s: a definition of another group was replaced", where)
		}
	}
	check(t, "v2 GetDefinitions", c.OpenAPIConfig.GetDefinitions(ref))
	check(t, "v3 GetDefinitions", c.OpenAPIV3Config.GetDefinitions(ref))
	check(t, "v3 Definitions", c.OpenAPIV3Config.Definitions)
	gatesName := apiextensionsv1.CustomResourceDefinitionFeatureGates{}.OpenAPIModelName()
	gatesProp := c.OpenAPIV3Config.Definitions[specName].Schema.Properties["customFeatureGates"]
	if got := gatesProp.Ref.String(); got != "#/components/schemas/"+gatesName {
		t.Errorf("v3 Definitions: customFeatureGates refers to %q", got)
	}

	// The caller's configs are shared with its other servers and must not change.
	if c.OpenAPIConfig == v2 || c.OpenAPIV3Config == v3 {
		t.Fatal("the OpenAPI configs were changed in place")
	}
	if _, ok := v3.Definitions[specName].Schema.Properties["customFeatureGates"]; ok {
		t.Error("the caller's precomputed v3 definitions were changed")
	}
	if _, ok := v2.GetDefinitions(ref)[gateName]; ok {
		t.Error("the caller's GetDefinitions was changed")
	}
}
