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
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// prunedGadgetsCRD has conversion None: v1, the storage version, has .spec.extra and
// .status.only, gated by Extra; v2 has neither, so decoding in v2 prunes them.
const prunedGadgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.pruned.example.com
spec:
  group: pruned.example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  scope: Namespaced
  conversion: {strategy: None}
  customFeatureGates:
    featureGates:
    - {name: Extra, preRelease: alpha, enabled: true, fieldPaths: [".spec.extra", ".status.only"]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {image: {type: string}, extra: {type: object, properties: {k: {type: string}}}}}
          status: {type: object, properties: {phase: {type: string}, only: {type: object, properties: {k: {type: string}}}}}
  - name: v2
    served: true
    storage: false
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {image: {type: string}}}
          status: {type: object, properties: {phase: {type: string}}}
`

// prunedGadgetsPolicy refuses, on writes through v2, an object or old object that shows a
// value v2 does not have, as upstream's admission never sees one; and a label "deny-probe",
// to tell when the policy is in force.
const prunedGadgetsPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: gadgets-v2-view
spec:
  failurePolicy: Fail
  matchConstraints:
    matchPolicy: Exact
    resourceRules:
    - apiGroups: ["pruned.example.com"]
      apiVersions: ["v2"]
      resources: ["gadgets", "gadgets/status"]
      operations: ["UPDATE"]
  validations:
  - expression: "!has(object.metadata.labels) || !('deny-probe' in object.metadata.labels)"
    message: "deny-probe"
  - expression: "!has(object.spec.extra) && !has(oldObject.spec.extra)"
    message: "admission sees .spec.extra through v2"
  - expression: "!has(object.status) || !has(object.status.only)"
    message: "admission sees .status.only in the object through v2"
  - expression: "!has(oldObject.status) || !has(oldObject.status.only)"
    message: "admission sees .status.only in the old object through v2"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: gadgets-v2-view
spec:
  policyName: gadgets-v2-view
  validationActions: [Deny]
`

// TestPrunedVersionAdmissionView: with the gate disabled, a write through v2 (conversion
// None, v2 lacks the gated fields) keeps the stored values, and admission sees the object
// and the old object as v2 shows them, without those values, as upstream's admission does:
// a ValidatingAdmissionPolicy that refuses them lets main and status writes through v2 pass.
// A write that changes nothing answers as v2 shows the object.
func TestPrunedVersionAdmissionView(t *testing.T) {
	applyCRD(t, prunedGadgetsCRD)
	t.Cleanup(func() { kubectl(t, "", "delete", "crd", "gadgets.pruned.example.com", "--wait=false") })
	mustKubectl(t, `{"apiVersion":"pruned.example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default"},"spec":{"image":"a","extra":{"k":"stored"}}}`, "create", "-f", "-")
	mustKubectl(t, "", "patch", "gadgets.v1.pruned.example.com", "g", "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"P","only":{"k":"stored"}}}`)
	mustKubectl(t, "", "patch", "crd", "gadgets.pruned.example.com", "--type=json", "-p", `[{"op":"replace","path":"/spec/customFeatureGates/featureGates/0/enabled","value":false}]`)
	probe := `{"apiVersion":"pruned.example.com/v1","kind":"Gadget","metadata":{"name":"probe","namespace":"default"},"spec":{"extra":{"k":"p"}}}`
	waitUntil(t, "the gate is off", func() bool {
		r := kubectl(t, probe, "create", "--dry-run=server", "-o", "json", "-f", "-")
		return r.err == nil && !strings.Contains(r.stdout, `"extra"`)
	})
	mustKubectl(t, prunedGadgetsPolicy, "apply", "-f", "-")
	t.Cleanup(func() {
		kubectl(t, "", "delete", "validatingadmissionpolicybinding,validatingadmissionpolicy", "gadgets-v2-view")
	})
	waitUntil(t, "the policy is in force", func() bool {
		r := kubectl(t, "", "label", "gadgets.v2.pruned.example.com", "g", "deny-probe=1", "--dry-run=server")
		return r.err != nil && strings.Contains(r.stderr, "deny-probe")
	})

	mustKubectl(t, "", "patch", "gadgets.v2.pruned.example.com", "g", "--type=merge", "-p", `{"spec":{"image":"b"}}`)
	mustKubectl(t, "", "patch", "gadgets.v2.pruned.example.com", "g", "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Q"}}`)
	before := getJSON(t, "gadgets.v1.pruned.example.com", "g")
	noop := mustKubectl(t, "", "patch", "gadgets.v2.pruned.example.com", "g", "--type=merge", "-p", `{"spec":{"image":"b"}}`, "-o", "json")
	if strings.Contains(noop.stdout, `"only"`) || strings.Contains(noop.stdout, `"extra"`) {
		t.Errorf("a write through v2 that changes nothing answers with a value v2 does not have:\n%s", noop.stdout)
	}
	after := getJSON(t, "gadgets.v1.pruned.example.com", "g")
	rv, _ := field(before, "metadata", "resourceVersion")
	rvAfter, _ := field(after, "metadata", "resourceVersion")
	if rv != rvAfter {
		t.Errorf("a write through v2 that changes nothing moved the resourceVersion from %v to %v", rv, rvAfter)
	}
	for _, p := range [][]string{{"spec", "extra", "k"}, {"status", "only", "k"}} {
		if v, _ := field(after, p...); v != "stored" {
			t.Errorf(".%s = %v through v1, want the stored value kept", strings.Join(p, "."), v)
		}
	}
	if v, _ := field(after, "spec", "image"); v != "b" {
		t.Errorf(".spec.image = %v, want b", v)
	}
	if v, _ := field(after, "status", "phase"); v != "Q" {
		t.Errorf(".status.phase = %v, want Q", v)
	}
}

// waitUntil polls cond for at most a minute.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}
