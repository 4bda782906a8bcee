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

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func strategyLines(b, c string) string {
	return strings.Join([]string{
		"goos: linux",
		"BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 1000 ns/op\t 5000 object-bytes\t 0 B/op\t 0 allocs/op",
		"BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 3000 ns/op\t 5000 object-bytes\t 0 B/op\t 0 allocs/op",
		"BenchmarkFieldGatesStrategy/PrepareForCreate/b-50-gates-all-enabled-2 \t 2000\t " + b + " ns/op\t 5000 object-bytes\t 0 B/op\t 0 allocs/op",
		"BenchmarkFieldGatesStrategy/PrepareForCreate/c-50-gates-half-disabled-absent-2 \t 2000\t " + c + " ns/op\t 5000 object-bytes\t 0 B/op\t 0 allocs/op",
		"PASS",
	}, "\n")
}

// TestReportTwoVersions checks the goal of setup (e): the hook less one conversion is at
// most twice (d)'s budget over (a), 10 µs on the reference machine, scaled on a slower one.
func TestReportTwoVersions(t *testing.T) {
	lines := func(e, upstreamUpdate string) string {
		return strings.Join([]string{
			"BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 1000 ns/op\t 0 B/op\t 0 allocs/op",
			"BenchmarkFieldGatesStrategy/PrepareForUpdate/a-upstream-no-gates-2 \t 2000\t " + upstreamUpdate + " ns/op\t 0 B/op\t 0 allocs/op",
			"BenchmarkFieldGatesStrategy/Hook/a-upstream-no-gates-2 \t 2000\t 30 ns/op\t 0 B/op\t 0 allocs/op",
			"BenchmarkFieldGatesStrategy/Hook/d-50-gates-half-disabled-present-2 \t 2000\t 4030 ns/op\t 120 B/op\t 6 allocs/op",
			"BenchmarkFieldGatesStrategy/Hook/e-2-versions-marks-half-disabled-present-2 \t 2000\t " + e + " ns/op\t 53536 B/op\t 349 allocs/op",
			"BenchmarkFieldGatesConvert-2 \t 2000\t 30000 ns/op\t 27011 B/op\t 172 allocs/op",
		}, "\n")
	}
	for _, tc := range []struct {
		e, upstreamUpdate string
		wantMissed        int
	}{
		{e: "40030", upstreamUpdate: "34600", wantMissed: 0}, // 10 µs of its own: 2 x 5 µs
		{e: "40100", upstreamUpdate: "34600", wantMissed: 1},
		{e: "50030", upstreamUpdate: "69200", wantMissed: 0}, // a machine twice as slow: 2 x 10 µs
		{e: "50100", upstreamUpdate: "69200", wantMissed: 1},
	} {
		runs, _, err := parse(strings.NewReader(lines(tc.e, tc.upstreamUpdate)))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if missed := report(&out, runs, 1); missed != tc.wantMissed {
			t.Errorf("e = %s ns: %d goals missed, want %d\n%s", tc.e, missed, tc.wantMissed, out.String())
		}
		if !strings.Contains(out.String(), "less 1 conversion measured apart (30.0 µs): ") {
			t.Errorf("e = %s ns: the (e) goal is not reported:\n%s", tc.e, out.String())
		}
	}
}

// TestReportTwoVersionsOwnConversions checks that where the hook of (e) reports the time its own
// operations spent converting (conversion-ns/op), that time is what the goal subtracts, not
// the conversion measured apart.
func TestReportTwoVersionsOwnConversions(t *testing.T) {
	for _, tc := range []struct {
		e, conv    string
		wantMissed int
	}{
		{e: "40030", conv: "30000", wantMissed: 0}, // 10 µs of its own: 2 x 5 µs
		{e: "40030", conv: "29000", wantMissed: 1}, // 11 µs of its own, although apart it is 10 µs
		{e: "45030", conv: "35000", wantMissed: 0}, // 10 µs of its own, although apart it is 15 µs
	} {
		input := strings.Join([]string{
			"BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 1000 ns/op\t 0 B/op\t 0 allocs/op",
			"BenchmarkFieldGatesStrategy/PrepareForUpdate/a-upstream-no-gates-2 \t 2000\t 34600 ns/op\t 0 B/op\t 0 allocs/op",
			"BenchmarkFieldGatesStrategy/Hook/a-upstream-no-gates-2 \t 2000\t 30 ns/op\t 0 B/op\t 0 allocs/op",
			"BenchmarkFieldGatesStrategy/Hook/d-50-gates-half-disabled-present-2 \t 2000\t 4030 ns/op\t 120 B/op\t 6 allocs/op",
			"BenchmarkFieldGatesStrategy/Hook/e-2-versions-marks-half-disabled-present-2 \t 2000\t " + tc.e + " ns/op\t " + tc.conv + " conversion-ns/op\t 53536 B/op\t 349 allocs/op",
			"BenchmarkFieldGatesConvert-2 \t 2000\t 30000 ns/op\t 27011 B/op\t 172 allocs/op",
		}, "\n")
		runs, _, err := parse(strings.NewReader(input))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if missed := report(&out, runs, 1); missed != tc.wantMissed {
			t.Errorf("e = %s ns, conversions %s ns: %d goals missed, want %d\n%s", tc.e, tc.conv, missed, tc.wantMissed, out.String())
		}
		if want := "less its own conversions (" + strings.TrimSuffix(tc.conv, "000") + ".0 µs): "; !strings.Contains(out.String(), want) {
			t.Errorf("e = %s ns: %q is not in the report:\n%s", tc.e, want, out.String())
		}
	}
}

