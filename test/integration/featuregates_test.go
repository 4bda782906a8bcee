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
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// KEP-2608 test plan, item 1 and 2: the enabled state follows the KEP's rules, and a disabled
// gate drops its field on create.
func TestFieldGatesEnabledRulesOnCreate(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")

	alphaEnabled := featuregatetest.Gate("AlphaEnabled", "alpha", ".spec.image")
	alphaEnabled.Enabled = ptr.To(true)
	betaOff := featuregatetest.Gate("BetaDefaultOff", "beta", ".spec.advanced")
	betaOff.Default = ptr.To(false)
	betaOverridden := featuregatetest.Gate("BetaOverridden", "beta", ".spec.owner")
	betaOverridden.Default, betaOverridden.Enabled = ptr.To(false), ptr.To(true)
	deprecatedOn := featuregatetest.Gate("DeprecatedOn", "deprecated", ".spec.legacy")
	deprecatedOn.Default = ptr.To(true)
	deprecatedOff := featuregatetest.Gate("DeprecatedOff", "deprecated", ".spec.retired")
	deprecatedOff.Default = ptr.To(false)

	crd := env.createCRD(t, featuregatetest.CronTabCRD("rulecrontabs",
		featuregatetest.Gate("AlphaGate", "alpha", ".spec.cronSpec"), // rule 5: alpha without enabled or default
		alphaEnabled, // rule 2: enabled wins
		featuregatetest.Gate("BetaGate", "beta", ".spec.replicas"), // rule 4
		betaOff,        // rule 3: default
		betaOverridden, // rule 2 before rule 3
		featuregatetest.Gate("StableGate", "stable", ".spec.ports"), // rule 1
		deprecatedOn,  // rule 3
		deprecatedOff, // rule 3
	))

	env.create(t, crd, "all", `"spec":{"cronSpec":"* * * * */5","image":"my-cron","replicas":3,"advanced":{"level":1},"owner":"me",
		"ports":[{"name":"http","port":80}],"legacy":"old","retired":"gone"}`)
	env.assertStored(t, crd, "all", `"spec":{"image":"my-cron","replicas":3,"owner":"me","ports":[{"name":"http","port":80}],"legacy":"old"}`, 1)
	env.assertWarnings(t,
		".spec.advanced was dropped: feature gate BetaDefaultOff (beta) is disabled",
		".spec.cronSpec was dropped: feature gate AlphaGate (alpha) is disabled",
		".spec.retired was dropped: feature gate DeprecatedOff (deprecated) is disabled",
		".spec.legacy is deprecated (feature gate DeprecatedOn)",
	)

	// A create that sends no gated field gets no warning.
	env.create(t, crd, "plain", `"spec":{"image":"my-cron"}`)
	env.assertStored(t, crd, "plain", `"spec":{"image":"my-cron"}`, 1)
	env.assertWarnings(t)
}

