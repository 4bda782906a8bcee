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
// hold a value at one of the fields the gate guards in the storage version.
type UsageReport struct {
	CRD string `json:"crd"`
	// Version is the storage version: the objects were read in it, and the fields are its
	// fields.
	Version string `json:"version"`
	// ResourceVersion is the resourceVersion of the list: every page of it shows the objects
	// as they were stored at that point.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Objects is the number of objects read.
	Objects int         `json:"objects"`
	Gates   []GateUsage `json:"gates"`
}

// GateUsage is how many objects hold values at the fields of one gate.
type GateUsage struct {
	Gate       string `json:"gate"`
	PreRelease string `json:"preRelease"`
	// State is the gate's own state by the server's rules: "enabled" or "disabled".
	State string `json:"state"`
	// FieldPaths are the fields the gate guards in the storage version: its fieldPaths, then
	// the fields the storage version's schema marks with it.
	FieldPaths []string `json:"fieldPaths"`
	// Objects is the number of objects that hold a value at one of FieldPaths or below it,
	// not counting the values that the schema's defaults put there when the server read the
	// object (see storedValueAt).
	Objects int `json:"objects"`
	// Examples are the first of those objects in list order, as namespace/name (name alone
	// for a cluster-scoped CRD).
	Examples []string `json:"examples"`

	// paths are the parsed FieldPaths.
	paths []featuregates.Path
	// defaults is the schema the server defaulted the objects with; nil when it is not
	// known, and every value then counts.
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
// version: the gates' fieldPaths and the marks of its schema.
func storageIndex(crd *apiextensionsv1.CustomResourceDefinition) (versionIndex, error) {
	for _, vi := range versionIndexes(crd) {
		if vi.storage {
			return vi, vi.schemaErr
		}
	}
	_, err := apihelpers.GetCRDStorageVersion(crd)
	if err == nil {
		err = fmt.Errorf("customresourcedefinition %q has no storage version", crd.Name)
	}
	return versionIndex{}, err
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
	vi, err := storageIndex(crd)
	if err != nil {
		return nil, err
	}
	// The server defaults an object it reads from storage in the version it is stored in,
	// the storage version, with that version's schema less the defaults at its disabled
	// paths (featuregates.Index.WithoutDisabledDefaults, as the server builds it), before it
	// converts the object to the version asked for. (Objects still stored in an older
	// version were defaulted with that version's schema: a list does not tell which they
	// are.)
	storageDefaults := vi.ix.WithoutDisabledDefaults(vi.schema)
	report := &UsageReport{CRD: crd.Name, Version: vi.version, Gates: []GateUsage{}}
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		if len(want) > 0 && !want[g.Name] {
			continue
		}
		state := gateState(crd, g.Name)
		u := GateUsage{Gate: g.Name, PreRelease: string(g.PreRelease), State: state, FieldPaths: []string{}, Examples: []string{},
			defaults: storageDefaults}
		for _, f := range gateFields(vi, g, state == "enabled") {
			p, err := featuregates.ParsePath(f.Path)
			if err != nil || p.IsReserved() {
				// The server validated the paths and gates neither of these.
				continue
			}
			u.FieldPaths = append(u.FieldPaths, f.Path)
			u.paths = append(u.paths, p)
		}
		report.Gates = append(report.Gates, u)
	}
	return report, nil
}

// count adds one object to the report: each gate that holds a stored value at one of its
// fields (storedValueAt) counts it, and names it while it has fewer than examples names.
func (r *UsageReport) count(obj map[string]interface{}, name string, examples int) {
	r.Objects++
	for i := range r.Gates {
		g := &r.Gates[i]
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
// objects that hold values at the gate's fields in the storage version, not counting the
// values that the server's defaulting on read put there. It lists the
// objects of every namespace in the storage version, opts.ChunkSize at a time, and only
// reads them. A failed list request fails the scan; the error says how far it got.
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
	gvr, err := storageGVR(crd, report.Version)
	if err != nil {
		return nil, err
	}
	res := c.Resource(gvr)
	list := metav1.ListOptions{Limit: opts.ChunkSize}
	for pages := 0; ; {
		l, err := res.List(ctx, list)
		if err != nil {
			hint := ""
			if apierrors.IsResourceExpired(err) {
				hint = "; the list expired before the scan could finish (the server keeps a list's continue token for a few minutes): run it again, with a larger --chunk-size"
			}
			return nil, fmt.Errorf("listing the %s of %s in version %s failed after %s in %d page(s): %w%s",
				crd.Spec.Names.Plural, crd.Name, report.Version, objectCount(report.Objects), pages, err, hint)
		}
		pages++
		if pages == 1 {
			report.ResourceVersion = l.GetResourceVersion()
		}
		for i := range l.Items {
			item := &l.Items[i]
			name := item.GetName()
			if ns := item.GetNamespace(); ns != "" {
				name = ns + "/" + name
			}
			report.count(item.Object, name, opts.Examples)
		}
		next := l.GetContinue()
		if next == "" {
			return report, nil
		}
		if next == list.Continue {
			return nil, fmt.Errorf("listing the %s of %s: the server returned the same continue token twice, after %s in %d page(s)",
				crd.Spec.Names.Plural, crd.Name, objectCount(report.Objects), pages)
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
fields the storage version's schema marks with x-kubernetes-feature-gate. An object counts
when it holds a value at one of them or below it; under [*], any item of a list or value of
a map will do. A gate that guards no field of the storage version (one that only CEL rules
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
	c, err := o.newClient()
	if err != nil {
		return err
	}
	crd, err := getCRD(ctx, c, name)
	if err != nil {
		return err
	}
	dc, err := o.dynamic()
	if err != nil {
		return err
	}
	report, err := ScanUsage(ctx, dc, crd, gates, opts)
	if err != nil {
		return err
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
// column only when examples were asked for.
func printUsageTable(w io.Writer, r *UsageReport, examples bool) error {
	fmt.Fprintf(w, "# %s, storage version %s: %s scanned\n", r.CRD, r.Version, objectCount(r.Objects))
	header := "GATE\tSTAGE\tSTATE\tOBJECTS"
	if examples {
		header += "\tEXAMPLES"
	}
	fmt.Fprintln(w, header)
	for _, g := range r.Gates {
		row := fmt.Sprintf("%s\t%s\t%s\t%d", g.Gate, g.PreRelease, g.State, g.Objects)
		if examples {
			row += "\t" + orNone(strings.Join(g.Examples, ", "))
		}
		if _, err := fmt.Fprintln(w, row); err != nil {
			return err
		}
	}
	return nil
}

// usageLine is what `disable` prints about the gate's stored values before it acts.
func usageLine(g GateUsage, version string) string {
	switch {
	case len(g.FieldPaths) == 0:
		return fmt.Sprintf("Feature gate %s guards no field of storage version %s: no stored value is frozen.", g.Gate, version)
	case g.Objects == 0:
		return fmt.Sprintf("No object holds a value at the fields of %s.", g.Gate)
	}
	verb := "hold"
	if g.Objects == 1 {
		verb = "holds"
	}
	return fmt.Sprintf("%s %s values at the fields of %s (examples: %s); they are kept, and writes can no longer change them.",
		objectCount(g.Objects), verb, g.Gate, strings.Join(g.Examples, ", "))
}
