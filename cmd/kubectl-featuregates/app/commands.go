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
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/printers"
)

// ReportAPIVersion is the apiVersion of the objects -o json|yaml prints. They are reports of
// this plugin, not API objects.
const ReportAPIVersion = "featuregates.kubectl.k8s.io/v1alpha1"

func newListCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list [CRD...]",
		Short: "List the feature gates of CRDs: stage, enabled as set, state, field paths",
		Long: `List the feature gates that CRDs declare in spec.customFeatureGates. Without
arguments, every CRD that declares gates is listed.

ENABLED is what the cluster admin set (<unset> leaves it to the stage and default). STATE is
the gate's own state by the server's rules. FIELDS are the gate's field paths; a path that
its enabled gate cannot make live, because a gate of a parent path is disabled, is marked
"(off: GATE)".`,
		Example: `  kubectl featuregates list
  kubectl featuregates list crontabs.stable.example.com -o yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runList(cmd.Context(), args)
		},
	}
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

func (o *Options) runList(ctx context.Context, names []string) error {
	c, err := o.newClient()
	if err != nil {
		return err
	}
	var crds []apiextensionsv1.CustomResourceDefinition
	if len(names) == 0 {
		l, err := c.List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("cannot list customresourcedefinitions: %w", err)
		}
		crds = l.Items
		sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
	} else {
		for _, n := range names {
			crd, err := getCRD(ctx, c, n)
			if err != nil {
				return err
			}
			crds = append(crds, *crd)
		}
	}
	var rows []GateRow
	for i := range crds {
		rows = append(rows, GateRows(&crds[i])...)
	}
	if rows == nil {
		rows = []GateRow{}
	}
	return o.print("FeatureGateList", rows, func(w io.Writer) error {
		return printGateTable(w, rows, o.output() == "wide")
	})
}

func (o *Options) output() string {
	if o.PrintFlags.OutputFormat == nil {
		return ""
	}
	return *o.PrintFlags.OutputFormat
}

// print writes items as a table, or with kubectl's printers for -o json|yaml|jsonpath|...,
// wrapped in an object of kind kind with the items under "items".
func (o *Options) print(kind string, items interface{}, table func(io.Writer) error) error {
	switch o.output() {
	case "", "wide":
		w := printers.GetNewTabWriter(o.Streams.Out)
		if err := table(w); err != nil {
			return err
		}
		return w.Flush()
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	obj, err := reportObject(kind, items)
	if err != nil {
		return err
	}
	return p.PrintObj(obj, o.Streams.Out)
}

// reportObject wraps a report in an unstructured object, so every kubectl printer can print it.
func reportObject(kind string, report interface{}) (*unstructured.Unstructured, error) {
	b, err := json.Marshal(report)
	if err != nil {
		return nil, err
	}
	var content interface{}
	if err := json.Unmarshal(b, &content); err != nil {
		return nil, err
	}
	obj := map[string]interface{}{"apiVersion": ReportAPIVersion, "kind": kind}
	switch c := content.(type) {
	case map[string]interface{}:
		for k, v := range c {
			obj[k] = v
		}
	default:
		obj["items"] = c
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func boolOrUnset(b *bool) string {
	if b == nil {
		return "<unset>"
	}
	return fmt.Sprint(*b)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func printGateTable(w io.Writer, rows []GateRow, wide bool) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No feature gates found.")
		return err
	}
	header := []string{"CRD", "GATE", "STAGE", "ENABLED", "STATE", "FIELDS", "COMPONENT"}
	if wide {
		header = append(header[:4], append([]string{"DEFAULT"}, header[4:]...)...)
	}
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, r := range rows {
		var fields []string
		for _, p := range r.FieldPaths {
			f := p.Path
			if r.State == "enabled" && p.DisabledBy != nil {
				f += " (off: " + p.DisabledBy.Gate + ")"
			}
			fields = append(fields, f)
		}
		cols := []string{r.CRD, r.Gate, r.PreRelease, boolOrUnset(r.Enabled), r.State, orNone(strings.Join(fields, ",")), orNone(r.Component)}
		if wide {
			cols = append(cols[:4], append([]string{boolOrUnset(r.Default)}, cols[4:]...)...)
		}
		if _, err := fmt.Fprintln(w, strings.Join(cols, "\t")); err != nil {
			return err
		}
	}
	return nil
}

func newStatusCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status CRD [FIELD...]",
		Short: "Show which fields of a CRD's storage version are live, and why a field is not",
		Long: `Show which fields of the CRD's storage version are live now: a value written
there is stored. A field is not live when its own feature gate is disabled, or when the gate
of a gated parent field is disabled; REASON names the gate.

