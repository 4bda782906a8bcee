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

package openapiv3

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	"k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/utils/ptr"
)

// gatedCronTabCRD is the KEP's crontab with ReplicasFeatureGate (alpha) on .spec.replicas.
func gatedCronTabCRD(enabled *bool) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", UID: "gated", Generation: 1},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {
						Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"replicas": {Type: "integer", Description: "replicas is the number of copies."},
						},
					}},
				}},
			}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{{
					Name: "ReplicasFeatureGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: enabled, FieldPaths: []string{".spec.replicas"},
				}},
			},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{
			Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}},
		},
	}
}

// TestFeatureGateChangeRepublishes checks that the published v3 document of a group version
// follows a change of spec.customFeatureGates alone: the controller rebuilds the document on
// every update of the CRD and republishes it when it differs.
func TestFeatureGateChangeRepublishes(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	client := fake.NewSimpleClientset()
	factory := externalversions.NewSharedInformerFactory(client, 30*time.Second)
	c := NewController(factory.Apiextensions().V1().CustomResourceDefinitions())
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	service := handler3.NewOpenAPIService()
	mux := http.NewServeMux()
	mux.HandleFunc("/openapi/v3/", service.HandleGroupVersion)
	server := httptest.NewServer(mux)
	defer server.Close()
	go c.Run(service, ctx.Done())

	crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gatedCronTabCRD(nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitForReplicasMark(ctx, t, server.URL, false, "Alpha (feature gate ReplicasFeatureGate, disabled).\nreplicas is the number of copies.")

	t.Log("Enabling ReplicasFeatureGate")
	crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptr.To(true)
	crd.Generation++
	if crd, err = client.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReplicasMark(ctx, t, server.URL, true, "Alpha (feature gate ReplicasFeatureGate, enabled).\nreplicas is the number of copies.")

	t.Log("Disabling ReplicasFeatureGate again")
	crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptr.To(false)
	crd.Generation++
	if _, err = client.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReplicasMark(ctx, t, server.URL, false, "Alpha (feature gate ReplicasFeatureGate, disabled).\nreplicas is the number of copies.")
}

// waitForReplicasMark waits until /openapi/v3/apis/stable.example.com/v1 publishes the
// CronTab's spec.replicas with the gate's mark, the given enabled value and description.
func waitForReplicasMark(ctx context.Context, t *testing.T, url string, enabled bool, description string) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		resp, err := http.Get(url + "/openapi/v3/apis/stable.example.com/v1")
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			return false, nil
		}
		last = string(body)
		var doc spec3.OpenAPI
		if err := json.Unmarshal(body, &doc); err != nil || doc.Components == nil {
			return false, nil
		}
		def, ok := doc.Components.Schemas["com.example.stable.v1.CronTab"]
		if !ok {
			return false, nil
		}
		replicas := def.Properties["spec"].Properties["replicas"]
		state, _ := replicas.Extensions["x-kubernetes-feature-gate-state"].(map[string]interface{})
		return state["enabled"] == enabled && replicas.Extensions["x-kubernetes-feature-gate"] == "ReplicasFeatureGate" && replicas.Description == description, nil
	})
	if err != nil {
		t.Fatalf("spec.replicas was not published with enabled=%t and description %q: %v; last document:\n%s", enabled, description, err, last)
	}
}
