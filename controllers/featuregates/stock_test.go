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

package featuregates_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/controllers/featuregates"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// The policies backend: a stock kube-apiserver v1.37.1 (STOCK_KUBE_APISERVER) with what
// `featuregate-gen policies` (FEATUREGATE_GEN) generates for a gated CRD. `make
// test-controllers` sets both.

// stockEnv starts a stock control plane (the stock kube-apiserver, the assets' etcd and
// kubectl) for the test, and returns it with the featuregate-gen binary.
func stockEnv(t *testing.T) (*envtest.Environment, string) {
	t.Helper()
	stock, gen := os.Getenv("STOCK_KUBE_APISERVER"), os.Getenv("FEATUREGATE_GEN")
	if stock == "" || gen == "" {
		t.Fatalf("STOCK_KUBE_APISERVER (a stock kube-apiserver v1.37.1) and FEATUREGATE_GEN (the featuregate-gen binary) must be set: run `make test-controllers` at the repository root, which builds both")
	}
	env := &envtest.Environment{BinaryAssetsDirectory: os.Getenv("KUBEBUILDER_ASSETS")}
	env.ControlPlane.GetAPIServer().Path = stock
	if _, err := env.Start(); err != nil {
		t.Fatalf("starting the stock kube-apiserver %s: %v", stock, err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the stock control plane: %v", err)
		}
	})
	return env, gen
}

