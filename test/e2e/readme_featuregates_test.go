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

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
)

// readmeSection is the README section whose sh blocks TestReadmeQuickStart runs.
const readmeSection = "## Toggling a gate with kubectl"

// readmeCommand is one command of a README block, with the output the README shows for it:
// the comment lines right below it ("# Warning: ..." lines are warnings, the others lines of
// standard output).
type readmeCommand struct {
	line     string
	warnings []string
	stdout   []string
}

// readmeBlocks returns the commands of each ```sh block of the section, with continued
// lines joined (a trailing backslash, or an open single quote). A comment line right below a command (no blank line between) is that
// command's output; other comments and blank lines are skipped.
func readmeBlocks(t *testing.T, readme string) [][]readmeCommand {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n"+readmeSection+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", readmeSection)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks [][]readmeCommand
	for {
		var block string
		if _, section, ok = strings.Cut(section, "```sh\n"); !ok {
			break
		}
		if block, section, ok = strings.Cut(section, "```"); !ok {
			t.Fatalf("an sh block of %q does not end", readmeSection)
		}
		var cmds []readmeCommand
		var pending string
		output := false // the lines right below a command are its output
		// A command goes on after a trailing backslash, and while a single quote is open.
		continued := func(cmd string) bool {
			return strings.HasSuffix(cmd, "\\") || strings.Count(cmd, "'")%2 == 1
		}
		for _, line := range strings.Split(block, "\n") {
			trimmed := strings.TrimSpace(line)
			if pending != "" {
				if strings.Count(pending, "'")%2 == 1 {
					pending += "\n" + line
				} else {
					pending = strings.TrimSuffix(pending, "\\") + " " + trimmed
				}
				if !continued(pending) {
					cmds, pending, output = append(cmds, readmeCommand{line: pending}), "", true
				}
				continue
			}
			switch {
			case trimmed == "":
				output = false
			case strings.HasPrefix(trimmed, "#") && output:
				c := &cmds[len(cmds)-1]
				if w, ok := strings.CutPrefix(trimmed, "# Warning: "); ok {
					c.warnings = append(c.warnings, w)
				} else {
					c.stdout = append(c.stdout, strings.TrimSpace(strings.TrimPrefix(trimmed, "#")))
				}
			case strings.HasPrefix(trimmed, "#"):
			case continued(trimmed):
				pending = trimmed
			default:
				cmds, output = append(cmds, readmeCommand{line: trimmed}), true
			}
		}
		if pending != "" {
			t.Fatalf("a block ends inside a continued command: %q", pending)
		}
		blocks = append(blocks, cmds)
	}
	return blocks
}

// sameLines compares output lines field by field, so that column alignment does not matter.
func sameLines(got string, want []string) bool {
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if len(lines) != len(want) {
		return false
	}
	for i := range lines {
		if strings.Join(strings.Fields(lines[i]), " ") != strings.Join(strings.Fields(want[i]), " ") {
			return false
		}
	}
	return true
}

