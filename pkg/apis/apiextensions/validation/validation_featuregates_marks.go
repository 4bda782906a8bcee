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

// sharesShape reports whether the versions of spec share one shape: no conversion webhook
// (conversion None). Then a mark, like a fieldPath, gates its path in every version whose
// schema has it (featuregates.CompileVersions); with a webhook, each version has its own
// marks.
func sharesShape(spec *apiextensions.CustomResourceDefinitionSpec) bool {
	return spec.Conversion == nil || spec.Conversion.Strategy != apiextensions.WebhookConverter
}

// structuralVersion is a version's schema with its structural form.
type structuralVersion struct {
	versionSchema
	structural *structuralschema.Structural
}

// structuralVersions returns the structural schema of each version, in the CRD's order, once
// per distinct schema (spec.validation, which every version shares, in the name of its first
// version); a schema that is not structural is left out (structural validation reports it).
func structuralVersions(spec *apiextensions.CustomResourceDefinitionSpec) []structuralVersion {
	var out []structuralVersion
	seen := map[*apiextensions.JSONSchemaProps]bool{}
	for _, vs := range versionSchemas(spec, field.NewPath("spec")) {
		if seen[vs.props] {
			continue
		}
		seen[vs.props] = true
		if ss, err := structuralschema.NewStructural(vs.props); err == nil {
			out = append(out, structuralVersion{vs, ss})
		}
	}
	return out
}

// otherVersionsWith returns the versions of versions, other than the one whose schema is
// except, whose schema has the path p (featuregates.Resolve): the versions a mark of another
// version, or a fieldPath, also gates with conversion None.
func otherVersionsWith(versions []structuralVersion, except *apiextensions.JSONSchemaProps, p featuregates.Path) []structuralVersion {
	var out []structuralVersion
	for _, v := range versions {
		if v.props != except && featuregates.Resolve(p, v.structural) == nil {
			out = append(out, v)
		}
	}
	return out
}

// validateFeatureGateMarks validates the x-kubernetes-feature-gate marks of every version's
// schema (fldPath is the CRD's spec). A mark must name a gate declared in
// spec.customFeatureGates; it must not be on the root, nor on or below metadata, apiVersion
// or kind; and where a mark and a gate's fieldPaths guard the same path in a version that
// both gate (the storage version; every version with conversion None), they must name the
// same gate. With conversion None, a mark gates its path in every version that has it, so two
// versions must not mark one path with different gates: the mark of the later version, in
// spec.versions order, is rejected. Marks inside allOf, anyOf, oneOf and not are rejected by
// the structural schema check, and a schema that is not structural is reported there; its
// marks are not checked here. When spec.validation is shared by every version, its marks are
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
	shared := sharesShape(spec)
	// markedBy is, with conversion None, the first valid mark of each path, by version.
	type versionMark struct{ version, gate string }
	markedBy := map[string]versionMark{}
	var allErrs field.ErrorList
	checked := map[*apiextensions.JSONSchemaProps]bool{}
	for _, vs := range versionSchemas(spec, fldPath) {
		if checked[vs.props] && (shared || !vs.storage) {
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
			var markErrs field.ErrorList
			if first {
				markErrs = validateFeatureGateMark(m, markPath, declared)
				allErrs = append(allErrs, markErrs...)
			}
			key := m.Path.String()
			if other, ok := fieldPathGate[key]; ok && other != m.Gate {
				switch {
				case vs.storage:
					allErrs = append(allErrs, field.Invalid(markPath, m.Gate, fmt.Sprintf(
						"the storage version %q's path %s is also in the fieldPaths of feature gate %q; a path guarded both ways must name the same gate", vs.version, key, other)))
				case shared:
					allErrs = append(allErrs, field.Invalid(markPath, m.Gate, fmt.Sprintf(
						"version %q's path %s is also in the fieldPaths of feature gate %q, which gate it in every version with conversion None; a path guarded both ways must name the same gate", vs.version, key, other)))
				}
				continue
			}
			if !shared || !first || len(markErrs) > 0 {
				continue
			}
			if earlier, ok := markedBy[key]; !ok {
				markedBy[key] = versionMark{vs.version, m.Gate}
			} else if earlier.gate != m.Gate {
				allErrs = append(allErrs, field.Invalid(markPath, m.Gate, fmt.Sprintf(
					"version %q marks the same path %s with feature gate %q: with conversion None a mark gates its path in every version that has it, so the versions must name the same gate", earlier.version, key, earlier.gate)))
			}
		}
	}
	return allErrs
}

