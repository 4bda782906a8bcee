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

package stockpolicies

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// laterNamespace is where the later mutators of TestLaterMutators act (their bindings and
// webhook select it by label), so that the other tests' writes never meet them.
const laterNamespace = "later-mutators"

// defaultReplicas is a MutatingAdmissionPolicy that another team might install: it sets
// .spec.replicas of every CronTab that has none, and is reinvoked if needed, as ours is.
const defaultReplicas = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: later-default-replicas}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [stable.example.com]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [crontabs]
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: 'has(object.spec) && !has(object.spec.replicas) ? [JSONPatch{op: "add", path: "/spec/replicas", value: 3}] : []'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: later-default-replicas}
spec:
  policyName: later-default-replicas
  matchResources:
    namespaceSelector:
      matchLabels: {later-mutators: "true"}
`

// TestLaterMutators: on stock, our mutating policy is one mutator among others. A second
// mutating policy, or a mutating webhook that is reinvoked after ours, sets
// .spec.replicas (ReplicasFeatureGate off) after our policy removed it. The last guard
// refuses such a write (422, nothing stored); no write stores a value at the disabled path.
// Our server gates after all admission: it stores the object without the value.
func TestLaterMutators(t *testing.T) {
	installed(t)
	ours, stock := backendByName(t, backendOurs), backendByName(t, backendStock)
	for _, b := range []*backend{ours, stock} {
		if err := b.setGates(crontabCRD, map[string]bool{"ReplicasFeatureGate": false}); err != nil {
			t.Fatal(err)
		}
	}

	// The webhook: a TLS server on loopback that adds replicas: 3 where there is none, and
	// removes replicas from an object labelled later-remove=true.
	var calls int
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		var review struct {
			Request struct {
				UID    string `json:"uid"`
				Object struct {
					Metadata struct {
						Labels map[string]string `json:"labels"`
					} `json:"metadata"`
					Spec map[string]interface{} `json:"spec"`
				} `json:"object"`
			} `json:"request"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := map[string]interface{}{"uid": review.Request.UID, "allowed": true}
		_, has := review.Request.Object.Spec["replicas"]
		if r.URL.Path == "/steps" {
			// Widgets labelled later-remove-step=true: steps[1].retry removed.
			steps, _ := review.Request.Object.Spec["steps"].([]interface{})
			if review.Request.Object.Metadata.Labels["later-remove-step"] == "true" && len(steps) > 1 {
				if item, _ := steps[1].(map[string]interface{}); item != nil {
					if _, ok := item["retry"]; ok {
						resp["patchType"] = "JSONPatch"
						resp["patch"] = base64.StdEncoding.EncodeToString([]byte(`[{"op":"remove","path":"/spec/steps/1/retry"}]`))
					}
				}
			}
		}
		switch {
		case r.URL.Path == "/steps": // nothing else for widgets
		case review.Request.Object.Metadata.Labels["later-remove"] == "true" && has:
			resp["patchType"] = "JSONPatch"
			resp["patch"] = base64.StdEncoding.EncodeToString([]byte(`[{"op":"remove","path":"/spec/replicas"}]`))
		case review.Request.Object.Metadata.Labels["later-remove"] != "true" && !has && review.Request.Object.Spec != nil:
			resp["patchType"] = "JSONPatch"
			resp["patch"] = base64.StdEncoding.EncodeToString([]byte(`[{"op":"add","path":"/spec/replicas","value":3}]`))
		}
		out, _ := json.Marshal(map[string]interface{}{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	defer hook.Close()
	caBundle := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))
	webhook := fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: later-default-replicas}
webhooks:
- name: replicas.later.example.com
  clientConfig: {url: %q, caBundle: %s}
  rules:
  - apiGroups: [stable.example.com]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [crontabs]
  namespaceSelector:
    matchLabels: {later-mutators: "true"}
  sideEffects: None
  admissionReviewVersions: [v1]
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  timeoutSeconds: 5
`, hook.URL+"/mutate", caBundle)
	// removeStepRetry: the same server removes a Widget's stored steps[1].retry, in place
	// inside an item of a list without keys. A webhook runs after every mutating policy.
	removeStepRetry := fmt.Sprintf(`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: later-remove-step-retry}