// TestReadmeQuickStart runs the sh blocks of the README's "Toggling a gate with kubectl"
// section exactly as written, in order, against the control plane that `make run` starts,
// from a directory laid out like the repository after `make run`: _output/local-up/kubeconfig,
// _output/bin and examples/. Each command must succeed and print what the README shows below
// it (warnings, output lines). The object must then have the replicas of
// examples/feature-gates/crontab.yaml, and kubectl explain must know spec.customFeatureGates.
// The second block, the KEP's guarded JSON patch, runs after the gate was turned off again,
// and must turn it on. So the front page cannot drift from what works. make test-kind runs
// it again against a kind cluster (E2E_README_KUBECONFIG).
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, string(readme))
	if len(blocks) < 2 || len(blocks[0]) < 6 {
		t.Fatalf("the README section has %d sh blocks; the test expects the whole flow and the KEP's patch", len(blocks))
	}

	const crd = "crontabs.stable.example.com"
	// A control plane of its own, as a first `make run` gives: the README lists every CRD.
	// E2E_README_KUBECONFIG names another cluster instead (make test-kind: the kind cluster of
	// hack/kind/cluster.yaml); it must not have the example CRD yet.
	kubeconfig := os.Getenv("E2E_README_KUBECONFIG")
	if kubeconfig == "" {
		ports, err := featuregatetest.FreePorts(3)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := localup.Start(context.Background(), localup.Options{
			Dir: t.TempDir(), BinDir: binDir,
			EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2],
			FeatureGates: "CRDFieldLevelVersioning=true",
		})
		if err != nil {
			t.Fatalf("cannot start the control plane: %v", err)
		}
		t.Cleanup(cp.Stop)
		kubeconfig = cp.Kubeconfig
	}

	pwd := t.TempDir()
	for link, target := range map[string]string{
		"_output/local-up/kubeconfig": kubeconfig,
		"_output/bin":                 binDir,
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

	// export and alias lines carry over to the commands after them, as in a shell.
	preamble := "shopt -s expand_aliases\n"
	served := func(enabled bool) {
		t.Helper()
		featuregatetest.WaitFor(t, 30*time.Second, fmt.Sprintf("ReplicasFeatureGate enabled=%t to be served", enabled), func() bool {
			// A create of a new object: a stored value would be kept whatever the gate says.
			r := runShell(t, pwd, preamble+"sed 's/name: my-new-cron-object/name: probe/' examples/feature-gates/crontab.yaml | "+
				"kubectl create --dry-run=server -f - -o jsonpath='{.spec.replicas}'")
			return r.err == nil && (r.stdout == fmt.Sprint(cronTab.Spec.Replicas)) == enabled
		})
	}
	run := func(cmds []readmeCommand) []result {
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
			if got := featuregatetest.KubectlWarnings(r.stderr); strings.Join(got, "\n") != strings.Join(c.warnings, "\n") {
				t.Errorf("README command %s\nprinted the warnings %q, the README shows %q", c.line, got, c.warnings)
			}
			if len(c.stdout) > 0 && !sameLines(r.stdout, c.stdout) {
				t.Errorf("README command %s\nprinted:\n%s\nthe README shows:\n%s", c.line, r.stdout, strings.Join(c.stdout, "\n"))
			}
			outputs = append(outputs, r)
			if strings.Contains(c.line, "featuregates enable") || strings.Contains(c.line, "patch customresourcedefinitions") {
				served(true) // the server serves a CRD change a moment after storing it
			}
		}
		return outputs
	}

	outputs := run(blocks[0])
	var get, explain *result
	for i, c := range blocks[0] {
		switch {
		case strings.Contains(c.line, "{.spec.replicas}"):
			get = &outputs[i-countSetup(blocks[0][:i])]
		case strings.HasPrefix(c.line, "kubectl explain"):
			explain = &outputs[i-countSetup(blocks[0][:i])]
		}
	}
	if get == nil || explain == nil {
		t.Fatalf("the first block no longer reads .spec.replicas and runs kubectl explain")
	}
	if got := strings.TrimSpace(get.stdout); got != fmt.Sprint(cronTab.Spec.Replicas) {
		t.Errorf("kubectl get ... {.spec.replicas} printed %q after the gate was enabled, want %d", got, cronTab.Spec.Replicas)
	}
	if !strings.Contains(explain.stdout, "customFeatureGates") || !strings.Contains(explain.stdout, "featureGates") {
		t.Errorf("kubectl explain did not describe spec.customFeatureGates:\n%s", explain.stdout)
	}

	// The low-level way: with the gate off again, the KEP's guarded patch turns it on.
	if r := runShell(t, pwd, preamble+"kubectl featuregates disable "+crd+" ReplicasFeatureGate"); r.err != nil {
		t.Fatalf("kubectl featuregates disable: %v\n%s", r.err, r.stderr)
	}
	served(false)
	run(blocks[1])
}

// countSetup counts the export and alias lines, which produce no output of their own.
func countSetup(cmds []readmeCommand) int {
	n := 0
	for _, c := range cmds {
		if strings.HasPrefix(c.line, "export ") || strings.HasPrefix(c.line, "alias ") {
			n++
		}
	}
	return n
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
