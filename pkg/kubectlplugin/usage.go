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
	"strings"

	"github.com/spf13/cobra"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

const (
	// DefaultChunkSize is how many objects `usage` asks the server for in one list request.
	DefaultChunkSize = 500
	// DefaultExamples is how many objects `usage` names for each gate.
	DefaultExamples = 3
)

// UsageReport is what `usage` reports for one CRD: for each gate, the stored objects that
// hold a value at one of the fields the gate guards in the storage version (or, for a gate
// that guards none there, in the first served version whose schema marks fields with it).
type UsageReport struct {
	CRD string `json:"crd"`
	// Version is the storage version: the objects were read in it, and the fields are its
	// fields, except for the gates whose Version is set.
	Version string `json:"version"`
	// ResourceVersion is the resourceVersion of the first list: every page of it shows the
	// objects as they were stored at that point.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Objects is the number of objects read by the first list.
	Objects int         `json:"objects"`
	Gates   []GateUsage `json:"gates"`
	// Backend is "policies" when the gate states live in the CRD's CustomResourceFeatureGates
	// object, and empty when they live in its spec.customFeatureGates (native).
	Backend Backend `json:"backend,omitempty"`
}

// GateUsage is how many objects hold values at the fields of one gate.
type GateUsage struct {
	Gate       string `json:"gate"`
	PreRelease string `json:"preRelease"`
	// State is the gate's state by the server's rules: "enabled" or "disabled".
	State string `json:"state"`
	// Unmet are the required gates that keep the gate disabled although its own state is
	// enabled.
	Unmet []string `json:"unmet,omitempty"`
	// UnmetAnyOf are the gates of which the gate requires one, when none is enabled and its
	// own state is.
	UnmetAnyOf []string `json:"unmetAnyOf,omitempty"`
	// FieldPaths are the fields the gate guards in the storage version: its fieldPaths, then
	// the fields the storage version's schema marks with it. When it guards none there, they
	// are the fields it guards in Version.
	FieldPaths []string `json:"fieldPaths"`
	// Version is set when the gate guards no field of the storage version, but the schema
	// of a served version marks fields with it: the first such version in the CRD's order,
	// whose fields FieldPaths are. Without a conversion webhook, every version's objects
	// have the same fields, and the objects are read in the storage version; with one, they
	// are read in Version.
	Version string `json:"version,omitempty"`
	// Objects is the number of objects that hold a value at one of FieldPaths or below it,
	// not counting the values that the schema's defaults put there when the server read the
	// object (see storedValueAt).
	Objects int `json:"objects"`
	// Examples are the first of those objects in list order, as namespace/name (name alone
	// for a cluster-scoped CRD).
	Examples []string `json:"examples"`

	// paths are the parsed FieldPaths.
	paths []featuregates.Path
	// read is the version the objects are read in for this gate.
	read string
	// defaults is the schema the server defaulted the objects with, as read in read; nil
	// when it is not known, and every value then counts.
	defaults *structuralschema.Structural
}

// UsageOptions say how `usage` reads the objects.
type UsageOptions struct {
	// ChunkSize is the limit of each list request; 0 reads every object in one request.
	ChunkSize int64
	// Examples is the most objects named per gate.
	Examples int
}

// storageIndex returns the index the server compiles for the objects of the CRD's storage
// version (the gates' fieldPaths and the marks of its schema), and the indexes of the other
// served versions, in the CRD's order.
func storageIndex(crd *apiextensionsv1.CustomResourceDefinition) (versionIndex, []versionIndex, error) {
	var storage versionIndex
	var found bool
	var others []versionIndex
	for _, vi := range versionIndexes(crd) {
		if vi.storage {
			if vi.schemaErr != nil {
				return versionIndex{}, nil, vi.schemaErr
			}
			storage, found = vi, true
			continue
		}
		others = append(others, vi)
	}
	if found {
		return storage, others, nil
	}
	_, err := apihelpers.GetCRDStorageVersion(crd)
	if err == nil {
		err = fmt.Errorf("customresourcedefinition %q has no storage version", crd.Name)
	}
	return versionIndex{}, nil, err
}

