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
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// MaxCustomFeatureGates bounds spec.customFeatureGates.featureGates.
	MaxCustomFeatureGates = 128
	// MaxCustomFeatureGateFieldPaths bounds the fieldPaths of one gate.
	MaxCustomFeatureGateFieldPaths = 64
	// MaxCustomFeatureGateNameLength bounds a gate's name.
	MaxCustomFeatureGateNameLength = 63
	// MaxFieldDeprecationWarningLength bounds fieldDeprecationWarning, in characters.
	MaxFieldDeprecationWarningLength = 256
)

var customFeatureGateNameRegexp = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

var supportedCustomFeatureGatePreReleases = []apiextensions.CustomFeatureGatePreRelease{
	apiextensions.CustomFeatureGateAlpha,
	apiextensions.CustomFeatureGateBeta,
	apiextensions.CustomFeatureGateStable,
	apiextensions.CustomFeatureGateDeprecated,
}

// validateCustomFeatureGates validates spec.customFeatureGates. oldGates are the gates of the
// CRD before an update (nil on create): a gate that the update leaves unchanged is not
// checked again against the storage schema, so that a schema change never makes an
// accepted CRD invalid (the paths it orphans draw a warning instead).
func validateCustomFeatureGates(spec *apiextensions.CustomResourceDefinitionSpec, oldGates *apiextensions.CustomResourceDefinitionFeatureGates, fldPath *field.Path) field.ErrorList {
	gates := spec.CustomFeatureGates
	if gates == nil {
		return nil
	}
	var allErrs field.ErrorList
	if gates.Component != nil {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(*gates.Component) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("component"), *gates.Component, msg))
		}
	}
	gatesPath := fldPath.Child("featureGates")
	if len(gates.FeatureGates) > MaxCustomFeatureGates {
		// Stop here: the list is rejected as a whole, and its size must not set the cost.
		return append(allErrs, field.TooMany(gatesPath, len(gates.FeatureGates), MaxCustomFeatureGates))
	}

	schema, storageVersion := storageStructuralSchema(spec)
	others := otherGatedVersions(spec, schema)
	unchanged := unchangedCustomFeatureGates(gates, oldGates)
	names := make(map[string]bool, len(gates.FeatureGates))
	total := 0
	for i := range gates.FeatureGates {
		total += min(len(gates.FeatureGates[i].FieldPaths), MaxCustomFeatureGateFieldPaths)
	}
	guardedBy := make(map[string]string, total)
	for i := range gates.FeatureGates {
		gate := &gates.FeatureGates[i]
		gatePath := gatesPath.Index(i)
		allErrs = append(allErrs, validateCustomFeatureGateFields(gate, gatePath)...)
		if gate.Name != "" {
			if names[gate.Name] {
				allErrs = append(allErrs, field.Duplicate(gatePath.Child("name"), gate.Name))
			}
			names[gate.Name] = true
		}

		pathsPath := gatePath.Child("fieldPaths")
		if len(gate.FieldPaths) == 0 {
			// A gate may guard only values or rules (featureGates.<Name> in CEL rules); one
			// that guards nothing draws a warning (UnusedGateWarnings).
			continue
		}
		if len(gate.FieldPaths) > MaxCustomFeatureGateFieldPaths {
			allErrs = append(allErrs, field.TooMany(pathsPath, len(gate.FieldPaths), MaxCustomFeatureGateFieldPaths))
			continue
		}
		resolve := schema != nil && !unchanged[gate.Name]
		inGate := make(map[string]bool, len(gate.FieldPaths))
		for j, raw := range gate.FieldPaths {
			// Built only for an error: a CRD may carry thousands of valid paths.
			pathPath := func() *field.Path { return pathsPath.Index(j) }
			if len(raw) > featuregates.MaxPathLength {
				allErrs = append(allErrs, field.TooLong(pathPath(), "" /*unused*/, featuregates.MaxPathLength))
				continue
			}
			p, err := featuregates.ParsePath(raw)
			if err != nil {
				allErrs = append(allErrs, field.Invalid(pathPath(), raw, err.Error()))
				continue
			}
			if p.IsReserved() {
				allErrs = append(allErrs, field.Invalid(pathPath(), raw, "must not point to .metadata, .apiVersion or .kind"))
				continue
			}
			key := p.String()
			if inGate[key] {
				allErrs = append(allErrs, field.Duplicate(pathPath(), raw))
				continue
			}
			inGate[key] = true
			if other, ok := guardedBy[key]; ok {
				dup := field.Duplicate(pathPath(), raw)
				dup.Detail = fmt.Sprintf("already guarded by feature gate %q; a field path may be guarded by one gate only", other)
				allErrs = append(allErrs, dup)
				continue
			}
			guardedBy[key] = gate.Name
			if resolve {
				if err := featuregates.Resolve(p, schema); err != nil {
					allErrs = append(allErrs, field.Invalid(pathPath(), raw, fmt.Sprintf("must exist in the schema of the storage version %q: %v", storageVersion, err)))
				} else if detail := gatedPathInVersionsDetail(p, schema, storageVersion, others); detail != "" {
					allErrs = append(allErrs, field.Invalid(pathPath(), raw, detail))
				}
			}
		}
	}
	allErrs = append(allErrs, validateCustomFeatureGateRequires(gates.FeatureGates, names, gatesPath)...)
	return append(allErrs, validateFeatureGateMarkListMapKeys(spec, unchanged)...)
}

