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

// Package kindha runs CRD field feature gates in a kind cluster with three control-plane
// nodes (make test-kind-ha, hack/kind/ha): a rolling upgrade from the stock kube-apiserver to
// ours and back under bounded load, what a stock server does to gates, and how long a gate
// change takes to reach every server.
package kindha

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	clientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

const (
	group     = "ha.example.com"
	plural    = "endpoints"
	namespace = "default"
	gate      = "PortGate"
)

var gvr = schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}

// node is one control-plane node and the kube-apiserver on it.
type node struct {
	name   string // the kind node container
	url    string // its kube-apiserver, through the port kind maps to 127.0.0.1
	dyn    dynamic.Interface
	apiext clientset.Interface
}

type cluster struct {
	lbDyn    dynamic.Interface
	lbAPIExt clientset.Interface
	nodes    []*node
	report   *report
}

// report collects the figures that make test-kind-ha writes to its report file.
type report struct {
	mu    sync.Mutex
	lines []string
}

func (r *report) add(t *testing.T, format string, args ...interface{}) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
}

func setup(t *testing.T) *cluster {
	t.Helper()
	kubeconfig := os.Getenv("KIND_HA_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("KIND_HA_KUBECONFIG is not set: this test needs the cluster of make test-kind-ha")
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	config.QPS, config.Burst = 200, 400
	c := &cluster{report: &report{}}
	if c.lbDyn, err = dynamic.NewForConfig(config); err != nil {
		t.Fatal(err)
	}
	if c.lbAPIExt, err = clientset.NewForConfig(config); err != nil {
		t.Fatal(err)
	}
	// KIND_HA_NODES is name=port,...: each node's kube-apiserver on 127.0.0.1.
	for _, entry := range strings.Split(os.Getenv("KIND_HA_NODES"), ",") {
		name, port, ok := strings.Cut(entry, "=")
		if !ok {
			t.Fatalf("bad KIND_HA_NODES entry %q", entry)
		}
		n := &node{name: name, url: "https://127.0.0.1:" + port}
		cfg := rest.CopyConfig(config)
		cfg.Host = n.url
		if n.dyn, err = dynamic.NewForConfig(cfg); err != nil {
			t.Fatal(err)
		}
		if n.apiext, err = clientset.NewForConfig(cfg); err != nil {
			t.Fatal(err)
		}
		c.nodes = append(c.nodes, n)
	}
	if len(c.nodes) != 3 {
		t.Fatalf("KIND_HA_NODES names %d nodes, want 3", len(c.nodes))
	}
	t.Cleanup(func() {
		if path := os.Getenv("KIND_HA_REPORT"); path != "" {
			_ = os.WriteFile(path, []byte(strings.Join(c.report.lines, "\n")+"\n"), 0o644)
		}
	})
	return c
}

// The kube-apiserver of a node runs in one of three modes, set by rewriting its static pod
// manifest from the one kubeadm wrote (kept as /root/kube-apiserver.stock.yaml):
const (
	stock       = "stock"        // kubeadm's pod: the image's stock kube-apiserver
	ours        = "ours"         // our binary mounted over the image's, CRDFieldLevelVersioning off
	oursFeature = "ours+feature" // ours, with CRDFieldLevelVersioning=true
)

// setMode rewrites the node's kube-apiserver manifest for mode and waits until the server
// answers /readyz with the expected binary. The kubelet restarts the static pod.
func (c *cluster) setMode(t *testing.T, n *node, mode string) time.Duration {
	t.Helper()
	start := time.Now()
	var patch []map[string]interface{}
	if mode != stock {
		patch = append(patch,
			map[string]interface{}{"op": "add", "path": "/spec/volumes/-", "value": map[string]interface{}{
				"name": "kep2608-bin", "hostPath": map[string]interface{}{"path": "/kep2608/bin/kube-apiserver", "type": "File"}}},
			map[string]interface{}{"op": "add", "path": "/spec/containers/0/volumeMounts/-", "value": map[string]interface{}{
				"name": "kep2608-bin", "mountPath": "/usr/local/bin/kube-apiserver", "readOnly": true}})
	}
	if mode == oursFeature {
		patch = append(patch, map[string]interface{}{"op": "add", "path": "/spec/containers/0/command/-", "value": "--feature-gates=CRDFieldLevelVersioning=true"})
	}
	script := "set -e; m=/etc/kubernetes/manifests/kube-apiserver.yaml; s=/root/kube-apiserver.stock.yaml; [ -f $s ] || cp $m $s; "
	if len(patch) == 0 {
		script += "cp $s /root/next.yaml; "
	} else {
		raw, _ := json.Marshal(patch)
		script += fmt.Sprintf("kubectl patch --local -f $s --type json -o yaml -p '%s' > /root/next.yaml; ", raw)
	}
	script += "mv /root/next.yaml $m"
	if out, err := exec.Command("docker", "exec", n.name, "sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("switching %s to %s: %v\n%s", n.name, mode, err, out)
	}
	wantOurs := mode != stock
	insecure := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	// The old pod may still answer for a moment: wait for the binary to change first.
	featuregatetest.WaitFor(t, 3*time.Minute, n.name+" to run "+mode, func() bool {
		resp, err := insecure.Get(n.url + "/version")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var v struct{ GitVersion string }
		if json.NewDecoder(resp.Body).Decode(&v) != nil || strings.Contains(v.GitVersion, "+kep2608") != wantOurs {
			return false
		}
		ready, err := insecure.Get(n.url + "/readyz")
		if err != nil {
			return false
		}
		ready.Body.Close()
		if ready.StatusCode != http.StatusOK {
			return false
		}
		// The feature flag is checked by its effect, where it has one: the CRD's gates.
		return true
	})
	// A restart of the same binary with another flag: make sure the new process answers by
	// waiting for the kubelet to report the pod's container started after the switch.
	featuregatetest.WaitFor(t, 3*time.Minute, n.name+" to report its new pod", func() bool {
		out, err := exec.Command("docker", "exec", n.name, "sh", "-c",
			"crictl ps --name kube-apiserver -o json").Output()
		if err != nil {
			return false
		}
		var ps struct {
			Containers []struct {
				CreatedAt string `json:"createdAt"`
			} `json:"containers"`
		}
		if json.Unmarshal(out, &ps) != nil || len(ps.Containers) != 1 {
			return false
		}
		created, err := strconv.ParseInt(ps.Containers[0].CreatedAt, 10, 64)
		return err == nil && time.Unix(0, created).After(start)
	})
	featuregatetest.WaitFor(t, 2*time.Minute, n.name+" to be ready after the switch", func() bool {
		ready, err := insecure.Get(n.url + "/readyz")
		if err != nil {
			return false
		}
		ready.Body.Close()
		return ready.StatusCode == http.StatusOK
	})
	d := time.Since(start)
	c.report.add(t, "- %s: %s in %.0f s", n.name, mode, d.Seconds())
	return d
}

// load writes custom resources through the load balancer with a few concurrent clients,
// each owning its objects, and keeps what each acknowledged write stored.
type load struct {
	mu    sync.Mutex
	acked map[string]map[string]interface{} // name -> spec of the last acknowledged write
	// pending is the spec of an object's last write when that write failed: its answer may
	// have been lost after it was stored (a server restarting), so etcd may hold it.
	pending map[string]map[string]interface{}
	writes  int
	errors  int
	stop    chan struct{}
	done    sync.WaitGroup
	lastErr string
}

func (c *cluster) startLoad(t *testing.T, workers, objectsPerWorker, maxOps int) *load {
	l := &load{acked: map[string]map[string]interface{}{}, pending: map[string]map[string]interface{}{}, stop: make(chan struct{})}
	for w := 0; w < workers; w++ {
		l.done.Add(1)
		go func(w int) {
			defer l.done.Done()
			r := rand.New(rand.NewSource(int64(w)))
			exists := map[string]bool{}
			for op := 0; op < maxOps; op++ {
				select {
				case <-l.stop:
					return
				case <-time.After(25 * time.Millisecond):
				}
				name := fmt.Sprintf("w%d-%d", w, r.Intn(objectsPerWorker))
				spec := map[string]interface{}{"host": fmt.Sprintf("h%d", r.Intn(1000)), "replicas": int64(r.Intn(10))}
				if r.Intn(2) == 0 {
					spec["port"] = strconv.Itoa(8000 + r.Intn(1000))
				}
				obj := &unstructured.Unstructured{Object: map[string]interface{}{
					"apiVersion": group + "/v1", "kind": "Endpoint",
					"metadata": map[string]interface{}{"name": name, "namespace": namespace},
					"spec":     spec,
				}}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				var out *unstructured.Unstructured
				var err error
				if !exists[name] {
					out, err = c.lbDyn.Resource(gvr).Namespace(namespace).Create(ctx, obj, metav1.CreateOptions{})
					if err != nil && strings.Contains(err.Error(), "already exists") {
						exists[name] = true // an earlier create was stored, its answer lost
					}
				} else {
					var cur *unstructured.Unstructured
					if cur, err = c.lbDyn.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{}); err == nil {
						obj.SetResourceVersion(cur.GetResourceVersion())
						out, err = c.lbDyn.Resource(gvr).Namespace(namespace).Update(ctx, obj, metav1.UpdateOptions{})
					}
				}
				cancel()
				l.mu.Lock()
				l.writes++
				if err != nil {
					l.errors++
					l.lastErr = err.Error()
					l.pending[name] = spec
				} else {
					exists[name] = true
					l.acked[name], _ = out.Object["spec"].(map[string]interface{})
					delete(l.pending, name)
				}
				l.mu.Unlock()
			}
		}(w)
	}
	return l
}