// newUsageReport returns the report for the CRD's gates named gates (every gate, in the
// CRD's order, when gates is empty) with nothing counted yet. A name the CRD does not declare
// is an error.
func newUsageReport(crd *apiextensionsv1.CustomResourceDefinition, gates []string) (*UsageReport, error) {
	want := map[string]bool{}
	for _, g := range gates {
		if _, err := findGate(crd, g); err != nil {
			return nil, err
		}
		want[g] = true
	}
	if crd.Spec.CustomFeatureGates == nil || len(crd.Spec.CustomFeatureGates.FeatureGates) == 0 {
		return nil, fmt.Errorf("customresourcedefinition %q declares no feature gates (spec.customFeatureGates is empty)", crd.Name)
	}
	storage, others, err := storageIndex(crd)
	if err != nil {
		return nil, err
	}
	webhook := crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter
	// The server defaults an object it reads from storage in the version it is stored in,
	// the storage version, with that version's schema less the defaults at its disabled
	// paths (featuregates.Index.WithoutDisabledDefaults, as the server builds it), before it
	// converts the object to the version asked for. Without a conversion webhook, that only
	// changes apiVersion. (Objects still stored in an older version were defaulted with that
	// version's schema: a list does not tell which they are.)
	storageDefaults := storage.ix.WithoutDisabledDefaults(storage.schema)
	report := &UsageReport{CRD: crd.Name, Version: storage.version, Gates: []GateUsage{}}
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		if len(want) > 0 && !want[g.Name] {
			continue
		}
		state := gateState(crd, g.Name)
		u := GateUsage{Gate: g.Name, PreRelease: string(g.PreRelease), State: state, Examples: []string{},
			read: storage.version, defaults: storageDefaults}
		u.Unmet, u.UnmetAnyOf = unmetRequires(crd, g.Name)
		u.FieldPaths, u.paths = usageFields(storage, g, state == "enabled")
		if len(u.paths) == 0 {
			// A gate may guard fields of another version only, by that version's marks:
			// while it is disabled, writes in that version cannot change them.
			for _, vi := range others {
				if vi.schemaErr != nil {
					continue
				}
				fields, paths := usageFields(vi, g, state == "enabled")
				if len(paths) == 0 {
					continue
				}
				u.FieldPaths, u.paths, u.Version = fields, paths, vi.version
				if webhook {
					// The webhook converts the object the server defaulted in the storage
					// version. The values at vi's fields are taken as defaulted by vi's own
					// schema, with all its defaults (the gate guards no field of the storage
					// version, so none of them is disabled there): an approximation, which
					// holds when a field has the same default in both versions.
					u.read, u.defaults = vi.version, vi.schema
				}
				break
			}
		}
		report.Gates = append(report.Gates, u)
	}
	return report, nil
}

// usageFields returns the fields gate g guards in the objects of one version (gateFields),
// as written and parsed, without those the server does not gate.
func usageFields(vi versionIndex, g apiextensionsv1.CustomResourceDefinitionFeatureGate, enabled bool) ([]string, []featuregates.Path) {
	fields := []string{}
	var paths []featuregates.Path
	for _, f := range gateFields(vi, g, enabled) {
		p, err := featuregates.ParsePath(f.Path)
		if err != nil || p.IsReserved() {
			// The server validated the paths and gates neither of these.
			continue
		}
		fields = append(fields, f.Path)
		paths = append(paths, p)
	}
	return fields, paths
}

// count adds one object, as read in version, to the gates of the report that are read in
// that version: each one that holds a stored value at one of its fields (storedValueAt)
// counts it, and names it while it has fewer than examples names.
func (r *UsageReport) count(version string, obj map[string]interface{}, name string, examples int) {
	for i := range r.Gates {
		g := &r.Gates[i]
		if g.read != version {
			continue
		}
		for _, p := range g.paths {
			if storedValueAt(obj, p, g.defaults) {
				g.Objects++
				if len(g.Examples) < examples {
					g.Examples = append(g.Examples, name)
				}
				break
			}
		}
	}
}

// storageGVR returns the resource of the CRD's objects in version, which must be served:
// the server converts every object it returns to the version asked for.
func storageGVR(crd *apiextensionsv1.CustomResourceDefinition, version string) (schema.GroupVersionResource, error) {
	for _, v := range crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		if !v.Served {
			return schema.GroupVersionResource{}, fmt.Errorf("the storage version %s of %s is not served, so its objects cannot be read in it", version, crd.Name)
		}
		return schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}, nil
	}
	return schema.GroupVersionResource{}, fmt.Errorf("%s has no version %s", crd.Name, version)
}