// stockKubectl runs the assets' kubectl against env.
func stockKubectl(t *testing.T, env *envtest.Environment, args ...string) string {
	t.Helper()
	stdout, stderr, err := env.ControlPlane.KubeCtl().Run(args...)
	out, _ := io.ReadAll(stdout)
	if err != nil {
		errOut, _ := io.ReadAll(stderr)
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return string(out)
}

// TestTrackerOnStockWithPolicies follows a CRD whose gates live in its
// CustomResourceFeatureGates object, on the stock kube-apiserver with the generated
// policies: the tracker, started before the policies' kinds exist, picks the object up,
// answers as the native backend would, agrees with what the server stores, and requeues
// when a gate is turned on in the object.
func TestTrackerOnStockWithPolicies(t *testing.T) {
	env, gen := stockEnv(t)
	ctx := context.Background()

	// featuregate-gen policies, as a user runs it, on the CRD the native tests use.
	crd := newCRD("stockwidgets")
	crd.TypeMeta = metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}
	dir := t.TempDir()
	raw, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "crd.yaml")
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "generated")
	if b, err := exec.Command(gen, "policies", "--crds", in, "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("featuregate-gen policies: %v\n%s", err, b)
	}

	// Started before anything is installed: no CRD, no parameter kind.
	tr := startTrackerOn(t, env.Config, crd.Name)
	if tr.CRD() != nil || tr.Backend() != "" {
		t.Fatalf("before install: CRD() = %v, Backend() = %q", tr.CRD(), tr.Backend())
	}
	replicas, stop := startSource(t, tr, "replicas", "ReplicasGate")
	defer stop()

	stockKubectl(t, env, "apply", "--server-side", "-f", filepath.Join(out, "crds"))
	stockKubectl(t, env, "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
	stockKubectl(t, env, "apply", "--server-side", "-f", filepath.Join(out, "policies"))

	eventually(t, 30*time.Second, "Backend() = policies after install", func() bool {
		return tr.Backend() == featuregates.BackendPolicies
	})
	if tr.CRD().Spec.CustomFeatureGates == nil {
		t.Fatalf("CRD() has no gates on the policies backend")
	}
	for gate, want := range map[string]bool{"ReplicasGate": false, "ExtraGate": true, "ModeGate": false} {
		if got := tr.Enabled(gate); got != want {
			t.Errorf("Enabled(%s) = %v, want %v", gate, got, want)
		}
	}
	for path, want := range map[string]bool{".spec.replicas": false, ".spec.extra.size": true, ".spec.mode": false, ".metadata.name": true} {
		if got := fieldEnabled(t, tr, "v1", path); got != want {
			t.Errorf("FieldEnabled(v1, %s) = %v, want %v", path, got, want)
		}
	}

	// What the tracker says is what the server does: the disabled field is dropped.
	dyn := dynamic.NewForConfigOrDie(env.Config)
	widgets := dyn.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: "v1", Resource: crd.Spec.Names.Plural}).Namespace("default")
	create := func(name string) *unstructured.Unstructured {
		t.Helper()
		obj := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": crd.Spec.Group + "/v1", "kind": "Widget",
			"metadata": map[string]interface{}{"name": name},
			"spec":     map[string]interface{}{"replicas": int64(3), "mode": "fast"},
		}}
		var got *unstructured.Unstructured
		// Until the CRD's schema is published, the policies' type check fails closed.
		eventually(t, 30*time.Second, "creating widget "+name, func() bool {
			got, err = widgets.Create(ctx, obj, metav1.CreateOptions{})
			return err == nil
		})
		return got
	}
	// A stock server loads new policies asynchronously: a write can pass unchecked for a
	// moment after the install. Wait until a dry-run create drops the disabled field.
	eventually(t, 30*time.Second, "the policies drop .spec.replicas on a dry-run create", func() bool {
		probe := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": crd.Spec.Group + "/v1", "kind": "Widget",
			"metadata": map[string]interface{}{"name": "probe"},
			"spec":     map[string]interface{}{"replicas": int64(3)},
		}}
		got, err := widgets.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false
		}
		_, has, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "replicas")
		return !has
	})
	if _, has, _ := unstructured.NestedFieldNoCopy(create("off").Object, "spec", "replicas"); has {
		t.Errorf("the stock server stored .spec.replicas while the tracker says it is not live")
	}
	expectNoRequest(t, replicas, "install with ReplicasGate off", 300*time.Millisecond)

	// The cluster admin turns the gate on in the parameter object.
	stockKubectl(t, env, "patch", featuregates.ParamResource+"."+featuregates.ParamGroup, crd.Name, "--type=json",
		"-p", `[{"op":"add","path":"/spec/featureGates/0/enabled","value":true}]`)
	expectRequest(t, replicas, "replicas", 5*time.Second)
	if !tr.Enabled("ReplicasGate") || !fieldEnabled(t, tr, "v1", ".spec.replicas") {
		t.Errorf("after enabling ReplicasGate in the parameter object: Enabled = %v, FieldEnabled(.spec.replicas) = %v", tr.Enabled("ReplicasGate"), fieldEnabled(t, tr, "v1", ".spec.replicas"))
	}
	// The policies read the new state within their parameter informer's delay.
	eventually(t, 30*time.Second, "the stock server stores .spec.replicas once ReplicasGate is on", func() bool {
		name := "on-" + time.Now().Format("150405.000000000")
		name = strings.ReplaceAll(name, ".", "-")
		_, has, _ := unstructured.NestedFieldNoCopy(create(name).Object, "spec", "replicas")
		return has
	})

	// The predicate reads parameter objects as it reads CRDs.
	param, err := dyn.Resource(featuregates.ParamGVR).Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the parameter object: %v", err)
	}
	off := param.DeepCopy()
	gates, _, _ := unstructured.NestedSlice(off.Object, "spec", "featureGates")
	gates[0].(map[string]interface{})["enabled"] = false
	if err := unstructured.SetNestedSlice(off.Object, gates, "spec", "featureGates"); err != nil {
		t.Fatal(err)
	}
	p := tr.Predicate("ReplicasGate")
	if !p.Update(event.UpdateEvent{ObjectOld: off, ObjectNew: param}) {
		t.Errorf("Predicate(ReplicasGate) refused a parameter object update that turned ReplicasGate on")
	}
	if p.Update(event.UpdateEvent{ObjectOld: param, ObjectNew: param.DeepCopy()}) {
		t.Errorf("Predicate(ReplicasGate) passed a parameter object update that flipped nothing")
	}
	other := param.DeepCopy()
	other.SetName("other." + crd.Spec.Group)
	if p.Update(event.UpdateEvent{ObjectOld: off, ObjectNew: other}) {
		t.Errorf("Predicate passed the parameter object of another CRD")
	}

}