func (l *load) stopAndWait() {
	close(l.stop)
	l.done.Wait()
}

// etcdClient connects to the etcd member of the first node, with the certificates kubeadm
// made for the kube-apiserver, copied out of the node.
func (c *cluster) etcdClient(t *testing.T) *clientv3.Client {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"ca.crt", "apiserver-etcd-client.crt", "apiserver-etcd-client.key"} {
		src := "/etc/kubernetes/pki/" + f
		if f == "ca.crt" {
			src = "/etc/kubernetes/pki/etcd/ca.crt"
		}
		if out, err := exec.Command("docker", "cp", c.nodes[0].name+":"+src, dir+"/"+f).CombinedOutput(); err != nil {
			t.Fatalf("docker cp %s: %v\n%s", src, err, out)
		}
	}
	ip, err := exec.Command("docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", c.nodes[0].name).Output()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(dir+"/apiserver-etcd-client.crt", dir+"/apiserver-etcd-client.key")
	if err != nil {
		t.Fatal(err)
	}
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"https://" + strings.TrimSpace(string(ip)) + ":2379"}, DialTimeout: 10 * time.Second, TLS: tlsConfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

func haCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: "endpoint", Kind: "Endpoint", ListKind: "EndpointList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"host": str, "port": str, "replicas": {Type: "integer"},
						}},
					},
				}},
			}},
		},
	}
}

