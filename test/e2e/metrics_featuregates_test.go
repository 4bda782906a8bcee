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

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
)

const (
	gateEnabledMetric = "apiextensions_custom_feature_gate_enabled"
	fieldDropsMetric  = "apiextensions_custom_feature_gate_field_drops_total"
	// fieldGatesAuditAnnotation is the audit annotation of a write that a gate changed.
	fieldGatesAuditAnnotation = "apiextensions.k8s.io/field-gates"
)

var metricLabel = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"`)

// series is one sample of the text exposition format.
type series struct {
	labels map[string]string
	value  float64
}

// scrape reads kube-apiserver's /metrics through kubectl and returns the samples of the
// metric name whose labels include match.
func scrape(t *testing.T, name string, match map[string]string) []series {
	t.Helper()
	r := mustKubectl(t, "", "get", "--raw", "/metrics")
	var out []series
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name+"{")
		if !ok {
			continue
		}
		end := strings.LastIndex(rest, "}")
		if end < 0 {
			continue
		}
		s := series{labels: map[string]string{}}
		for _, m := range metricLabel.FindAllStringSubmatch(rest[:end], -1) {
			s.labels[m[1]] = m[2]
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[end+1:]), 64)
		if err != nil {
			t.Fatalf("cannot parse %q: %v", line, err)
		}
		s.value = v
		matches := true
		for k, want := range match {
			matches = matches && s.labels[k] == want
		}
		if matches {
			out = append(out, s)
		}
	}
	return out
}

