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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// readmeSection is the README section whose first sh block TestReadmeQuickStart runs.
const readmeSection = "## Toggling a gate with kubectl"

// readmeCommand is one command of the README block, with the output the README shows
// for it ("# Warning: ..." lines right below it).
type readmeCommand struct {
	line     string
	warnings []string
}

// readmeCommands returns the commands of the first ```sh block of the section, with
// continuation lines joined. Comment lines starting with "# Warning: " belong to the
// command above them; other comments and blank lines are skipped.
func readmeCommands(t *testing.T, readme string) []readmeCommand {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n"+readmeSection+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", readmeSection)
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatalf("the section %q has no sh block", readmeSection)
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatalf("the sh block of %q does not end", readmeSection)
	}
	var cmds []readmeCommand
	var pending string
	for _, line := range strings.Split(block, "\n") {
		trimmed := strings.TrimSpace(line)
		if pending != "" {
			pending += " " + strings.TrimSuffix(trimmed, "\\")
			if !strings.HasSuffix(trimmed, "\\") {
				cmds = append(cmds, readmeCommand{line: pending})
				pending = ""
			}
			continue
		}
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, "# Warning: "):
			if len(cmds) == 0 {
				t.Fatalf("a warning before any command: %q", trimmed)
			}
			cmds[len(cmds)-1].warnings = append(cmds[len(cmds)-1].warnings, strings.TrimPrefix(trimmed, "# Warning: "))
		case strings.HasPrefix(trimmed, "#"):
		case strings.HasSuffix(trimmed, "\\"):
			pending = strings.TrimSuffix(trimmed, "\\")
		default:
			cmds = append(cmds, readmeCommand{line: trimmed})
		}
	}
	if pending != "" {
		t.Fatalf("the block ends inside a continued command: %q", pending)
	}
	return cmds
}

// TestReadmeQuickStart runs the README's "Toggling a gate with kubectl" commands exactly as
// written, against the control plane that `make run` starts, from a directory laid out like
// the repository after `make run`: _output/local-up/kubeconfig, _output/bin/kubectl and
// examples/. Each command must succeed and print the warnings the README shows; the
// re-applied object must then have the replicas of examples/feature-gates/crontab.yaml, and
// kubectl explain must know spec.customFeatureGates. So the front page cannot drift from what
// works.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(t, string(readme))
	if len(cmds) < 6 {
		t.Fatalf("the README block has %d commands; the test expects the whole flow", len(cmds))
	}

	const crd = "crontabs.stable.example.com"
	// Other tests apply the same example; start from, and leave, a cluster without it.
	mustKubectl(t, "", "delete", "crd", crd, "--ignore-not-found", "--wait", "--timeout=60s")
	t.Cleanup(func() { mustKubectl(t, "", "delete", "crd", crd, "--ignore-not-found", "--wait", "--timeout=60s") })

	pwd := t.TempDir()
	for link, target := range map[string]string{
		"_output/local-up/kubeconfig": controlPlane.Kubeconfig,
		"_output/bin/kubectl":         filepath.Join(binDir, "kubectl"),
		"examples":                    filepath.Join(repoRoot, "examples"),
	} {
		if err := os.MkdirAll(filepath.Join(pwd, filepath.Dir(link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(pwd, link)); err != nil {
			t.Fatal(err)
		}
	}

	manifest, err := os.ReadFile(filepath.Join(repoRoot, "examples/feature-gates/crontab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cronTab struct {
		Spec struct{ Replicas int } `json:"spec"`
	}
	if err := yaml.Unmarshal(manifest, &cronTab); err != nil || cronTab.Spec.Replicas == 0 {
		t.Fatalf("examples/feature-gates/crontab.yaml has no spec.replicas: %v", err)
	}

	// The export and alias lines carry over to the commands after them, as in a shell.
	preamble := "shopt -s expand_aliases\n"
	var outputs []result
	for _, c := range cmds {
		if strings.HasPrefix(c.line, "export ") || strings.HasPrefix(c.line, "alias ") {
			preamble += c.line + "\n"
			continue
		}
		r := runShell(t, pwd, preamble+c.line)
		if r.err != nil {
			t.Fatalf("README command failed: %s\n%v\nstdout: %s\nstderr: %s", c.line, r.err, r.stdout, r.stderr)
		}
		if got := warnings(r.stderr); strings.Join(got, "\n") != strings.Join(c.warnings, "\n") {
			t.Errorf("README command %s\nprinted the warnings %q, the README shows %q", c.line, got, c.warnings)
		}
		outputs = append(outputs, r)
		if strings.HasPrefix(c.line, "kubectl patch customresourcedefinitions") {
			// The server serves a CRD change a moment after storing it.
			waitFor(t, "the enabled gate to be served", func() bool {
				r := runShell(t, pwd, preamble+"kubectl apply --dry-run=server -f examples/feature-gates/crontab.yaml -o jsonpath='{.spec.replicas}'")
				return r.err == nil && r.stdout == fmt.Sprint(cronTab.Spec.Replicas)
			})
		}
	}

	// The last two commands read the result.
	get, explain := outputs[len(outputs)-2], outputs[len(outputs)-1]
	if got := strings.TrimSpace(get.stdout); got != fmt.Sprint(cronTab.Spec.Replicas) {
		t.Errorf("kubectl get ... {.spec.replicas} printed %q after the gate was enabled, want %d", got, cronTab.Spec.Replicas)
	}
	if !strings.Contains(explain.stdout, "customFeatureGates") || !strings.Contains(explain.stdout, "featureGates") {
		t.Errorf("kubectl explain did not describe spec.customFeatureGates:\n%s", explain.stdout)
	}
}

// runShell runs a script with bash in dir, as a user at a terminal would.
func runShell(t *testing.T, dir, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	// PWD as a login shell would set it; KUBECONFIG only from the script.
	env := []string{"PWD=" + dir}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "PWD=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}
