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
)

func TestParseMetricLine(t *testing.T) {
	for _, tc := range []struct {
		line    string
		want    metricSample
		wantErr string
	}{
		{line: `up 1`, want: metricSample{name: "up", labels: map[string]string{}, value: 1}},
		{line: `up 1 1700000000000`, want: metricSample{name: "up", labels: map[string]string{}, value: 1}},
		{line: `x_sum{name="MutatingAdmissionPolicy",operation="CREATE"} 0.25`,
			want: metricSample{name: "x_sum", labels: map[string]string{"name": "MutatingAdmissionPolicy", "operation": "CREATE"}, value: 0.25}},
		{line: `x_bucket{le="+Inf"} 7`, want: metricSample{name: "x_bucket", labels: map[string]string{"le": "+Inf"}, value: 7}},
		{line: `x{a="1",} 2e-06`, want: metricSample{name: "x", labels: map[string]string{"a": "1"}, value: 2e-06}},
		{line: `x{a="q\"uo,te}",b="back\\slash",c="new\nline"} 3`,
			want: metricSample{name: "x", labels: map[string]string{"a": `q"uo,te}`, "b": `back\slash`, "c": "new\nline"}, value: 3}},
		{line: `x{} +Inf`, want: metricSample{name: "x", labels: map[string]string{}, value: math.Inf(1)}},
		{line: `x`, wantErr: "no value"},
		{line: `x{a="1"`, wantErr: "unterminated labels"},
		{line: `x{a="1} 2`, wantErr: "unterminated label value"},
		{line: `x{a=1} 2`, wantErr: "bad label"},
		{line: `x{a="1"} two`, wantErr: "invalid syntax"},
		{line: `x 1 2 3`, wantErr: "want a value"},
	} {
		got, err := parseMetricLine(tc.line)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseMetricLine(%q): error %v, want one with %q", tc.line, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseMetricLine(%q): %v", tc.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseMetricLine(%q) = %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

// A /metrics excerpt as the stock kube-apiserver v1.37.1 serves it.
const metricsExcerpt = `# HELP apiserver_admission_controller_admission_duration_seconds [STABLE] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).
# TYPE apiserver_admission_controller_admission_duration_seconds histogram
apiserver_admission_controller_admission_duration_seconds_bucket{name="MutatingAdmissionPolicy",operation="CREATE",rejected="false",type="admit",le="0.005"} 90
apiserver_admission_controller_admission_duration_seconds_sum{name="MutatingAdmissionPolicy",operation="CREATE",rejected="false",type="admit"} 0.5
apiserver_admission_controller_admission_duration_seconds_count{name="MutatingAdmissionPolicy",operation="CREATE",rejected="false",type="admit"} 100
apiserver_admission_controller_admission_duration_seconds_sum{name="MutatingAdmissionPolicy",operation="UPDATE",rejected="false",type="admit"} 1.5
apiserver_admission_controller_admission_duration_seconds_count{name="MutatingAdmissionPolicy",operation="UPDATE",rejected="false",type="admit"} 300
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 0.01
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 100
apiserver_admission_controller_admission_duration_seconds_sum{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="admit"} 9
apiserver_admission_controller_admission_duration_seconds_count{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="admit"} 100
# HELP apiserver_mutating_admission_policy_check_duration_seconds [ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.
# TYPE apiserver_mutating_admission_policy_check_duration_seconds histogram
apiserver_mutating_admission_policy_check_duration_seconds_bucket{error_type="no_error",policy="featuregates.a",policy_binding="featuregates.a",le="+Inf"} 800
apiserver_mutating_admission_policy_check_duration_seconds_sum{error_type="no_error",policy="featuregates.a",policy_binding="featuregates.a"} 1.75
apiserver_mutating_admission_policy_check_duration_seconds_count{error_type="no_error",policy="featuregates.a",policy_binding="featuregates.a"} 800
apiserver_mutating_admission_policy_check_duration_seconds_sum{error_type="invalid_error",policy="featuregates.a",policy_binding="featuregates.a"} 0.25
apiserver_mutating_admission_policy_check_duration_seconds_count{error_type="invalid_error",policy="featuregates.a",policy_binding="featuregates.a"} 2
apiserver_validating_admission_policy_check_duration_seconds_sum{enforcement_action="deny",error_type="no_error",policy="p",policy_binding="p"} 0.003
apiserver_validating_admission_policy_check_duration_seconds_count{enforcement_action="deny",error_type="no_error",policy="p",policy_binding="p"} 3
`

func TestAdmissionFrom(t *testing.T) {
	samples, err := parseMetrics([]byte(metricsExcerpt))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 16 {
		t.Errorf("%d samples, want 16 (comment lines skipped)", len(samples))
	}
	got := admissionFrom(samples)
	want := admissionMetrics{
		mapPlugin: histogram{sum: 2, count: 400},
		vapPlugin: histogram{sum: 0.01, count: 100},
		mapCheck:  histogram{sum: 2, count: 802},
		vapCheck:  histogram{sum: 0.003, count: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("admissionFrom = %+v, want %+v", got, want)
	}
	if got := admissionFrom(nil); got != (admissionMetrics{}) {
		t.Errorf("admissionFrom(nil) = %+v, want zero", got)
	}
	if _, err := parseMetrics([]byte("ok 1\nbroken{ 2\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("parseMetrics of a broken line: error %v, want one naming line 2", err)
	}
}

func TestSumMetric(t *testing.T) {
	samples, err := parseMetrics([]byte(metricsExcerpt))
	if err != nil {
		t.Fatal(err)
	}
	const name = metricAdmissionController + "_count"
	for _, tc := range []struct {
		match map[string]string
		want  float64
	}{
		{match: nil, want: 600},
		{match: map[string]string{"name": pluginMAP}, want: 400},
		{match: map[string]string{"name": pluginMAP, "operation": "UPDATE"}, want: 300},
		{match: map[string]string{"name": pluginVAP, "type": "admit"}, want: 0},
		{match: map[string]string{"nolabel": ""}, want: 600}, // a missing label reads as ""
		{match: map[string]string{"name": "Nothing"}, want: 0},
	} {
		if got := sumMetric(samples, name, tc.match); got != tc.want {
			t.Errorf("sumMetric(%v) = %v, want %v", tc.match, got, tc.want)
		}
	}
}

func TestAdmissionMinusAndPerWrite(t *testing.T) {
	before := admissionMetrics{mapPlugin: histogram{1, 10}, vapPlugin: histogram{0.5, 10}, mapCheck: histogram{2, 100}, vapCheck: histogram{0, 0}}
	after := admissionMetrics{mapPlugin: histogram{3, 210}, vapPlugin: histogram{0.75, 210}, mapCheck: histogram{4.5, 1100}, vapCheck: histogram{0.001, 1}}
	d := after.minus(before)
	want := admissionMetrics{mapPlugin: histogram{2, 200}, vapPlugin: histogram{0.25, 200}, mapCheck: histogram{2.5, 1000}, vapCheck: histogram{0.001, 1}}
	if d != want {
		t.Errorf("minus = %+v, want %+v", d, want)
	}
	for _, tc := range []struct {
		seconds float64
		writes  int
		want    string
	}{
		{2, 200, "10000µs"},
		{0.0004, 1000, "0µs"},
		{0.0016, 1000, "2µs"},
		{0, 100, "0µs"},
		{1, 0, "n/a"},
	} {
		if got := perWrite(tc.seconds, tc.writes); got != tc.want {
			t.Errorf("perWrite(%v, %d) = %q, want %q", tc.seconds, tc.writes, got, tc.want)
		}
	}
	for _, tc := range []struct {
		count  float64
		writes int
		want   string
	}{
		{1000, 200, "5.0"},
		{101, 100, "1.0"},
		{1, 0, "n/a"},
	} {
		if got := countPerWrite(tc.count, tc.writes); got != tc.want {
			t.Errorf("countPerWrite(%v, %d) = %q, want %q", tc.count, tc.writes, got, tc.want)
		}
	}
}