// FeatureGateMarkVersionWarnings returns, for a CRD with conversion None, a warning for each
// mark of one version at a path that another version's schema has but does not mark (and no
// fieldPath gates): the mark gates the path in both versions (see validateFeatureGateMarks),
// and the warning says so, naming both versions and the path, so that the author can mark
// the path in every version. A CRD with a conversion webhook, whose versions keep their own
// marks, draws none. Marks that validation rejects draw none either.
func FeatureGateMarkVersionWarnings(spec *apiextensions.CustomResourceDefinitionSpec) []string {
	if !sharesShape(spec) || spec.CustomFeatureGates == nil || len(spec.CustomFeatureGates.FeatureGates) > MaxCustomFeatureGates {
		return nil
	}
	declared := map[string]bool{}
	fieldPaths := map[string]bool{}
	for _, g := range spec.CustomFeatureGates.FeatureGates {
		declared[g.Name] = true
		if len(g.FieldPaths) > MaxCustomFeatureGateFieldPaths {
			continue
		}
		for _, raw := range g.FieldPaths {
			if p, err := featuregates.ParsePath(raw); err == nil {
				fieldPaths[p.String()] = true
			}
		}
	}
	versions := structuralVersions(spec)
	if len(versions) < 2 {
		return nil
	}
	// marked are the paths each version marks.
	marked := make([]map[string]bool, len(versions))
	marks := make([][]featuregates.Mark, len(versions))
	for i, v := range versions {
		marks[i] = featuregates.Marks(v.structural)
		marked[i] = make(map[string]bool, len(marks[i]))
		for _, m := range marks[i] {
			marked[i][m.Path.String()] = true
		}
	}
	var warnings []string
	for i, v := range versions {
		for _, m := range marks[i] {
			key := m.Path.String()
			if !declared[m.Gate] || m.Path.Len() == 0 || m.Path.IsReserved() || fieldPaths[key] {
				continue
			}
			for j, o := range versions {
				if j == i || marked[j][key] || featuregates.Resolve(m.Path, o.structural) != nil {
					continue
				}
				both := [2]string{v.version, o.version}
				if j < i {
					both[0], both[1] = o.version, v.version
				}
				warnings = append(warnings, fmt.Sprintf("%s: version %q marks %s with feature gate %s and version %q does not; "+
					"with conversion None the versions share one shape, so the mark applies to both %s and %s: mark %s in version %q too",
					m.SchemaPath(v.path), v.version, key, m.Gate, o.version, both[0], both[1], key, o.version))
			}
		}
	}
	return warnings
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
	forEachListMapKeyMark(spec, func(vs versionSchema, m featuregates.Mark, keyVersion, listPath, key string) {
		if !unchanged[m.Gate] {
			allErrs = append(allErrs, field.Invalid(m.SchemaPath(vs.path), m.Gate, listMapKeyDetail(listPath, key, keyVersion)))
		}
	})
	return allErrs
}

// listMapKeyMarkWarnings returns a warning for each mark on a key of a list whose gate is in
// unchanged: a CRD update keeps it, since the gate did not change, but the mark still gates
// a key.
func listMapKeyMarkWarnings(spec *apiextensions.CustomResourceDefinitionSpec, unchanged map[string]bool) []string {
	var warnings []string
	forEachListMapKeyMark(spec, func(vs versionSchema, m featuregates.Mark, keyVersion, listPath, key string) {
		if unchanged[m.Gate] {
			warnings = append(warnings, fmt.Sprintf("%s: the mark of feature gate %s: %s; it is kept because the gate did not change",
				m.SchemaPath(vs.path), m.Gate, listMapKeyDetail(listPath, key, keyVersion)))
		}
	})
	return warnings
}

// forEachListMapKeyMark calls f with each mark of spec's schemas that is on, or below, a key
// of a list (listMapKeyInPath) in a version the mark gates: its own, and with conversion None
// every other version that has the path. f gets the mark's version, the version where the
// path is a key (its own first), the list's path and the key; a mark is reported once. A
// schema that every version shares (spec.validation) is walked once, in the name of its first
// version; a schema that is not structural is skipped (structural validation reports it).
func forEachListMapKeyMark(spec *apiextensions.CustomResourceDefinitionSpec, f func(vs versionSchema, m featuregates.Mark, keyVersion, listPath, key string)) {
	versions := structuralVersions(spec)
	shared := sharesShape(spec)
	for _, v := range versions {
		for _, m := range featuregates.Marks(v.structural) {
			if listPath, key, found := listMapKeyInPath(m.Path, v.structural); found {
				f(v.versionSchema, m, v.version, listPath, key)
				continue
			}
			if !shared {
				continue
			}
			for _, o := range otherVersionsWith(versions, v.props, m.Path) {
				if listPath, key, found := listMapKeyInPath(m.Path, o.structural); found {
					f(v.versionSchema, m, o.version, listPath, key)
					break
				}
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
