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
	"strings"

	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// apiextensionsModelPrefix starts the OpenAPI model name of every type in the
// apiextensions.k8s.io API packages (internal names are not published).
const apiextensionsModelPrefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions."

// useFieldGateOpenAPIDefinitions makes the server publish, and use for server-side apply,
// this fork's OpenAPI definitions of the apiextensions.k8s.io types.
//
// A kube-apiserver passes in the definitions generated in k8s.io/kubernetes, which know
// nothing of spec.customFeatureGates: the published schema would lack the field, kubectl
// explain could not describe it, and server-side apply of a CRD that sets it would fail with
// "field not declared in schema". The fork's own generated definitions replace those of its
// types; every other definition is left as the caller gave it. The OpenAPI configs are
// copied, not changed in place, because the caller shares them with its other servers.
func useFieldGateOpenAPIDefinitions(c *genericapiserver.Config) {
	if c.OpenAPIConfig != nil {
		cfg := *c.OpenAPIConfig
		if cfg.GetDefinitions != nil {
			cfg.GetDefinitions = withFieldGateOpenAPIDefinitions(cfg.GetDefinitions)
		}
		if cfg.Definitions != nil {
			cfg.Definitions = overlayFieldGateOpenAPIDefinitions(cfg.Definitions, schemaRef("#/definitions/", cfg.GetDefinitionName))
		}
		c.OpenAPIConfig = &cfg
	}
	if c.OpenAPIV3Config != nil {
		cfg := *c.OpenAPIV3Config
		if cfg.GetDefinitions != nil {
			cfg.GetDefinitions = withFieldGateOpenAPIDefinitions(cfg.GetDefinitions)
		}
		// The precomputed definitions take precedence over GetDefinitions (and feed the
		// type converter of server-side apply), so they get the fork's types too.
		if cfg.Definitions != nil {
			cfg.Definitions = overlayFieldGateOpenAPIDefinitions(cfg.Definitions, schemaRef("#/components/schemas/", cfg.GetDefinitionName))
		}
		c.OpenAPIV3Config = &cfg
	}
}

// withFieldGateOpenAPIDefinitions returns get's definitions with those of the
// apiextensions.k8s.io types taken from the fork.
func withFieldGateOpenAPIDefinitions(get common.GetOpenAPIDefinitions) common.GetOpenAPIDefinitions {
	return func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		return overlayFieldGateOpenAPIDefinitions(get(ref), ref)
	}
}

// overlayFieldGateOpenAPIDefinitions returns a copy of given in which the fork's definitions
// of the apiextensions.k8s.io types, built with ref, replace or add to the given ones.
func overlayFieldGateOpenAPIDefinitions(given map[string]common.OpenAPIDefinition, ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := make(map[string]common.OpenAPIDefinition, len(given)+2)
	for name, def := range given {
		defs[name] = def
	}
	for name, def := range generatedopenapi.GetOpenAPIDefinitions(ref) {
		if strings.HasPrefix(name, apiextensionsModelPrefix) {
			defs[name] = def
		}
	}
	return defs
}

// schemaRef builds references the way the OpenAPI builders do: prefix plus the escaped
// definition name.
func schemaRef(prefix string, definitionName func(string) (string, spec.Extensions)) common.ReferenceCallback {
	return func(name string) spec.Ref {
		if definitionName != nil {
			name, _ = definitionName(name)
		}
		return spec.MustCreateRef(prefix + common.EscapeJsonPointer(name))
	}
}
