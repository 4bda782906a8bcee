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

package kubectlplugin

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

// GateRow is one gate of one CRD, as `list` reports it.
type GateRow struct {
	CRD        string `json:"crd"`
	Gate       string `json:"gate"`
	PreRelease string `json:"preRelease"`
	// Enabled is what the cluster admin set (spec...featureGates[].enabled), nil when unset.
	Enabled *bool `json:"enabled,omitempty"`
	// Default is the CRD author's default, nil when unset.
	Default *bool `json:"default,omitempty"`
	// State is the gate's state by the server's rules: "enabled" or "disabled". A gate that
	// requires other gates is enabled only while they are (featuregates.GateStates).
	State string `json:"state"`
	// Requires are the other gates this gate requires (spec...featureGates[].requires).
	Requires []string `json:"requires,omitempty"`
	// RequiresAnyOf are the gates of which this gate requires at least one
	// (spec...featureGates[].requiresAnyOf).
	RequiresAnyOf []string `json:"requiresAnyOf,omitempty"`
	// Unmet are the required gates that keep the gate disabled although its own state
	// (by stage, enabled and default) is enabled.
	Unmet []string `json:"unmet,omitempty"`
	// UnmetAnyOf is RequiresAnyOf when none of those gates is enabled and that keeps the
	// gate disabled although its own state is enabled.
	UnmetAnyOf []string `json:"unmetAnyOf,omitempty"`
	// FieldPaths are the gate's paths with their effective state.
	FieldPaths []PathState `json:"fieldPaths"`
	Component  string      `json:"component,omitempty"`
}

// PathState is whether a field path is live, and if not, which gate disables it.
type PathState struct {
	Path string `json:"path"`
	// Live is true when the server stores values written at the path.
	Live bool `json:"live"`
	// Gate is the gate that guards the path itself, if any, and PreRelease its stage.
	Gate       string `json:"gate,omitempty"`
	PreRelease string `json:"preRelease,omitempty"`
	// DisabledBy is the outermost disabled gated path that covers this path: the path
	// itself or a gated ancestor.
	DisabledBy *Disabler `json:"disabledBy,omitempty"`
}

// Disabler names a disabled gate and the path it guards.
type Disabler struct {
	Gate       string `json:"gate"`
	PreRelease string `json:"preRelease"`
	Path       string `json:"path"`
	// Unmet are the required gates that keep the gate disabled, when its own state is
	// enabled.
	Unmet []string `json:"unmet,omitempty"`
	// UnmetAnyOf are the gates of which the gate requires one, when none is enabled and its
	// own state is.
	UnmetAnyOf []string `json:"unmetAnyOf,omitempty"`
}

// Reason says in words why a path is not live, or "" when it is.
func (p PathState) Reason() string {
	if p.DisabledBy == nil {
		return ""
	}
	why := ""
	if len(p.DisabledBy.Unmet) > 0 || len(p.DisabledBy.UnmetAnyOf) > 0 {
		why = ": " + featuregates.UnmetText(p.DisabledBy.Unmet, p.DisabledBy.UnmetAnyOf)
	}
	if p.DisabledBy.Path == p.Path {
		return fmt.Sprintf("feature gate %s (%s) is disabled%s", p.DisabledBy.Gate, p.DisabledBy.PreRelease, why)
	}
	return fmt.Sprintf("parent %s is disabled by feature gate %s (%s)%s", p.DisabledBy.Path, p.DisabledBy.Gate, p.DisabledBy.PreRelease, why)
}

func stateWord(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// unmetRequires returns the gates that keep the CRD's gate disabled although its own state
// is enabled: those of its requires that are disabled (featuregates.GateState.Unmet) and,
// when none of them is enabled, its requiresAnyOf (GateState.UnmetAnyOf); nil when none.
func unmetRequires(crd *apiextensionsv1.CustomResourceDefinition, gate string) (unmet, unmetAnyOf []string) {
	g := apihelpers.FindCustomFeatureGate(crd, gate)
	if g == nil || (len(g.Requires) == 0 && len(g.RequiresAnyOf) == 0) {
		return nil, nil
	}
	st := featuregates.GateStates(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates))[gate]
	return st.Unmet, st.UnmetAnyOf
}

