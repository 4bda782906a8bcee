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

package openapi

import (
	"context"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kube-openapi/pkg/validation/spec"
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

// TestFeatureGateChangeRepublishes checks that the published v2 schema follows a change of
// spec.customFeatureGates alone, as it follows a schema change: the API server bumps the
// generation of the CRD on any spec change, and the controller rebuilds on a new generation.
func TestFeatureGateChangeRepublishes(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	env, ctx := setup(t)
	env.runFunc()
	defer env.cleanFunc()

	crd, err := env.Interface.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gatedCronTabCRD(nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env.waitForReplicasMark(ctx, false, "Alpha (feature gate ReplicasFeatureGate, disabled).\nreplicas is the number of copies.")

	t.Log("Enabling ReplicasFeatureGate")
	crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptr.To(true)
	// Generation is updated before storage to etcd. Since we don't have that in the fake client, manually increase it.
	crd.Generation++
	if crd, err = env.Interface.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitForReplicasMark(ctx, true, "Alpha (feature gate ReplicasFeatureGate, enabled).\nreplicas is the number of copies.")

	t.Log("Disabling ReplicasFeatureGate again")
	crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptr.To(false)
	crd.Generation++
	if _, err = env.Interface.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitForReplicasMark(ctx, false, "Alpha (feature gate ReplicasFeatureGate, disabled).\nreplicas is the number of copies.")
}

// waitForReplicasMark waits until the published CronTab's spec.replicas carries the gate's
// mark with the given enabled value and description.
func (t *testEnv) waitForReplicasMark(ctx context.Context, enabled bool, description string) {
	t.t.Helper()
	var last spec.Schema
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		def, ok := t.fetchOpenAPIOrDie().Definitions["com.example.stable.v1.CronTab"]
		if !ok {
			return false, nil
		}
		last = def.Properties["spec"].Properties["replicas"]
		state, _ := last.Extensions["x-kubernetes-feature-gate-state"].(map[string]interface{})
		return state["enabled"] == enabled && last.Extensions["x-kubernetes-feature-gate"] == "ReplicasFeatureGate" && last.Description == description, nil
	})
	if err != nil {
		t.t.Fatalf("spec.replicas was not published with enabled=%t and description %q; last seen: extensions %v, description %q", enabled, description, last.Extensions, last.Description)
	}
}