var gates = &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
	{Name: gate, PreRelease: apiextensionsv1.CustomFeatureGateBeta, FieldPaths: []string{".spec.port"}},
}}

// storedGates reads the CRD's spec.customFeatureGates through a server of ours.
func storedGates(t *testing.T, n *node) *apiextensionsv1.CustomResourceDefinitionFeatureGates {
	t.Helper()
	crd, err := n.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), plural+"."+group, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return crd.Spec.CustomFeatureGates
}

// honours reports whether a server gates .spec.port as the gate's state says: a dry-run
// create through that server keeps the port exactly when the gate is enabled.
func honours(n *node, enabled bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": group + "/v1", "kind": "Endpoint",
		"metadata": map[string]interface{}{"name": "probe", "namespace": namespace},
		"spec":     map[string]interface{}{"port": "1"},
	}}
	out, err := n.dyn.Resource(gvr).Namespace(namespace).Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return false
	}
	_, has, _ := unstructured.NestedString(out.Object, "spec", "port")
	return has == enabled
}

func setGate(t *testing.T, apiext clientset.Interface, enabled bool) {
	t.Helper()
	p := fmt.Sprintf(`[{"op":"test","path":"/spec/customFeatureGates/featureGates/0/name","value":%q},{"op":"add","path":"/spec/customFeatureGates/featureGates/0/enabled","value":%t}]`, gate, enabled)
	if _, err := apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), plural+"."+group, types.JSONPatchType, []byte(p), metav1.PatchOptions{}); err != nil {
		t.Fatalf("set %s enabled=%t: %v", gate, enabled, err)
	}
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p)
	return sorted[i]
}