// KEP-2608 test plan, items 3, 5 and 6: updates follow the 8-case matrix, with nested gates
// and list wildcards; a gated-away update neither bumps the generation nor goes unreported.
func TestFieldGatesUpdateMatrix(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")

	replicas := featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas")
	replicas.Enabled = ptr.To(true)
	parent := featuregatetest.Gate("AdvancedGate", "alpha", ".spec.advanced")
	parent.Enabled = ptr.To(true)
	child := featuregatetest.Gate("LevelGate", "beta", ".spec.advanced.level") // enabled on its own
	protocol := featuregatetest.Gate("AppProtocolGate", "alpha", ".spec.ports[*].appProtocol")
	protocol.Enabled = ptr.To(true)
	crd := env.createCRD(t, featuregatetest.CronTabCRD("matrixcrontabs", replicas, parent, child, protocol))

	type step struct {
		name, old, new, want string
		wantGeneration       int64
		wantWarnings         []string
	}
	enabledCases := []step{
		{name: "on-present-changed", old: `"spec":{"replicas":1}`, new: `"spec":{"replicas":2}`, want: `"spec":{"replicas":2}`, wantGeneration: 2},
		{name: "on-present-removed", old: `"spec":{"replicas":1}`, new: `"spec":{}`, want: `"spec":{}`, wantGeneration: 2},
		{name: "on-absent-added", old: `"spec":{}`, new: `"spec":{"replicas":2}`, want: `"spec":{"replicas":2}`, wantGeneration: 2},
		{name: "on-absent-absent", old: `"spec":{"image":"a"}`, new: `"spec":{"image":"b"}`, want: `"spec":{"image":"b"}`, wantGeneration: 2},
	}
	disabledCases := []step{
		{name: "off-present-changed", old: `"spec":{"replicas":1}`, new: `"spec":{"replicas":2}`, want: `"spec":{"replicas":1}`, wantGeneration: 1,
			wantWarnings: []string{".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"}},
		{name: "off-present-removed", old: `"spec":{"replicas":1}`, new: `"spec":{}`, want: `"spec":{"replicas":1}`, wantGeneration: 1,
			wantWarnings: []string{".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"}},
		{name: "off-absent-added", old: `"spec":{}`, new: `"spec":{"replicas":2}`, want: `"spec":{}`, wantGeneration: 1,
			wantWarnings: []string{".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled"}},
		{name: "off-absent-absent", old: `"spec":{"image":"a"}`, new: `"spec":{"image":"b"}`, want: `"spec":{"image":"b"}`, wantGeneration: 2},
		{name: "off-mixed", old: `"spec":{"replicas":1,"image":"a"}`, new: `"spec":{"replicas":2,"image":"b"}`, want: `"spec":{"replicas":1,"image":"b"}`, wantGeneration: 2,
			wantWarnings: []string{".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"}},
		{name: "off-parent-disables-child", old: `"spec":{"advanced":{"level":1,"mode":"a"}}`, new: `"spec":{"advanced":{"level":2,"mode":"b"}}`,
			want: `"spec":{"advanced":{"level":1,"mode":"a"}}`, wantGeneration: 1,
			wantWarnings: []string{".spec.advanced was not updated: feature gate AdvancedGate (alpha) is disabled; the stored value was kept"}},
		{name: "off-parent-child-added", old: `"spec":{}`, new: `"spec":{"advanced":{"level":2}}`, want: `"spec":{}`, wantGeneration: 1,
			wantWarnings: []string{".spec.advanced was dropped: feature gate AdvancedGate (alpha) is disabled"}},
		{name: "off-map-list-items-by-key",
			old:            `"spec":{"ports":[{"name":"a","port":1,"appProtocol":"x"}]}`,
			new:            `"spec":{"ports":[{"name":"b","port":2,"appProtocol":"y"},{"name":"a","port":3,"appProtocol":"z"}]}`,
			want:           `"spec":{"ports":[{"name":"b","port":2},{"name":"a","port":3,"appProtocol":"x"}]}`,
			wantGeneration: 2,
			// One warning per gated path: item b's value was dropped and item a's kept,
			// and the warning names the stronger outcome.
			wantWarnings: []string{
				".spec.ports[*].appProtocol was not updated: feature gate AppProtocolGate (alpha) is disabled; the stored value was kept",
			}},
	}

	// Every object is created while all gates are enabled, so the old values are stored.
	for _, c := range append(append([]step{}, enabledCases...), disabledCases...) {
		env.create(t, crd, c.name, c.old)
	}
	env.assertWarnings(t)
	run := func(cases []step) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				env.update(t, crd, c.name, c.new)
				env.assertStored(t, crd, c.name, c.want, c.wantGeneration)
				env.assertWarnings(t, c.wantWarnings...)
			})
		}
	}
	run(enabledCases)

	env.setGate(t, crd, 0, false, "replicas", `"spec":{"replicas":1}`)
	env.setGate(t, crd, 1, false, "advanced", `"spec":{"advanced":{"mode":"a"}}`)
	env.setGate(t, crd, 3, false, "appProtocol", `"spec":{"ports":[{"name":"a","appProtocol":"x"}]}`)
	run(disabledCases)
}