func TestReport(t *testing.T) {
	for _, tc := range []struct {
		name       string
		input      string
		wantMissed int
		wantLines  []string
	}{
		{
			name:       "goals met; medians of two runs of (a)",
			input:      strategyLines("2010", "6000"),
			wantMissed: 0,
			wantLines: []string{
				"| PrepareForCreate | a-upstream-no-gates | 2000 | 0 | 0 | 1.000 | +0.00 µs | +0 |  |",
				"| PrepareForCreate | b-50-gates-all-enabled | 2010 | 0 | 0 | 1.005 | +0.01 µs | +0 | within 2% (baseline spread 100.0%), 0 extra allocs: met |",
				"| PrepareForCreate | c-50-gates-half-disabled-absent | 6000 | 0 | 0 | 3.000 | +4.00 µs | +0 | at most +5.00 µs: met |",
			},
		},
		{
			name:       "(b) 3x slower, beyond the baseline's spread, and (c) 6 µs more: both missed",
			input:      strategyLines("6000", "8000"),
			wantMissed: 2,
			wantLines:  []string{"0 extra allocs: MISSED", "at most +5.00 µs: MISSED"},
		},
		{
			name: "a machine twice as slow as the reference one: 8 µs more is within the scaled 10 µs",
			input: "BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 1000 ns/op\t 0 B/op\t 0 allocs/op\n" +
				"BenchmarkFieldGatesStrategy/PrepareForUpdate/a-upstream-no-gates-2 \t 2000\t 69200 ns/op\t 0 B/op\t 0 allocs/op\n" +
				"BenchmarkFieldGatesStrategy/PrepareForUpdate/d-50-gates-half-disabled-present-2 \t 2000\t 77200 ns/op\t 0 B/op\t 0 allocs/op\n",
			wantMissed: 0,
			wantLines: []string{"69.2 µs in this run, 2.00 x its 34.6 µs on the reference machine",
				"| PrepareForUpdate | d-50-gates-half-disabled-present | 77200 | 0 | 0 | 1.116 | +8.00 µs | +0 | at most +10.00 µs: met |"},
		},
		{
			name: "as fast as the reference machine or faster: the budget stays 5 µs",
			input: "BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 1000 ns/op\t 0 B/op\t 0 allocs/op\n" +
				"BenchmarkFieldGatesStrategy/PrepareForUpdate/a-upstream-no-gates-2 \t 2000\t 20000 ns/op\t 0 B/op\t 0 allocs/op\n" +
				"BenchmarkFieldGatesStrategy/PrepareForUpdate/d-50-gates-half-disabled-present-2 \t 2000\t 28000 ns/op\t 0 B/op\t 0 allocs/op\n",
			wantMissed: 1,
			wantLines:  []string{"+8.00 µs | +0 | at most +5.00 µs: MISSED"},
		},
		{
			name: "CEL rules: (b) within 5% of (a) is met",
			input: "BenchmarkFieldGatesCELRules/a-upstream-rules-2 \t 3000\t 70000 ns/op\t 100 B/op\t 10 allocs/op\n" +
				"BenchmarkFieldGatesCELRules/b-50-gates-disabled-2 \t 3000\t 73000 ns/op\t 110 B/op\t 11 allocs/op\n" +
				"BenchmarkFieldGatesCELRules/c-50-gates-enabled-2 \t 3000\t 40000 ns/op\t 90 B/op\t 9 allocs/op\n",
			wantMissed: 0,
			wantLines:  []string{"| b-50-gates-disabled | 73000 | 110 | 11 | 1.043 | at most 1.05: met |", "| c-50-gates-enabled | 40000 | 90 | 9 | 0.571 |  |"},
		},
		{
			name: "CEL rules: (b) 10% slower than (a) is missed",
			input: "BenchmarkFieldGatesCELRules/a-upstream-rules-2 \t 3000\t 70000 ns/op\t 100 B/op\t 10 allocs/op\n" +
				"BenchmarkFieldGatesCELRules/b-50-gates-disabled-2 \t 3000\t 77000 ns/op\t 110 B/op\t 11 allocs/op\n",
			wantMissed: 1,
			wantLines:  []string{"at most 1.05: MISSED"},
		},
		{
			name: "validation over 50 ms",
			input: "BenchmarkValidateCustomFeatureGates/paths=512-2 \t 20\t 1000000 ns/op\t 1953 ns/path\n" +
				"BenchmarkValidateCustomFeatureGates/paths=8192-2 \t 20\t 60000000 ns/op\t 7324 ns/path\n",
			wantMissed: 1,
			wantLines:  []string{"128 gates x 64 paths: 60.0 ms, goal well under 50.0 ms: MISSED"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs, _, err := parse(strings.NewReader(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if missed := report(&out, runs, 2); missed != tc.wantMissed {
				t.Errorf("missed %d goals, want %d; report:\n%s", missed, tc.wantMissed, out.String())
			}
			for _, line := range tc.wantLines {
				if !strings.Contains(out.String(), line) {
					t.Errorf("report lacks %q; report:\n%s", line, out.String())
				}
			}
		})
	}
}

func TestParseRejectsGarbledValues(t *testing.T) {
	if _, _, err := parse(strings.NewReader("BenchmarkX-2 \t 10\t abc ns/op\n")); err == nil {
		t.Error("want an error for a value that is not a number")
	}
}

// With a steady baseline (no spread), 5% slower than it is beyond the 2% goal.
func TestReportSteadyBaseline(t *testing.T) {
	input := strings.Join([]string{
		"BenchmarkFieldGatesStrategy/Hook/a-upstream-no-gates-2 \t 2000\t 2000 ns/op\t 0 B/op\t 10 allocs/op",
		"BenchmarkFieldGatesStrategy/Hook/a-upstream-no-gates-2 \t 2000\t 2000 ns/op\t 0 B/op\t 10 allocs/op",
		"BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 2000 ns/op\t 0 B/op\t 10 allocs/op",
		"BenchmarkFieldGatesStrategy/PrepareForCreate/a-upstream-no-gates-2 \t 2000\t 2000 ns/op\t 0 B/op\t 10 allocs/op",
		"BenchmarkFieldGatesStrategy/PrepareForCreate/b-50-gates-all-enabled-2 \t 2000\t 2100 ns/op\t 0 B/op\t 10 allocs/op",
		"BenchmarkFieldGatesStrategy/Hook/b-50-gates-all-enabled-2 \t 2000\t 2000 ns/op\t 0 B/op\t 11 allocs/op",
	}, "\n")
	runs, _, err := parse(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if missed := report(&out, runs, 2); missed != 2 {
		t.Errorf("missed %d goals, want 2 (time of PrepareForCreate, allocs of Hook); report:\n%s", missed, out.String())
	}
}

// The OpenShift setup gets the strategy goal of (c) and (d): at most 5 µs over (a).
func TestReportOpenShift(t *testing.T) {
	for _, tc := range []struct {
		b          string
		wantMissed int
	}{
		{b: "5700", wantMissed: 0},
		{b: "5800", wantMissed: 1},
	} {
		runs, _, err := parse(strings.NewReader(strings.Join([]string{
			"BenchmarkFieldGatesOpenShift/PrepareForCreate/a-upstream-no-gates-2 \t 3000\t 700 ns/op\t 0 B/op\t 0 allocs/op",
			"BenchmarkFieldGatesOpenShift/PrepareForCreate/b-openshift-half-disabled-2 \t 3000\t " + tc.b + " ns/op\t 440 B/op\t 17 allocs/op",
			"BenchmarkFieldGatesOpenShift/PrepareForUpdate/a-upstream-no-gates-2 \t 3000\t 80000 ns/op\t 8178 B/op\t 341 allocs/op",
			"BenchmarkFieldGatesOpenShift/PrepareForUpdate/b-openshift-half-disabled-2 \t 3000\t 81000 ns/op\t 8632 B/op\t 361 allocs/op",
		}, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if missed := report(&out, runs, 1); missed != tc.wantMissed || !strings.Contains(out.String(), "OpenShift: the largest merged config.openshift.io CRD") {
			t.Errorf("b = %s ns: %d goals missed, want %d\n%s", tc.b, missed, tc.wantMissed, out.String())
		}
	}
}
