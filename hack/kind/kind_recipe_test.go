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

// Package kind checks the kind recipe in hack/kind offline (no Docker needed): kind's own
// config types decode the cluster config, kubeadm's own code at v1.37.1 renders the
// kube-apiserver static pod and applies our patches, and the resulting command line, with
// paths remapped to a local PKI and etcd, starts our kube-apiserver to ready.
package kind

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
	"k8s.io/kubernetes/cmd/kubeadm/app/phases/controlplane"
	configutil "k8s.io/kubernetes/cmd/kubeadm/app/util/config"
	"k8s.io/kubernetes/cmd/kubeadm/app/util/staticpod"
)

const (
	nodeBinary   = "/kep2608/bin/kube-apiserver"
	imageBinary  = "/usr/local/bin/kube-apiserver"
	featureGates = "--feature-gates=CRDFieldLevelVersioning=true"
	kubeadmPKI   = "/etc/kubernetes/pki/"
)

// kindKubeadmConfig stands for the kubeadm config kind v0.33 writes for a v1.37 control-plane
// node (its v1beta4 template, filled in for a single node); kind then applies the cluster
// config's kubeadmConfigPatches to it.
const kindKubeadmConfig = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.1
clusterName: kep2608
controlPlaneEndpoint: kep2608-control-plane:6443
apiServer:
  certSANs: [localhost, 127.0.0.1]
  extraArgs:
  - name: runtime-config
    value: ""
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/16
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
localAPIEndpoint:
  advertiseAddress: 172.18.0.2
  bindPort: 6443
nodeRegistration:
  criSocket: unix:///run/containerd/containerd.sock
  name: kep2608-control-plane
