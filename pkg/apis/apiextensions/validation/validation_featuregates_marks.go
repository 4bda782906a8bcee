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

package validation

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// versionSchema is the schema of one CRD version with the field path of its openAPIV3Schema.
type versionSchema struct {
	version string
	storage bool
	props   *apiextensions.JSONSchemaProps
	path    *field.Path
}

// versionSchemas returns the schema of each version: the top-level spec.validation, which
// every version shares, or each version's own.
func versionSchemas(spec *apiextensions.CustomResourceDefinitionSpec, fldPath *field.Path) []versionSchema {
	var out []versionSchema
	for i, v := range spec.Versions {
		switch {
		case spec.Validation != nil && spec.Validation.OpenAPIV3Schema != nil:
			out = append(out, versionSchema{v.Name, v.Storage, spec.Validation.OpenAPIV3Schema, fldPath.Child("validation", "openAPIV3Schema")})
		case v.Schema != nil && v.Schema.OpenAPIV3Schema != nil:
			out = append(out, versionSchema{v.Name, v.Storage, v.Schema.OpenAPIV3Schema, fldPath.Child("versions").Index(i).Child("schema", "openAPIV3Schema")})
		}
	}
	return out
}

// validateFeatureGateMarks validates the x-kubernetes-feature-gate marks of every version's
// schema (fldPath is the CRD's spec). A mark must name a gate declared in
// spec.customFeatureGates; it must not be on the root, nor on or below metadata, apiVersion
// or kind; and where the storage version's mark and a gate's fieldPaths guard the same path,
// they must name the same gate. Marks inside allOf, anyOf, oneOf and not are rejected by the
// structural schema check, and a schema that is not structural is reported there; its marks
// are not checked here. When spec.validation is shared by every version, its marks are
// checked once.
func validateFeatureGateMarks(spec *apiextensions.CustomResourceDefinitionSpec, fldPath *field.Path) field.ErrorList {
	declared := map[string]bool{}
	fieldPathGate := map[string]string{}
	if spec.CustomFeatureGates != nil && len(spec.CustomFeatureGates.FeatureGates) <= MaxCustomFeatureGates {
		for _, g := range spec.CustomFeatureGates.FeatureGates {
			declared[g.Name] = true
			if len(g.FieldPaths) > MaxCustomFeatureGateFieldPaths {
				continue
			}
			for _, raw := range g.FieldPaths {
				if p, err := featuregates.ParsePath(raw); err == nil {
					if _, ok := fieldPathGate[p.String()]; !ok {
						fieldPathGate[p.String()] = g.Name
					}
				}
			}
		}
	}
	var allErrs field.ErrorList
	checked := map[*apiextensions.JSONSchemaProps]bool{}
	for _, vs := range versionSchemas(spec, fldPath) {
		if checked[vs.props] && !vs.storage {
			continue
		}
		first := !checked[vs.props]
		checked[vs.props] = true
		ss, err := structuralschema.NewStructural(vs.props)
		if err != nil {
			continue
		}
		for _, m := range featuregates.Marks(ss) {
			markPath := m.SchemaPath(vs.path)
			if first {
				allErrs = append(allErrs, validateFeatureGateMark(m, markPath, declared)...)
			}
			if !vs.storage {
				continue
			}
			if other, ok := fieldPathGate[m.Path.String()]; ok && other != m.Gate {
				allErrs = append(allErrs, field.Invalid(markPath, m.Gate, fmt.Sprintf(
					"the storage version %q's path %s is also in the fieldPaths of feature gate %q; a path guarded both ways must name the same gate", vs.version, m.Path.String(), other)))
			}
		}
	}
	return allErrs
}

// validateFeatureGateMark validates one mark on its own.
func validateFeatureGateMark(m featuregates.Mark, markPath *field.Path, declared map[string]bool) field.ErrorList {
	switch {
	case m.Path.Len() == 0:
		return field.ErrorList{field.Forbidden(markPath, "must not be set on the root of the schema")}
	case m.Path.IsReserved():
		return field.ErrorList{field.Forbidden(markPath, "must not be set on or below metadata, apiVersion or kind")}
	case m.Gate == "":
		return field.ErrorList{field.Required(markPath, "must name a feature gate declared in spec.customFeatureGates.featureGates")}
	case !declared[m.Gate]:
		return field.ErrorList{field.Invalid(markPath, m.Gate, "must name a feature gate declared in spec.customFeatureGates.featureGates")}
	}
	return nil
}