// validateCustomFeatureGateFields validates a gate's own fields, everything but fieldPaths.
func validateCustomFeatureGateFields(gate *apiextensions.CustomResourceDefinitionFeatureGate, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	namePath := fldPath.Child("name")
	switch {
	case gate.Name == "":
		allErrs = append(allErrs, field.Required(namePath, ""))
	case len(gate.Name) > MaxCustomFeatureGateNameLength:
		allErrs = append(allErrs, field.TooLong(namePath, "" /*unused*/, MaxCustomFeatureGateNameLength))
	case !customFeatureGateNameRegexp.MatchString(gate.Name):
		allErrs = append(allErrs, field.Invalid(namePath, gate.Name, "must be UpperCamelCase: an upper-case letter followed by letters and digits (regex "+customFeatureGateNameRegexp.String()+")"))
	}

	preReleasePath := fldPath.Child("preRelease")
	switch gate.PreRelease {
	case "":
		allErrs = append(allErrs, field.Required(preReleasePath, ""))
	case apiextensions.CustomFeatureGateAlpha:
		if gate.Default != nil && *gate.Default {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("default"), *gate.Default, "must be false for an alpha gate"))
		}
	case apiextensions.CustomFeatureGateBeta:
	case apiextensions.CustomFeatureGateStable:
		if gate.Default != nil && !*gate.Default {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("default"), *gate.Default, "must be true for a stable gate"))
		}
		if gate.Enabled != nil && !*gate.Enabled {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("enabled"), *gate.Enabled, "a stable gate is locked on and cannot be disabled"))
		}
	case apiextensions.CustomFeatureGateDeprecated:
		if gate.Default == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("default"), "a deprecated gate must set its default"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(preReleasePath, gate.PreRelease, supportedCustomFeatureGatePreReleases))
	}

	if gate.FieldDeprecationWarning != nil {
		warningPath := fldPath.Child("fieldDeprecationWarning")
		text := *gate.FieldDeprecationWarning
		switch {
		case gate.PreRelease != apiextensions.CustomFeatureGateDeprecated:
			allErrs = append(allErrs, field.Forbidden(warningPath, "may only be set when preRelease is deprecated"))
		case !utf8.ValidString(text):
			allErrs = append(allErrs, field.Invalid(warningPath, "", "must be valid UTF-8"))
		case utf8.RuneCountInString(text) > MaxFieldDeprecationWarningLength:
			allErrs = append(allErrs, field.TooLong(warningPath, "" /*unused*/, MaxFieldDeprecationWarningLength))
		case text == "":
			allErrs = append(allErrs, field.Invalid(warningPath, text, "must not be empty; omit it to use the default warning"))
		default:
			for _, r := range text {
				if !unicode.IsPrint(r) {
					allErrs = append(allErrs, field.Invalid(warningPath, text, fmt.Sprintf("must be printable text, since it is sent in an HTTP Warning header; found %q", r)))
					break
				}
			}
		}
	}
	return allErrs
}

// otherGatedVersions returns the versions other than the storage version (whose structural
// schema is storage) that the gates' fieldPaths also gate: with conversion None every other
// version, in the CRD's order, each checked where its schema has the path (see
// gatedPathInVersionsDetail); with a conversion webhook none. Versions that share the
// storage version's schema (spec.validation), or whose schema is not structural, are left
// out.
func otherGatedVersions(spec *apiextensions.CustomResourceDefinitionSpec, storage *structuralschema.Structural) []structuralVersion {
	if storage == nil || !sharesShape(spec) {
		return nil
	}
	var out []structuralVersion
	for _, v := range structuralVersions(spec) {
		if !v.storage && (spec.Validation == nil || v.props != spec.Validation.OpenAPIV3Schema) {
			out = append(out, v)
		}
	}
	return out
}

