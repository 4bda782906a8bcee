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
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestFieldGatesRequires walks OpenShift's Example+Example2 story through the real server and
// etcd. .spec.replicas exists only while both Example (which guards .spec.cronSpec) and
// Example2 (which guards .spec.owner) are enabled: it belongs to the stable gate
// ExampleWithExample2, which requires both. A rule on .spec.image reads the combination in
// CEL. Enabling Example alone, or promoting Example2 alone, keeps the field dropped; with
// both it is stored; with one off again the stored value is kept.
func TestFieldGatesRequires(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")

	combination := featuregatetest.Gate("ExampleWithExample2", "stable", ".spec.replicas")
	combination.Requires = []string{"Example", "Example2"}
	crd := featuregatetest.CronTabCRD("requirescrontabs",
		featuregatetest.Gate("Example", "alpha", ".spec.cronSpec"),
		featuregatetest.Gate("Example2", "alpha", ".spec.owner"),
		combination,
	)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	image := spec.Properties["image"]
	image.XValidations = apiextensionsv1.ValidationRules{{Rule: "featureGates.ExampleWithExample2 || self != 'combined'", Message: "combined needs Example and Example2"}}
	spec.Properties["image"] = image
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	crd = env.createCRD(t, crd)

	gatesPatch := func(ops ...string) {
		t.Helper()
		p := "[" + strings.Join(ops, ",") + "]"
		if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.JSONPatchType, []byte(p), metav1.PatchOptions{}); err != nil {
			t.Fatalf("patch %s: %v", p, err)
		}
	}
	const dropped = ".spec.replicas was dropped: feature gate ExampleWithExample2 (stable) is disabled: "
	const kept = ".spec.replicas was not updated: feature gate ExampleWithExample2 (stable) is disabled: "

	// Example on alone: its own field is stored, the combination's is dropped.
	env.setGate(t, crd, 0, true, "cronSpec", `"spec":{"cronSpec":"x"}`)
	env.create(t, crd, "story", `"spec":{"cronSpec":"* * * * *","replicas":3}`)
	env.assertStored(t, crd, "story", `"spec":{"cronSpec":"* * * * *"}`, 1)
	env.assertWarnings(t, dropped+"requires Example2, which is disabled")
	if _, err := env.client(crd).Create(context.Background(), crObject(t, crd, "rule", `"spec":{"image":"combined"}`), metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "combined needs Example and Example2") {
		t.Errorf("image combined with Example alone: got %v, want the rule's message", err)
	}

	// Setting the combination's enabled while a gate it requires is off is accepted, with a
	// CRD warning that names the gate it waits for.
	gatesPatch(`{"op":"add","path":"/spec/customFeatureGates/featureGates/2/enabled","value":true}`)
	env.assertWarnings(t, "spec.customFeatureGates.featureGates[2].enabled: feature gate ExampleWithExample2 is set to enabled but stays disabled until Example2 is enabled")

	// Example off again, Example2 promoted to stable alone: still dropped.
	env.setGate(t, crd, 0, false, "cronSpec", `"spec":{"cronSpec":"x"}`)
	gatesPatch(`{"op":"test","path":"/spec/customFeatureGates/featureGates/1/name","value":"Example2"}`,
		`{"op":"replace","path":"/spec/customFeatureGates/featureGates/1/preRelease","value":"stable"}`)
	env.waitForGate(t, crd, "owner", `"spec":{"owner":"x"}`, true)
	env.update(t, crd, "story", `"spec":{"cronSpec":"* * * * *","owner":"me","replicas":3}`)
	env.assertStored(t, crd, "story", `"spec":{"cronSpec":"* * * * *","owner":"me"}`, 2)
	env.assertWarnings(t, dropped+"requires Example, which is disabled")
	crdNow, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := crdNow.Spec.CustomFeatureGates.FeatureGates[2].Requires; len(got) != 2 || got[0] != "Example" || got[1] != "Example2" {
		t.Errorf("requires as served: %v", got)
	}

	// Both on: the combination's field is stored, and the rule accepts the value.
	gatesPatch(`{"op":"add","path":"/spec/customFeatureGates/featureGates/0/enabled","value":true}`)
	env.waitForGate(t, crd, "replicas", `"spec":{"replicas":1}`, true)
	env.update(t, crd, "story", `"spec":{"cronSpec":"* * * * *","owner":"me","replicas":3,"image":"combined"}`)
	env.assertStored(t, crd, "story", `"spec":{"cronSpec":"* * * * *","owner":"me","replicas":3,"image":"combined"}`, 3)
	env.assertWarnings(t)

	// Example off again: the stored value is kept on update.
	env.setGate(t, crd, 0, false, "cronSpec", `"spec":{"cronSpec":"x"}`)
	env.update(t, crd, "story", `"spec":{"owner":"me","replicas":5,"image":"combined"}`)
	env.assertStored(t, crd, "story", `"spec":{"cronSpec":"* * * * *","owner":"me","replicas":3,"image":"combined"}`, 3)
	// The rule no longer holds for the unchanged image: upstream's ratcheting keeps it, and
	// says so.
	env.assertWarnings(t,
		`spec.image: Invalid value: "combined": combined needs Example and Example2`,
		".spec.cronSpec was not updated: feature gate Example (alpha) is disabled; the stored value was kept",
		kept+"requires Example, which is disabled; the stored value was kept",
	)
}

// TestFieldGatesRequiresValidation checks that the server rejects requires that name an
// undeclared gate or form a cycle, at the exact path.
func TestFieldGatesRequiresValidation(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")

	a := featuregatetest.Gate("A", "alpha", ".spec.cronSpec")
	a.Requires = []string{"B"}
	b := featuregatetest.Gate("B", "alpha", ".spec.owner")
	b.Requires = []string{"A", "Nope"}
	_, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), featuregatetest.CronTabCRD("badrequirescrontabs", a, b), metav1.CreateOptions{})
	if err == nil {
		t.Fatal("a CRD whose requires form a cycle was accepted")
	}
	for _, want := range []string{
		`spec.customFeatureGates.featureGates[1].requires[0]: Invalid value: "A": requires must not form a cycle: A -> B -> A`,
		`spec.customFeatureGates.featureGates[1].requires[1]: Not found: "Nope"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}
