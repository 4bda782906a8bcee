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
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// celGatesCRD has the three recipes of "Gating values and rules" (docs/guides/crd-authors.md):
// a gated enum value (FastMode), a gated maxItems (ManyHosts) and a stricter rule that starts
// as alpha (StrictNames). None of the gates has fieldPaths: they guard rules only.
func celGatesCRD(plural string) *apiextensionsv1.CustomResourceDefinition {
	crd := featuregatetest.CronTabCRD(plural,
		featuregatetest.Gate("FastMode", "alpha"),
		featuregatetest.Gate("ManyHosts", "alpha"),
		featuregatetest.Gate("StrictNames", "alpha"),
	)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	spec.Properties["speed"] = apiextensionsv1.JSONSchemaProps{
		Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"Slow"`)}, {Raw: []byte(`"Fast"`)}},
		XValidations: apiextensionsv1.ValidationRules{{Rule: "featureGates.FastMode || self != 'Fast'", Message: "Fast needs the FastMode feature gate"}},
	}
	spec.Properties["hosts"] = apiextensionsv1.JSONSchemaProps{
		Type: "array", MaxItems: ptr.To[int64](100), Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](63)}},
		XValidations: apiextensionsv1.ValidationRules{{Rule: "featureGates.ManyHosts || size(self) <= 3", MessageExpression: "'at most 3 hosts while ManyHosts is ' + (featureGates.ManyHosts ? 'on' : 'off')"}},
	}
	spec.Properties["name"] = apiextensionsv1.JSONSchemaProps{
		Type: "string", MaxLength: ptr.To[int64](63),
		XValidations: apiextensionsv1.ValidationRules{{Rule: "!featureGates.StrictNames || self.matches('^[a-z][a-z0-9-]*$')", Message: "must be a lower-case name"}},
	}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	return crd
}

func (e *gatesEnv) tryCreate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name, content string, dryRun bool) error {
	t.Helper()
	opts := metav1.CreateOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	u := crObject(t, crd, name, content)
	_, err := e.client(crd).Create(context.Background(), u, opts)
	return err
}

func (e *gatesEnv) tryUpdate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name, content string) error {
	t.Helper()
	cur, err := e.client(crd).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := crObject(t, crd, name, content)
	next.SetResourceVersion(cur.GetResourceVersion())
	_, err = e.client(crd).Update(context.Background(), next, metav1.UpdateOptions{})
	return err
}

// setCELGate sets gate index's enabled with a JSON patch of the CRD, and waits until a
// dry-run create of probe succeeds exactly when probeOK says.
func (e *gatesEnv) setCELGate(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, index int, enabled bool, probe string, probeOK bool) {
	t.Helper()
	p := fmt.Sprintf(`[{"op":"test","path":"/spec/customFeatureGates/featureGates/%d/name","value":%q},{"op":"add","path":"/spec/customFeatureGates/featureGates/%d/enabled","value":%t}]`,
		index, crd.Spec.CustomFeatureGates.FeatureGates[index].Name, index, enabled)
	if _, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.JSONPatchType, []byte(p), metav1.PatchOptions{}); err != nil {
		t.Fatalf("enabled=%t on gate %d of %s: %v", enabled, index, crd.Name, err)
	}
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return (e.tryCreate(t, crd, "probe", probe, true) == nil) == probeOK, nil
	})
	if err != nil {
		t.Fatalf("the server did not pick up enabled=%t of gate %d of %s", enabled, index, crd.Name)
	}
	e.warnings.Take()
}

func expectWrite(t *testing.T, what string, err error, wantOK bool, wantMsg string) {
	t.Helper()
	switch {
	case wantOK && err != nil:
		t.Errorf("%s: unexpected error: %v", what, err)
	case !wantOK && err == nil:
		t.Errorf("%s: succeeded, want it rejected with %q", what, wantMsg)
	case !wantOK && !strings.Contains(err.Error(), wantMsg):
		t.Errorf("%s: error %v, want one containing %q", what, err, wantMsg)
	}
}

// TestFieldGatesCELRecipes runs each recipe with its gate off, then on (enabled by a JSON
// patch of the CRD), then off again: creates are accepted or rejected as the rule says, and
// an update that keeps a value stored while it was valid passes (upstream's ratcheting).
func TestFieldGatesCELRecipes(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := celGatesCRD("celcrontabs")
	env.createCRD(t, crd)

	recipes := []struct {
		name string
		gate int
		// special is valid only while the gate is on (okWhenOn) or only while it is off.
		special, plain string
		okWhenOn       bool
		msg            string
	}{
		{name: "gated enum value", gate: 0, special: `"speed":"Fast"`, plain: `"speed":"Slow"`, okWhenOn: true, msg: "Fast needs the FastMode feature gate"},
		{name: "gated maxItems", gate: 1, special: `"hosts":["a","b","c","d"]`, plain: `"hosts":["a"]`, okWhenOn: true, msg: "at most 3 hosts while ManyHosts is off"},
		{name: "stricter rule starts as alpha", gate: 2, special: `"name":"Not_A_Name"`, plain: `"name":"ok-name"`, okWhenOn: false, msg: "must be a lower-case name"},
	}
	for _, r := range recipes {
		t.Run(r.name, func(t *testing.T) {
			obj := func(fields ...string) string { return `"spec":{` + strings.Join(fields, ",") + `}` }
			prefix := fmt.Sprintf("r%d-", r.gate)
			okWhenOff := !r.okWhenOn

			// Off.
			expectWrite(t, "create with the gated value, gate off", env.tryCreate(t, crd, prefix+"off", obj(r.special), false), okWhenOff, r.msg)
			expectWrite(t, "create with a plain value, gate off", env.tryCreate(t, crd, prefix+"plain", obj(r.plain), false), true, "")
			expectWrite(t, "create with a plain value, gate off", env.tryCreate(t, crd, prefix+"plain2", obj(r.plain), false), true, "")

			// On, by a JSON patch of the CRD: the next write is judged with the new value.
			env.setCELGate(t, crd, r.gate, true, obj(r.special), r.okWhenOn)
			expectWrite(t, "create with the gated value, gate on", env.tryCreate(t, crd, prefix+"on", obj(r.special), false), r.okWhenOn, r.msg)
			expectWrite(t, "update to the gated value, gate on", env.tryUpdate(t, crd, prefix+"plain", obj(r.special)), r.okWhenOn, r.msg)

			// Off again.
			env.setCELGate(t, crd, r.gate, false, obj(r.special), okWhenOff)
			expectWrite(t, "create with the gated value, gate off again", env.tryCreate(t, crd, prefix+"off-again", obj(r.special), false), okWhenOff, r.msg)

			// Ratcheting: the object that stored the value while it was valid can still be
			// updated when the update keeps the value, in the state where it is invalid.
			stored := prefix + "on"
			if !r.okWhenOn {
				stored = prefix + "off"
				env.setCELGate(t, crd, r.gate, true, obj(r.special), r.okWhenOn)
			}
			expectWrite(t, "update keeping the stored value", env.tryUpdate(t, crd, stored, obj(r.special, `"image":"changed"`)), true, "")
			expectWrite(t, "update setting the value on another object", env.tryUpdate(t, crd, prefix+"plain2", obj(r.special)), false, r.msg)
		})
	}
}

// TestFieldGatesCELFeatureOff: a server with CRDFieldLevelVersioning off keeps serving a CRD
// that kept its gates and whose rules read them, with the gates' states as declared; a new
// CRD whose rules read featureGates is rejected there, because its gates are dropped.
func TestFieldGatesCELFeatureOff(t *testing.T) {
	var prefix string
	crd := celGatesCRD("celoffcrontabs")
	t.Run("created with the feature on", func(t *testing.T) {
		enableFeature(t, true)
		env := startGatesServer(t, "")
		prefix = env.prefix
		env.createCRD(t, crd)
		env.setCELGate(t, crd, 1, true, `"spec":{"hosts":["a","b","c","d"]}`, true)
		expectWrite(t, "create, FastMode off", env.tryCreate(t, crd, "fast", `"spec":{"speed":"Fast"}`, false), false, "Fast needs the FastMode feature gate")
	})
	t.Run("served with the feature off", func(t *testing.T) {
		enableFeature(t, false)
		env := startGatesServer(t, prefix)
		if err := fixturesWaitForCRD(env, crd); err != nil {
			t.Fatal(err)
		}
		expectWrite(t, "create, FastMode off", env.tryCreate(t, crd, "fast", `"spec":{"speed":"Fast"}`, false), false, "Fast needs the FastMode feature gate")
		expectWrite(t, "create, ManyHosts enabled", env.tryCreate(t, crd, "hosts", `"spec":{"hosts":["a","b","c","d"]}`, false), true, "")
		expectWrite(t, "create, plain", env.tryCreate(t, crd, "plain", `"spec":{"speed":"Slow","name":"Not_Strict"}`, false), true, "")

		// The CRD can still be updated: its rules compile with the gates it kept.
		if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"touched":"yes"}}}`), metav1.PatchOptions{}); err != nil {
			t.Fatalf("updating a CRD whose rules read its gates, feature off: %v", err)
		}

		// A new CRD's gates are dropped, so its rules that read featureGates do not compile.
		fresh := celGatesCRD("freshcelcrontabs")
		fresh.Spec.Group, fresh.Name = "fresh.example.com", "freshcelcrontabs.fresh.example.com"
		_, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), fresh, metav1.CreateOptions{})
		expectWrite(t, "create a new CRD whose rules read featureGates, feature off", err, false, "undeclared reference to 'featureGates'")
		if err != nil && !strings.Contains(err.Error(), "spec.validation.openAPIV3Schema.properties[spec].properties[speed].x-kubernetes-validations[0].rule") &&
			!strings.Contains(err.Error(), "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[speed].x-kubernetes-validations[0].rule") {
			t.Errorf("the error does not name the rule's field path: %v", err)
		}
	})
}
