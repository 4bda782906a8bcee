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
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

func newListCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list [CRD...]",
		Short: "List the feature gates of CRDs: stage, enabled as set, state, gated fields",
		Long: `List the feature gates that CRDs declare in spec.customFeatureGates, or, on a stock
kube-apiserver, in the CustomResourceFeatureGates object named like the CRD (the policies'
parameter object). Without
arguments, every CRD that declares gates is listed.

ENABLED is what the cluster admin set (<unset> leaves it to the stage and default). STATE is
the gate's state by the server's rules. A gate that requires other gates is enabled only
while they are; when one of them keeps it disabled, STATE says which, as in
"disabled (requires Example2, which is disabled)". -o wide adds DEFAULT, REQUIRES when a
gate requires others, and BACKEND (native or policies) when a gate's states live in a
CustomResourceFeatureGates object. FIELDS are the fields the gate guards: its
fieldPaths, and the fields that a version's schema marks with x-kubernetes-feature-gate. A
field that its enabled gate cannot make live, because the gate of a parent field is
disabled, is marked "(off: GATE)".

When the gate guards different fields in different versions, a field it does not guard in
every version is followed by the versions it guards it in, as in
".spec.hostPort (v1), .spec.port (v2)". A version
counts when it is served or is the storage version. With a conversion webhook, a version
whose schema marks nothing with the gate does not count: the gate's fieldPaths are paths of
the storage version, and a write to that version meets them after conversion.`,
		Example: `  kubectl featuregates list
  kubectl featuregates list crontabs.stable.example.com -o yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runList(cmd.Context(), args)
		},
	}
	o.PrintFlags.AddFlags(cmd)
	// -o wide is list's own table, which PrintFlags does not know: name it with the others.
	if f := cmd.Flags().Lookup("output"); f != nil {
		f.Usage = "Output format. One of: (wide, " + strings.Join(o.PrintFlags.AllowedFormats(), ", ") + ")."
	}
	return cmd
}

func (o *Options) runList(ctx context.Context, names []string) error {
	r, err := o.gateReader()
	if err != nil {
		return err
	}
	var crds []GatedCRD
	if len(names) == 0 {
		var warnings []string
		if crds, warnings, err = r.list(ctx); err != nil {
			return err
		}
		for _, w := range warnings {
			fmt.Fprintf(o.Streams.ErrOut, "Warning: %s\n", w)
		}
	} else {
		for _, n := range names {
			g, err := r.get(ctx, n)
			if err != nil {
				return err
			}
			crds = append(crds, *g)
		}
	}
	var rows []ListRow
	for _, g := range crds {
		rows = append(rows, backendRows(g)...)
	}
	if rows == nil {
		rows = []ListRow{}
	}
	return o.print("FeatureGateList", rows, func(w io.Writer) error {
		return printGateTable(w, rows, o.output() == "wide")
	})
}

// ListRow is one row of `list`: a gate of a CRD and the fields it guards. FieldPaths are the
// fields the gate guards in the storage version: its fieldPaths, then the fields the storage
// version's schema marks with it.
type ListRow struct {
	GateRow
	// Versions are set when the gate guards different fields in different versions: one entry
	// for each served version and for the storage version, in the CRD's order.
	Versions []GateVersion `json:"versions,omitempty"`
	// Backend is "policies" when the gate's state lives in the CRD's CustomResourceFeatureGates
	// object, and empty when it lives in the CRD's spec.customFeatureGates (native).
	Backend Backend `json:"backend,omitempty"`

	// fields is the FIELDS column of the table.
	fields string
}

// GateVersion is what one gate guards in the objects of one version, by the index the server
// compiles for that version.
type GateVersion struct {
	Version    string      `json:"version"`
	FieldPaths []PathState `json:"fieldPaths"`
}

// versionIndex is the index of a CRD's gates for the objects of one version.
type versionIndex struct {
	version string
	served  bool
	storage bool
	// fieldPaths is whether the gates' fieldPaths are paths of the version
	// (featuregates.AppliesToVersion).
	fieldPaths bool
	ix         *featuregates.Index
	// schema is the version's structural schema; when it cannot be had, schemaErr says why
	// (ix then holds the fieldPaths only).
	schema    *structuralschema.Structural
	schemaErr error
}

// versionIndexes returns the index of each served version of the CRD and of its storage
// version, in the CRD's order, as the server compiles them (featuregates.CompileCRDVersion:
// with conversion None, every version's marks gate every version that has the path); nil
// when the CRD has no storage version.
func versionIndexes(crd *apiextensionsv1.CustomResourceDefinition) []versionIndex {
	storage, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return nil
	}
	var indexes []versionIndex
	for _, v := range crd.Spec.Versions {
		if !v.Served && v.Name != storage {
			continue
		}
		// The server accepts only structural schemas. Should one not be (s is then nil), `list`
		// still shows the gates' fieldPaths; `status` and `usage` report the error.
		s, err := versionSchema(crd, v.Name)
		applies := featuregates.AppliesToVersion(crd, v.Name)
		indexes = append(indexes, versionIndex{
			version:    v.Name,
			served:     v.Served,
			storage:    v.Name == storage,
			fieldPaths: applies,
			ix:         featuregates.CompileCRDVersion(crd, v.Name, s),
			schema:     s,
			schemaErr:  err,
		})
	}
	return indexes
}

// listRows returns the rows of `list` for one CRD: GateRows, with the fields each gate guards
// in each version.
func listRows(crd *apiextensionsv1.CustomResourceDefinition) []ListRow {
	gateRows := GateRows(crd)
	rows := make([]ListRow, len(gateRows))
	indexes := versionIndexes(crd)
	for i := range gateRows {
		r := &rows[i]
		r.GateRow = gateRows[i]
		enabled := r.State == "enabled"
		if indexes == nil {
			r.fields = fieldsColumn([]GateVersion{{FieldPaths: r.FieldPaths}}, enabled)
			continue
		}
		// GateRows has one row per gate, in the CRD's order.
		g := crd.Spec.CustomFeatureGates.FeatureGates[i]
		var all, compared []GateVersion
		for _, vi := range indexes {
			gv := GateVersion{Version: vi.version, FieldPaths: gateFields(vi, g, enabled)}
			all = append(all, gv)
			if vi.storage {
				r.FieldPaths = gv.FieldPaths
			}
			// With a conversion webhook, a version that marks nothing with the gate meets
			// the gate's fields only after conversion to the storage version.
			if vi.storage || vi.fieldPaths || len(gv.FieldPaths) > 0 {
				compared = append(compared, gv)
			}
		}
		r.fields = fieldsColumn(compared, enabled)
		if !sameFields(compared, enabled) {
			r.Versions = all
		}
	}
	return rows
}

// gateFields returns the fields gate g guards in one version by its index: g's fieldPaths,
// in the CRD's order, when they are paths of the version, then the fields the version's
// schema marks with g, in path order. enabled is g's own state.
func gateFields(vi versionIndex, g apiextensionsv1.CustomResourceDefinitionFeatureGate, enabled bool) []PathState {
	fields := []PathState{}
	listed := map[string]bool{}
	if vi.fieldPaths {
		for _, s := range g.FieldPaths {
			p, err := featuregates.ParsePath(s)
			if err != nil {
				// The server validated the path; an unparsable one is shown as it is.
				fields = append(fields, PathState{Path: s, Gate: g.Name, PreRelease: string(g.PreRelease), Live: enabled})
				continue
			}
			listed[p.String()] = true
			fields = append(fields, pathState(vi.ix, p, g.Name, string(g.PreRelease)))
		}
	}
	var marked []featuregates.Path
	for _, gp := range vi.ix.Paths() {
		if gp.Gate.Name == g.Name && !listed[gp.Path.String()] {
			listed[gp.Path.String()] = true
			marked = append(marked, gp.Path)
		}
	}
	sort.Slice(marked, func(i, j int) bool { return marked[i].String() < marked[j].String() })
	for _, p := range marked {
		fields = append(fields, pathState(vi.ix, p, g.Name, string(g.PreRelease)))
	}
	return fields
}

// fieldEntry is one field of the FIELDS column: its path and, when its enabled gate cannot
// make it live, " (off: GATE)".
func fieldEntry(p PathState, enabled bool) (path, off string) {
	if enabled && p.DisabledBy != nil {
		off = " (off: " + p.DisabledBy.Gate + ")"
	}
	return p.Path, off
}

// sameFields reports whether every version of versions shows the same fields.
func sameFields(versions []GateVersion, enabled bool) bool {
	for _, v := range versions[1:] {
		if len(v.FieldPaths) != len(versions[0].FieldPaths) {
			return false
		}
		for i, p := range v.FieldPaths {
			path, off := fieldEntry(p, enabled)
			path0, off0 := fieldEntry(versions[0].FieldPaths[i], enabled)
			if path != path0 || off != off0 {
				return false
			}
		}
	}
	return true
}

// fieldsColumn renders the fields a gate guards in the versions it is compared in. When they
// are the same in every version, they are listed once, separated by ","; otherwise each field
// is listed once, in the order the versions first show it, separated by ", ", and followed by
// its versions unless every version has it.
func fieldsColumn(versions []GateVersion, enabled bool) string {
	if sameFields(versions, enabled) {
		var fields []string
		for _, p := range versions[0].FieldPaths {
			path, off := fieldEntry(p, enabled)
			fields = append(fields, path+off)
		}
		return strings.Join(fields, ",")
	}
	type entry struct {
		path, off string
		versions  []string
	}
	var entries []*entry
	byField := map[string]*entry{}
	for _, v := range versions {
		for _, p := range v.FieldPaths {
			path, off := fieldEntry(p, enabled)
			e, ok := byField[path+off]
			if !ok {
				e = &entry{path: path, off: off}
				byField[path+off] = e
				entries = append(entries, e)
			}
			if n := len(e.versions); n == 0 || e.versions[n-1] != v.Version {
				e.versions = append(e.versions, v.Version)
			}
		}
	}
	fields := make([]string, len(entries))
	for i, e := range entries {
		fields[i] = e.path
		if len(e.versions) < len(versions) {
			fields[i] += " (" + strings.Join(e.versions, ", ") + ")"
		}
		fields[i] += e.off
	}
	return strings.Join(fields, ", ")
}

func printGateTable(w io.Writer, rows []ListRow, wide bool) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No feature gates found.")
		return err
	}
	header := []string{"CRD", "GATE", "STAGE", "ENABLED", "STATE", "FIELDS", "COMPONENT"}
	// REQUIRES only when a gate listed requires others, so the table of gates without
	// requires is unchanged; BACKEND likewise only when a gate listed is on the policies
	// backend.
	requires, policies := false, false
	for _, r := range rows {
		requires = requires || len(r.Requires) > 0 || len(r.RequiresAnyOf) > 0
		policies = policies || r.Backend == BackendPolicies
	}
	if wide {
		header = append(header[:4], append([]string{"DEFAULT"}, header[4:]...)...)
		if requires {
			header = append(header, "REQUIRES")
		}
		if policies {
			header = append(header, "BACKEND")
		}
	}
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, r := range rows {
		cols := []string{r.CRD, r.Gate, r.PreRelease, boolOrUnset(r.Enabled), stateText(r.State, r.Unmet, r.UnmetAnyOf), orNone(r.fields), orNone(r.Component)}
		if wide {
			cols = append(cols[:4], append([]string{boolOrUnset(r.Default)}, cols[4:]...)...)
			if requires {
				cols = append(cols, orNone(requiresText(r.Requires, r.RequiresAnyOf)))
			}
			if policies {
				cols = append(cols, string(backendOf(r.Backend)))
			}
		}
		if _, err := fmt.Fprintln(w, strings.Join(cols, "\t")); err != nil {
			return err
		}
	}
	return nil
}