// KEP-2608 test plan, item 4: a deprecated field draws the author's text or a default one,
// only when the client sends or changes it.
func TestFieldGatesDeprecationWarnings(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	plain := featuregatetest.Gate("LegacyField", "deprecated", ".spec.legacy")
	plain.Default = ptr.To(true)
	custom := featuregatetest.Gate("RetiredField", "deprecated", ".spec.retired")
	custom.Default = ptr.To(true)
	custom.FieldDeprecationWarning = ptr.To("spec.retired is ignored since v2; use spec.image")
	crd := env.createCRD(t, featuregatetest.CronTabCRD("deprecatedcrontabs", plain, custom))

	env.create(t, crd, "a", `"spec":{"legacy":"x","retired":"y"}`)
	env.assertStored(t, crd, "a", `"spec":{"legacy":"x","retired":"y"}`, 1)
	env.assertWarnings(t, ".spec.legacy is deprecated (feature gate LegacyField)", "spec.retired is ignored since v2; use spec.image")

	env.update(t, crd, "a", `"spec":{"legacy":"x","retired":"z"}`)
	env.assertStored(t, crd, "a", `"spec":{"legacy":"x","retired":"z"}`, 2)
	env.assertWarnings(t, "spec.retired is ignored since v2; use spec.image")

	env.update(t, crd, "a", `"spec":{"legacy":"x","retired":"z","image":"i"}`)
	env.assertStored(t, crd, "a", `"spec":{"legacy":"x","retired":"z","image":"i"}`, 3)
	env.assertWarnings(t)
}

