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
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// defaultedCronTabCRD is the gated crontab with schema defaults on gated paths:
// .spec.replicas defaults to 1 (ReplicasFeatureGate, alpha, disabled) and
// .spec.advanced.mode to "Fast" (ModeGate, beta, set disabled), below .spec.advanced
// (AdvancedGate, alpha, set enabled).
func defaultedCronTabCRD(plural string) *apiextensionsv1.CustomResourceDefinition {
	modeGate := featuregatetest.Gate("ModeGate", "beta", ".spec.advanced.mode")
	modeGate.Enabled = ptr.To(false)
	advancedGate := featuregatetest.Gate("AdvancedGate", "alpha", ".spec.advanced")
	advancedGate.Enabled = ptr.To(true)
	crd := featuregatetest.CronTabCRD(plural, featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas"), advancedGate, modeGate)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	replicas := spec.Properties["replicas"]
	replicas.Default = &apiextensionsv1.JSON{Raw: []byte(`1`)}
	spec.Properties["replicas"] = replicas
	advanced := spec.Properties["advanced"]
	mode := advanced.Properties["mode"]
	mode.Default = &apiextensionsv1.JSON{Raw: []byte(`"Fast"`)}
	advanced.Properties["mode"] = mode
	spec.Properties["advanced"] = advanced
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	return crd
}

func specOf(t *testing.T, u *unstructured.Unstructured) map[string]interface{} {
	t.Helper()
	spec, _, err := unstructured.NestedMap(u.Object, "spec")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func assertSpec(t *testing.T, what string, u *unstructured.Unstructured, want map[string]interface{}) {
	t.Helper()
	if diff := cmp.Diff(want, specOf(t, u)); diff != "" {
		t.Errorf("spec of %s (-want +got):\n%s", what, diff)
	}
}

// TestFieldGatesSchemaDefaults: while a path is effectively disabled, no schema default
// reaches it: not in a response, not on a read, not in etcd after an unrelated write, and no
// warning names it. Once the gate is enabled, defaulting is upstream's again, also for
// objects stored earlier.
func TestFieldGatesSchemaDefaults(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := env.createCRD(t, defaultedCronTabCRD("defaultedcrontabs"))
	ctx := context.Background()

	// Create, read, update, merge patch: replicas never appears and nothing warns.
	out := env.create(t, crd, "cron", `"spec":{"cronSpec":"a"}`)
	assertSpec(t, "the create response", out, map[string]interface{}{"cronSpec": "a"})
	env.assertWarnings(t)
	env.assertStored(t, crd, "cron", `"spec":{"cronSpec":"a"}`, 1)
	got, err := env.client(crd).Get(ctx, "cron", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertSpec(t, "a read", got, map[string]interface{}{"cronSpec": "a"})
	out = env.update(t, crd, "cron", `"spec":{"cronSpec":"b"}`)
	assertSpec(t, "the update response", out, map[string]interface{}{"cronSpec": "b"})
	env.assertWarnings(t)
	env.assertStored(t, crd, "cron", `"spec":{"cronSpec":"b"}`, 2)
	env.patch(t, crd, "cron", types.MergePatchType, `{"spec":{"cronSpec":"c"}}`)
	env.assertWarnings(t)
	env.assertStored(t, crd, "cron", `"spec":{"cronSpec":"c"}`, 3)
	list, err := env.client(crd).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		assertSpec(t, "a listed item", &list.Items[i], map[string]interface{}{"cronSpec": "c"})
	}

	// Server-side apply: create and re-apply.
	apply := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"applied"},"spec":{"cronSpec":"x"}}`
	env.patch(t, crd, "applied", types.ApplyPatchType, apply)
	env.patch(t, crd, "applied", types.ApplyPatchType, apply)
	env.assertWarnings(t)
	env.assertStored(t, crd, "applied", `"spec":{"cronSpec":"x"}`, 1)

	// Enabling the gate: reads default the stored object, the next write stores the default.
	env.setGate(t, crd, 0, true, "replicas", `"spec":{"replicas":1}`)
	if got, err = env.client(crd).Get(ctx, "cron", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSpec(t, "a read after enabling the gate", got, map[string]interface{}{"cronSpec": "c", "replicas": int64(1)})
	env.assertStored(t, crd, "cron", `"spec":{"cronSpec":"c"}`, 3)
	env.update(t, crd, "cron", `"spec":{"cronSpec":"d"}`)
	env.assertWarnings(t)
	env.assertStored(t, crd, "cron", `"spec":{"cronSpec":"d","replicas":1}`, 4)
}

// TestFieldGatesSchemaDefaultsNested: a default below a disabled parent gate is not applied,
// whatever its own gate says.
func TestFieldGatesSchemaDefaultsNested(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := env.createCRD(t, defaultedCronTabCRD("nesteddefaults"))
	ctx := context.Background()

	// AdvancedGate on, ModeGate off: advanced is stored, mode is not defaulted.
	env.create(t, crd, "nested", `"spec":{"cronSpec":"a","advanced":{"level":2}}`)
	env.assertWarnings(t)
	env.assertStored(t, crd, "nested", `"spec":{"cronSpec":"a","advanced":{"level":2}}`, 1)

	// ModeGate on, AdvancedGate off: mode is disabled through its parent.
	env.setGate(t, crd, 2, true, "mode", `"spec":{"advanced":{"mode":"Slow"}}`)
	env.setGate(t, crd, 1, false, "advanced", `"spec":{"advanced":{"level":1}}`)
	got, err := env.client(crd).Get(ctx, "nested", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	assertSpec(t, "a read below a disabled parent", got, map[string]interface{}{"cronSpec": "a", "advanced": map[string]interface{}{"level": int64(2)}})
	env.update(t, crd, "nested", `"spec":{"cronSpec":"b","advanced":{"level":2}}`)
	env.assertWarnings(t)
	env.assertStored(t, crd, "nested", `"spec":{"cronSpec":"b","advanced":{"level":2}}`, 2)

	// Both on: the default is upstream's again.
	env.setGate(t, crd, 1, true, "advanced", `"spec":{"advanced":{"level":1}}`)
	if got, err = env.client(crd).Get(ctx, "nested", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSpec(t, "a read with both gates on", got, map[string]interface{}{"cronSpec": "b", "advanced": map[string]interface{}{"level": int64(2), "mode": "Fast"}})
}

// TestFieldGatesNamedMapKeyDefault: a gate cannot take a default from one key of a map,
// since the map's value schema is shared by every key. The server rejects such a gated path
// with a clear error, and the path that gates every key ([*]) keeps the default away from
// every key, in etcd and on reads.
func TestFieldGatesNamedMapKeyDefault(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	withTiers := func(plural string, gates ...apiextensionsv1.CustomResourceDefinitionFeatureGate) *apiextensionsv1.CustomResourceDefinition {
		crd := featuregatetest.CronTabCRD(plural, gates...)
		spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		spec.Properties["tiers"] = apiextensionsv1.JSONSchemaProps{
			Type: "object",
			AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte(`1`)}},
					"name": {Type: "string"},
				},
			}},
		}
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		return crd
	}

	rejected := withTiers("namedkeydefaults", featuregatetest.Gate("GoldSize", "alpha", ".spec.tiers.gold.size"))
	_, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), rejected, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("creating a CRD with a default below a gated named map key: got %v, want Invalid", err)
	}
	wantCause := metav1.StatusCause{
		Type:  metav1.CauseTypeFieldValueInvalid,
		Field: "spec.customFeatureGates.featureGates[0].fieldPaths[0]",
		Message: `Invalid value: ".spec.tiers.gold.size": must not go through the named key "gold" of the map .spec.tiers when the map's value schema in the storage version "v1" has a default at or below the rest of the path: ` +
			`that schema is shared by every key, so the default cannot follow the gate; gate every key (.spec.tiers[*]...) or remove the default`,
	}
	if diff := cmp.Diff([]metav1.StatusCause{wantCause}, err.(apierrors.APIStatus).Status().Details.Causes); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	resp, err := env.etcd.Get(context.Background(), path.Join("/", env.prefix, "apiextensions.k8s.io", "customresourcedefinitions", rejected.Name))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 0 {
		t.Errorf("the rejected CRD was stored")
	}

	crd := env.createCRD(t, withTiers("namedkeyalls", featuregatetest.Gate("Sizes", "alpha", ".spec.tiers[*].size")))
	env.create(t, crd, "a", `"spec":{"tiers":{"gold":{"name":"g"},"silver":{}}}`)
	env.assertWarnings(t)
	env.assertStored(t, crd, "a", `"spec":{"tiers":{"gold":{"name":"g"},"silver":{}}}`, 1)
	got, err := env.client(crd).Get(context.Background(), "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]interface{}{"tiers": map[string]interface{}{"gold": map[string]interface{}{"name": "g"}, "silver": map[string]interface{}{}}}, specOf(t, got)); diff != "" {
		t.Errorf("read spec (-want +got):\n%s", diff)
	}
}