// gatedPathInVersionsDetail returns why the gated path p cannot be gated in a version it
// gates, or "": when it is, or runs through, a key of a map list (listMapKeyInPath), or goes
// through a named key of a map whose value schema has a default there
// (featuregates.DefaultBelowNamedKey), in the storage version's schema (storage, of version
// storageVersion) or in one of others that has the path (featuregates.Resolve). The storage
// version is checked first; one reason is returned.
func gatedPathInVersionsDetail(p featuregates.Path, storage *structuralschema.Structural, storageVersion string, others []structuralVersion) string {
	if listPath, key, found := listMapKeyInPath(p, storage); found {
		return listMapKeyDetail(listPath, key, storageVersion)
	}
	if mapPath, key, found := featuregates.DefaultBelowNamedKey(p, storage); found {
		return namedKeyDefaultDetail(mapPath, key, storageVersion, true)
	}
	for _, v := range others {
		if featuregates.Resolve(p, v.structural) != nil {
			continue
		}
		if listPath, key, found := listMapKeyInPath(p, v.structural); found {
			return listMapKeyDetail(listPath, key, v.version)
		}
		if mapPath, key, found := featuregates.DefaultBelowNamedKey(p, v.structural); found {
			return namedKeyDefaultDetail(mapPath, key, v.version, false)
		}
	}
	return ""
}

// unchangedCustomFeatureGates returns the names of the gates that are equal in old and new.
func unchangedCustomFeatureGates(gates, oldGates *apiextensions.CustomResourceDefinitionFeatureGates) map[string]bool {
	if oldGates == nil || len(oldGates.FeatureGates) > MaxCustomFeatureGates {
		return nil
	}
	old := make(map[string]*apiextensions.CustomResourceDefinitionFeatureGate, len(oldGates.FeatureGates))
	for i := range oldGates.FeatureGates {
		old[oldGates.FeatureGates[i].Name] = &oldGates.FeatureGates[i]
	}
	unchanged := map[string]bool{}
	for i := range gates.FeatureGates {
		g := &gates.FeatureGates[i]
		if o, ok := old[g.Name]; ok && apiequality.Semantic.DeepEqual(g, o) {
			unchanged[g.Name] = true
		}
	}
	return unchanged
}

// storageStructuralSchema returns the structural schema of the storage version and that
// version's name, or a nil schema when there is none or it is not structural (other
// validation reports that).
func storageStructuralSchema(spec *apiextensions.CustomResourceDefinitionSpec) (*structuralschema.Structural, string) {
	var storage *apiextensions.CustomResourceDefinitionVersion
	for i := range spec.Versions {
		if spec.Versions[i].Storage {
			storage = &spec.Versions[i]
			break
		}
	}
	if storage == nil {
		return nil, ""
	}
	var props *apiextensions.JSONSchemaProps
	switch {
	case spec.Validation != nil:
		props = spec.Validation.OpenAPIV3Schema
	case storage.Schema != nil:
		props = storage.Schema.OpenAPIV3Schema
	}
	if props == nil {
		return nil, storage.Name
	}
	s, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, storage.Name
	}
	return s, storage.Name
}

// UnresolvedGatedPathWarnings returns warnings for a CRD update: a gated field path that an
// unchanged gate keeps, but that the new storage schema no longer has. Such a path is not
// an error (the gate was valid when it was written), but it guards nothing. Likewise a
// path of an unchanged gate below a named map key whose value schema now has a default
// there (see namedKeyDefaultDetail): that default does not follow the gate. And a path or a
// mark of an unchanged gate on a key of a list (see listMapKeyInPath), which would be
// rejected if the gate changed.
func UnresolvedGatedPathWarnings(spec, oldSpec *apiextensions.CustomResourceDefinitionSpec) []string {
	if spec.CustomFeatureGates == nil || oldSpec == nil || oldSpec.CustomFeatureGates == nil {
		return nil
	}
	if len(spec.CustomFeatureGates.FeatureGates) > MaxCustomFeatureGates {
		return nil
	}
	unchanged := unchangedCustomFeatureGates(spec.CustomFeatureGates, oldSpec.CustomFeatureGates)
	return append(unchangedFieldPathWarnings(spec, unchanged), listMapKeyMarkWarnings(spec, unchanged)...)
}

