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

// Package upstream is a controller project's test with upstream k8s.io/apiextensions-apiserver
// in its module: envtest's CRDDirectoryPaths loses the gates, envtestgates.Verify says so, and
// envtestgates.Install keeps them.
package upstream

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"k8s.io/apiextensions-apiserver/controllers/envtestgates"
)

func TestUpstreamModuleKeepsGatesWithInstall(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make envtest-assets` at the repository root, or `make test-controllers`")
	}
	// The module graph holds upstream's CustomResourceDefinition type, which has no gates.
	if _, ok := reflect.TypeOf(apiextensionsv1.CustomResourceDefinitionSpec{}).FieldByName("CustomFeatureGates"); ok {
		t.Fatal("k8s.io/apiextensions-apiserver in this module is the fork, not upstream: the test would prove nothing")
	}
	file := filepath.Join("testdata", "gizmos.yaml")
	env := &envtest.Environment{BinaryAssetsDirectory: assets, CRDDirectoryPaths: []string{"testdata"}}
	env.ControlPlane.GetAPIServer().Configure().Append("feature-gates", "CRDFieldLevelVersioning=true")
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// envtest installed the CRD through upstream's Go type: the gates are gone, and Verify
	// fails loudly.
	err = envtestgates.Verify(ctx, cfg, file)
	if err == nil || !strings.Contains(err.Error(), "reached the server without 2 of the feature gates") {
		t.Fatalf("Verify after envtest's CRDDirectoryPaths = %v, want the gates reported missing", err)
	}
	t.Logf("as expected: %v", err)

	if _, err := envtestgates.Install(ctx, cfg, file); err != nil {
		t.Fatal(err)
	}
	dc := dynamic.NewForConfigOrDie(cfg)
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "envtestgates.example.com/v1", "kind": "Gizmo",
		"metadata": map[string]interface{}{"name": "g1", "namespace": "default"},
		"spec":     map[string]interface{}{"size": int64(3), "turbo": true},
	}}
	gvr := schema.GroupVersionResource{Group: "envtestgates.example.com", Version: "v1", Resource: "gizmos"}
	got, err := dc.Resource(gvr).Namespace("default").Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "turbo"); found {
		t.Errorf("spec.turbo, behind the disabled gate GizmoTurbo, was stored: %v", got.Object["spec"])
	}
}