// stateText is a state word followed, for a gate that what it requires keeps disabled, by
// why: "disabled (requires Example2, which is disabled)", "disabled (requires A or B, which
// are disabled)".
func stateText(state string, unmet, unmetAnyOf []string) string {
	if len(unmet) == 0 && len(unmetAnyOf) == 0 {
		return state
	}
	return state + " (" + featuregates.UnmetText(unmet, unmetAnyOf) + ")"
}

// requiredGates names the gates a gate requires, in words: "A, B", "any of C, D", or
// "A; any of C, D".
func requiredGates(requires, anyOf []string) string {
	what := strings.Join(requires, ", ")
	if len(anyOf) > 0 {
		if what != "" {
			what += "; "
		}
		what += "any of " + strings.Join(anyOf, ", ")
	}
	return what
}

// requiresText is the REQUIRES column: the gates of requires, comma-separated, then those of
// requiresAnyOf joined by "|": "A,B", "C|D", "A,C|D".
func requiresText(requires, anyOf []string) string {
	parts := append([]string{}, requires...)
	if len(anyOf) > 0 {
		parts = append(parts, strings.Join(anyOf, "|"))
	}
	return strings.Join(parts, ",")
}

// compile builds the server's index of a CRD's gates.
func compile(crd *apiextensionsv1.CustomResourceDefinition) *featuregates.Index {
	return featuregates.Compile(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates), nil)
}

// pathState is the state of p by ix; gate and preRelease are those of the gate that guards p
// itself, if any.
func pathState(ix *featuregates.Index, p featuregates.Path, gate, preRelease string) PathState {
	st := PathState{Path: p.String(), Live: true, Gate: gate, PreRelease: preRelease}
	if d := ix.DisabledBy(p); d != nil {
		st.Live = false
		st.DisabledBy = &Disabler{Gate: d.Gate.Name, PreRelease: d.Gate.PreRelease, Path: d.Path.String(), Unmet: d.Gate.Unmet, UnmetAnyOf: d.Gate.UnmetAnyOf}
	}
	return st
}

// GateRows returns the rows of `list` for one CRD, in the order the CRD declares its gates.
func GateRows(crd *apiextensionsv1.CustomResourceDefinition) []GateRow {
	if crd.Spec.CustomFeatureGates == nil {
		return nil
	}
	ix := compile(crd)
	component := ""
	if crd.Spec.CustomFeatureGates.Component != nil {
		component = *crd.Spec.CustomFeatureGates.Component
	}
	var rows []GateRow
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		enabled, _ := apihelpers.IsCustomFeatureGateEnabled(crd, g.Name)
		row := GateRow{
			CRD:           crd.Name,
			Gate:          g.Name,
			PreRelease:    string(g.PreRelease),
			Enabled:       g.Enabled,
			Default:       g.Default,
			State:         stateWord(enabled),
			Requires:      g.Requires,
			RequiresAnyOf: g.RequiresAnyOf,
			FieldPaths:    []PathState{},
			Component:     component,
		}
		row.Unmet, row.UnmetAnyOf = unmetRequires(crd, g.Name)
		for _, s := range g.FieldPaths {
			p, err := featuregates.ParsePath(s)
			if err != nil {
				// The server validated the path; an unparsable one is shown as it is.
				row.FieldPaths = append(row.FieldPaths, PathState{Path: s, Gate: g.Name, PreRelease: string(g.PreRelease), Live: enabled})
				continue
			}
			row.FieldPaths = append(row.FieldPaths, pathState(ix, p, g.Name, string(g.PreRelease)))
		}
		rows = append(rows, row)
	}
	return rows
}

// StatusReport is what `status` reports for one CRD: the fields of each of its versions.
type StatusReport struct {
	CRD            string `json:"crd"`
	StorageVersion string `json:"storageVersion"`
	// Backend is "policies" when the gate states live in the CRD's CustomResourceFeatureGates
	// object, and empty when they live in its spec.customFeatureGates (native).
	Backend Backend `json:"backend,omitempty"`
	// Versions are the served versions and the storage version, in the CRD's order.
	Versions []VersionStatus `json:"versions"`
}

