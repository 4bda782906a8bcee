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