// Every other write path keeps the same semantics: patches, server-side apply, dry-run, and
// the status and scale subresources. Toggling a gate takes effect on the next write.
func TestFieldGatesWritePaths(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	replicas := featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas")
	replicas.Enabled = ptr.To(true)
	ready := featuregatetest.Gate("ReadyGate", "alpha", ".status.ready")
	crd := env.createCRD(t, featuregatetest.CronTabCRD("writecrontabs", replicas, ready))
	notUpdated := ".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"
	dropped := ".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled"

	env.create(t, crd, "stored", `"spec":{"replicas":2,"image":"a"}`)
	env.setGate(t, crd, 0, false, "replicas", `"spec":{"replicas":1}`)

	t.Run("merge patch keeps the stored value", func(t *testing.T) {
		env.patch(t, crd, "stored", types.MergePatchType, `{"spec":{"replicas":7}}`)
		env.assertStored(t, crd, "stored", `"spec":{"replicas":2,"image":"a"}`, 1)
		env.assertWarnings(t, notUpdated)
		env.patch(t, crd, "stored", types.MergePatchType, `{"spec":{"replicas":null}}`)
		env.assertStored(t, crd, "stored", `"spec":{"replicas":2,"image":"a"}`, 1)
		env.assertWarnings(t, notUpdated)
	})
	t.Run("json patch keeps the stored value", func(t *testing.T) {
		env.patch(t, crd, "stored", types.JSONPatchType, `[{"op":"remove","path":"/spec/replicas"},{"op":"replace","path":"/spec/image","value":"b"}]`)
		env.assertStored(t, crd, "stored", `"spec":{"replicas":2,"image":"b"}`, 2)
		env.assertWarnings(t, notUpdated)
	})
	t.Run("dry-run gives the same result and warnings and persists nothing", func(t *testing.T) {
		out, err := env.client(crd).Create(context.Background(), crObject(t, crd, "dry", `"spec":{"replicas":3,"image":"a"}`), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		if _, found := out.Object["spec"].(map[string]interface{})["replicas"]; found {
			t.Errorf("dry-run create returned the gated field: %v", out.Object["spec"])
		}
		env.assertWarnings(t, dropped)
		if obj := env.stored(t, crd, "dry"); obj != nil {
			t.Errorf("dry-run create persisted %v", obj)
		}
		_, err = env.client(crd).Patch(context.Background(), "stored", types.MergePatchType, []byte(`{"spec":{"replicas":9,"image":"c"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		env.assertWarnings(t, notUpdated)
		env.assertStored(t, crd, "stored", `"spec":{"replicas":2,"image":"b"}`, 2)
	})
	t.Run("status subresource gates status paths", func(t *testing.T) {
		env.patch(t, crd, "stored", types.MergePatchType, `{"status":{"ready":1,"replicas":2}}`, "status")
		env.assertStored(t, crd, "stored", `"spec":{"replicas":2,"image":"b"},"status":{"replicas":2}`, 2)
		env.assertWarnings(t, ".status.ready was dropped: feature gate ReadyGate (alpha) is disabled")
	})
	t.Run("scale subresource does not apply a disabled replicas path", func(t *testing.T) {
		env.patch(t, crd, "stored", types.MergePatchType, `{"spec":{"replicas":5}}`, "scale")
		env.assertStored(t, crd, "stored", `"spec":{"replicas":2,"image":"b"},"status":{"replicas":2}`, 2)
		env.assertWarnings(t, notUpdated)
	})
	t.Run("server-side apply drops, re-applies idempotently, and sets the field once enabled", func(t *testing.T) {
		manifest := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"applied","namespace":"default"},"spec":{"replicas":4,"image":"a"}}`
		env.patch(t, crd, "applied", types.ApplyPatchType, manifest)
		env.assertStored(t, crd, "applied", `"spec":{"image":"a"}`, 1)
		env.assertWarnings(t, dropped)
		env.patch(t, crd, "applied", types.ApplyPatchType, manifest)
		env.assertStored(t, crd, "applied", `"spec":{"image":"a"}`, 1)
		env.assertWarnings(t, dropped)

		env.setGate(t, crd, 0, true, "replicas", `"spec":{"replicas":1}`)
		env.patch(t, crd, "applied", types.ApplyPatchType, manifest)
		env.assertStored(t, crd, "applied", `"spec":{"replicas":4,"image":"a"}`, 2)
		env.assertWarnings(t)
	})
	t.Run("toggling the gate takes effect on the next write", func(t *testing.T) {
		env.patch(t, crd, "stored", types.MergePatchType, `{"spec":{"replicas":6}}`)
		env.assertStored(t, crd, "stored", `"spec":{"replicas":6,"image":"b"},"status":{"replicas":2}`, 3)
		env.assertWarnings(t)
	})
}

// A cluster admin owns one gate's enabled through server-side apply, as in KEP Scenario 1;
// the CRD author's later applies neither clobber it nor take it over silently.
func TestFieldGatesCRDServerSideApply(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crds := env.apiext.ApiextensionsV1().CustomResourceDefinitions()
	author := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"applycrontabs.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"applycrontabs","singular":"applycrontab","kind":"CronTab","listKind":"CronTabList"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"},"image":{"type":"string"}}}}}}}],
