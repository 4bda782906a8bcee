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
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

const (
	openAPIGroup  = "openapi.e2e.example.com"
	openAPIPlural = "gatedwidgets"
	openAPIKind   = "GatedWidget"
)

// gatedWidgetCRD has ReplicasFeatureGate (alpha, off) on .spec.replicas of the storage
// version v1, and an older served version v1beta1 without that field.
var gatedWidgetCRD = fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[2]s.%[1]s
spec:
  group: %[1]s
  scope: Namespaced
  names: {plural: %[2]s, singular: gatedwidget, kind: %[3]s}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
              replicas:
                type: integer
                description: replicas is the number of widgets.
  customFeatureGates:
    component: widgets.example.com
    featureGates:
    - name: ReplicasFeatureGate
      preRelease: alpha
      fieldPaths: [.spec.replicas]
`, openAPIGroup, openAPIPlural, openAPIKind)

// publishedReplicas reads /openapi/v3/apis/<group>/<version> and returns the schema of the
// GatedWidget's spec.replicas, or nil when it is not published (yet).
func publishedReplicas(t *testing.T, version string) map[string]interface{} {
	t.Helper()
	r := kubectl(t, "", "get", "--raw", fmt.Sprintf("/openapi/v3/apis/%s/%s", openAPIGroup, version))
	if r.err != nil {
		return nil
	}
	var doc map[string]interface{}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("/openapi/v3/apis/%s/%s is not JSON: %v", openAPIGroup, version, err)
	}
	replicas, _ := field(doc, "components", "schemas", "com.example.e2e.openapi."+version+"."+openAPIKind, "properties", "spec", "properties", "replicas")
	m, _ := replicas.(map[string]interface{})
	return m
}

// explainReplicas runs kubectl explain on the field and returns its output.
func explainReplicas(t *testing.T) string {
	t.Helper()
	r := kubectl(t, "", "explain", openAPIPlural+".spec.replicas", "--api-version", openAPIGroup+"/v1")
	if r.err != nil {
		return r.stderr
	}
	return r.stdout
}

// TestOpenAPIFeatureGates checks the published OpenAPI of a gated field end to end: kubectl
// explain shows the stage note, /openapi/v3 carries x-kubernetes-feature-gate, a version
// without the field has no mark, and a gate flip is republished.
func TestOpenAPIFeatureGates(t *testing.T) {
	applyCRD(t, gatedWidgetCRD)

	const disabledNote = "Alpha (feature gate ReplicasFeatureGate, disabled)."
	var out string
	featuregatetest.WaitFor(t, 30*time.Second, "kubectl explain to show the stage note", func() bool {
		out = explainReplicas(t)
		return strings.Contains(out, disabledNote)
	})
	// The note is a line of its own, before the field's description.
	if !strings.Contains(out, disabledNote+"\n    replicas is the number of widgets.") {
		t.Errorf("kubectl explain does not show the note on its own line before the description:\n%s", out)
	}

	replicas := publishedReplicas(t, "v1")
	wantState := map[string]interface{}{"preRelease": "alpha", "enabled": false, "component": "widgets.example.com"}
	if got := replicas["x-kubernetes-feature-gate"]; got != "ReplicasFeatureGate" {
		t.Errorf("x-kubernetes-feature-gate of spec.replicas in /openapi/v3 = %v, want ReplicasFeatureGate", got)
	}
	if diff := cmp.Diff(wantState, replicas["x-kubernetes-feature-gate-state"]); diff != "" {
		t.Errorf("x-kubernetes-feature-gate-state of spec.replicas in /openapi/v3 (-want +got):\n%s", diff)
	}
	if want := disabledNote + "\nreplicas is the number of widgets."; replicas["description"] != want {
		t.Errorf("description of spec.replicas in /openapi/v3 = %q, want %q", replicas["description"], want)
	}

	// v1beta1 has no spec.replicas: nothing in its document is marked.
	r := mustKubectl(t, "", "get", "--raw", "/openapi/v3/apis/"+openAPIGroup+"/v1beta1")
	if !strings.Contains(r.stdout, openAPIKind) || strings.Contains(r.stdout, "x-kubernetes-feature-gate") {
		t.Errorf("/openapi/v3/apis/%s/v1beta1 must publish %s without marks:\n%s", openAPIGroup, openAPIKind, r.stdout)
	}

	// The aggregated /openapi/v2 carries the same mark.
	var v2Gate, v2State interface{}
	featuregatetest.WaitFor(t, 30*time.Second, "/openapi/v2 to publish the mark", func() bool {
		r := mustKubectl(t, "", "get", "--raw", "/openapi/v2")
		var v2 map[string]interface{}
		if err := json.Unmarshal([]byte(r.stdout), &v2); err != nil {
			t.Fatalf("/openapi/v2 is not JSON: %v", err)
		}
		v2Gate, _ = field(v2, "definitions", "com.example.e2e.openapi.v1."+openAPIKind, "properties", "spec", "properties", "replicas", "x-kubernetes-feature-gate")
		v2State, _ = field(v2, "definitions", "com.example.e2e.openapi.v1."+openAPIKind, "properties", "spec", "properties", "replicas", "x-kubernetes-feature-gate-state")
		return v2Gate == "ReplicasFeatureGate" && cmp.Equal(wantState, v2State)
	})

	// The cluster admin enables the gate: the published document and kubectl explain follow.
	mustKubectl(t, "", "patch", "crd", openAPIPlural+"."+openAPIGroup, "--type", "json",
		"--patch", `[{"op": "add", "path": "/spec/customFeatureGates/featureGates/0/enabled", "value": true}]`)
	const enabledNote = "Alpha (feature gate ReplicasFeatureGate, enabled)."
	featuregatetest.WaitFor(t, 30*time.Second, "/openapi/v3 to publish the enabled gate", func() bool {
		replicas = publishedReplicas(t, "v1")
		state, _ := replicas["x-kubernetes-feature-gate-state"].(map[string]interface{})
		return state["enabled"] == true && replicas["description"] == enabledNote+"\nreplicas is the number of widgets."
	})
	featuregatetest.WaitFor(t, 30*time.Second, "kubectl explain to show the enabled gate", func() bool {
		out = explainReplicas(t)
		return strings.Contains(out, enabledNote) && !strings.Contains(out, disabledNote)
	})
}
