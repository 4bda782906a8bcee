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

package integration

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/integration/conversion"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// failOnce is a conversion webhook that changes apiVersion only, and fails a conversion to
// the storage version v1 once for each value of the object's annotation "fail-once".
type failOnce struct {
	mu     sync.Mutex
	failed map[string]bool
}

func (f *failOnce) convert(desiredAPIVersion string, in runtime.RawExtension) (runtime.RawExtension, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(in.Raw); err != nil {
		return runtime.RawExtension{}, err
	}
	if key := u.GetAnnotations()["fail-once"]; key != "" && desiredAPIVersion == "stable.example.com/v1" {
		f.mu.Lock()
		first := !f.failed[key]
		f.failed[key] = true
		f.mu.Unlock()
		if first {
			return runtime.RawExtension{}, errors.New("chosen failure " + key)
		}
	}
	u.SetAPIVersion(desiredAPIVersion)
	raw, err := u.MarshalJSON()
	return runtime.RawExtension{Raw: raw}, err
}

// TestFieldGatesConversionWebhookFailsClosed: with a conversion webhook and a disabled gate,
// a write that cannot be converted to the storage version for gating fails, and nothing is
// persisted, although the webhook would convert it for storage a moment later.
func TestFieldGatesConversionWebhookFailsClosed(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	webhook := &failOnce{failed: map[string]bool{}}
	tearDown, clientConfig, err := conversion.StartConversionWebhookServer(conversion.NewObjectConverterWebhookHandler(t, webhook.convert))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tearDown)

	crd := featuregatetest.CronTabCRD("webhookcrontabs", featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas"))
	v2 := crd.Spec.Versions[0]
	v2.Name, v2.Storage = "v2", false
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: clientConfig, ConversionReviewVersions: []string{"v1"}},
	}
	crd = env.createCRD(t, crd)
	client := env.dynamic.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: "v2", Resource: crd.Spec.Names.Plural}).Namespace(gatesTestNamespace)
	object := func(failKey, spec string) *unstructured.Unstructured {
		u := crObject(t, crd, "f", spec)
		u.SetAPIVersion("stable.example.com/v2")
		u.SetAnnotations(map[string]string{"fail-once": failKey})
		return u
	}
	assertFailedClosed := func(what string, err error) {
		t.Helper()
		var status apierrors.APIStatus
		if !errors.As(err, &status) || status.Status().Code != 500 || !strings.Contains(err.Error(), "chosen failure") {
			t.Fatalf("%s while the webhook fails: %v, want a 500 with the webhook's message", what, err)
		}
	}

	// Create: the conversion for gating fails, so the create fails.
	_, err = client.Create(context.Background(), object("create", `"spec":{"cronSpec":"a","replicas":2}`), metav1.CreateOptions{})
	assertFailedClosed("create", err)
	if stored := env.stored(t, crd, "f"); stored != nil {
		t.Fatalf("the failed create was persisted: %v", stored)
	}
	env.warnings.Take()

	// The same create once the webhook works: gated in the storage version.
	if _, err := client.Create(context.Background(), object("create", `"spec":{"cronSpec":"a","replicas":2}`), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.assertWarnings(t, ".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled")
	env.assertStored(t, crd, "f", `"spec":{"cronSpec":"a"}`, 1)

	// Update: fails, and etcd keeps the object as it was.
	cur, err := client.Get(context.Background(), "f", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := object("update", `"spec":{"cronSpec":"b","replicas":5}`)
	next.SetResourceVersion(cur.GetResourceVersion())
	_, err = client.Update(context.Background(), next, metav1.UpdateOptions{})
	assertFailedClosed("update", err)
	env.warnings.Take()
	env.assertStored(t, crd, "f", `"spec":{"cronSpec":"a"}`, 1)
	if got := env.stored(t, crd, "f"); got["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})["fail-once"] != "create" {
		t.Errorf("the failed update changed the stored annotations: %v", got["metadata"])
	}
}
