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
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The kube-apiserver metrics (k8s.io/apiserver v0.37.1) that show what the admission
// policies cost. All are histograms in seconds; a run reads the change of their _sum and
// _count over the measured writes.
const (
	// The plugin's whole admission call for one request, every policy included, labeled
	// name (the plugin), type (admit or validate), operation and rejected
	// (pkg/admission/metrics: apiserver_admission_controller_admission_duration_seconds).
	metricAdmissionController = "apiserver_admission_controller_admission_duration_seconds"
	// One observation per mutation of a MutatingAdmissionPolicy that ran, labeled policy,
	// policy_binding and error_type (pkg/admission/plugin/policy/mutating/metrics).
	metricMAPCheck = "apiserver_mutating_admission_policy_check_duration_seconds"
	// One observation per validation of a ValidatingAdmissionPolicy that denied, warned,
	// audited or failed to evaluate; a validation that passes is not observed
	// (pkg/admission/plugin/policy/validating/dispatcher.go).
	metricVAPCheck = "apiserver_validating_admission_policy_check_duration_seconds"

	pluginMAP = "MutatingAdmissionPolicy"
	pluginVAP = "ValidatingAdmissionPolicy"
)

// metricSample is one line of the Prometheus text format.
type metricSample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseMetrics reads the Prometheus text exposition format (what /metrics serves): comment
// lines are skipped, a timestamp after the value is ignored. A line it cannot read is an
// error that names it.
func parseMetrics(data []byte) ([]metricSample, error) {
	var out []metricSample
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseMetricLine(line)
		if err != nil {
			return nil, fmt.Errorf("metrics line %d %q: %w", n, line, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseMetricLine(line string) (metricSample, error) {
	s := metricSample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ \t")
	if i <= 0 {
		return s, fmt.Errorf("no value")
	}
	s.name, line = line[:i], line[i:]
	if line[0] == '{' {
		line = line[1:]
		for {
			line = strings.TrimLeft(line, " \t,")
			if line == "" {
				return s, fmt.Errorf("unterminated labels")
			}
			if line[0] == '}' {
				line = line[1:]
				break
			}
			eq := strings.IndexByte(line, '=')
			if eq <= 0 || len(line) < eq+2 || line[eq+1] != '"' {
				return s, fmt.Errorf("bad label")
			}
			key := strings.TrimSpace(line[:eq])
			line = line[eq+2:]
			var v strings.Builder
			closed := false
			for j := 0; j < len(line); j++ {
				c := line[j]
				if c == '\\' && j+1 < len(line) {
					j++
					switch line[j] {
					case 'n':
						v.WriteByte('\n')
					default:
						v.WriteByte(line[j])
					}
					continue
				}
				if c == '"' {
					line, closed = line[j+1:], true
					break
				}
				v.WriteByte(c)
			}
			if !closed {
				return s, fmt.Errorf("unterminated label value")
			}
			s.labels[key] = v.String()
		}
	}
	f := strings.Fields(line)
	if len(f) < 1 || len(f) > 2 {
		return s, fmt.Errorf("want a value and an optional timestamp")
	}
	v, err := parseMetricValue(f[0])
	if err != nil {
		return s, err
	}
	s.value = v
	return s, nil
}

func parseMetricValue(v string) (float64, error) {
	switch v {
	case "+Inf", "Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(v, 64)
}

// sumMetric adds up the samples called name whose labels include every pair of match.
func sumMetric(samples []metricSample, name string, match map[string]string) float64 {
	total := 0.0
	for _, s := range samples {
		if s.name != name {
			continue
		}
		ok := true
		for k, v := range match {
			if s.labels[k] != v {
				ok = false
				break
			}
		}
		if ok {
			total += s.value
		}
	}
	return total
}

// histogram is the _sum (seconds) and _count of a histogram, summed over label sets.
type histogram struct{ sum, count float64 }

func (h histogram) minus(o histogram) histogram {
	return histogram{sum: h.sum - o.sum, count: h.count - o.count}
}

func readHistogram(samples []metricSample, name string, match map[string]string) histogram {
	return histogram{sum: sumMetric(samples, name+"_sum", match), count: sumMetric(samples, name+"_count", match)}
}

// admissionMetrics are the policy figures of one /metrics scrape (or the change between two).
type admissionMetrics struct {
	// mapPlugin and vapPlugin: the MutatingAdmissionPolicy and ValidatingAdmissionPolicy
	// admission plugins, per request (every policy of the kind, and the plugin's own work).
	mapPlugin, vapPlugin histogram
	// mapCheck: per mutation that ran; vapCheck: per validation that did not pass.
	mapCheck, vapCheck histogram
}

func admissionFrom(samples []metricSample) admissionMetrics {
	return admissionMetrics{
		mapPlugin: readHistogram(samples, metricAdmissionController, map[string]string{"name": pluginMAP}),
		vapPlugin: readHistogram(samples, metricAdmissionController, map[string]string{"name": pluginVAP}),
		mapCheck:  readHistogram(samples, metricMAPCheck, nil),
		vapCheck:  readHistogram(samples, metricVAPCheck, nil),
	}
}

func (a admissionMetrics) minus(b admissionMetrics) admissionMetrics {
	return admissionMetrics{
		mapPlugin: a.mapPlugin.minus(b.mapPlugin),
		vapPlugin: a.vapPlugin.minus(b.vapPlugin),
		mapCheck:  a.mapCheck.minus(b.mapCheck),
		vapCheck:  a.vapCheck.minus(b.vapCheck),
	}
}

// perWrite formats seconds spent over writes as microseconds per write.
func perWrite(seconds float64, writes int) string {
	if writes <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0fµs", seconds/float64(writes)*1e6)
}

// countPerWrite formats a count of observations per write.
func countPerWrite(count float64, writes int) string {
	if writes <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", count/float64(writes))
}
