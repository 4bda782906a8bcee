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
)

func newStatusCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status CRD [FIELD...]",
		Short: "Show which fields of each version of a CRD are live, and why a field is not",
		Long: `Show which fields of each served version of the CRD, and of its storage version, are
live now: a value written there in that version is stored. A field is not live when its own
feature gate is disabled, or when the gate of a gated parent field is disabled; REASON names
the gate. GATE and STAGE are the gate that guards the field itself, if any.

The gates of a version depend on the CRD's conversion. Without a conversion webhook
(conversion None), every version has one shape: a field that any version's schema marks with
x-kubernetes-feature-gate, and the gates' fieldPaths, are gated in every version whose schema
has them. With a webhook, a version's gates are the fields its own schema marks, and, in the
storage version, the gates' fieldPaths (paths of the storage version). The server also gates
a write to any other version in the storage version, after conversion; a note says so when
that adds gates the version's own list does not show.

Without FIELD arguments, every field of each version's schema is listed. FIELD uses the
syntax of fieldPaths, as in .spec.replicas or .spec.containers[*].image; it is shown for
each version whose schema has it.`,
		Example: `  kubectl featuregates status databases.gates.example.com
  kubectl featuregates status databases.gates.example.com .spec.backup.encryption
  kubectl featuregates status databases.gates.example.com -o yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runStatus(cmd.Context(), args[0], args[1:])
		},
	}
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

func (o *Options) runStatus(ctx context.Context, name string, fields []string) error {
	r, err := o.gateReader()
	if err != nil {
		return err
	}
	g, err := r.get(ctx, name)
	if err != nil {
		return err
	}
	report, err := FieldStatus(g.CRD, fields)
	if err != nil {
		return err
	}
	if g.Backend == BackendPolicies {
		report.Backend = g.Backend
	}
	return o.print("FieldStatus", report, func(w io.Writer) error {
		return printStatusTable(w, report)
	})
}

// printStatusTable prints one section per version, then, once, the versions whose writes the
// storage version's gates also gate.
func printStatusTable(w io.Writer, r *StatusReport) error {
	if src := gatesSource(r.Backend, r.CRD); src != "" {
		fmt.Fprintf(w, "# %s\n", src)
	}
	var alsoGated []string
	for i, v := range r.Versions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		title := "version " + v.Version
		if v.Storage {
			title = "storage " + title
		}
		if !v.Served {
			title += " (not served)"
		}
		fmt.Fprintf(w, "# %s, %s\n", r.CRD, title)
		if len(v.Fields) > 0 {
			fmt.Fprintln(w, "FIELD\tGATE\tSTAGE\tLIVE\tREASON")
		}
		for _, f := range v.Fields {
			live := "yes"
			if !f.Live {
				live = "no"
			}
			if _, err := fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", f.Path, orDash(f.Gate), orDash(f.PreRelease), live, f.Reason()); err != nil {
				return err
			}
		}
		if len(v.NotInSchema) > 0 {
			fmt.Fprintf(w, "# not in the schema of %s: %s\n", v.Version, strings.Join(v.NotInSchema, ", "))
		}
		if v.AlsoGatedBy != "" {
			alsoGated = append(alsoGated, v.Version)
		}
	}
	if len(alsoGated) > 0 {
		_, err := fmt.Fprintf(w, "\n# Note: a write to %s is also gated by the gates of storage version %s, after conversion to %s.\n",
			strings.Join(alsoGated, ", "), r.StorageVersion, r.StorageVersion)
		return err
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
