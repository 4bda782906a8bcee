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
)

// TestFieldGatesRequiresAnyOf walks OpenShift's authentications story through the real server
// and etcd: .spec.replicas exists while any of OIDC (which guards .spec.cronSpec) and
// OIDCParity (which guards .spec.owner) is enabled; it belongs to the stable gate AnyOIDC,
// which requires any of them. A rule on .spec.image reads AnyOIDC in CEL. With neither on the
// field is dropped; with either one it is stored; with both off again the stored value is
// kept.
func TestFieldGatesRequiresAnyOf(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")

	anyGate := featuregatetest.Gate("AnyOIDC", "stable", ".spec.replicas")
	anyGate.RequiresAnyOf = []string{"OIDC", "OIDCParity"}
	crd := featuregatetest.CronTabCRD("anyofcrontabs",
		featuregatetest.Gate("OIDC", "alpha", ".spec.cronSpec"),
		featuregatetest.Gate("OIDCParity", "alpha", ".spec.owner"),
		anyGate,
	)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	image := spec.Properties["image"]
	image.XValidations = apiextensionsv1.ValidationRules{{Rule: "featureGates.AnyOIDC || self != 'oidc'", Message: "oidc needs OIDC or OIDCParity"}}
	spec.Properties["image"] = image
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	crd = env.createCRD(t, crd)

	// Neither on: dropped, with the reason.
	env.create(t, crd, "story", `"spec":{"replicas":3}`)
	env.assertStored(t, crd, "story", `"spec":{}`, 1)
	env.assertWarnings(t, ".spec.replicas was dropped: feature gate AnyOIDC (stable) is disabled: requires OIDC or OIDCParity, which are disabled")
	if _, err := env.client(crd).Create(context.Background(), crObject(t, crd, "rule", `"spec":{"image":"oidc"}`), metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "oidc needs OIDC or OIDCParity") {
		t.Errorf("image oidc with neither gate on: got %v, want the rule's message", err)
	}

	// OIDCParity on alone: stored, and the rule accepts the value.
	env.setGate(t, crd, 1, true, "owner", `"spec":{"owner":"x"}`)
	env.update(t, crd, "story", `"spec":{"replicas":3,"image":"oidc"}`)
	env.assertStored(t, crd, "story", `"spec":{"replicas":3,"image":"oidc"}`, 2)
	env.assertWarnings(t)

	// Both off again: the stored value is kept on update, with the reason.
	env.setGate(t, crd, 1, false, "owner", `"spec":{"owner":"x"}`)
	env.update(t, crd, "story", `"spec":{"replicas":5,"image":"oidc"}`)
	env.assertStored(t, crd, "story", `"spec":{"replicas":3,"image":"oidc"}`, 2)
	env.assertWarnings(t,
		`spec.image: Invalid value: "oidc": oidc needs OIDC or OIDCParity`,
		".spec.replicas was not updated: feature gate AnyOIDC (stable) is disabled: requires OIDC or OIDCParity, which are disabled; the stored value was kept",
	)

	// OIDC on alone: the other gate of the list is enough as well.
	env.setGate(t, crd, 0, true, "cronSpec", `"spec":{"cronSpec":"x"}`)
	env.update(t, crd, "story", `"spec":{"replicas":5,"image":"oidc"}`)
	env.assertStored(t, crd, "story", `"spec":{"replicas":5,"image":"oidc"}`, 3)

	crdNow, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := crdNow.Spec.CustomFeatureGates.FeatureGates[2].RequiresAnyOf; len(got) != 2 || got[0] != "OIDC" || got[1] != "OIDCParity" {
		t.Errorf("requiresAnyOf as served: %v", got)
	}
}

// TestFieldGatesRequiresAnyOfValidation checks that the server rejects requiresAnyOf entries
// that name an undeclared gate or close a cycle, at the exact path.
func TestFieldGatesRequiresAnyOfValidation(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")

	a := featuregatetest.Gate("A", "alpha", ".spec.cronSpec")
	a.RequiresAnyOf = []string{"B"}
	b := featuregatetest.Gate("B", "alpha", ".spec.owner")
	b.RequiresAnyOf = []string{"Nope", "A"}
	_, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), featuregatetest.CronTabCRD("badanyofcrontabs", a, b), metav1.CreateOptions{})
	if err == nil {
		t.Fatal("a CRD whose requiresAnyOf form a cycle was accepted")
	}
	for _, want := range []string{
		`spec.customFeatureGates.featureGates[1].requiresAnyOf[1]: Invalid value: "A": requiresAnyOf must not form a cycle: A -> B -> A`,
		`spec.customFeatureGates.featureGates[1].requiresAnyOf[0]: Not found: "Nope"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}
