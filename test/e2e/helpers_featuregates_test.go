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

// Package e2e drives the fork end to end: a real etcd and this fork's kube-apiserver binary,
// started by test/localup, and the kubectl built from k8s.io/kubectl, exactly as a user
// would run them. `make test-e2e` builds the binaries and sets E2E_BIN_DIR.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
)

var (
	controlPlane *localup.ControlPlane
	binDir       string
	repoRoot     string
)

func TestMain(m *testing.M) {
	os.Exit(runWithControlPlane(m))
}

func runWithControlPlane(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	repoRoot = filepath.Join(wd, "..", "..")
	binDir = os.Getenv("E2E_BIN_DIR")
	if binDir == "" {
		binDir = filepath.Join(repoRoot, "_output", "bin")
	}
	dir, err := os.MkdirTemp("", "e2e-local-up-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ports, err := featuregatetest.FreePorts(3)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cp, err := localup.Start(context.Background(), localup.Options{
		Dir: dir, BinDir: binDir,
		EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2],
		FeatureGates: "CRDFieldLevelVersioning=true",
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot start the control plane: %v\n", err)
		return 1
	}
	defer cp.Stop()
	controlPlane = cp
	return m.Run()
}

// result is what one kubectl invocation printed.
type result struct {
	stdout, stderr string
	err            error
}

// kubectl runs our kubectl against the control plane, with stdin if given.
func kubectl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "kubectl"), args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KUBECONFIG="+controlPlane.Kubeconfig)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// mustKubectl runs kubectl and fails the test if it fails.
func mustKubectl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	r := kubectl(t, stdin, args...)
	if r.err != nil {
		t.Fatalf("kubectl %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r
}

// getJSON reads an object with kubectl get -o json.
func getJSON(t *testing.T, args ...string) map[string]interface{} {
	t.Helper()
	r := mustKubectl(t, "", append([]string{"get", "-o", "json"}, args...)...)
	var obj map[string]interface{}
	if err := json.Unmarshal([]byte(r.stdout), &obj); err != nil {
		t.Fatalf("kubectl get %v printed no JSON: %v\n%s", args, err, r.stdout)
	}
	return obj
}

func field(obj map[string]interface{}, path ...string) (interface{}, bool) {
	var cur interface{} = obj
	for _, p := range path {
		m, ok := cur.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// applyCRD creates a CRD from a manifest and waits until it is established.
func applyCRD(t *testing.T, manifest string, extra ...string) {
	t.Helper()
	var name struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	r := mustKubectl(t, manifest, append([]string{"apply", "-o", "json", "-f", "-"}, extra...)...)
	if err := json.Unmarshal([]byte(r.stdout), &name); err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "", "wait", "--for=condition=Established", "--timeout=30s", "crd/"+name.Metadata.Name)
}
