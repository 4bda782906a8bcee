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

package envtestgates_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"k8s.io/apiextensions-apiserver/controllers/envtestgates"
)

// The tests run on this fork's kube-apiserver with CRDFieldLevelVersioning on and a real
// etcd, started by envtest from KUBEBUILDER_ASSETS (`make envtest-assets`).

var cfg *rest.Config

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set: run `make envtest-assets` at the repository root, or `make test-controllers`.")
		return 1
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	env.ControlPlane.GetAPIServer().Configure().Append("feature-gates", "CRDFieldLevelVersioning=true")
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: starting kube-apiserver and etcd from %s: %v\n", assets, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	return m.Run()
}

var (
	crds   = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	gizmos = schema.GroupVersionResource{Group: "envtestgates.example.com", Version: "v1", Resource: "gizmos"}
)

// Install keeps the gates: a field whose gate is off is dropped on create, and Verify finds
// every gate. A CRD installed again without its gates (as envtest's CRDDirectoryPaths does
// through upstream's Go type) fails Verify, loudly, naming what is missing.
func TestInstallAndVerify(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	file := filepath.Join("testdata", "gizmos.yaml")
	installed, err := envtestgates.Install(ctx, cfg, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	// The directory also holds sprockets.json: a List, whose CRD carries a resourceVersion (as
	// `kubectl get -o json` writes it) and values the server leaves out as empty.
	if len(installed) != 2 || installed[0].GetName() != "gizmos.envtestgates.example.com" || installed[1].GetName() != "sprockets.envtestgates.example.com" {
		t.Fatalf("installed %d CRDs, want gizmos and sprockets", len(installed))
	}
	if err := envtestgates.Verify(ctx, cfg, "testdata"); err != nil {
		t.Errorf("Verify of both: %v", err)
	}
	dc := dynamic.NewForConfigOrDie(cfg)
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "envtestgates.example.com/v1", "kind": "Gizmo",
		"metadata": map[string]interface{}{"name": "g1", "namespace": "default"},
		"spec":     map[string]interface{}{"size": int64(3), "turbo": true},
	}}
	got, err := dc.Resource(gizmos).Namespace("default").Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "turbo"); found {
		t.Errorf("spec.turbo, behind the disabled gate GizmoTurbo, was stored: %v", got.Object["spec"])
	}
	if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); size != 3 {
		t.Errorf("spec.size = %d, want 3", size)
	}
	if err := envtestgates.Verify(ctx, cfg, file); err != nil {
		t.Errorf("Verify after Install: %v", err)
	}
	// Installing twice updates the CRD in place.
	if _, err := envtestgates.Install(ctx, cfg, file); err != nil {
		t.Errorf("Install of an installed CRD: %v", err)
	}

	// The CRD as upstream's Go type would send it: no customFeatureGates, no marks.
	stripped, err := dc.Resource(crds).Get(ctx, "gizmos.envtestgates.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unstructured.RemoveNestedField(stripped.Object, "spec", "customFeatureGates")
	versions, _, _ := unstructured.NestedSlice(stripped.Object, "spec", "versions")
	unstructured.RemoveNestedField(versions[0].(map[string]interface{}), "schema", "openAPIV3Schema", "properties", "spec", "properties", "turbo", "x-kubernetes-feature-gate")
	if err := unstructured.SetNestedSlice(stripped.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Resource(crds).Update(ctx, stripped, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = envtestgates.Verify(ctx, cfg, file)
	if err == nil {
		t.Fatal("Verify passed on a CRD without its gates")
	}
	for _, want := range []string{
		"CRD gizmos.envtestgates.example.com reached the server without 2 of the feature gates that " + file + " declares",
		"gate GizmoTurbo",
		"version v1 schema .properties.spec.properties.turbo x-kubernetes-feature-gate",
		"envtestgates.Install",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Verify's error %q does not say %q", err, want)
		}
	}
	// Install puts them back.
	if _, err := envtestgates.Install(ctx, cfg, file); err != nil {
		t.Errorf("Install over a CRD without its gates: %v", err)
	}
	if err := envtestgates.Verify(ctx, cfg, file); err != nil {
		t.Errorf("Verify after the second Install: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	noCRD := filepath.Join(dir, "none.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	unnamed := filepath.Join(dir, "unnamed.yaml")
	for p, content := range map[string]string{
		noCRD:   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		bad:     "apiVersion: apiextensions.k8s.io/v1\nkind: [\n",
		unnamed: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {}\n",
	} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path, want string
	}{
		{noCRD, "holds no apiextensions.k8s.io/v1 CustomResourceDefinition"},
		{bad, bad + ":"},
		{unnamed, "without metadata.name"},
		{filepath.Join(dir, "missing.yaml"), "no such file"},
	} {
		_, err := envtestgates.Read(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s) = %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
	got, err := envtestgates.Read("testdata")
	if err != nil || len(got) != 2 {
		t.Fatalf("Read(testdata) = %d CRDs, %v; want 2", len(got), err)
	}
	_, err = envtestgates.Read("testdata", filepath.Join("testdata", "gizmos.yaml"))
	if want := "CRD gizmos.envtestgates.example.com is in testdata/gizmos.yaml and in testdata/gizmos.yaml: keep one"; err == nil || err.Error() != want {
		t.Errorf("Read of one CRD twice = %v, want %q", err, want)
	}
}

// On a kube-apiserver without the feature (the stock one, as setup-envtest's assets are),
// Install fails and says why, instead of installing the CRD without its gates.
func TestInstallOnStockFails(t *testing.T) {
	stock := os.Getenv("STOCK_KUBE_APISERVER")
	if stock == "" {
		t.Fatal("STOCK_KUBE_APISERVER (a stock kube-apiserver v1.37.1) is not set: run `make test-controllers` at the repository root, which builds it")
	}
	env := &envtest.Environment{BinaryAssetsDirectory: os.Getenv("KUBEBUILDER_ASSETS")}
	env.ControlPlane.GetAPIServer().Path = stock
	stockCfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = envtestgates.Install(ctx, stockCfg, filepath.Join("testdata", "gizmos.yaml"))
	if err == nil {
		t.Fatal("Install on the stock kube-apiserver succeeded")
	}
	t.Logf("as expected: %v", err)
	for _, want := range []string{"installing CRD gizmos.envtestgates.example.com of testdata/gizmos.yaml", "customFeatureGates"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Install's error %q does not say %q", err, want)
		}
	}
}