// render prints samples as name=value sorted by their label values, for comparisons.
func render(ss []series, label string) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("%s=%g", s.labels[label], s.value))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// waitForMetric waits until render(scrape(name, match), label) equals want.
func waitForMetric(t *testing.T, name string, match map[string]string, label, want string) {
	t.Helper()
	var got string
	deadline := time.Now().Add(30 * time.Second)
	for {
		got = render(scrape(t, name, match), label)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%v: got %q, want %q", name, match, got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestMetricsFieldGates follows the gauge and the drop counter of one CRD through its life:
// the series appear with the CRD, follow a flip and a stage change, count the writes that
// lost a value (and not dry runs), and disappear with the CRD.
func TestMetricsFieldGates(t *testing.T) {
	crd := crontabCRD("metrictabs", `    - name: ReplicasFeatureGate
      preRelease: alpha
      fieldPaths: [.spec.replicas]
    - name: ImageFeatureGate
      preRelease: beta
      fieldPaths: [.spec.image]
`)
	applyCRD(t, crd)
	t.Cleanup(func() { kubectl(t, "", "delete", "crd", "metrictabs.e2e.example.com", "--ignore-not-found") })
	ours := map[string]string{"group": "e2e.example.com", "resource": "metrictabs"}
	stageOf := func(stage string) map[string]string {
		return map[string]string{"group": "e2e.example.com", "resource": "metrictabs", "stage": stage}
	}

	// One series per gate, 1 when enabled.
	waitForMetric(t, gateEnabledMetric, ours, "name", "ImageFeatureGate=1,ReplicasFeatureGate=0")
	waitForMetric(t, gateEnabledMetric, stageOf("alpha"), "name", "ReplicasFeatureGate=0")
	waitForMetric(t, gateEnabledMetric, stageOf("beta"), "name", "ImageFeatureGate=1")
	if got := render(scrape(t, fieldDropsMetric, ours), "operation"); got != "" {
		t.Fatalf("drop counter before any write: %s", got)
	}

	// A create drops .spec.replicas: counted once, as a create. A dry run is not counted.
	drops := map[string]string{"group": "e2e.example.com", "resource": "metrictabs", "name": "ReplicasFeatureGate"}
	mustKubectl(t, crontab("metrictabs", "dry", 1), "create", "--dry-run=server", "-f", "-")
	r := mustKubectl(t, crontab("metrictabs", "one", 3), "create", "-f", "-")
	if w := featuregatetest.KubectlWarnings(r.stderr); len(w) != 1 {
		t.Errorf("warnings of the create: %q", w)
	}
	waitForMetric(t, fieldDropsMetric, drops, "operation", "create=1")
	// An update that sets it again: counted as an update.
	mustKubectl(t, "", "patch", "metrictabs", "one", "--type", "merge", "--patch", `{"spec":{"replicas":4}}`)
	waitForMetric(t, fieldDropsMetric, drops, "operation", "create=1,update=1")
	// An update that does not touch it: not counted.
	mustKubectl(t, "", "patch", "metrictabs", "one", "--type", "merge", "--patch", `{"spec":{"image":"other"}}`)
	if got := render(scrape(t, fieldDropsMetric, drops), "operation"); got != "create=1,update=1" {
		t.Errorf("drop counter after an update of a live field: %s", got)
	}

	// The admin enables the gate: the value follows.
	mustKubectl(t, "", "patch", "crd", "metrictabs.e2e.example.com", "--type", "json", "--patch",
		`[{"op": "add", "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": true}]`)
	waitForMetric(t, gateEnabledMetric, ours, "name", "ImageFeatureGate=1,ReplicasFeatureGate=1")

	// The author moves the gate to beta (the admin's enabled: false still wins): the alpha
	// series goes away, a beta one takes its place.
	mustKubectl(t, "", "patch", "crd", "metrictabs.e2e.example.com", "--type", "json", "--patch",
		`[{"op": "replace", "path": "/spec/customFeatureGates/featureGates/0/preRelease", "value": "beta"},
		  {"op": "replace", "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": false}]`)
	waitForMetric(t, gateEnabledMetric, stageOf("beta"), "name", "ImageFeatureGate=1,ReplicasFeatureGate=0")
	waitForMetric(t, gateEnabledMetric, stageOf("alpha"), "name", "")

	// The CRD goes away: so do all its series, the counter's too.
	mustKubectl(t, "", "delete", "crd", "metrictabs.e2e.example.com", "--wait=true", "--timeout=60s")
	waitForMetric(t, gateEnabledMetric, ours, "name", "")
	waitForMetric(t, fieldDropsMetric, ours, "name", "")
}

// TestAuditFieldGates starts a control plane with an audit policy and log, and checks the
// audit annotation of writes that a disabled gate changed: a create whose value was dropped,
// and an update whose change was not applied. Writes that lost nothing carry none.
func TestAuditFieldGates(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "audit-policy.yaml")
	auditLog := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(policy, []byte(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  resources:
  - group: e2e.example.com
- level: None
`), 0o600); err != nil {
		t.Fatal(err)
	}
	ports, err := featuregatetest.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := localup.Start(context.Background(), localup.Options{
		Dir: dir, BinDir: binDir,
		EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2],
		FeatureGates:       "CRDFieldLevelVersioning=true",
		ExtraAPIServerArgs: []string{"--audit-policy-file=" + policy, "--audit-log-path=" + auditLog},
	})
	if err != nil {
		t.Fatalf("cannot start the control plane: %v", err)
	}
	t.Cleanup(cp.Stop)
	k := func(stdin string, args ...string) string {
		t.Helper()
		return kubectlAt(t, cp.Kubeconfig, stdin, args...)
	}

	crd := crontabCRD("audittabs", `    - name: ReplicasFeatureGate
      preRelease: alpha
      enabled: true
      fieldPaths: [.spec.replicas]
`)
	k(crd, "apply", "-f", "-")
	k("", "wait", "--for=condition=Established", "--timeout=30s", "crd/audittabs.e2e.example.com")
	// Stored while the gate is enabled.
	k(crontab("audittabs", "kept", 3), "create", "-f", "-")
	k("", "patch", "crd", "audittabs.e2e.example.com", "--type", "json", "--patch",
		`[{"op": "replace", "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": false}]`)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(kubectlResult(t, cp.Kubeconfig, crontab("audittabs", "probe", 1), "create", "--dry-run=server", "-o", "json", "-f", "-").stderr, "was dropped") {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the gate to be disabled")
		}
		time.Sleep(200 * time.Millisecond)
	}

	k(crontab("audittabs", "dropped", 3), "create", "-f", "-")
	k("", "patch", "audittabs", "kept", "--type", "merge", "--patch", `{"spec":{"replicas":5}}`)
	k("", "patch", "audittabs", "kept", "--type", "merge", "--patch", `{"spec":{"image":"other"}}`)

	type want struct {
		verb, name, annotation string // annotation "": none
	}
	wants := []want{
		{verb: "create", name: "dropped", annotation: "dropped .spec.replicas (ReplicasFeatureGate)"},
		{verb: "patch", name: "kept", annotation: "kept .spec.replicas (ReplicasFeatureGate)"},
		{verb: "patch", name: "kept"},  // the image update lost nothing
		{verb: "create", name: "kept"}, // the gate was enabled
	}
	var got []auditEvent
	deadline = time.Now().Add(30 * time.Second)
	for {
		got = readAuditEvents(t, auditLog)
		if len(eventsFor(got, "patch", "kept")) >= 2 && len(eventsFor(got, "create", "dropped")) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit log has not the expected events: %+v", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	seen := map[string]int{}
	for _, w := range wants {
		key := w.verb + "/" + w.name
		events := eventsFor(got, w.verb, w.name)
		if len(events) <= seen[key] {
			t.Errorf("no audit event %d for %s", seen[key]+1, key)
			continue
		}
		e := events[seen[key]]
		seen[key]++
		if a, ok := e.Annotations[fieldGatesAuditAnnotation]; a != w.annotation || ok != (w.annotation != "") {
			t.Errorf("%s: annotation %q (present %v), want %q", key, a, ok, w.annotation)
		}
	}
	// Dry runs are audited with the annotation as well: it is what the server answered.
	dry := false
	for _, e := range got {
		if e.Verb == "create" && strings.Contains(e.RequestURI, "dryRun=All") && e.Annotations[fieldGatesAuditAnnotation] == "dropped .spec.replicas (ReplicasFeatureGate)" {
			dry = true
		}
	}
	if !dry {
		t.Errorf("no audited dry-run create with the annotation")
	}
}

type auditEvent struct {
	Verb        string            `json:"verb"`
	Stage       string            `json:"stage"`
	RequestURI  string            `json:"requestURI"`
	Annotations map[string]string `json:"annotations"`
	ObjectRef   struct {
		Resource string `json:"resource"`
		Name     string `json:"name"`
	} `json:"objectRef"`
}

// readAuditEvents reads the ResponseComplete events of audittabs from the JSON lines log.
func readAuditEvents(t *testing.T, path string) []auditEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []auditEvent
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e auditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			continue // a line being written
		}
		if e.Stage == "ResponseComplete" && e.ObjectRef.Resource == "audittabs" {
			out = append(out, e)
		}
	}
	return out
}

// eventsFor returns the events of non-dry-run writes with the verb to the named object.
func eventsFor(events []auditEvent, verb, name string) []auditEvent {
	var out []auditEvent
	for _, e := range events {
		if e.Verb == verb && e.ObjectRef.Name == name && !strings.Contains(e.RequestURI, "dryRun") {
			out = append(out, e)
		}
	}
	return out
}

// kubectlResult runs our kubectl against the control plane of kubeconfig.
func kubectlResult(t *testing.T, kubeconfig, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "kubectl"), args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// kubectlAt runs kubectl against the control plane of kubeconfig and fails the test if it
// fails; it returns stdout.
func kubectlAt(t *testing.T, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	r := kubectlResult(t, kubeconfig, stdin, args...)
	if r.err != nil {
		t.Fatalf("kubectl %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r.stdout
}
