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

// addFeatureGates marks the properties of a CRD version's published schema that the CRD's
// gates guard in that version: the nodes marked with x-kubernetes-feature-gate, in the
// version's schema s and, with conversion None, where versions share one shape, in every
// version's schema (featuregates.CompileCRDVersion, as the server gates writes), and the
// gates' fieldPaths, which are paths of the storage version's schema, where this version's
// schema has them as properties (or, for [*], as items or additionalProperties). Each marked
// property gets two extensions:
//
//	x-kubernetes-feature-gate:       the gate's name, the same shape as the author's mark
//	x-kubernetes-feature-gate-state: {preRelease, enabled, component}, where enabled says
//	                                 whether the field is effectively enabled (its gate and the
//	                                 gates of all its gated ancestors are), so the API server
//	                                 honours writes of it; component is
//	                                 spec.customFeatureGates.component, when the CRD sets it
//
// and its description begins with the gate's stage note on a line of its own. Nothing is
// added unless the CRDFieldLevelVersioning feature is enabled (the author's marks, which the
// schema keeps, are then published as written, like any schema extension).
func addFeatureGates(ret *spec.Schema, crd *apiextensionsv1.CustomResourceDefinition, s *structuralschema.Structural) {
	if ret == nil || crd.Spec.CustomFeatureGates == nil || !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) {
		return
	}
	var index *featuregates.Index
	if featuregates.SharesShape(crd) {
		// Every version's marks at the paths s has: the version's name is not needed.
		index = featuregates.CompileCRDVersion(crd, "", s)
	} else {
		// With a webhook, the version's own marks; fieldPaths are published wherever the
		// version's schema has the path.
		index = featuregates.CompileVersion(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates), s, true)
	}
	component := crd.Spec.CustomFeatureGates.Component
	for _, p := range index.Paths() {
		state := map[string]interface{}{
			"preRelease": p.Gate.PreRelease,
			"enabled":    p.EffectivelyEnabled,
		}
		if component != nil && *component != "" {
			state["component"] = *component
		}
		note := p.StageNote()
		markFeatureGate(ret, p.Path.Steps(), func(prop *spec.Schema) {
			prop.AddExtension(featuregates.MarkExtension, p.Gate.Name)
			prop.AddExtension(featuregates.StateExtension, state)
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
// effectively disabled in that version (featuregates.CompileCRDVersion: with conversion None,
// by every version's marks), the server applies no default at it (see
// featuregates.Index.WithoutDisabledDefaults), so none is published there either. It is
// the schema itself when no default is affected or the CRDFieldLevelVersioning feature is
// off.
func withoutDisabledDefaults(crd *apiextensionsv1.CustomResourceDefinition, version string, s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil || crd.Spec.CustomFeatureGates == nil || !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) {
		return s
	}
	return featuregates.CompileCRDVersion(crd, version, s).WithoutDisabledDefaults(s)
}
