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
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// featuregates runs `kubectl featuregates` (the plugin, found on PATH as kubectl finds it)
// against backend b.
func (b *backend) featuregates(args ...string) kubectlResult {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "kubectl"), append([]string{"featuregates"}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KUBECONFIG="+b.cp.Kubeconfig, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return kubectlResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// TestKubectlFeatureGatesOnStock: on the stock kube-apiserver with the generated policies, a
// cluster admin lists, enables and disables a gate by name with `kubectl featuregates`, as on
// our server, and the writes follow each change without reinstalling anything.
func TestKubectlFeatureGatesOnStock(t *testing.T) {
	installed(t)
	b := backends[1]
	if b.name != backendStock {
		t.Fatalf("backend 1 is %s", b.name)
	}
	const gate = "ReplicasFeatureGate"
	orig := b.states[crontabCRD.name][gate]
	defer func() {
		verb := "disable"
		if orig {
			verb = "enable"
		}
		if r := b.featuregates(verb, crontabCRD.name, gate, "--force-conflicts"); r.err != nil {
			t.Errorf("restoring %s: %v\n%s", gate, r.err, r.stderr)
		}
		b.states[crontabCRD.name][gate] = orig
		if err := b.waitForGates(crontabCRD, gateChangeTimeout); err != nil {
			t.Error(err)
		}
	}()

	r := b.featuregates("list", crontabCRD.name, "-o", "wide")
	if r.err != nil || !strings.Contains(r.stdout, gate) || !strings.Contains(r.stdout, "policies") {
		t.Fatalf("list -o wide: %v\nstdout: %s\nstderr: %s", r.err, r.stdout, r.stderr)
	}
	for _, step := range []struct {
		verb string
		on   bool
	}{{"enable", true}, {"disable", false}, {"enable", true}} {
		// Other cases set this gate with kubectl patch (another field manager), so the
		// admin takes the field over, as the plugin's conflict error tells them to.
		r := b.featuregates(step.verb, crontabCRD.name, gate, "--force-conflicts")
		if r.err != nil || !strings.Contains(r.stdout+r.stderr, "customresourcefeaturegates") {
			t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", step.verb, r.err, r.stdout, r.stderr)
		}
		if crd, err := b.mustKubectl("", "get", "crd", crontabCRD.name, "-o", "jsonpath={.spec.customFeatureGates}"); err != nil || crd.stdout != "" {
			t.Fatalf("%s wrote the CRD: %v %q", step.verb, err, crd.stdout)
		}
		// The writes follow: the harness's probes of the gate show the new state.
		b.states[crontabCRD.name][gate] = step.on
		if err := b.waitForGates(crontabCRD, gateChangeTimeout); err != nil {
			t.Fatalf("after %s: %v", step.verb, err)
		}
		st := b.featuregates("status", crontabCRD.name)
		want := "no"
		if step.on {
			want = "yes"
		}
		live := ""
		for _, line := range strings.Split(st.stdout, "\n") {
			if f := strings.Fields(line); len(f) >= 4 && f[0] == ".spec.replicas" {
				live = f[3]
			}
		}
		if st.err != nil || !strings.Contains(st.stdout, "(admission policies)") || live != want {
			t.Fatalf("status after %s: .spec.replicas live %q, want %q: %v\nstdout: %s\nstderr: %s", step.verb, live, want, st.err, st.stdout, st.stderr)
		}
	}
}

// TestKubectlFeatureGatesUsageOnBothBackends: `kubectl featuregates usage` reads the gates
// from the CRD on ours and from the parameter object on stock, and the stored objects alike:
// for every CRD of the matrix, its report (each gate's stage, state, fields, count of objects
// holding a value there, and the first of them) is the same on both backends, apart from
// naming the backend.
func TestKubectlFeatureGatesUsageOnBothBackends(t *testing.T) {
	installed(t)
	// An object that holds values of enabled gates on both, whatever ran before.
	for _, b := range backends {
		a := b.request(http.MethodPost, objectPath(gadgetCRD, "default", "", ""), nil, "application/json", object(gadgetCRD, "default", "usage", gadgetAll))
		if a.err != nil || (a.code != http.StatusCreated && a.code != http.StatusConflict) {
			t.Fatalf("%s: creating a gadget: HTTP %d %v: %s", b.name, a.code, a.err, a.body)
		}
	}
	withObjects := 0
	for _, c := range allCRDs {
		var reports []map[string]interface{}
		for _, b := range backends {
			r := b.featuregates("usage", c.name, "-o", "json")
			if r.err != nil {
				t.Fatalf("%s: kubectl featuregates usage %s: %v\n%s", b.name, c.name, r.err, r.stderr)
			}
			report := map[string]interface{}{}
			if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
				t.Fatalf("%s: usage %s -o json: %v\n%s", b.name, c.name, err, r.stdout)
			}
			wantBackend := map[string]interface{}{backendOurs: nil, backendStock: "policies"}[b.name]
			if report["backend"] != wantBackend {
				t.Errorf("%s: usage %s: backend %v, want %v", b.name, c.name, report["backend"], wantBackend)
			}
			delete(report, "backend")
			delete(report, "resourceVersion")
			reports = append(reports, report)
		}
		// A gate whose field has a schema default (see usageDifferences): the rest of its
		// row must agree, and stock must count at least what ours counts.
		if why, ok := usageDifferences[c.name]; ok {
			for _, name := range why.gates {
				oursGate, stockGate := usageGate(reports[0], name), usageGate(reports[1], name)
				if oursGate == nil || stockGate == nil {
					t.Fatalf("usage %s: no gate %s", c.name, name)
				}
				if stockGate["objects"].(float64) < oursGate["objects"].(float64) {
					t.Errorf("usage %s: %s: stock+policies counts %v objects, fewer than ours (%v)", c.name, name, stockGate["objects"], oursGate["objects"])
				}
				for _, g := range []map[string]interface{}{oursGate, stockGate} {
					delete(g, "objects")
					delete(g, "examples")
				}
			}
		}
		if ours, stock := compact(reports[0]), compact(reports[1]); ours != stock {
			t.Errorf("usage %s differs:\nours:           %s\nstock+policies: %s", c.name, ours, stock)
		}
		gates, _ := reports[0]["gates"].([]interface{})
		if len(gates) != len(c.gates) {
			t.Errorf("usage %s: %d gates, want %d", c.name, len(gates), len(c.gates))
		}
		for _, g := range gates {
			if n, _ := lookup(g, "objects"); n != nil && n.(float64) > 0 {
				withObjects++
			}
		}
	}
	// The gadget's enabled gates (beta, stable, deprecated) hold values at least.
	if withObjects < 3 {
		t.Errorf("only %d gates of all CRDs have objects with values; the comparison shows little", withObjects)
	}
	t.Logf("usage of %d CRDs the same on both backends; %d gates with objects holding values", len(allCRDs), withObjects)
}

// usageDifferences are the gates whose counts of `kubectl featuregates usage` may differ
// between the backends, and why.
var usageDifferences = map[string]struct{ gates []string }{
	// TierGate guards .spec.tier, which has a schema default. On ours, usage does not count
	// a value that the schema's default accounts for (it cannot tell it from one the server
	// put there on read; pkg/kubectlplugin/stored.go). The stock CRD has no
	// default there (the mutating policy applies it on writes), so there every stored value
	// counts.
	widgetCRD.name: {gates: []string{"TierGate"}},
}

// usageGate is the named gate's row of a usage report.
func usageGate(report map[string]interface{}, name string) map[string]interface{} {
	gates, _ := report["gates"].([]interface{})
	for _, g := range gates {
		if m, ok := g.(map[string]interface{}); ok && m["gate"] == name {
			return m
		}
	}
	return nil
}