webhooks:
- name: steps.later.example.com
  clientConfig: {url: %q, caBundle: %s}
  rules:
  - apiGroups: [stockpolicies.example.com]
    apiVersions: [v1]
    operations: [UPDATE]
    resources: [widgets]
  namespaceSelector:
    matchLabels: {later-mutators: "true"}
  sideEffects: None
  admissionReviewVersions: [v1]
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  timeoutSeconds: 5
`, hook.URL+"/steps", caBundle)

	for _, b := range []*backend{ours, stock} {
		if _, err := b.mustKubectl("", "create", "namespace", laterNamespace); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
			t.Fatal(err)
		}
		if _, err := b.mustKubectl("", "label", "namespace", laterNamespace, "later-mutators=true", "--overwrite"); err != nil {
			t.Fatal(err)
		}
	}

	for _, mutator := range []struct {
		name, manifest, kind string
		// mustRefuse is set where the mutator always runs after our policy's last run, so
		// that the guard must refuse the writes (once the server has loaded it). Two policies
		// run in an order of the server's choosing: there, no value may be stored, and the
		// guard refuses the writes where the other one ran last.
		mustRefuse bool
	}{
		{name: "a second mutating policy", manifest: defaultReplicas, kind: "mutatingadmissionpolicy,mutatingadmissionpolicybinding"},
		{name: "a mutating webhook reinvoked after ours", manifest: webhook, kind: "mutatingwebhookconfiguration", mustRefuse: true},
	} {
		t.Run(mutator.name, func(t *testing.T) {
			for _, b := range []*backend{ours, stock} {
				if _, err := b.mustKubectl(mutator.manifest, "apply", "-f", "-"); err != nil {
					t.Fatal(err)
				}
				defer b.kubectl("", "delete", mutator.kind, "later-default-replicas", "--ignore-not-found")
			}
			// A stock server loads policies and webhooks asynchronously: write until the guard
			// has refused a create (or a deadline passes), at least 8 creates.
			refused, stored := 0, 0
			deadline := time.Now().Add(30 * time.Second)
			for n := 0; n < 8 || (mutator.mustRefuse && refused == 0 && n < 200 && time.Now().Before(deadline)); n++ {
				if n >= 8 {
					time.Sleep(100 * time.Millisecond)
				}
				name := fmt.Sprintf("later-%d", n)
				for _, b := range []*backend{ours, stock} {
					a := b.request(http.MethodPost, objectPath(crontabCRD, laterNamespace, "", ""), nil, "application/json",
						object(crontabCRD, laterNamespace, name, `{"spec":{"cronSpec":"* * * * */5","image":"a"}}`))
					var obj map[string]interface{}
					var err error
					if a.code == http.StatusCreated {
						obj, err = b.etcdObject(crontabCRD, laterNamespace, name)
					} else {
						obj, err = b.get(crontabCRD, laterNamespace, name)
					}
					if err != nil {
						t.Fatal(err)
					}
					if obj != nil {
						if _, has := lookup(obj, "spec", "replicas"); has {
							t.Errorf("%s: create %s stored replicas (ReplicasFeatureGate off): %v", b.name, name, obj["spec"])
						}
					}
					switch {
					case b.name == backendOurs && a.code != http.StatusCreated:
						t.Errorf("%s: create %s: HTTP %d: %s; want 201 (our server drops the value after admission)", b.name, name, a.code, a.body)
					case b.name == backendStock && a.code == http.StatusCreated:
						stored++
					case b.name == backendStock && a.code == http.StatusUnprocessableEntity && strings.Contains(string(a.body), "only the stored value may be here"):
						refused++
						if obj != nil {
							t.Errorf("%s: create %s refused, but the object is stored", b.name, name)
						}
					case b.name == backendStock:
						t.Errorf("%s: create %s: HTTP %d: %s; want 201 or the guard's 422", b.name, name, a.code, a.body)
					}
				}
			}
			t.Logf("stock: %d creates refused by the guard, %d stored", refused, stored)
			if mutator.mustRefuse && refused == 0 {
				t.Errorf("stock: no create was refused by the guard: the later mutator never set the value after our policy, so the test shows nothing")
			}
			for _, b := range []*backend{ours, stock} {
				b.kubectl("", "delete", "crontabs", "--all", "-n", laterNamespace, "--wait=false")
			}
		})
	}

	// A stored value that a later mutating webhook removes, at a field or in place inside an
	// item of a list without keys: our server keeps it (gating runs after admission); on stock
	// the guard refuses the update (the result is the stored object but for that value, so the
	// rule keeps it), and the value stays stored.
	for _, tc := range []struct {
		name, object, content, gate, webhook, webhookName, label, plural string
		crd                                                              *crdInfo
		at                                                               []string
	}{
		{name: "a mutating webhook that removes a stored value", crd: crontabCRD, plural: "crontabs",
			object: "stored-replicas", content: `{"spec":{"cronSpec":"* * * * */5","image":"a","replicas":2}}`, at: []string{"spec", "replicas"},
			gate: "ReplicasFeatureGate", webhook: webhook, webhookName: "later-default-replicas", label: "later-remove"},
		{name: "a mutating webhook that removes a stored value inside an item of a list without keys", crd: widgetCRD, plural: "widgets",
			object: "stored-step-retry", content: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`, at: []string{"spec", "steps", "1", "retry"},
			gate: "StepRetryGate", webhook: removeStepRetry, webhookName: "later-remove-step-retry", label: "later-remove-step"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, b := range []*backend{ours, stock} {
				if err := b.setGates(tc.crd, map[string]bool{tc.gate: true}); err != nil {
					t.Fatal(err)
				}
				if a := b.request(http.MethodPost, objectPath(tc.crd, laterNamespace, "", ""), nil, "application/json",
					object(tc.crd, laterNamespace, tc.object, tc.content)); a.code != http.StatusCreated {
					t.Fatalf("%s: create %s: HTTP %d: %s", b.name, tc.object, a.code, a.body)
				}
				if err := b.setGates(tc.crd, map[string]bool{tc.gate: false}); err != nil {
					t.Fatal(err)
				}
				if _, err := b.mustKubectl(tc.webhook, "apply", "-f", "-"); err != nil {
					t.Fatal(err)
				}
				defer b.kubectl("", "delete", "mutatingwebhookconfiguration", tc.webhookName, "--ignore-not-found")
			}
			for _, b := range []*backend{ours, stock} {
				var a answer
				acted := false
				// The server loads the webhook asynchronously: patch until it has acted (on
				// ours, the update was gated: no change persisted; on stock, a refusal) or 30 s
				// have passed.
				for deadline := time.Now().Add(30 * time.Second); !acted && time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
					a = b.request(http.MethodPatch, objectPath(tc.crd, laterNamespace, tc.object, ""), nil, "application/merge-patch+json",
						[]byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"true","try":%q}}}`, tc.label, time.Now().Format("150405.000"))))
					acted = b.name == backendOurs || a.code != http.StatusOK
				}
				obj, err := b.etcdObject(tc.crd, laterNamespace, tc.object)
				if err != nil {
					t.Fatal(err)
				}
				var sent interface{}
				if err := json.Unmarshal([]byte(tc.content), &sent); err != nil {
					t.Fatal(err)
				}
				want, _ := lookup(sent, tc.at...)
				if v, _ := lookup(obj, tc.at...); fmt.Sprint(v) != fmt.Sprint(want) {
					t.Errorf("%s: the stored %s is %v after the update; want %v (%s off)", b.name, strings.Join(tc.at, "."), v, want, tc.gate)
				}
				switch {
				case b.name == backendOurs && a.code != http.StatusOK:
					t.Errorf("%s: HTTP %d: %s; want 200", b.name, a.code, a.body)
				case b.name == backendStock && (a.code != http.StatusUnprocessableEntity || !strings.Contains(string(a.body), "only the stored value may be here")):
					t.Errorf("%s: HTTP %d: %s; want the guard's 422", b.name, a.code, a.body)
				}
			}
			for _, b := range []*backend{ours, stock} {
				b.kubectl("", "delete", tc.plural, "--all", "-n", laterNamespace, "--wait=false")
			}
		})
	}
	if calls == 0 {
		t.Errorf("the webhook was never called")
	}
}

func backendByName(t *testing.T, name string) *backend {
	t.Helper()
	for _, b := range backends {
		if b.name == name {
			return b
		}
	}
	t.Fatalf("no backend %s", name)
	return nil
}