// unchangedFieldPathWarnings returns the warnings of UnresolvedGatedPathWarnings for the
// fieldPaths of the gates in unchanged.
func unchangedFieldPathWarnings(spec *apiextensions.CustomResourceDefinitionSpec, unchanged map[string]bool) []string {
	schema, storageVersion := storageStructuralSchema(spec)
	if schema == nil {
		return nil
	}
	others := otherGatedVersions(spec, schema)
	base := field.NewPath("spec", "customFeatureGates", "featureGates")
	var warnings []string
	for i, gate := range spec.CustomFeatureGates.FeatureGates {
		if !unchanged[gate.Name] || len(gate.FieldPaths) > MaxCustomFeatureGateFieldPaths {
			continue
		}
		for j, raw := range gate.FieldPaths {
			p, err := featuregates.ParsePath(raw)
			if err != nil {
				continue
			}
			if err := featuregates.Resolve(p, schema); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: field path %s of feature gate %s is no longer in the schema of the storage version %q, so the gate does not guard it: %v",
					base.Index(i).Child("fieldPaths").Index(j), p.String(), gate.Name, storageVersion, err))
			} else if detail := gatedPathInVersionsDetail(p, schema, storageVersion, others); detail != "" {
				kept := "; it is kept because the gate did not change"
				if strings.HasPrefix(detail, namedKeyDefaultPrefix) {
					kept += ", and that default is applied while the gate is disabled"
				}
				warnings = append(warnings, fmt.Sprintf("%s: field path %s of feature gate %s: %s%s",
					base.Index(i).Child("fieldPaths").Index(j), p.String(), gate.Name, detail, kept))
			}
		}
	}
	return warnings
}

// listMapKeyInPath reports whether the gated path p, in the structural schema s, is or runs
// through a key of a list: a property named in the x-kubernetes-list-map-keys of an enclosing
// x-kubernetes-list-type: map list, reached from the list's [*]. It returns the path of that
// list and the key. Gating a key would drop it from list items while the items stay, and an
// item without its key cannot be told apart from the others (nor merged, nor owned by server-
// side apply). Gating the items ([*]) or the whole list is fine: items go as a whole. Steps
// that s does not describe end the search (Resolve reports those); a path below a node with
// x-kubernetes-preserve-unknown-fields and no properties has no list-map keys.
func listMapKeyInPath(p featuregates.Path, s *structuralschema.Structural) (listPath, key string, found bool) {
	steps := p.Steps()
	at := 0 // the length of the path up to s, as written in p
	for i, st := range steps {
		if s == nil {
			return "", "", false
		}
		if st.Wildcard {
			switch {
			case s.Items != nil:
				if s.XListType != nil && *s.XListType == "map" && i+1 < len(steps) && !steps[i+1].Wildcard {
					for _, k := range s.XListMapKeys {
						if k == steps[i+1].Field {
							return p.String()[:at], k, true
						}
					}
				}
				s = s.Items
			case s.AdditionalProperties != nil:
				s = s.AdditionalProperties.Structural
			default:
				return "", "", false
			}
			at += len("[*]")
			continue
		}
		if prop, ok := s.Properties[st.Field]; ok {
			s = &prop
		} else if s.AdditionalProperties != nil {
			s = s.AdditionalProperties.Structural
		} else {
			return "", "", false
		}
		at += len(".") + len(st.Field)
	}
	return "", "", false
}

// listMapKeyDetail explains why a gated path cannot be the key key of the list at listPath
// (see listMapKeyInPath), and what to gate instead. version is the schema's version.
func listMapKeyDetail(listPath, key, version string) string {
	return fmt.Sprintf("%s[*].%s is a list-map key of the list %s (x-kubernetes-list-type: map, x-kubernetes-list-map-keys) in version %q and cannot be gated: "+
		"dropping it would leave list items without their key, so they could no longer be told apart; gate the list item (%s[*]) or the list (%s) instead",
		listPath, key, listPath, version, listPath, listPath)
}

// namedKeyDefaultPrefix starts every namedKeyDefaultDetail.
const namedKeyDefaultPrefix = "must not go through the named key "

// namedKeyDefaultDetail explains why a gated path through the named key of the map at
// mapPath cannot have a default below it (featuregates.DefaultBelowNamedKey) in version,
// which is the storage version when storage is true.
func namedKeyDefaultDetail(mapPath featuregates.Path, key, version string, storage bool) string {
	which := "version"
	if storage {
		which = "the storage version"
	}
	return fmt.Sprintf(namedKeyDefaultPrefix+"%q of the map %s when the map's value schema in %s %q has a default at or below the rest of the path: "+
		"that schema is shared by every key, so the default cannot follow the gate; gate every key (%s[*]...) or remove the default",
		key, mapPath.String(), which, version, mapPath.String())
}
