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

	"github.com/spf13/cobra"
)

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
