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
	"encoding/json"
	"fmt"
	"strings"
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

// headerValuePattern is Gateway API's pattern of an HTTP header value, which its
// experimental channel adds (v1.5.x, v1.6.x) to a maxLength 4096 string under three nested
// lists: .spec.rules[*].matches[*].headers[*].value.
const headerValuePattern = `^[!-~]+([\t ]?[!-~]+)*$`

// headerRoutesCRD is a CRD of group, with .spec.rules[*].matches[*].headers[*].value shaped
// like Gateway API's HTTPRoute (list bounds included), whose value node is set by value.
func headerRoutesCRD(group, plural string, value apiextensionsv1.JSONSchemaProps, gates ...apiextensionsv1.CustomResourceDefinitionFeatureGate) *apiextensionsv1.CustomResourceDefinition {
	crd := featuregatetest.CronTabCRD(plural, gates...)
	crd.Spec.Group, crd.Name = group, plural+"."+group
	list := func(max int64, item apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "array", MaxItems: ptr.To(max), Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item}}
	}
	object := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	value.Type, value.MinLength, value.MaxLength = "string", ptr.To[int64](1), ptr.To[int64](4096)
	header := object(map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string", MaxLength: ptr.To[int64](256)}, "value": value})
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	spec.Properties["rules"] = list(16, object(map[string]apiextensionsv1.JSONSchemaProps{
		"matches": list(64, object(map[string]apiextensionsv1.JSONSchemaProps{"headers": list(16, header)})),
	}))
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	return crd
}

// routeObject is a custom resource of crd whose one header has the given value.
func routeObject(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, name, value, image string) *unstructured.Unstructured {
	t.Helper()
	v, _ := json.Marshal(value)
	doc := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"namespace":%q},"spec":{"image":%q,"rules":[{"matches":[{"headers":[{"name":"x","value":%s}]}]}]}}`,
		crd.Spec.Group+"/v1", crd.Spec.Names.Kind, name, gatesTestNamespace, image, v)
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// causes are the field causes of a rejected write, the part of the error that names what
// was wrong and where (the rest names the kind and the object).
func causes(t *testing.T, err error) []metav1.StatusCause {
	t.Helper()
	status, ok := err.(apierrors.APIStatus)
	if !ok || !apierrors.IsInvalid(err) || status.Status().Details == nil {
		t.Fatalf("want a 422 Invalid with causes, got %v", err)
	}
	return status.Status().Details.Causes
}

// TestFieldGatesGatedKeywords: a gated pattern on a maxLength 4096 string under three nested
// lists (Gateway API's header value, experimental only in v1.5 and v1.6). As a CEL rule that
// reads the gate, as featuregate-gen channels used to write it, our server accepts the CRD
// while the gate is off and refuses to turn the gate on, for the rule's estimated cost; as
// x-kubernetes-feature-gated-validations it is accepted, and a
// value that breaks the pattern is rejected while the gate is on, with exactly the causes
// the stock pattern keyword gives, and accepted while the gate is off. A value stored while
// the gate was off survives updates that keep it after the gate is turned on (ratcheting).
func TestFieldGatesGatedKeywords(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	const bad, good = "bad\x01value", "good value"

	// The CEL form of the same gate costs too much.
	celForm := headerRoutesCRD("cel.example.com", "celroutes", apiextensionsv1.JSONSchemaProps{XValidations: apiextensionsv1.ValidationRules{{
		Rule: "!featureGates.HeaderValuePattern || self.matches('" + strings.ReplaceAll(headerValuePattern, `\`, `\\`) + "')", Message: "should match '" + headerValuePattern + "'",
	}}}, featuregatetest.Gate("HeaderValuePattern", "alpha"))
	// While the gate is off the guard holds, so the rule is left out of the estimate
	// (docs/reference/semantics.md, "Rules that the gates keep off"); turning the gate on
	// is refused for the rule's estimated cost.
	if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), celForm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the CEL form of the gated pattern with its gate off: %v, want it accepted", err)
	}
	_, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), celForm.Name, types.JSONPatchType,
		[]byte(`[{"op":"add","path":"/spec/customFeatureGates/featureGates/0/enabled","value":true}]`), metav1.PatchOptions{})
	if err == nil || !strings.Contains(err.Error(), "estimated rule cost exceeds budget") {
		t.Fatalf("turning on the gate of the CEL form of the gated pattern: %v, want it refused for the rule's estimated cost", err)
	}

	// The native form (in the group the gate helpers write to), and the stock keyword for
	// reference.
	gated := headerRoutesCRD("stable.example.com", "routes", apiextensionsv1.JSONSchemaProps{XFeatureGatedValidations: []apiextensionsv1.FeatureGatedValidation{{
		FeatureGate: "HeaderValuePattern", Enabled: true, Pattern: headerValuePattern,
	}}}, featuregatetest.Gate("HeaderValuePattern", "alpha"))
	stock := headerRoutesCRD("stock.example.com", "routes", apiextensionsv1.JSONSchemaProps{Pattern: headerValuePattern})
	env.createCRD(t, gated)
	env.createCRD(t, stock)
	stockErr := func() []metav1.StatusCause {
		_, err := env.client(stock).Create(context.Background(), routeObject(t, stock, "bad", bad, "a"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return causes(t, err)
	}()
	create := func(name, value string) error {
		_, err := env.client(gated).Create(context.Background(), routeObject(t, gated, name, value, "a"), metav1.CreateOptions{})
		return err
	}

	// Off (alpha): the pattern does not apply.
	if err := create("stored-while-off", bad); err != nil {
		t.Fatalf("gate off: a value outside the pattern: %v", err)
	}

	// On: the next writes are judged with the pattern, as the stock keyword judges them.
	env.setCELGate(t, gated, 0, true, `"spec":{"rules":[{"matches":[{"headers":[{"name":"x","value":"bad\u0001value"}]}]}]}`, false)
	err = create("on", bad)
	if err == nil {
		t.Fatal("gate on: a value outside the pattern was accepted")
	}
	if diff := cmp.Diff(stockErr, causes(t, err)); diff != "" {
		t.Errorf("gate on: the causes differ from the stock pattern's (-stock +gated):\n%s", diff)
	}
	t.Logf("gate on: %v", err)
	if err := create("good", good); err != nil {
		t.Errorf("gate on: a value that matches: %v", err)
	}

	// Ratcheting: the value stored while the gate was off is kept by an update that leaves
	// it as it is, and rejected where an update sets it.
	cur, err := env.client(gated).Get(context.Background(), "stored-while-off", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next := routeObject(t, gated, "stored-while-off", bad, "changed")
	next.SetResourceVersion(cur.GetResourceVersion())
	if _, err := env.client(gated).Update(context.Background(), next, metav1.UpdateOptions{}); err != nil {
		t.Errorf("gate on: an update that keeps the stored value: %v", err)
	}
	cur, err = env.client(gated).Get(context.Background(), "good", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next = routeObject(t, gated, "good", bad, "a")
	next.SetResourceVersion(cur.GetResourceVersion())
	if _, err := env.client(gated).Update(context.Background(), next, metav1.UpdateOptions{}); err == nil {
		t.Error("gate on: an update that sets a value outside the pattern was accepted")
	}

	// Off again.
	env.setCELGate(t, gated, 0, false, `"spec":{"rules":[{"matches":[{"headers":[{"name":"x","value":"bad\u0001value"}]}]}]}`, true)
	if err := create("off-again", bad); err != nil {
		t.Errorf("gate off again: a value outside the pattern: %v", err)
	}
}
