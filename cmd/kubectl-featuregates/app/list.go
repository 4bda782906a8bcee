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
	"sort"
	"strings"

	"github.com/spf13/cobra"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
