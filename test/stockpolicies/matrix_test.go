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

package stockpolicies

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestWriteMatrix runs every case of matrix on ours and on stock+policies, compares what
// they did, checks the differences against intendedDifferences and writes the report.
func TestWriteMatrix(t *testing.T) {
	installed(t)
	start := time.Now()
	names := map[string]bool{}
	for _, c := range matrix {
		if names[c.name] {
			t.Fatalf("two cases are named %q", c.name)
		}
		names[c.name] = true
	}
	for name := range intendedDifferences {
		if !names[name] {
			t.Errorf("intendedDifferences names a case that does not exist: %q", name)
		}
	}

	// runs[i][j]: case i on backend j. Each case has its own namespace, named alike on both.
	runs := make([][]*caseRun, len(matrix))
	for i := range matrix {
		for _, b := range backends {
			r := &caseRun{t: t, b: b, c: &matrix[i], ns: fmt.Sprintf("case-%02d", i+1)}
			if err := b.ensureNamespace(r.ns); err != nil {
				t.Fatal(err)
			}
			runs[i] = append(runs[i], r)
		}
	}

	// Phase 1: the stored values the updates start from, written while the gates are on.
	for i, c := range matrix {
		if len(c.seeds) == 0 {
			continue
		}
		for _, r := range runs[i] {
			states := map[string]bool{}
			for _, g := range c.crd.gates {
				states[g.name] = true
			}
			for g, on := range c.seedGates {
				states[g] = on
			}
			r.run(gates(states))
			for _, s := range c.seeds {
				s.name += ", gates on"
				s.wantCode, s.wantGen, s.wantWarnings, s.want = 0, 0, nil, ""
				r.run(s)
			}
		}
	}

	// Phase 2: the cases, each with its gate states, on one backend after the other.
	for i, c := range matrix {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range runs[i] {
				r.t = t
				states := map[string]bool{}
				for _, g := range c.crd.gates {
					states[g.name] = g.initial
				}
				for g, on := range c.gates {
					states[g] = on
				}
				r.run(gates(states))
				for _, s := range c.steps {
					r.run(s)
				}
			}
		})
	}
	matrixTime := time.Since(start)

	// The comparison.
	var rows []reportRow
	for i, c := range matrix {
		diffs := compareCase(runs[i][0].obs, runs[i][1].obs)
		observed := map[string][]difference{}
		for _, d := range diffs {
			observed[d.aspect] = append(observed[d.aspect], d)
		}
		declared := intendedDifferences[c.name]
		row := reportRow{name: c.name, ours: summary(runs[i][0].obs), stock: summary(runs[i][1].obs), diffs: diffs}
		var aspects []string
		for a := range observed {
			aspects = append(aspects, a)
		}
		for a := range declared {
			if observed[a] == nil {
				aspects = append(aspects, a)
			}
		}
		sort.Strings(aspects)
		for _, a := range aspects {
			reason, ok := declared[a]
			switch {
			case observed[a] == nil:
				t.Errorf("%s: the declared difference in %s (%s) was not observed", c.name, a, reason)
				row.why = append(row.why, fmt.Sprintf("**declared, not observed:** %s", a))
			case !ok:
				var details []string
				for _, d := range observed[a] {
					details = append(details, fmt.Sprintf("step %q: ours %s, stock+policies %s", d.step, d.ours, d.stock))
				}
				t.Errorf("%s: undeclared difference in %s:\n  %s", c.name, a, strings.Join(details, "\n  "))
				row.why = append(row.why, fmt.Sprintf("**not intended:** %s", a))
			default:
				row.why = append(row.why, fmt.Sprintf("%s: %s", a, reason))
			}
		}
		rows = append(rows, row)
	}

	matrixRows, matrixTook = rows, matrixTime
}

// What the tests found, for the report that TestMain writes once they have run.
var (
	matrixRows    []reportRow
	matrixTook    time.Duration
	losslessLines []string
)

// writeReports writes the report to $STOCK_POLICIES_REPORT (default
// _output/stock-policies/report.md), if a test gathered anything.
func writeReports() error {
	if matrixRows == nil && losslessLines == nil {
		return nil
	}
	report := os.Getenv(envReport)
	if report == "" {
		report = filepath.Join(repoRoot, "_output", "stock-policies", "report.md")
	}
	if err := writeReport(report, matrixRows, matrixTook); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "stockpolicies: report written to %s\n", report)
	return nil
}

// reportRow is one case of the report.
type reportRow struct {
	name, ours, stock string
	diffs             []difference
	why               []string
}

// summary is a backend's answers to a case, one line per step, for a table cell.
func summary(obs []*observation) string {
	var lines []string
	for _, o := range obs {
		line := fmt.Sprintf("%s: %d", o.step, o.code)
		if o.message != "" {
			msg := o.message
			if len(msg) > 200 {
				msg = msg[:200] + "…"
			}
			line += fmt.Sprintf(" (%s)", msg)
		}
		if o.stored != nil {
			line += fmt.Sprintf(", gen %d, `%s`", o.generation, content(o.stored))
		} else {
			line += ", nothing stored"
		}
		if n := len(o.warnings); n > 0 {
			line += fmt.Sprintf(", %d warning(s)", n)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "<br>")
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

func writeReport(path string, rows []reportRow, took time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Field gates on a stock kube-apiserver: ours against stock+policies\n\n")
	fmt.Fprintf(&b, "`make test-stock-policies` (test/stockpolicies): %d cases, each run on our kube-apiserver (CRDFieldLevelVersioning on, the gated CRDs as they are) and on the stock kube-apiserver v1.37.1 with the output of `featuregate-gen policies` for the same CRDs (%s for both). Each step lists the HTTP status, the generation and the content of the object as stored after it, and the number of warnings; metadata noise (uid, resourceVersion, creationTimestamp, managedFields) is left out.\n\n", len(rows), took.Round(time.Second))
	same := 0
	for _, r := range rows {
		if len(r.diffs) == 0 {
			same++
		}
	}
	fmt.Fprintf(&b, "%d cases behave the same, %d differently.\n\n", same, len(rows)-same)
	b.WriteString("| case | ours | stock+policies | same/different | why |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		verdict := "same"
		if len(r.diffs) > 0 {
			verdict = "different"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(r.name), cell(r.ours), cell(r.stock), verdict, cell(strings.Join(r.why, "<br>")))
	}
	b.WriteString("\n## Every difference\n\n")
	for _, r := range rows {
		if len(r.diffs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n", r.name)
		for _, d := range r.diffs {
			fmt.Fprintf(&b, "- step %q, %s:\n  - ours: `%s`\n  - stock+policies: `%s`\n", d.step, d.aspect, d.ours, d.stock)
		}
		b.WriteString("\n")
	}
	if losslessLines != nil {
		b.WriteString("## Stored values are not lost\n\nObjects whose gated values were stored while every gate was on; then, with every gate off, an update, a merge patch, a JSON patch and a server-side apply (and writes to the status and scale subresources where the CRD has them) that would each remove or change every gated value; then every gate on again. After each write, and at the end, every value is read through the API and straight from etcd (`/registry/<group>/<resource>/<namespace>/<name>`).\n\n")
		for _, l := range losslessLines {
			b.WriteString("- " + l + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("## What featuregate-gen policies printed\n\nIts list of differences (the lines naming the files it wrote are left out):\n\n```\n")
	for _, line := range strings.Split(strings.TrimSpace(generatorOutput), "\n") {
		if !strings.HasSuffix(line, ": written") {
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("```\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
