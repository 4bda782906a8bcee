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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
)

// The environment TestMain reads (make test-stock-policies sets the first two).
const (
	envBinDir         = "STOCK_POLICIES_BIN_DIR"   // etcd, kube-apiserver, kubectl, featuregate-gen (default _output/bin)
	envStockAPIServer = "STOCK_POLICIES_APISERVER" // the stock kube-apiserver (default _output/stock/kube-apiserver)
	envReport         = "STOCK_POLICIES_REPORT"    // the markdown report (default _output/stock-policies/report.md)
	envKeep           = "STOCK_POLICIES_KEEP_DIR"  // if set, the state directory is kept (logs, generated policies)
	backendOurs       = "ours"                     // our kube-apiserver, the gated CRDs as they are
	backendStock      = "stock+policies"           // the stock kube-apiserver, featuregate-gen policies' output
	paramResource     = policies.ParamCRDName
	generatorCommand  = "featuregate-gen policies" // for messages
	installTimeout    = 3 * time.Minute            // CRDs established, policies in force on stock
	gateChangeTimeout = time.Minute                // a gate change reaches the writes
)

var (
	repoRoot string
	binDir   string
	// generatedDir is featuregate-gen policies' --out; generatorOutput what it printed.
	generatedDir, generatorOutput string
	// backends are ours and stock+policies, in that order.
	backends []*backend
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	fail := func(format string, args ...interface{}) int {
		fmt.Fprintf(os.Stderr, "stockpolicies: "+format+"\n", args...)
		return 1
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail("%v", err)
	}
	repoRoot = filepath.Clean(filepath.Join(wd, "..", ".."))
	binDir = envOr(envBinDir, filepath.Join(repoRoot, "_output", "bin"))
	stock := envOr(envStockAPIServer, filepath.Join(repoRoot, "_output", "stock", "kube-apiserver"))
	for _, b := range []string{"etcd", "kube-apiserver", "kubectl", "featuregate-gen"} {
		if _, err := os.Stat(filepath.Join(binDir, b)); err != nil {
			return fail("%s is not built (%v); run make test-stock-policies", filepath.Join(binDir, b), err)
		}
	}
	if _, err := os.Stat(stock); err != nil {
		return fail("the stock kube-apiserver %s is not built (%v); run make test-stock-policies", stock, err)
	}

	dir, err := os.MkdirTemp("", "stock-policies-")
	if err != nil {
		return fail("%v", err)
	}
	if os.Getenv(envKeep) == "" {
		defer os.RemoveAll(dir)
	} else {
		fmt.Fprintf(os.Stderr, "stockpolicies: state kept in %s\n", dir)
	}

	// featuregate-gen policies, exactly as a user runs it.
	generatedDir = filepath.Join(dir, "generated")
	var paths []string
	for _, c := range allCRDs {
		paths = append(paths, filepath.Join(repoRoot, c.file))
	}
	out, err := exec.Command(filepath.Join(binDir, "featuregate-gen"), "policies", "--crds", strings.Join(paths, ","), "--out", generatedDir).CombinedOutput()
	generatorOutput = string(out)
	if err != nil {
		return fail("%s --crds %s --out %s: %v\n%s", generatorCommand, strings.Join(paths, ","), generatedDir, err, out)
	}

	ports, err := featuregatetest.FreePorts(6)
	if err != nil {
		return fail("%v", err)
	}
	specs := []struct {
		name, apiserver, gates string
		ports                  []int
	}{
		{backendOurs, "", "CRDFieldLevelVersioning=true", ports[0:3]},
		{backendStock, stock, "", ports[3:6]},
	}
	backends = make([]*backend, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cp, err := localup.Start(context.Background(), localup.Options{
				Dir: filepath.Join(dir, strings.ReplaceAll(s.name, "+", "-")), BinDir: binDir, KubeAPIServer: s.apiserver,
				EtcdPort: s.ports[0], EtcdPeerPort: s.ports[1], APIServerPort: s.ports[2],
				FeatureGates: s.gates,
			})
			if err != nil {
				errs[i] = fmt.Errorf("cannot start the %s control plane: %w", s.name, err)
				return
			}
			backends[i], errs[i] = newBackend(s.name, cp)
		}()
	}
	wg.Wait()
	defer func() {
		for _, b := range backends {
			if b != nil {
				b.close()
			}
		}
	}()
	for _, err := range errs {
		if err != nil {
			return fail("%v", err)
		}
	}
	code := m.Run()
	if err := writeReports(); err != nil {
		fmt.Fprintf(os.Stderr, "stockpolicies: %v\n", err)
		code = 1
	}
	return code
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

var (
	installOnce sync.Once
	installErr  error
	// installTimeouts are the probes that did not show the declared states after install.
	installTimeouts []string
)

// installed installs the CRDs on both backends (and the generated policies on stock) once,
// and waits until every gate probe gives the install-time state on both.
func installed(t *testing.T) {
	t.Helper()
	installOnce.Do(func() {
		var wg sync.WaitGroup
		errs := make([]error, len(backends))
		for i, b := range backends {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = b.install()
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if pt, ok := err.(*probeTimeout); ok {
				installTimeouts = append(installTimeouts, pt.msg)
			} else if err != nil {
				installErr = err
				return
			}
		}
		for _, msg := range installTimeouts {
			// Reported once, by the test that installed.
			t.Errorf("after install: %s", msg)
		}
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
}

// kubectlResult is what one kubectl invocation printed.
type kubectlResult struct {
	stdout, stderr string
	err            error
}

// kubectl runs our kubectl against a backend, from the repository root.
func (b *backend) kubectl(stdin string, args ...string) kubectlResult {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "kubectl"), args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KUBECONFIG="+b.cp.Kubeconfig)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return kubectlResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

func (b *backend) mustKubectl(stdin string, args ...string) (kubectlResult, error) {
	r := b.kubectl(stdin, args...)
	if r.err != nil {
		return r, fmt.Errorf("%s: kubectl %s: %v\nstdout: %s\nstderr: %s", b.name, strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r, nil
}
