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

// Command local-up runs a local control plane in the foreground: a real etcd and this fork's
// kube-apiserver with CRDFieldLevelVersioning on, both on loopback. It is what `make run`
// starts. It writes an admin kubeconfig once the server is ready, and stops both processes
// on SIGINT or SIGTERM. State lives under --dir, so a re-run keeps the stored objects.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"k8s.io/apiextensions-apiserver/test/localup"
)

func main() {
	var o localup.Options
	flag.StringVar(&o.Dir, "dir", "_output/local-up", "directory for the PKI, etcd's data, the logs and the kubeconfig")
	flag.StringVar(&o.BinDir, "bin-dir", "_output/bin", "directory holding the etcd and kube-apiserver binaries")
	flag.IntVar(&o.EtcdPort, "etcd-port", localup.DefaultEtcdPort, "etcd client port on 127.0.0.1")
	flag.IntVar(&o.EtcdPeerPort, "etcd-peer-port", localup.DefaultEtcdPeerPort, "etcd peer port on 127.0.0.1")
	flag.IntVar(&o.APIServerPort, "port", localup.DefaultAPIServerPort, "kube-apiserver secure port on 127.0.0.1")
	flag.StringVar(&o.FeatureGates, "feature-gates", "CRDFieldLevelVersioning=true", "kube-apiserver --feature-gates")
	flag.StringVar(&o.KubeAPIServer, "kube-apiserver", "", "kube-apiserver binary to run (default: the one in --bin-dir), such as the stock one of make run-stock")
	flag.Parse()
	o.ExtraAPIServerArgs = flag.Args()
	os.Exit(run(o))
}

func run(o localup.Options) int {
	var err error
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if o.BinDir, err = filepath.Abs(o.BinDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if o.KubeAPIServer != "" {
		if o.KubeAPIServer, err = filepath.Abs(o.KubeAPIServer); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	fmt.Printf("Starting etcd and kube-apiserver (feature gates: %s); state in %s\n", o.FeatureGates, o.Dir)
	cp, err := localup.Start(ctx, o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		return 1
	}
	if strings.Contains(o.FeatureGates, "CRDFieldLevelVersioning=true") {
		printNextSteps(cp, o.BinDir)
	} else {
		printStockNextSteps(cp, o.BinDir)
	}

	select {
	case <-ctx.Done():
		fmt.Println("\nShutting down kube-apiserver and etcd...")
		cp.Stop()
		fmt.Println("Stopped. The data stays in", o.Dir)
		return 0
	case <-cp.Exited():
		err := cp.Err()
		cp.Stop()
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		return 1
	}
}

func printNextSteps(cp *localup.ControlPlane, binDir string) {
	fmt.Printf(`
The control plane is ready at %s (etcd at %s).

Use it from another terminal:

  export KUBECONFIG=%s
  export PATH=%s:$PATH    # our kubectl and the kubectl featuregates plugin

Try a field gate (the KEP-2608 crontab; run from the repository root):

  kubectl apply --server-side -f examples/feature-gates/crontab-crd.yaml
  kubectl apply -f examples/feature-gates/crontab.yaml
      # Warning: .spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled
  kubectl featuregates enable crontabs.stable.example.com ReplicasFeatureGate
  kubectl apply -f examples/feature-gates/crontab.yaml
  kubectl get crontab my-new-cron-object -o jsonpath='{.spec.replicas}{"\n"}'   # 3

Logs: %s and %s
Press Ctrl-C to stop; the data stays for the next run.
`, cp.URL, cp.EtcdURL, cp.Kubeconfig, binDir, cp.APIServerLog, cp.EtcdLog)
}

// printStockNextSteps says how to use a control plane whose kube-apiserver does not serve
// field gates (make run-stock: the stock kube-apiserver, or ours with the feature off).
func printStockNextSteps(cp *localup.ControlPlane, binDir string) {
	fmt.Printf(`
The control plane is ready at %s (etcd at %s). Its kube-apiserver does not know
CRD field gates (spec.customFeatureGates, x-kubernetes-feature-gate).

Use it from another terminal:

  export KUBECONFIG=%s
  export PATH=%s:$PATH    # our kubectl (v1.37.1)

  kubectl version
  kubectl apply -f examples/feature-gates/crontab-crd.yaml
      # refused: unknown fields (kubectl's strict field validation)
  kubectl apply --validate=false -f examples/feature-gates/crontab-crd.yaml
      # accepted without its gates: every field is live here

Logs: %s and %s
Press Ctrl-C to stop; the data stays for the next run.
`, cp.URL, cp.EtcdURL, cp.Kubeconfig, binDir, cp.APIServerLog, cp.EtcdLog)
}
