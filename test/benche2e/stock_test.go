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
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestBackendOrder(t *testing.T) {
	for _, tc := range []struct {
		round int
		want  []string
	}{
		{1, []string{backendUpstream, backendOurs, backendPolicies}},
		{2, []string{backendOurs, backendPolicies, backendUpstream}},
		{3, []string{backendPolicies, backendUpstream, backendOurs}},
		{4, []string{backendUpstream, backendOurs, backendPolicies}},
	} {
		if got := backendOrder(tc.round); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("backendOrder(%d) = %v, want %v", tc.round, got, tc.want)
		}
	}
}

func TestParseInts(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "0,5,50", want: []int{0, 5, 50}},
		{in: " 5 , 50 ", want: []int{5, 50}},
		{in: "", want: nil},
		{in: ",", want: nil},
		{in: "5,x", wantErr: true},
		{in: "5.5", wantErr: true},
	} {
		got, err := parseInts(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseInts(%q): error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseInts(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// cmpRun builds a result: writes writes in elapsed, the given p50, p99 and total CPU.
func cmpRun(round, gates int, backend string, writes int, elapsed, p50, p99, cpu time.Duration) compareResult {
	return compareResult{
		runResult: runResult{round: round, name: backend, writes: writes, elapsed: elapsed, p50: p50, p99: p99, cpu: cpu},
		gates:     gates, backend: backend, policy: "-",
	}
}

func TestRatiosVsUpstream(t *testing.T) {
	results := []compareResult{
		cmpRun(1, 5, backendUpstream, 1000, 10*time.Second, 40*time.Millisecond, 100*time.Millisecond, 10*time.Second),
		cmpRun(1, 5, backendOurs, 1000, 8*time.Second, 30*time.Millisecond, 150*time.Millisecond, 12*time.Second),
		cmpRun(1, 5, backendPolicies, 500, 20*time.Second, 80*time.Millisecond, 400*time.Millisecond, 25*time.Second),
		// Another gate count: compared with its own upstream, not the 5 gates' one.
		cmpRun(1, 50, backendUpstream, 1000, 5*time.Second, 20*time.Millisecond, 50*time.Millisecond, 5*time.Second),
		cmpRun(1, 50, backendOurs, 1000, 10*time.Second, 40*time.Millisecond, 50*time.Millisecond, 10*time.Second),
		// Round 2 has no upstream run.
		cmpRun(2, 5, backendOurs, 1000, 10*time.Second, 40*time.Millisecond, 100*time.Millisecond, 10*time.Second),
	}
	got := ratiosVsUpstream(results)
	want := []compareRatios{
		{throughput: 1, p50: 1, p99: 1, cpu: 1},
		{throughput: 1.25, p50: 0.75, p99: 1.5, cpu: 1.2},
		// 25 writes/s vs 100; CPU per write 50ms vs 10ms.
		{throughput: 0.25, p50: 2, p99: 4, cpu: 5},
		{throughput: 1, p50: 1, p99: 1, cpu: 1},
		{throughput: 0.5, p50: 2, p99: 1, cpu: 2},
		{throughput: math.NaN(), p50: math.NaN(), p99: math.NaN(), cpu: math.NaN()},
	}
	if len(got) != len(want) {
		t.Fatalf("%d ratios, want %d", len(got), len(want))
	}
	near := func(a, b float64) bool {
		if math.IsNaN(b) {
			return math.IsNaN(a)
		}
		return math.Abs(a-b) < 1e-9
	}
	for i := range want {
		g, w := got[i], want[i]
		if !near(g.throughput, w.throughput) || !near(g.p50, w.p50) || !near(g.p99, w.p99) || !near(g.cpu, w.cpu) {
			t.Errorf("result %d (%d gates, round %d, %s): ratios %+v, want %+v", i, results[i].gates, results[i].round, results[i].backend, g, w)
		}
	}
}

func TestCompareTables(t *testing.T) {
	up := cmpRun(1, 5, backendUpstream, 1000, 10*time.Second, 40*time.Millisecond, 100*time.Millisecond, 10*time.Second)
	pol := cmpRun(1, 5, backendPolicies, 1000, 20*time.Second, 80*time.Millisecond, 300*time.Millisecond, 30*time.Second)
	pol.policy = "MAP: 5 mutations, no VAP (Deny)"
	pol.warnings = 0
	pol.adm = admissionMetrics{mapPlugin: histogram{sum: 2, count: 1000}, vapPlugin: histogram{sum: 0.05, count: 1000}, mapCheck: histogram{sum: 1.5, count: 10000}}
	ours := cmpRun(1, 5, backendOurs, 1000, 10*time.Second, 40*time.Millisecond, 100*time.Millisecond, 10*time.Second)
	ours.warnings = 3000
	perfHeader, perf, costHeader, cost := compareTables([]compareResult{up, ours, pol})
	for _, rows := range [][][]string{perf, cost} {
		if len(rows) != 3 {
			t.Fatalf("%d rows, want 3", len(rows))
		}
	}
	for i, row := range perf {
		if len(row) != len(perfHeader) {
			t.Errorf("performance row %d has %d cells, header %d", i, len(row), len(perfHeader))
		}
	}
	for i, row := range cost {
		if len(row) != len(costHeader) {
			t.Errorf("cost row %d has %d cells, header %d", i, len(row), len(costHeader))
		}
	}
	wantPerf := [][]string{
		{"5", "1", "upstream", "100.0", "40.0ms", "100.0ms", "10.0ms", "0.0", "1.000", "1.000", "1.000", "1.000"},
		{"5", "1", "ours", "100.0", "40.0ms", "100.0ms", "10.0ms", "3.0", "1.000", "1.000", "1.000", "1.000"},
		{"5", "1", "stock+policies", "50.0", "80.0ms", "300.0ms", "30.0ms", "0.0", "0.500", "2.000", "3.000", "3.000"},
	}
	if !reflect.DeepEqual(perf, wantPerf) {
		t.Errorf("performance rows\n%v\nwant\n%v", perf, wantPerf)
	}
	wantCost := []string{"5", "1", "stock+policies", "MAP: 5 mutations, no VAP (Deny)", "2000µs", "50µs", "10.0", "1500µs", "0.0", "0µs"}
	if !reflect.DeepEqual(cost[2], wantCost) {
		t.Errorf("cost row of stock+policies %v, want %v", cost[2], wantCost)
	}
	// Without an upstream run the ratios say so.
	_, perf, _, _ = compareTables([]compareResult{ours})
	if got := perf[0][8:]; !reflect.DeepEqual(got, []string{"n/a", "n/a", "n/a", "n/a"}) {
		t.Errorf("ratios without upstream: %v, want n/a", got)
	}
}

func TestMedianRatios(t *testing.T) {
	var results []compareResult
	// Three rounds: ours writes 1x, 2x and 0.5x as fast as upstream; upstream 100 writes/s.
	for round, f := range []float64{1, 2, 0.5} {
		results = append(results,
			cmpRun(round+1, 5, backendUpstream, 1000, 10*time.Second, 40*time.Millisecond, 100*time.Millisecond, 10*time.Second),
			cmpRun(round+1, 5, backendOurs, 1000, time.Duration(float64(10*time.Second)/f), 40*time.Millisecond, 100*time.Millisecond, 10*time.Second))
	}
	header, rows := medianRatios(results)
	want := [][]string{
		{"5", "upstream", "3", "100.0", "1.000", "1.000", "1.000", "1.000"},
		{"5", "ours", "3", "100.0", "1.000", "1.000", "1.000", "1.000"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("median rows %v, want %v", rows, want)
	}
	for _, r := range rows {
		if len(r) != len(header) {
			t.Errorf("row %v has %d cells, header %d", r, len(r), len(header))
		}
	}
	// Only ours: no ratio.
	_, rows = medianRatios(results[1:2])
	if got := rows[0][4]; got != "n/a" {
		t.Errorf("median ratio without upstream = %q, want n/a", got)
	}
}

func TestStockForms(t *testing.T) {
	for _, tc := range []struct {
		gates         int
		wantPolicies  bool
		wantMutations int // one mutation applies every gated path
		wantKinds     []string
	}{
		{gates: 0},
		// The validating policy holds the last guard: one validation per gated path.
		{gates: 5, wantPolicies: true, wantMutations: 1,
			wantKinds: []string{"CustomResourceDefinition", "CustomResourceDefinition", policies.ParamKind, "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}},
		{gates: 50, wantPolicies: true, wantMutations: 1,
			wantKinds: []string{"CustomResourceDefinition", "CustomResourceDefinition", policies.ParamKind, "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}},
	} {
		s := shape{gates: tc.gates}
		f, err := stockFormsFor(s, namesFor(""))
		if err != nil {
			t.Fatalf("%d gates: %v", tc.gates, err)
		}
		if f.stock.Spec.CustomFeatureGates != nil {
			t.Errorf("%d gates: the stock CRD has gates", tc.gates)
		}
		if got := f.gated.Spec.CustomFeatureGates; (got != nil) != (tc.gates > 0) {
			t.Errorf("%d gates: the gated CRD's gates: %v", tc.gates, got)
		}
		if (f.res != nil) != tc.wantPolicies {
			t.Fatalf("%d gates: policies generated: %v, want %v", tc.gates, f.res != nil, tc.wantPolicies)
		}
		desc := describePolicies(f.res)
		if !tc.wantPolicies {
			if desc != "no policy (0 gates)" {
				t.Errorf("0 gates: describePolicies = %q", desc)
			}
			if f.stock != f.gated {
				t.Errorf("0 gates: the stock CRD is not the plain CRD")
			}
			continue
		}
		if n := len(f.res.Mutating.Spec.Mutations); n != tc.wantMutations {
			t.Errorf("%d gates: %d mutations, want %d", tc.gates, n, tc.wantMutations)
		}
		if !strings.HasPrefix(desc, "MAP: ") {
			t.Errorf("%d gates: describePolicies = %q", tc.gates, desc)
		}
		// The manifests in the order they are applied: what applyManifests gets.
		objs, err := decodeManifests(f.paramCRD, f.crdManifest, f.policiesYAML)
		if err != nil {
			t.Fatalf("%d gates: %v", tc.gates, err)
		}
		var kinds []string
		for _, o := range objs {
			kinds = append(kinds, o.GetKind())
		}
		if !reflect.DeepEqual(kinds, tc.wantKinds) {
			t.Errorf("%d gates: manifest kinds %v, want %v", tc.gates, kinds, tc.wantKinds)
		}
		if objs[1].GetName() != namesFor("").crdName() || objs[2].GetName() != namesFor("").crdName() {
			t.Errorf("%d gates: the stock CRD and the parameter object are called %s and %s, want %s", tc.gates, objs[1].GetName(), objs[2].GetName(), namesFor("").crdName())
		}
		// The parameter object carries every gate with its state as the CRD declares it.
		gates, _, _ := unstructured.NestedSlice(objs[2].Object, "spec", "featureGates")
		if len(gates) != tc.gates {
			t.Errorf("%d gates: the parameter object has %d gates", tc.gates, len(gates))
		}
	}
}

func TestDescribePolicies(t *testing.T) {
	mut := &admissionregistrationv1.MutatingAdmissionPolicy{Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{Mutations: make([]admissionregistrationv1.Mutation, 3)}}
	vap := func(n int) *admissionregistrationv1.ValidatingAdmissionPolicy {
		return &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{Validations: make([]admissionregistrationv1.Validation, n)}}
	}
	for _, tc := range []struct {
		res  *policies.Result
		want string
	}{
		{res: nil, want: "no policy (0 gates)"},
		{res: &policies.Result{Mutating: mut}, want: "MAP: 3 mutations, no VAP (Deny)"},
		{res: &policies.Result{Mutating: mut, Validating: vap(2), Warnings: vap(1)}, want: "MAP: 3 mutations, VAP (Deny): 2 validations, VAP (Warn): 1 validations"},
		{res: &policies.Result{Validating: vap(4)}, want: "no MAP, VAP (Deny): 4 validations"},
	} {
		if got := describePolicies(tc.res); got != tc.want {
			t.Errorf("describePolicies = %q, want %q", got, tc.want)
		}
	}
}

func TestDecodeManifests(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{name: "comments and separators", in: "# only a comment\n---\napiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: b\n", want: []string{"A/a", "B/b"}},
		{name: "empty", in: "", want: nil},
		{name: "no kind", in: "apiVersion: v1\nmetadata:\n  name: a\n", wantErr: "without kind or name"},
		{name: "no name", in: "apiVersion: v1\nkind: A\n", wantErr: "without kind or name"},
	} {
		objs, err := decodeManifests([]byte(tc.in))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got []string
		for _, o := range objs {
			got = append(got, o.GetKind()+"/"+o.GetName())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