`

func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

// loadCluster decodes hack/kind/cluster.yaml strictly with kind's v1alpha4 types.
func loadCluster(t *testing.T, root string) *v1alpha4.Cluster {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "hack", "kind", "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cluster := &v1alpha4.Cluster{}
	if err := yaml.UnmarshalStrict(data, cluster); err != nil {
		t.Fatalf("hack/kind/cluster.yaml does not decode as a kind v1alpha4 Cluster: %v", err)
	}
	if cluster.Kind != "Cluster" || cluster.APIVersion != "kind.x-k8s.io/v1alpha4" {
		t.Fatalf("hack/kind/cluster.yaml is a %s %s", cluster.APIVersion, cluster.Kind)
	}
	v1alpha4.SetDefaultsCluster(cluster)
	return cluster
}

// applyKubeadmConfigPatches merges each of kind's kubeadmConfigPatches into the document of
// the same kind, as kind does before it runs kubeadm.
func applyKubeadmConfigPatches(t *testing.T, config string, patches []string) []byte {
	t.Helper()
	docs := strings.Split(config, "\n---\n")
	for _, p := range patches {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(p), &meta); err != nil {
			t.Fatalf("kubeadmConfigPatch %q: %v", p, err)
		}
		matched := false
		for i, doc := range docs {
			var docMeta struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &docMeta); err != nil {
				t.Fatal(err)
			}
			if docMeta.Kind != meta.Kind {
				continue
			}
			docJSON, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			patchJSON, err := yaml.YAMLToJSON([]byte(p))
			if err != nil {
				t.Fatal(err)
			}
			merged, err := jsonpatch.MergePatch(docJSON, patchJSON)
			if err != nil {
				t.Fatalf("merging kubeadmConfigPatch into %s: %v", meta.Kind, err)
			}
			docs[i] = string(merged)
			matched = true
		}
		if !matched {
			t.Fatalf("kubeadmConfigPatch for kind %q matches no kubeadm document", meta.Kind)
		}
	}
	return []byte(strings.Join(docs, "\n---\n"))
}

// hostPathOf maps a path inside the node back to the host through the node's extraMounts.
func hostPathOf(t *testing.T, root string, node v1alpha4.Node, nodePath string) string {
	t.Helper()
	for _, m := range node.ExtraMounts {
		if m.ContainerPath == nodePath || strings.HasPrefix(nodePath, m.ContainerPath+"/") {
			host := m.HostPath + strings.TrimPrefix(nodePath, m.ContainerPath)
			if !filepath.IsAbs(host) {
				host = filepath.Join(root, host) // kind resolves relative paths against the working directory
			}
			return host
		}
	}
	t.Fatalf("no extraMount of the control-plane node provides %s", nodePath)
	return ""
}

// renderAPIServerPod renders the kube-apiserver static pod as kubeadm init would on the kind
// node, our patches included.
func renderAPIServerPod(t *testing.T, root string, cluster *v1alpha4.Cluster) (*v1.Pod, v1alpha4.Node) {
	t.Helper()
	var node *v1alpha4.Node
	for i := range cluster.Nodes {
		if cluster.Nodes[i].Role == v1alpha4.ControlPlaneRole {
			node = &cluster.Nodes[i]
		}
	}
	if node == nil {
		t.Fatal("the cluster has no control-plane node")
	}
	if node.Image != "kindest/node:v1.37.1" {
		t.Errorf("control-plane image = %q, want kindest/node:v1.37.1", node.Image)
	}
	patches := append(append([]string{}, cluster.KubeadmConfigPatches...), node.KubeadmConfigPatches...)
	initCfg, err := configutil.BytesToInitConfiguration(applyKubeadmConfigPatches(t, kindKubeadmConfig, patches), true)
	if err != nil {
		t.Fatalf("kubeadm rejects the patched config: %v", err)
	}
	if initCfg.Patches == nil || initCfg.Patches.Directory == "" {
		t.Fatal("the kubeadm InitConfiguration has no patches directory")
	}
	pod, ok := controlplane.GetStaticPodSpecs(&initCfg.ClusterConfiguration, &initCfg.LocalAPIEndpoint, nil)["kube-apiserver"]
	if !ok {
		t.Fatal("kubeadm rendered no kube-apiserver static pod")
	}
	// kubeadm reports the patches it applied only the first time it reads a directory; the
	// callers assert on the patched pod instead.
	patched, err := staticpod.PatchStaticPod(&pod, hostPathOf(t, root, *node, initCfg.Patches.Directory), io.Discard)
	if err != nil {
		t.Fatalf("kubeadm cannot apply hack/kind/patches: %v", err)
	}
	return patched, *node
}

func TestKindRecipeRendersOurAPIServer(t *testing.T) {
	root := repoRoot(t)
	cluster := loadCluster(t, root)
	pod, node := renderAPIServerPod(t, root, cluster)

	c := pod.Spec.Containers[0]
	// kubeadm's control-plane check (wait-control-plane) finds the component by the first
	// word of the command; kubeadm init fails unless it stays "kube-apiserver".
	if c.Command[0] != "kube-apiserver" {
		t.Errorf("the static pod runs %q; kubeadm's control-plane check needs the command to start with kube-apiserver", c.Command[0])
	}
	if c.Command[len(c.Command)-1] != featureGates {
		t.Errorf("the last flag is %q, want %q", c.Command[len(c.Command)-1], featureGates)
	}
	if !strings.HasPrefix(c.Image, "registry.k8s.io/kube-apiserver:v1.37.1") {
		t.Errorf("image = %q, want kubeadm's stock kube-apiserver v1.37.1 image", c.Image)
	}
	// Our binary is mounted over the image's, read-only, from a hostPath that must be a file.
	var mounted bool
	for _, m := range c.VolumeMounts {
		if m.Name == "kep2608-bin" && m.MountPath == imageBinary && m.ReadOnly {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("the container does not mount our binary read-only at %s: %+v", imageBinary, c.VolumeMounts)
	}
	var volume bool
	for _, v := range pod.Spec.Volumes {
		if v.Name == "kep2608-bin" && v.HostPath != nil && v.HostPath.Path == nodeBinary &&
			v.HostPath.Type != nil && *v.HostPath.Type == v1.HostPathFile {
			volume = true
		}
	}
	if !volume {
		t.Errorf("the pod has no hostPath volume of type File for %s", nodeBinary)
	}
	// kubeadm's own volumes (certificates) are all still there.
	if len(pod.Spec.Volumes) < 3 {
		t.Errorf("kubeadm's volumes were lost: %+v", pod.Spec.Volumes)
	}
	if host := hostPathOf(t, root, node, nodeBinary); host != filepath.Join(root, "_output", "bin", "kube-apiserver") {
		t.Errorf("the node's %s comes from %s, want _output/bin/kube-apiserver", nodeBinary, host)
	}
}

// remap turns the static pod's command line into one that runs here: the kind node's
// certificates become the local PKI (kubeadm's file names; the kubelet client certificate is
// the admin's), the etcd is a local plain-HTTP one (so its TLS flags go), and the server
// listens on loopback only.
func remap(t *testing.T, command []string, pkiDir, etcdURL string, port int) []string {
	t.Helper()
	var args []string
	for _, arg := range command[1:] {
		name, value, _ := strings.Cut(arg, "=")
		switch name {
		case "--etcd-cafile", "--etcd-certfile", "--etcd-keyfile":
			continue
		case "--etcd-servers":
			value = etcdURL
		case "--advertise-address":
			value = "127.0.0.1"
		case "--secure-port":
			value = fmt.Sprint(port)
		}
		if strings.HasPrefix(value, kubeadmPKI) {
			file := strings.TrimPrefix(value, kubeadmPKI)
			file = strings.Replace(file, "apiserver-kubelet-client", "admin", 1)
			value = filepath.Join(pkiDir, file)
			if _, err := os.Stat(value); err != nil {
				t.Errorf("%s refers to %s, which the local PKI does not have", name, file)
			}
		}
		args = append(args, name+"="+value)
	}
	return append(args, "--bind-address=127.0.0.1", "--endpoint-reconciler-type=none")
}

func TestKindRecipeCommandLineStartsOurBinary(t *testing.T) {
	root := repoRoot(t)
	pod, node := renderAPIServerPod(t, root, loadCluster(t, root))
	binary := hostPathOf(t, root, node, nodeBinary)
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("%v: run `make kube-apiserver` (make test does)", err)
	}
	binDir := t.TempDir()
	// The node's binary, plus the etcd that make builds beside it.
	for name, src := range map[string]string{"kube-apiserver": binary, "etcd": filepath.Join(filepath.Dir(binary), "etcd")} {
		if err := os.Symlink(src, filepath.Join(binDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	ports, err := featuregatetest.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	command := pod.Spec.Containers[0].Command
	cp, err := localup.Start(context.Background(), localup.Options{
		Dir: t.TempDir(), BinDir: binDir,
		EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2],
		APIServerArgs: func(pkiDir, etcdURL string, port int) []string {
			return remap(t, command, pkiDir, etcdURL, port)
		},
	})
	if err != nil {
		t.Fatalf("our kube-apiserver does not become ready with the kind command line: %v", err)
	}
	defer cp.Stop()

	// It is ours, and the feature is on: the CRD API knows customFeatureGates.
	out, err := exec.Command(filepath.Join(filepath.Dir(binary), "kubectl"), "--kubeconfig", cp.Kubeconfig,
		"explain", "customresourcedefinitions.spec.customFeatureGates").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "featureGates") {
		t.Errorf("kubectl explain of customFeatureGates failed (%v):\n%s", err, out)
	}
	logData, err := os.ReadFile(cp.APIServerLog)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(logData, []byte(featureGates)) && !bytes.Contains(logData, []byte("CRDFieldLevelVersioning")) {
		t.Errorf("the server was not started with %s", featureGates)
	}
}