// ScanUsage counts, for the CRD's gates named gates (all of them when gates is empty), the
// objects that hold values at the gate's fields in the storage version (or, for a gate that
// guards none there, in the version GateUsage.Version names), not counting the values that
// the server's defaulting on read put there. It lists the objects of every namespace in the
// storage version, opts.ChunkSize at a time, and only reads them; with a conversion webhook,
// also in each other version that a gate is counted in, after the storage version. A failed
// list request fails the scan; the error says how far it got.
func ScanUsage(ctx context.Context, c dynamic.Interface, crd *apiextensionsv1.CustomResourceDefinition, gates []string, opts UsageOptions) (*UsageReport, error) {
	if opts.ChunkSize < 0 {
		return nil, fmt.Errorf("--chunk-size must not be negative")
	}
	if opts.Examples < 0 {
		return nil, fmt.Errorf("--examples must not be negative")
	}
	report, err := newUsageReport(crd, gates)
	if err != nil {
		return nil, err
	}
	// The versions to list: the storage version first, then the others in the CRD's order.
	reads := map[string]bool{}
	for _, g := range report.Gates {
		reads[g.read] = true
	}
	versions := []string{report.Version}
	for _, v := range crd.Spec.Versions {
		if v.Name != report.Version {
			versions = append(versions, v.Name)
		}
	}
	first := true
	for _, version := range versions {
		if !reads[version] {
			continue
		}
		if err := report.scan(ctx, c, crd, version, first, opts); err != nil {
			return nil, err
		}
		first = false
	}
	return report, nil
}

// scan lists every object of the CRD in version, opts.ChunkSize at a time, and counts them
// for the gates read in that version. The first scan of a report sets its Objects and
// ResourceVersion.
func (r *UsageReport) scan(ctx context.Context, c dynamic.Interface, crd *apiextensionsv1.CustomResourceDefinition, version string, first bool, opts UsageOptions) error {
	gvr, err := storageGVR(crd, version)
	if err != nil {
		return err
	}
	res := c.Resource(gvr)
	list := metav1.ListOptions{Limit: opts.ChunkSize}
	objects := 0
	for pages := 0; ; {
		l, err := res.List(ctx, list)
		if err != nil {
			hint := ""
			if apierrors.IsResourceExpired(err) {
				hint = "; the list expired before the scan could finish (the server keeps a list's continue token for a few minutes): run it again, with a larger --chunk-size"
			}
			return fmt.Errorf("listing the %s of %s in version %s failed after %s in %d page(s): %w%s",
				crd.Spec.Names.Plural, crd.Name, version, objectCount(objects), pages, err, hint)
		}
		pages++
		if pages == 1 && first {
			r.ResourceVersion = l.GetResourceVersion()
		}
		for i := range l.Items {
			item := &l.Items[i]
			name := item.GetName()
			if ns := item.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
			objects++
			if first {
				r.Objects++
			}
			r.count(version, item.Object, name, opts.Examples)
		}
		next := l.GetContinue()
		if next == "" {
			return nil
		}
		if next == list.Continue {
			return fmt.Errorf("listing the %s of %s: the server returned the same continue token twice, after %s in %d page(s)",
				crd.Spec.Names.Plural, crd.Name, objectCount(objects), pages)
		}
		list.Continue = next
	}
}

// objectCount is "1 object" or "N objects".
func objectCount(n int) string {
	if n == 1 {
		return "1 object"
	}
	return fmt.Sprintf("%d objects", n)
}

