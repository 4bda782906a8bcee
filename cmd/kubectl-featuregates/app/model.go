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

package app

import (
	"fmt"
	"sort"

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
	// State is the gate's own state by the server's rules: "enabled" or "disabled".
	State string `json:"state"`
	// FieldPaths are the gate's paths with their effective state.
	FieldPaths []PathState `json:"fieldPaths"`
	Component  string      `json:"component,omitempty"`
}

// PathState is whether a field path is live, and if not, which gate disables it.
type PathState struct {
	Path string `json:"path"`
	// Live is true when the server stores values written at the path.
	Live bool `json:"live"`
	// Gate is the gate that guards the path itself, if any.
	Gate string `json:"gate,omitempty"`
	// DisabledBy is the outermost disabled gated path that covers this path: the path
	// itself or a gated ancestor.
	DisabledBy *Disabler `json:"disabledBy,omitempty"`
}

// Disabler names a disabled gate and the path it guards.
type Disabler struct {
	Gate       string `json:"gate"`
	PreRelease string `json:"preRelease"`
	Path       string `json:"path"`
}

// Reason says in words why a path is not live, or "" when it is.
func (p PathState) Reason() string {
	if p.DisabledBy == nil {
		return ""
	}
	if p.DisabledBy.Path == p.Path {
		return fmt.Sprintf("feature gate %s (%s) is disabled", p.DisabledBy.Gate, p.DisabledBy.PreRelease)
	}
	return fmt.Sprintf("parent %s is disabled by feature gate %s (%s)", p.DisabledBy.Path, p.DisabledBy.Gate, p.DisabledBy.PreRelease)
}

func stateWord(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// compile builds the server's index of a CRD's gates.
func compile(crd *apiextensionsv1.CustomResourceDefinition) *featuregates.Index {
	return featuregates.Compile(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates), nil)
}

func pathState(ix *featuregates.Index, p featuregates.Path, own string) PathState {
	st := PathState{Path: p.String(), Live: true, Gate: own}
	if d := ix.DisabledBy(p); d != nil {
		st.Live = false
		st.DisabledBy = &Disabler{Gate: d.Gate.Name, PreRelease: d.Gate.PreRelease, Path: d.Path.String()}
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
			CRD:        crd.Name,
			Gate:       g.Name,
			PreRelease: string(g.PreRelease),
			Enabled:    g.Enabled,
			Default:    g.Default,
			State:      stateWord(enabled),
			FieldPaths: []PathState{},
			Component:  component,
		}
		for _, s := range g.FieldPaths {
			p, err := featuregates.ParsePath(s)
			if err != nil {
				// The server validated the path; an unparsable one is shown as it is.
				row.FieldPaths = append(row.FieldPaths, PathState{Path: s, Gate: g.Name, Live: enabled})
				continue
			}
			row.FieldPaths = append(row.FieldPaths, pathState(ix, p, g.Name))
		}
		rows = append(rows, row)
	}
	return rows
}

// StatusReport is what `status` reports for one CRD.
type StatusReport struct {
	CRD     string      `json:"crd"`
	Version string      `json:"version"`
	Fields  []PathState `json:"fields"`
}

// FieldStatus reports, for the CRD's storage version, whether each field is live. With no
// paths it walks the whole schema of the storage version (metadata, apiVersion and kind,
// which are never gated, are left out); otherwise it reports the paths given, with the
// check apihelpers.IsFieldEnabled applies.
func FieldStatus(crd *apiextensionsv1.CustomResourceDefinition, paths []string) (*StatusReport, error) {
	version, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return nil, err
	}
	ix := compile(crd)
	own := map[string]string{}
	for _, gp := range ix.Paths() {
		own[gp.Path.String()] = gp.Gate.Name
	}
	report := &StatusReport{CRD: crd.Name, Version: version, Fields: []PathState{}}
	if len(paths) > 0 {
		for _, s := range paths {
			live, err := apihelpers.IsFieldEnabled(crd, version, s)
			if err != nil {
				return nil, err
			}
			p, err := featuregates.ParsePath(s)
			if err != nil {
				return nil, err
			}
			st := pathState(ix, p, own[p.String()])
			if st.Live != live {
				// Cannot happen: both come from the same index.
				return nil, fmt.Errorf("internal error: %s is live=%v by IsFieldEnabled but live=%v by the index", s, live, st.Live)
			}
			report.Fields = append(report.Fields, st)
		}
		return report, nil
	}
	s, err := storageSchema(crd, version)
	if err != nil {
		return nil, err
	}
	walk(s, "", PathState{Live: true}, func(path string, parent PathState) PathState {
		p, err := featuregates.ParsePath(path)
		if err != nil {
			// A property name the path syntax cannot spell cannot be gated itself; it is
			// live unless a gated ancestor is disabled.
			st := parent
			st.Path, st.Gate = path, ""
			report.Fields = append(report.Fields, st)
			return st
		}
		if p.IsReserved() {
			return PathState{Live: true}
		}
		st := pathState(ix, p, own[p.String()])
		report.Fields = append(report.Fields, st)
		return st
	})
	return report, nil
}

// storageSchema returns the structural schema of a version of the CRD.
func storageSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*structuralschema.Structural, error) {
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