// VersionStatus is whether the fields of one version's objects are live.
type VersionStatus struct {
	Version string `json:"version"`
	Served  bool   `json:"served"`
	Storage bool   `json:"storage"`
	// AlsoGatedBy is the storage version when a write to this version is, after conversion,
	// also gated by gates that Fields does not show: the storage version's gates, with a
	// conversion webhook, or its marks, without one.
	AlsoGatedBy string `json:"alsoGatedBy,omitempty"`
	// Fields are the fields of the version with their state, by the version's own gates.
	Fields []PathState `json:"fields"`
	// NotInSchema are the fields asked about that the version's schema does not have.
	NotInSchema []string `json:"notInSchema,omitempty"`
}

// FieldStatus reports, for each served version of the CRD and for its storage version,
// whether each field is live. A version's gates are those the server compiles for its
// objects (featuregates.CompileCRDVersion): with conversion None, the gates' fieldPaths and
// the nodes that any version's schema marks with x-kubernetes-feature-gate, where the
// version's schema has them; with a conversion webhook, the nodes its own schema marks, and
// the fieldPaths in the storage version.
//
// With no paths it walks each version's schema (metadata, apiVersion and kind, which are
// never gated, are left out) and adds the gated paths the walk does not reach, such as a
// named key of a map. Otherwise it reports the paths given in each version whose schema has
// them; a path that no version has is an error.
func FieldStatus(crd *apiextensionsv1.CustomResourceDefinition, paths []string) (*StatusReport, error) {
	storage, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return nil, err
	}
	parsed := make([]featuregates.Path, len(paths))
	for i, s := range paths {
		if parsed[i], err = featuregates.ParsePath(s); err != nil {
			return nil, fmt.Errorf("invalid field path %q: %v", s, err)
		}
	}
	report := &StatusReport{CRD: crd.Name, StorageVersion: storage, Versions: []VersionStatus{}}
	indexes := map[string]*featuregates.Index{}
	// missing[i] is why paths[i] is not in the schema of a version without it, the storage
	// version if it is one of them; found[i] is whether some version has it.
	missing := make([]error, len(paths))
	found := make([]bool, len(paths))
	for _, vi := range versionIndexes(crd) {
		if vi.schemaErr != nil {
			return nil, vi.schemaErr
		}
		v, s, ix := vi, vi.schema, vi.ix
		indexes[v.version] = ix
		vs := VersionStatus{Version: v.version, Served: v.served, Storage: v.storage}
		if len(paths) == 0 {
			vs.Fields = schemaFields(ix, s)
		} else {
			vs.Fields = []PathState{}
			own := gatedPaths(ix)
			for i, p := range parsed {
				if !p.IsReserved() {
					if err := featuregates.Resolve(p, s); err != nil {
						if missing[i] == nil || v.storage {
							missing[i] = fmt.Errorf("version %s: %v", v.version, err)
						}
						vs.NotInSchema = append(vs.NotInSchema, paths[i])
						continue
					}
				}
				found[i] = true
				vs.Fields = append(vs.Fields, ownPathState(ix, p, own))
			}
		}
		report.Versions = append(report.Versions, vs)
	}
	for i := range paths {
		if !found[i] {
			return nil, fmt.Errorf("field path %q is in the schema of no version of %s (%v)", paths[i], crd.Name, missing[i])
		}
	}
	webhook := crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter
	for i := range report.Versions {
		vs := &report.Versions[i]
		if !vs.Storage && gatesAfterConversion(indexes[storage], indexes[vs.Version], webhook) {
			vs.AlsoGatedBy = storage
		}
	}
	return report, nil
}

// gatesAfterConversion reports whether the storage version's index gates a write to another
// version beyond that version's own index: the server gates every write in the storage
// version too, after conversion. With a webhook, any gated path of the storage version
// counts; without one, objects of every version have the same paths, and every version's
// marks gate every version that has the path, so only a gated path that the version's index
// lacks (one the version's schema does not have) counts.
func gatesAfterConversion(storage, own *featuregates.Index, webhook bool) bool {
	if webhook {
		return len(storage.Paths()) > 0
	}
	gates := gatedPaths(own)
	for _, p := range storage.Paths() {
		if q, ok := gates[p.Path.String()]; !ok || q.Gate.Name != p.Gate.Name {
			return true
		}
	}
	return false
}