func newUsageCommand(o *Options) *cobra.Command {
	opts := UsageOptions{ChunkSize: DefaultChunkSize, Examples: DefaultExamples}
	cmd := &cobra.Command{
		Use:   "usage CRD [GATE...]",
		Short: "Count the stored objects that hold values at the fields of each gate of a CRD",
		Long: `Count, for each feature gate of the CRD (or for the gates named), the stored objects
that hold a value at one of the fields the gate guards. Run it before you disable a gate:
turning a gate off keeps those values, and writes can no longer change or remove them.

The objects of every namespace are listed in the CRD's storage version, --chunk-size at a
time (the pages of one list show the objects as stored at one point in time), and are only
read. A gate's fields are those it guards in the storage version: its fieldPaths and the
fields the storage version's schema marks with x-kubernetes-feature-gate (without a
conversion webhook, the fields any version's schema marks, where the storage version's
schema has them). A gate that guards
none there, but that the schema of a served version marks fields with, is counted at the
fields of the first such version (writes in that version cannot change them while the gate
is disabled); with a conversion webhook, the objects are listed in that version too. An
object counts when it holds a value at one of the fields or below it; under [*], any item
of a list or value of a map will do. A gate that guards no field (one that only CEL rules
read, say) counts 0.

The server applies the schema's defaults to every object it returns, also at fields the
stored object has no value at. Those values are not counted: a value counts only when
defaulting the object without it would not put the same value there. So a value that a
client wrote equal to that default is not counted either, while the gate is enabled.

EXAMPLES names the first --examples objects of each gate, in list order, as
namespace/name.`,
		Example: `  kubectl featuregates usage databases.gates.example.com
  kubectl featuregates usage databases.gates.example.com BackupGate --examples 10
  kubectl featuregates usage databases.gates.example.com -o yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runUsage(cmd.Context(), args[0], args[1:], opts)
		},
	}
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().Int64Var(&opts.ChunkSize, "chunk-size", DefaultChunkSize, "List the objects in pages of this many; 0 lists them all in one request.")
	cmd.Flags().IntVar(&opts.Examples, "examples", DefaultExamples, "Name up to this many objects for each gate; 0 names none.")
	return cmd
}

func (o *Options) runUsage(ctx context.Context, name string, gates []string, opts UsageOptions) error {
	r, err := o.gateReader()
	if err != nil {
		return err
	}
	g, err := r.get(ctx, name)
	if err != nil {
		return err
	}
	dc, err := o.dynamic()
	if err != nil {
		return err
	}
	report, err := ScanUsage(ctx, dc, g.CRD, gates, opts)
	if err != nil {
		return err
	}
	if g.Backend == BackendPolicies {
		report.Backend = g.Backend
	}
	return o.print("FeatureGateUsage", report, func(w io.Writer) error {
		return printUsageTable(w, report, opts.Examples > 0)
	})
}

// dynamic returns the client that reads custom resources.
func (o *Options) dynamic() (dynamic.Interface, error) {
	if o.newDynamicClient == nil {
		return nil, fmt.Errorf("no client for custom resources")
	}
	return o.newDynamicClient()
}

// printUsageTable prints a line with the number of objects scanned, then one row per gate; the EXAMPLES
// column only when examples were asked for; then a note for each gate counted at the fields
// of a version other than the storage version.
func printUsageTable(w io.Writer, r *UsageReport, examples bool) error {
	if src := gatesSource(r.Backend, r.CRD); src != "" {
		fmt.Fprintf(w, "# %s\n", src)
	}
	fmt.Fprintf(w, "# %s, storage version %s: %s scanned\n", r.CRD, r.Version, objectCount(r.Objects))
	header := "GATE\tSTAGE\tSTATE\tOBJECTS"
	if examples {
		header += "\tEXAMPLES"
	}
	fmt.Fprintln(w, header)
	for _, g := range r.Gates {
		row := fmt.Sprintf("%s\t%s\t%s\t%d", g.Gate, g.PreRelease, stateText(g.State, g.Unmet, g.UnmetAnyOf), g.Objects)
		if examples {
			row += "\t" + orNone(strings.Join(g.Examples, ", "))
		}
		if _, err := fmt.Fprintln(w, row); err != nil {
			return err
		}
	}
	first := true
	for _, g := range r.Gates {
		if g.Version == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		if _, err := fmt.Fprintf(w, "# Note: %s guards no field of storage version %s; it is counted at the fields it guards in version %s.\n", g.Gate, r.Version, g.Version); err != nil {
			return err
		}
	}
	return nil
}

// usageLine is what `disable` prints about the gate's stored values before it acts. A gate
// counted at the fields of a version other than the storage version (g.Version) freezes
// them for writes in that version only.
func usageLine(g GateUsage, version string) string {
	in, writes := "", "writes"
	if g.Version != "" {
		in, writes = " in version "+g.Version, "writes in version "+g.Version
	}
	switch {
	case len(g.FieldPaths) == 0:
		return fmt.Sprintf("Feature gate %s guards no field of storage version %s: no stored value is frozen.", g.Gate, version)
	case g.Objects == 0:
		return fmt.Sprintf("No object holds a value at the fields of %s%s.", g.Gate, in)
	}
	verb := "hold"
	if g.Objects == 1 {
		verb = "holds"
	}
	return fmt.Sprintf("%s %s values at the fields of %s%s (examples: %s); they are kept, and %s can no longer change them.",
		objectCount(g.Objects), verb, g.Gate, in, strings.Join(g.Examples, ", "), writes)
}
