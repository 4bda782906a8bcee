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
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

// The contract of `make run` (cmd/local-up): ready and kubeconfig written, next steps printed,
// a clear error for a taken port, a clean stop on SIGTERM and SIGINT, and a re-run that keeps
// the stored objects.
func TestLocalUpCommand(t *testing.T) {
	dir := t.TempDir()
	ports := func() []string {
		p, err := featuregatetest.FreePorts(3)
		if err != nil {
			t.Fatal(err)
		}
		return []string{"--etcd-port", strconv.Itoa(p[0]), "--etcd-peer-port", strconv.Itoa(p[1]), "--port", strconv.Itoa(p[2])}
	}()
	start := func() (*exec.Cmd, *lockedBuffer) {
		cmd := exec.Command(filepath.Join(binDir, "local-up"), append([]string{"--dir", dir, "--bin-dir", binDir}, ports...)...)
		out := &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, out
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	waitReady := func(cmd *exec.Cmd, out *lockedBuffer) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for !strings.Contains(out.String(), "Press Ctrl-C to stop") {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("local-up did not become ready:\n%s", out.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		if _, err := os.Stat(kubeconfig); err != nil {
			t.Fatalf("ready, but no kubeconfig: %v", err)
		}
	}
	stop := func(cmd *exec.Cmd, out *lockedBuffer, sig syscall.Signal) {
		t.Helper()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("local-up exited with %v after %v:\n%s", err, sig, out.String())
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("local-up did not stop on %v", sig)
		}
		if !strings.Contains(out.String(), "Stopped.") {
			t.Errorf("no clean shutdown on %v:\n%s", sig, out.String())
		}
		// Both children are gone: their ports are free again.
		for i := 1; i < len(ports); i += 2 {
			l, err := net.Listen("tcp", "127.0.0.1:"+ports[i])
			if err != nil {
				t.Errorf("port %s is still taken after the stop: %v", ports[i], err)
				continue
			}
			_ = l.Close()
		}
	}
	run := func(args ...string) result {
		cmd := exec.Command(filepath.Join(binDir, "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return result{stdout.String(), stderr.String(), err}
	}

	first, out := start()
	waitReady(first, out)
	for _, want := range []string{"export KUBECONFIG=" + kubeconfig, "examples/feature-gates/crontab-crd.yaml", "kubectl featuregates enable crontabs.stable.example.com ReplicasFeatureGate"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the next steps do not mention %q:\n%s", want, out.String())
		}
	}
	if r := run("create", "configmap", "kept", "--from-literal=k=v"); r.err != nil {
		t.Fatalf("%v: %s", r.err, r.stderr)
	}

	// A second instance on the same ports fails at once, naming the port.
	second, secondOut := start()
	if err := second.Wait(); err == nil {
		t.Error("a second local-up on taken ports succeeded")
	}
	if want := fmt.Sprintf("the kube-apiserver port %s on 127.0.0.1 is taken", ports[5]); !strings.Contains(secondOut.String(), want) {
		t.Errorf("the error does not say %q:\n%s", want, secondOut.String())
	}
	stop(first, out, syscall.SIGTERM)

	// A re-run keeps etcd's data.
	again, againOut := start()
	waitReady(again, againOut)
	if r := run("get", "configmap", "kept", "-o", "jsonpath={.data.k}"); r.err != nil || r.stdout != "v" {
		t.Errorf("the object stored before the restart is gone: %q %v %s", r.stdout, r.err, r.stderr)
	}
	stop(again, againOut, syscall.SIGINT)
}

// lockedBuffer collects a child's output while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The contract of `make run-stock`: cmd/local-up with the stock kube-apiserver v1.37.1 and no
// feature gates is ready, writes its kubeconfig, prints the stock next steps, and what they
// say holds (the gated CRD is refused with strict field validation and accepted without its
// gates otherwise); it stops cleanly on SIGTERM. make test-e2e sets E2E_STOCK_APISERVER.
func TestLocalUpStockCommand(t *testing.T) {
	stock := os.Getenv("E2E_STOCK_APISERVER")
	if stock == "" {
		stock = filepath.Join(repoRoot, "_output", "stock", "kube-apiserver")
	}
	if _, err := os.Stat(stock); err != nil {
		t.Fatalf("no stock kube-apiserver (make %s builds it): %v", "_output/stock/kube-apiserver", err)
	}
	dir := t.TempDir()
	p, err := featuregatetest.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binDir, "local-up"), "--dir", dir, "--bin-dir", binDir, "--kube-apiserver", stock, "--feature-gates", "",
		"--etcd-port", strconv.Itoa(p[0]), "--etcd-peer-port", strconv.Itoa(p[1]), "--port", strconv.Itoa(p[2]))
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "Press Ctrl-C to stop") {
		if time.Now().After(deadline) {
			t.Fatalf("local-up with the stock kube-apiserver did not become ready:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	for _, want := range []string{"export KUBECONFIG=" + kubeconfig, "does not know\nCRD field gates", "kubectl apply --validate=false -f examples/feature-gates/crontab-crd.yaml"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the next steps do not say %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "kubectl featuregates enable") {
		t.Errorf("the stock next steps suggest kubectl featuregates:\n%s", out.String())
	}
	kubectl := func(args ...string) result {
		c := exec.Command(filepath.Join(binDir, "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
		c.Dir = repoRoot
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		return result{stdout.String(), stderr.String(), err}
	}
	if r := kubectl("version", "-o", "json"); r.err != nil || !strings.Contains(r.stdout, `"gitVersion": "v1.37.1"`) || strings.Contains(r.stdout, "kep2608") {
		t.Errorf("kubectl version: the server is not the stock v1.37.1: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	crd := filepath.Join("examples", "feature-gates", "crontab-crd.yaml")
	if r := kubectl("apply", "-f", crd); r.err == nil || !strings.Contains(r.stderr, "unknown field") || !strings.Contains(r.stderr, "customFeatureGates") {
		t.Errorf("apply of the gated CRD on stock: want it refused for the unknown field customFeatureGates, got %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	if r := kubectl("apply", "--validate=false", "-f", crd); r.err != nil {
		t.Errorf("apply --validate=false of the gated CRD on stock: %v\n%s", r.err, r.stderr)
	}
	if r := kubectl("get", "crd", "crontabs.stable.example.com", "-o", "jsonpath={.spec.customFeatureGates}"); r.err != nil || r.stdout != "" {
		t.Errorf("the CRD as stock stores it: customFeatureGates %q (%v %s), want none", r.stdout, r.err, r.stderr)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "Stopped.") {
			t.Errorf("no clean stop on SIGTERM (%v):\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("local-up with the stock kube-apiserver did not stop on SIGTERM")
	}
}