// gatedPaths returns the gated paths of an index by their normalized form. When two gates
// guard one path, the first is kept.
func gatedPaths(ix *featuregates.Index) map[string]*featuregates.GatedPath {
	paths := ix.Paths()
	byPath := make(map[string]*featuregates.GatedPath, len(paths))
	for i := range paths {
		if _, ok := byPath[paths[i].Path.String()]; !ok {
			byPath[paths[i].Path.String()] = &paths[i]
		}
	}
	return byPath
}

// ownPathState is pathState with the gate, if any, that guards p itself.
func ownPathState(ix *featuregates.Index, p featuregates.Path, own map[string]*featuregates.GatedPath) PathState {
	if g, ok := own[p.String()]; ok {
		return pathState(ix, p, g.Gate.Name, g.Gate.PreRelease)
	}
	return pathState(ix, p, "", "")
}

// schemaFields returns the state of every field of a version's schema s by the version's
// index ix, parents before children and properties in name order, followed within each
// subtree by the gated paths of ix the schema has no node of their own for (a named key of a
// map, or a path below x-kubernetes-preserve-unknown-fields).
func schemaFields(ix *featuregates.Index, s *structuralschema.Structural) []PathState {
	own := gatedPaths(ix)
	fields := []PathState{}
	walk(s, "", PathState{Live: true}, func(path string, parent PathState) PathState {
		p, err := featuregates.ParsePath(path)
		if err != nil {
			// A property name the path syntax cannot spell cannot be gated itself; it is
			// live unless a gated ancestor is disabled.
			st := parent
			st.Path, st.Gate, st.PreRelease = path, "", ""
			fields = append(fields, st)
			return st
		}
		if p.IsReserved() {
			return PathState{Live: true}
		}
		st := ownPathState(ix, p, own)
		fields = append(fields, st)
		return st
	})
	listed := make(map[string]bool, len(fields))
	for _, f := range fields {
		listed[f.Path] = true
	}
	var unlisted []featuregates.GatedPath
	for _, gp := range ix.Paths() {
		if !listed[gp.Path.String()] {
			listed[gp.Path.String()] = true
			unlisted = append(unlisted, gp)
		}
	}
	// In string order a path comes before its descendants, so each one's listed ancestor is
	// in place when it is inserted.
	sort.Slice(unlisted, func(i, j int) bool { return unlisted[i].Path.String() < unlisted[j].Path.String() })
	for _, gp := range unlisted {
		at := endOfSubtree(fields, gp.Path)
		st := pathState(ix, gp.Path, gp.Gate.Name, gp.Gate.PreRelease)
		fields = append(fields[:at], append([]PathState{st}, fields[at:]...)...)
	}
	return fields
}

// endOfSubtree returns the position after the rows below the nearest ancestor of p among
// fields, which lists every path before its descendants; len(fields) when p has none there.
func endOfSubtree(fields []PathState, p featuregates.Path) int {
	ancestor, depth := -1, -1
	for i, f := range fields {
		q, err := featuregates.ParsePath(f.Path)
		if err == nil && q.Len() > depth && p.HasPrefix(q) {
			ancestor, depth = i, q.Len()
		}
	}
	if ancestor < 0 {
		return len(fields)
	}
	anc, _ := featuregates.ParsePath(fields[ancestor].Path)
	at := ancestor + 1
	for ; at < len(fields); at++ {
		q, err := featuregates.ParsePath(fields[at].Path)
		if err != nil || !q.HasPrefix(anc) {
			break
		}
	}
	return at
}

// versionSchema returns the structural schema of a version of the CRD.
func versionSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*structuralschema.Structural, error) {
	v, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("version %s of %s has no schema", version, crd.Name)
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema of version %s of %s is not structural: %v", version, crd.Name, err)
	}
	return s, nil
}

// walk calls visit with the path of every node below s, parents before children,
// properties in name order; list items and map values are `[*]`. visit returns the state
// of the path, which is handed to the visits of its children as their parent's.
func walk(s *structuralschema.Structural, prefix string, parent PathState, visit func(path string, parent PathState) PathState) {
	if s == nil {
		return
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		child := s.Properties[n]
		p := prefix + "." + n
		walk(&child, p, visit(p, parent), visit)
	}
	if s.Items != nil {
		p := prefix + "[*]"
		walk(s.Items, p, visit(p, parent), visit)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		p := prefix + "[*]"
		walk(s.AdditionalProperties.Structural, p, visit(p, parent), visit)
	}
}