"customFeatureGates":{"featureGates":[{"name":"ReplicasFeatureGate","preRelease":"alpha","fieldPaths":[".spec.replicas"]},{"name":"ImageGate","preRelease":"beta","fieldPaths":[".spec.image"]}]}}}`
	apply := func(manager, body string, force bool) (*apiextensionsv1.CustomResourceDefinition, error) {
		return crds.Patch(context.Background(), "applycrontabs.stable.example.com", types.ApplyPatchType, []byte(body), metav1.PatchOptions{FieldManager: manager, Force: ptr.To(force)})
	}
	if _, err := apply("crd-author", author, false); err != nil {
		t.Fatal(err)
	}
	admin := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"applycrontabs.stable.example.com"},
"spec":{"customFeatureGates":{"featureGates":[{"name":"ReplicasFeatureGate","enabled":true}]}}}`
	if _, err := apply("cluster-admin", admin, false); err != nil {
		t.Fatal(err)
	}
	// The author re-applies the same manifest: the admin's enabled stays.
	if _, err := apply("crd-author", author, false); err != nil {
		t.Fatal(err)
	}
	stored := env.storedCRD(t, "applycrontabs.stable.example.com")
	gates := stored.Spec.CustomFeatureGates.FeatureGates
	if len(gates) != 2 || gates[0].Name != "ReplicasFeatureGate" || gates[0].Enabled == nil || !*gates[0].Enabled {
		t.Fatalf("the admin's enabled was lost: %+v", gates)
	}
	owners := map[string]bool{}
	for _, mf := range stored.ManagedFields {
		if mf.FieldsV1 != nil && containsAll(string(mf.FieldsV1.Raw), `"k:{\"name\":\"ReplicasFeatureGate\"}"`, `"f:enabled"`) {
			owners[mf.Manager] = true
		}
	}
	if !owners["cluster-admin"] || len(owners) != 1 {
		t.Errorf("featureGates[name=ReplicasFeatureGate].enabled should be owned by cluster-admin only, owned by %v", owners)
	}
	// The author now tries to set enabled: a conflict with the admin, as upstream reports it.
	withEnabled := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"applycrontabs.stable.example.com"},
"spec":{"customFeatureGates":{"featureGates":[{"name":"ReplicasFeatureGate","preRelease":"alpha","enabled":false,"fieldPaths":[".spec.replicas"]}]}}}`
	_, err := apply("crd-author", withEnabled, false)
	if err == nil || !containsAll(err.Error(), "conflict", "cluster-admin", "enabled") {
		t.Fatalf("expected an apply conflict on enabled with cluster-admin, got %v", err)
	}
}

// With CRDFieldLevelVersioning off, custom resources behave as upstream even when their CRD
// still carries gates, and the gates themselves stay stored.
func TestFieldGatesFeatureOff(t *testing.T) {
	var prefix string
	crd := featuregatetest.CronTabCRD("offcrontabs", featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas"))
	t.Run("created with the feature on", func(t *testing.T) {
		enableFeature(t, true)
		env := startGatesServer(t, "")
		prefix = env.prefix
		env.createCRD(t, crd)
		env.create(t, crd, "on", `"spec":{"replicas":1,"image":"a"}`)
		env.assertStored(t, crd, "on", `"spec":{"image":"a"}`, 1)
		env.assertWarnings(t, ".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled")
	})
	t.Run("served with the feature off", func(t *testing.T) {
		enableFeature(t, false)
		env := startGatesServer(t, prefix)
		if err := fixturesWaitForCRD(env, crd); err != nil {
			t.Fatal(err)
		}
		env.create(t, crd, "off", `"spec":{"replicas":1,"image":"a"}`)
		env.assertStored(t, crd, "off", `"spec":{"replicas":1,"image":"a"}`, 1)
		env.assertWarnings(t)
		env.update(t, crd, "on", `"spec":{"replicas":3,"image":"a"}`)
		env.assertStored(t, crd, "on", `"spec":{"replicas":3,"image":"a"}`, 2)
		env.assertWarnings(t)

		// An unrelated CRD update keeps the gates (dropDisabledFields keeps what is in use).
		if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"touched":"yes"}}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		if g := env.storedCRD(t, crd.Name).Spec.CustomFeatureGates; g == nil || len(g.FeatureGates) != 1 {
			t.Errorf("the CRD lost its gates on update with the feature off: %+v", g)
		}
		// A new CRD cannot start using the field while the feature is off.
		fresh := featuregatetest.CronTabCRD("freshcrontabs", featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas"))
		fresh.Spec.Group, fresh.Name = "fresh.example.com", "freshcrontabs.fresh.example.com"
		fresh = env.createCRD(t, fresh)
		if fresh.Spec.CustomFeatureGates != nil || env.storedCRD(t, fresh.Name).Spec.CustomFeatureGates != nil {
			t.Errorf("customFeatureGates was kept on create with the feature off")
		}
	})
}