// TestRollingUpgradeAndRollback: the cluster starts with the stock kube-apiserver on all
// three nodes. Under bounded load through the load balancer, the servers are replaced by ours
// one at a time, the feature is turned on one node at a time, a gate is declared and flipped
// (propagation measured on each server directly), and the servers go back to stock one at a
// time. What happens to spec.customFeatureGates with a stock server in the cluster is
// recorded. At the end every acknowledged write is read back from etcd.
func TestRollingUpgradeAndRollback(t *testing.T) {
	c := setup(t)
	ctx := context.Background()
	r := c.report
	r.add(t, "## Rolling upgrade and rollback (%s)", time.Now().UTC().Format("2006-01-02"))

	// A stock server does not know spec.customFeatureGates: it drops the field of a CRD.
	withGates := haCRD()
	withGates.Spec.CustomFeatureGates = gates.DeepCopy()
	created, err := c.nodes[0].apiext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, withGates, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	featuregatetest.WaitFor(t, time.Minute, "the CRD to be established", func() bool {
		_, err := c.lbDyn.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		return err == nil
	})
	r.add(t, "- stock servers: a CRD created with spec.customFeatureGates is stored without it (the stock server drops the unknown field): %t", created.Spec.CustomFeatureGates == nil)
	if created.Spec.CustomFeatureGates != nil {
		t.Errorf("a stock server kept spec.customFeatureGates: %+v", created.Spec.CustomFeatureGates)
	}

	l := c.startLoad(t, 4, 25, 20000)
	for _, n := range c.nodes {
		c.setMode(t, n, ours)
	}
	for _, n := range c.nodes {
		c.setMode(t, n, oursFeature)
	}

	// Declare the gate through the load balancer, now that every server is ours with the
	// feature; beta, so enabled.
	crd, err := c.lbAPIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, plural+"."+group, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd.Spec.CustomFeatureGates = gates.DeepCopy()
	if _, err := c.lbAPIExt.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range c.nodes {
		featuregatetest.WaitFor(t, time.Minute, n.name+" to honour the declared gate", func() bool { return honours(n, true) })
	}

	// Propagation: flip the gate through the load balancer and probe each server directly
	// until all three honour the new state.
	const flips = 20
	var all []time.Duration
	perServer := map[string][]time.Duration{}
	mixed := 0
	for i := 0; i < flips; i++ {
		enabled := i%2 == 1
		start := time.Now()
		setGate(t, c.lbAPIExt, enabled)
		pending := map[string]bool{}
		for _, n := range c.nodes {
			pending[n.name] = true
		}
		deadline := start.Add(30 * time.Second)
		sawMixed := false
		for len(pending) > 0 && time.Now().Before(deadline) {
			for _, n := range c.nodes {
				if pending[n.name] && honours(n, enabled) {
					delete(pending, n.name)
					perServer[n.name] = append(perServer[n.name], time.Since(start))
				}
			}
			if len(pending) > 0 && len(pending) < len(c.nodes) {
				sawMixed = true
			}
			time.Sleep(5 * time.Millisecond)
		}
		if len(pending) > 0 {
			t.Fatalf("flip %d (enabled=%t): %v did not honour it within 30 s", i, enabled, pending)
		}
		if sawMixed {
			mixed++
		}
		all = append(all, time.Since(start))
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	r.add(t, "- propagation, %d flips through the load balancer, until all three servers honour the new state (probing each server directly): p50 %d ms, p99 %d ms, max %d ms; flips during which the servers disagreed for a while: %d of %d",
		flips, percentile(all, 0.5).Milliseconds(), percentile(all, 0.99).Milliseconds(), all[len(all)-1].Milliseconds(), mixed, flips)
	for _, n := range c.nodes {
		d := perServer[n.name]
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		r.add(t, "  - %s: p50 %d ms, max %d ms", n.name, percentile(d, 0.5).Milliseconds(), d[len(d)-1].Milliseconds())
	}
	// The gate ends enabled (flips alternate, the last one enables).

	// Roll back the third server to stock. A CRD write through it drops the gates.
	backup := storedGates(t, c.nodes[0])
	c.setMode(t, c.nodes[2], stock)
	if _, err := c.nodes[2].apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, plural+"."+group, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"touched-by":"stock"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	erased := storedGates(t, c.nodes[0]) == nil
	r.add(t, "- mixed (two servers ours, one stock): a CRD write (a label) through the stock server erases spec.customFeatureGates: %t", erased)
	// A custom resource write through the stock server is not gated: with the gate disabled,
	// the stock server stores the field anyway.
	if !erased {
		setGate(t, c.nodes[0].apiext, false)
	}
	// Restore the gates through a server of ours, from the copy taken before the rollback.
	if erased {
		crd, err := c.nodes[0].apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, plural+"."+group, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		crd.Spec.CustomFeatureGates = backup
		crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptr.To(false)
		if _, err := c.nodes[0].apiext.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		r.add(t, "- restored from the copy through a server of ours: %t", storedGates(t, c.nodes[0]) != nil)
	}
	featuregatetest.WaitFor(t, time.Minute, c.nodes[0].name+" to honour the disabled gate", func() bool { return honours(c.nodes[0], false) })
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": group + "/v1", "kind": "Endpoint",
		"metadata": map[string]interface{}{"name": "through-stock", "namespace": namespace},
		"spec":     map[string]interface{}{"port": "9"},
	}}
	out, err := c.nodes[2].dyn.Resource(gvr).Namespace(namespace).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, stockKept, _ := unstructured.NestedString(out.Object, "spec", "port")
	r.add(t, "- a custom resource create through the stock server with the gate disabled stores the gated field: %t (a stock server does not gate)", stockKept)

	for _, n := range []*node{c.nodes[1], c.nodes[0]} {
		c.setMode(t, n, stock)
	}
	l.stopAndWait()

	// Every acknowledged write, read back from etcd.
	etcd := c.etcdClient(t)
	lost, corrupted := 0, 0
	for name, spec := range l.acked {
		resp, err := etcd.Get(ctx, fmt.Sprintf("/registry/%s/%s/%s/%s", group, plural, namespace, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) == 0 {
			lost++
			t.Errorf("%s: acknowledged, not in etcd", name)
			continue
		}
		var stored map[string]interface{}
		if err := json.Unmarshal(resp.Kvs[0].Value, &stored); err != nil {
			corrupted++
			t.Errorf("%s: not JSON in etcd: %v", name, err)
			continue
		}
		want, _ := json.Marshal(spec)
		got, _ := json.Marshal(stored["spec"])
		if attempted, ok := l.pending[name]; ok && string(got) != string(want) {
			// The last write failed for the client, but was stored: etcd holds it, or the
			// acknowledged one before it.
			if a, _ := json.Marshal(attempted); string(a) == string(got) {
				continue
			}
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			corrupted++
			t.Errorf("%s: etcd differs from the last acknowledged write (-acked +etcd):\n%s", name, diff)
		}
	}
	r.add(t, "- load through the load balancer, 4 clients: %d writes, %d acknowledged objects, %d failed writes (servers restarting; last: %q); lost %d, corrupted %d",
		l.writes, len(l.acked), l.errors, l.lastErr, lost, corrupted)
}