Without FIELD arguments, every field of the storage version's schema is listed. FIELD uses
the syntax of fieldPaths, as in .spec.replicas or .spec.containers[*].image.`,
		Example: `  kubectl featuregates status databases.gates.example.com
  kubectl featuregates status databases.gates.example.com .spec.backup.encryption`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runStatus(cmd.Context(), args[0], args[1:])
		},
	}
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

func (o *Options) runStatus(ctx context.Context, name string, fields []string) error {
	c, err := o.newClient()
	if err != nil {
		return err
	}
	crd, err := getCRD(ctx, c, name)
	if err != nil {
		return err
	}
	report, err := FieldStatus(crd, fields)
	if err != nil {
		return err
	}
	return o.print("FieldStatus", report, func(w io.Writer) error {
		return printStatusTable(w, report)
	})
}

func printStatusTable(w io.Writer, r *StatusReport) error {
	fmt.Fprintf(w, "# %s, storage version %s\n", r.CRD, r.Version)
	fmt.Fprintln(w, "FIELD\tGATE\tLIVE\tREASON")
	for _, f := range r.Fields {
		live := "yes"
		if !f.Live {
			live = "no"
		}
		gate := f.Gate
		if gate == "" {
			gate = "-"
		}
		if _, err := fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", f.Path, gate, live, f.Reason()); err != nil {
			return err
		}
	}
	return nil
}

func newToggleCommand(o *Options, value bool) *cobra.Command {
	verb := "disable"
	if value {
		verb = "enable"
	}
	t := &Toggler{FieldManager: DefaultFieldManager, Method: MethodAuto}
	var method string
	cmd := &cobra.Command{
		Use:   verb + " CRD GATE",
		Short: fmt.Sprintf("%s a feature gate of a CRD, by name", strings.ToUpper(verb[:1])+verb[1:]),
		Long: fmt.Sprintf(`Set enabled: %v on the feature gate named GATE of the CRD.

By default (--method=auto) this is a server-side apply of just that gate's name and
enabled, under the field manager given by --field-manager: that manager then owns
featureGates[name=GATE].enabled, and the CRD author's later "kubectl apply --server-side"
of the full CRD leaves it alone.

If client-side "kubectl apply" manages the CRD (a field manager with operation Update owns
the kubectl.kubernetes.io/last-applied-configuration annotation, which is the test kubectl
itself uses), a JSON patch is sent instead. It sets enabled at the gate's index and is guarded
by a "test" of the gate's name at that index, so if the gates are reordered concurrently the
server rejects it and the plugin reads the CRD again, rather than changing another gate.
--method=apply or --method=patch forces one way.`, value),
		Example: fmt.Sprintf("  kubectl featuregates %s databases.gates.example.com BackupGate", verb),
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t.Method = Method(method)
			switch t.Method {
			case MethodAuto, MethodApply, MethodPatch:
			default:
				return fmt.Errorf("invalid --method %q: want auto, apply or patch", method)
			}
			if t.FieldManager == "" {
				return fmt.Errorf("--field-manager must not be empty")
			}
			c, err := o.newClient()
			if err != nil {
				return err
			}
			t.Client = c
			res, err := t.Toggle(cmd.Context(), args[0], args[1], value)
			if err != nil {
				return err
			}
			return printToggle(o.Streams.Out, args[0], args[1], verb, t, res)
		},
	}
	cmd.Flags().StringVar(&t.FieldManager, "field-manager", DefaultFieldManager, "Field manager that owns the gate's enabled.")
	cmd.Flags().StringVar(&method, "method", string(MethodAuto), "How to write: auto, apply (server-side apply) or patch (JSON patch guarded by a test of the gate's name).")
	cmd.Flags().BoolVar(&t.ForceConflicts, "force-conflicts", false, "With server-side apply, take the gate's enabled over from another field manager.")
	cmd.Flags().BoolVar(&t.DryRun, "dry-run", false, "Send the write as a server-side dry run: nothing is stored.")
	return cmd
}

func printToggle(w io.Writer, crd, gate, verb string, t *Toggler, res *ToggleResult) error {
	if res.Noop {
		_, err := fmt.Fprintf(w, "customresourcedefinition.apiextensions.k8s.io/%s: feature gate %s is stable and always enabled; nothing to change\n", crd, gate)
		return err
	}
	how := fmt.Sprintf("server-side apply, field manager %s", t.FieldManager)
	if res.Method == MethodPatch {
		how = fmt.Sprintf("JSON patch guarded by the gate's name, field manager %s", t.FieldManager)
	}
	dry := ""
	if t.DryRun {
		dry = " (server dry run)"
	}
	_, err := fmt.Fprintf(w, "customresourcedefinition.apiextensions.k8s.io/%s: feature gate %s %sd (%s); state: %s%s\n",
		crd, gate, verb, how, gateState(res.CRD, gate), dry)
	return err
}
