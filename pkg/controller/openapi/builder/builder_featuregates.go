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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// featureGateExtension is the vendor extension that marks a property guarded by one of the
// CRD's field feature gates (KEP-2608). Its value is an object:
//
//	name:       the gate's name
//	preRelease: alpha, beta, stable or deprecated
//	enabled:    whether the field is effectively enabled, i.e. its gate and the gates of all
//	            its gated ancestors are enabled; the API server honours writes of it
//	component:  spec.customFeatureGates.component, when the CRD sets it
const featureGateExtension = "x-kubernetes-feature-gate"

// addFeatureGates marks the properties of a CRD version's published schema that the CRD's
// field feature gates guard: each gets the x-kubernetes-feature-gate extension, and its
// description begins with the gate's stage note on a line of its own. Gate paths are paths of
// the storage version's schema; in any version, a path that this schema does not have as a
// property (or, for [*], as items or additionalProperties) is not marked. Nothing is marked
// unless the CRDFieldLevelVersioning feature is enabled.
func addFeatureGates(s *spec.Schema, crd *apiextensionsv1.CustomResourceDefinition) {
	if s == nil || crd.Spec.CustomFeatureGates == nil || !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) {
		return
	}
	index := featuregates.Compile(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates), nil)
	component := crd.Spec.CustomFeatureGates.Component
	for _, p := range index.Paths() {
		ext := map[string]interface{}{
			"name":       p.Gate.Name,
			"preRelease": p.Gate.PreRelease,
			"enabled":    p.EffectivelyEnabled,
		}
		if component != nil && *component != "" {
			ext["component"] = *component
		}
		note := p.StageNote()
		markFeatureGate(s, p.Path.Steps(), func(prop *spec.Schema) {
			prop.AddExtension(featureGateExtension, ext)
			if prop.Description == "" {
				prop.Description = note
			} else {
				prop.Description = note + "\n" + prop.Description
			}
		})
	}
}

// markFeatureGate calls mark on the schema that steps lead to from s, if there is one. A field
// step follows a property, a [*] step the items of a list or the additionalProperties of a map.
// A field step into a map's additionalProperties names one key, which has no schema of its
// own to mark, so it is not followed.
func markFeatureGate(s *spec.Schema, steps []featuregates.Step, mark func(*spec.Schema)) {
	if len(steps) == 0 {
		mark(s)
		return
	}
	st := steps[0]
	if !st.Wildcard {
		prop, ok := s.Properties[st.Field]
		if !ok {
			return
		}
		markFeatureGate(&prop, steps[1:], mark)
		s.Properties[st.Field] = prop
		return
	}
	switch {
	case s.Items != nil && s.Items.Schema != nil:
		markFeatureGate(s.Items.Schema, steps[1:], mark)
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		markFeatureGate(s.AdditionalProperties.Schema, steps[1:], mark)
	}
}

// withoutDisabledDefaults returns the schema to publish for a CRD version: while a path is
// effectively disabled, the server applies no default at it (see
// featuregates.Index.WithoutDisabledDefaults), so none is published there either. It is
// the schema itself when no default is affected or the CRDFieldLevelVersioning feature is
// off.
func withoutDisabledDefaults(crd *apiextensionsv1.CustomResourceDefinition, version string, s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil || crd.Spec.CustomFeatureGates == nil || !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) ||
		!featuregates.AppliesToVersion(crd, version) {
		return s
	}
	return featuregates.Compile(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates), s).WithoutDisabledDefaults(s)
}