// validateFeatureGateMarkListMapKeys rejects a mark on a key of a list (see
// listMapKeyInPath), in the schema of any version, at the mark. unchanged are the gates that
// an update leaves as they were: their marks are not checked, as their fieldPaths are not
// (the ratcheting of validateCustomFeatureGates); ListMapKeyMarkWarnings reports them. It is
// called by validateCustomFeatureGates, which knows the gates before the update; the other
// rules of marks are in validateFeatureGateMarks.
func validateFeatureGateMarkListMapKeys(spec *apiextensions.CustomResourceDefinitionSpec, unchanged map[string]bool) field.ErrorList {
	var allErrs field.ErrorList
	forEachListMapKeyMark(spec, func(vs versionSchema, m featuregates.Mark, listPath, key string) {
		if !unchanged[m.Gate] {
			allErrs = append(allErrs, field.Invalid(m.SchemaPath(vs.path), m.Gate, listMapKeyDetail(listPath, key, vs.version)))
		}
	})
	return allErrs
}

// listMapKeyMarkWarnings returns a warning for each mark on a key of a list whose gate is in
// unchanged: a CRD update keeps it, since the gate did not change, but the mark still gates
// a key.
func listMapKeyMarkWarnings(spec *apiextensions.CustomResourceDefinitionSpec, unchanged map[string]bool) []string {
	var warnings []string
	forEachListMapKeyMark(spec, func(vs versionSchema, m featuregates.Mark, listPath, key string) {
		if unchanged[m.Gate] {
			warnings = append(warnings, fmt.Sprintf("%s: the mark of feature gate %s: %s; it is kept because the gate did not change",
				m.SchemaPath(vs.path), m.Gate, listMapKeyDetail(listPath, key, vs.version)))
		}
	})
	return warnings
}

// forEachListMapKeyMark calls f with each mark of spec's schemas that is on, or below, a key
// of a list (listMapKeyInPath), with the version, the list's path and the key. A schema that
// every version shares (spec.validation) is walked once, in the name of its first version; a
// schema that is not structural is skipped (structural validation reports it).
func forEachListMapKeyMark(spec *apiextensions.CustomResourceDefinitionSpec, f func(vs versionSchema, m featuregates.Mark, listPath, key string)) {
	walked := map[*apiextensions.JSONSchemaProps]bool{}
	for _, vs := range versionSchemas(spec, field.NewPath("spec")) {
		if walked[vs.props] {
			continue
		}
		walked[vs.props] = true
		ss, err := structuralschema.NewStructural(vs.props)
		if err != nil {
			continue
		}
		for _, m := range featuregates.Marks(ss) {
			if listPath, key, found := listMapKeyInPath(m.Path, ss); found {
				f(vs, m, listPath, key)
			}
		}
	}
}

// featureGateMarkNames returns the names of the gates that some version's schema marks.
func featureGateMarkNames(spec *apiextensions.CustomResourceDefinitionSpec) map[string]bool {
	names := map[string]bool{}
	for _, vs := range versionSchemas(spec, field.NewPath("spec")) {
		forEachFeatureGateMark(vs.props, func(name string) { names[name] = true })
	}
	return names
}

// forEachFeatureGateMark calls f with every x-kubernetes-feature-gate value in s and below
// it, wherever it is.
func forEachFeatureGateMark(s *apiextensions.JSONSchemaProps, f func(name string)) {
	forEachSchema(s, func(s *apiextensions.JSONSchemaProps) {
		if s.XFeatureGate != nil {
			f(*s.XFeatureGate)
		}
	})
}

// forEachSchema calls f with s and every schema below it: properties, patternProperties,
// definitions, dependencies, items, additionalProperties, additionalItems, allOf, anyOf, oneOf
// and not. f may change the schema it is given (values of maps are written back), not the
// structure around it.
func forEachSchema(s *apiextensions.JSONSchemaProps, f func(*apiextensions.JSONSchemaProps)) {
	if s == nil {
		return
	}
	f(s)
	for _, m := range []map[string]apiextensions.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k, p := range m {
			forEachSchema(&p, f)
			m[k] = p
		}
	}
	for _, d := range s.Dependencies {
		forEachSchema(d.Schema, f)
	}
	if s.Items != nil {
		forEachSchema(s.Items.Schema, f)
		for i := range s.Items.JSONSchemas {
			forEachSchema(&s.Items.JSONSchemas[i], f)
		}
	}
	if s.AdditionalProperties != nil {
		forEachSchema(s.AdditionalProperties.Schema, f)
	}
	if s.AdditionalItems != nil {
		forEachSchema(s.AdditionalItems.Schema, f)
	}
	for _, list := range [][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			forEachSchema(&list[i], f)
		}
	}
	forEachSchema(s.Not, f)
}

// HasFeatureGateMarks reports whether any version's schema of spec holds an
// x-kubernetes-feature-gate mark.
func HasFeatureGateMarks(spec *apiextensions.CustomResourceDefinitionSpec) bool {
	return len(featureGateMarkNames(spec)) > 0
}

// DropFeatureGateMarks removes every x-kubernetes-feature-gate mark from the schemas of spec.
func DropFeatureGateMarks(spec *apiextensions.CustomResourceDefinitionSpec) {
	for _, vs := range versionSchemas(spec, field.NewPath("spec")) {
		forEachSchema(vs.props, func(s *apiextensions.JSONSchemaProps) { s.XFeatureGate = nil })
	}
}
