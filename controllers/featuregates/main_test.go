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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The tests run against a real kube-apiserver (this fork's, with CRDFieldLevelVersioning
// on), a real etcd and a real kubectl, started by envtest from the directory that
// KUBEBUILDER_ASSETS names (`make envtest-assets` fills _output/envtest-assets).

var (
	testEnv *envtest.Environment
	cfg     *rest.Config
	crdCS   clientset.Interface
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These tests need this fork's kube-apiserver, etcd and kubectl: run `make envtest-assets` at the repository root, then `KUBEBUILDER_ASSETS=$PWD/_output/envtest-assets go test ./...` here (or `make test-controllers`).")
		return 1
	}
	for _, bin := range []string{"kube-apiserver", "etcd", "kubectl"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: KUBEBUILDER_ASSETS=%s has no %s (%v): run `make envtest-assets` at the repository root.\n", assets, bin, err)
			return 1
		}
	}
	testEnv = &envtest.Environment{BinaryAssetsDirectory: assets}
	// The assets' wrapper may turn the gate on already; the flag is a map, so saying it
	// twice is harmless.
	testEnv.ControlPlane.GetAPIServer().Configure().Append("feature-gates", "CRDFieldLevelVersioning=true")
	var err error
	cfg, err = testEnv.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: starting kube-apiserver and etcd from %s: %v\n", assets, err)
		return 1
	}
	defer func() {
		if err := testEnv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping the test environment: %v\n", err)
		}
	}()
	crdCS = clientset.NewForConfigOrDie(cfg)
	return m.Run()
}

// newCRD returns a CRD of group <plural>.example.com with three gates:
// ReplicasGate (alpha, .spec.replicas), ExtraGate (beta, .spec.extra) and ModeGate (alpha,
// .spec.mode).
func newCRD(plural string) *apiextensionsv1.CustomResourceDefinition {
	group := plural + ".example.com"
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural, Singular: strings.TrimSuffix(plural, "s"),
				Kind: "Widget", ListKind: "WidgetList",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"replicas": {Type: "integer"},
							"mode":     {Type: "string"},
							"extra": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"size": {Type: "integer"},
							}},
						}},
					},
				}},
			}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
					{Name: "ReplicasGate", PreRelease: "alpha", FieldPaths: []string{".spec.replicas"}},
					{Name: "ExtraGate", PreRelease: "beta", FieldPaths: []string{".spec.extra"}},
					{Name: "ModeGate", PreRelease: "alpha", FieldPaths: []string{".spec.mode"}},
				},
			},
		},
	}
}

func createCRD(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	created, err := crdCS.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating CRD %s: %v", crd.Name, err)
	}
	if created.Spec.CustomFeatureGates == nil {
		t.Fatalf("CRD %s was stored without spec.customFeatureGates: is CRDFieldLevelVersioning on in the kube-apiserver of KUBEBUILDER_ASSETS?", crd.Name)
	}
	t.Cleanup(func() {
		err := crdCS.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting CRD %s: %v", crd.Name, err)
		}
	})
	return created
}

// setGate sets spec.customFeatureGates.featureGates[name].enabled with a client update,
// retrying on conflicts, and returns the stored CRD.
func setGate(t testing.TB, crdName, gate string, enabled bool) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	return updateCRD(t, crdName, func(crd *apiextensionsv1.CustomResourceDefinition) {
		for i := range crd.Spec.CustomFeatureGates.FeatureGates {
			if crd.Spec.CustomFeatureGates.FeatureGates[i].Name == gate {
				crd.Spec.CustomFeatureGates.FeatureGates[i].Enabled = ptr.To(enabled)
				return
			}
		}
		t.Fatalf("CRD %s declares no gate %s", crdName, gate)
	})
}

func updateCRD(t testing.TB, crdName string, mutate func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var out *apiextensionsv1.CustomResourceDefinition
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		crd, err := crdCS.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crdName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		mutate(crd)
		out, err = crdCS.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("updating CRD %s: %v", crdName, err)
	}
	return out
}

// kubectl runs the envtest kubectl (from KUBEBUILDER_ASSETS) against the test server.
func kubectl(t testing.TB, args ...string) string {
	t.Helper()
	stdout, stderr, err := testEnv.ControlPlane.KubeCtl().Run(args...)
	out, _ := io.ReadAll(stdout)
	if err != nil {
		errOut, _ := io.ReadAll(stderr)
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return string(out)
}

// eventually polls cond every 5ms and fails the test when it does not hold within d.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
