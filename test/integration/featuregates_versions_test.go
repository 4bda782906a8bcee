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
	"time"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apiextensions-apiserver/test/integration/fixtures"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/openapi3"
	"k8s.io/utils/ptr"
)

// unevenMarksCRD has two versions of one shape and conversion None: v1, served, has a
// default for .spec.replicas and no mark; v2, the storage version, marks .spec.replicas with
// ReplicasGate, an alpha gate, so disabled.
func unevenMarksCRD() *apiextensionsv1.CustomResourceDefinition {
	schema := func(v2 bool) *apiextensionsv1.CustomResourceValidation {
		replicas := apiextensionsv1.JSONSchemaProps{Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("1")}}
		if v2 {
			replicas = apiextensionsv1.JSONSchemaProps{Type: "integer", XFeatureGate: ptr.To("ReplicasGate")}
		}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"replicas": replicas,
					"image":    {Type: "string"},
				}},
			}}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.uneven.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "uneven.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Schema: schema(false)},
				{Name: "v2", Served: true, Storage: true, Schema: schema(true)},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "ReplicasGate", PreRelease: apiextensionsv1.CustomFeatureGateAlpha}}},
		},
	}
}

// TestFieldGateMarksOfOtherVersions: with conversion None, v2's mark on .spec.replicas gates
// v1 too, which has the path but no mark, and everything agrees on it: the CRD draws a
// warning naming both versions; a v1 create stores nothing at replicas and draws no warning
// (v1's default is not applied), a value sent there is dropped; the OpenAPI of v1 shows the
// gate and no default; apihelpers says the field is disabled in v1. After the storage version
// moves to v1, which has no mark, a v1 write is still gated.
func TestFieldGateMarksOfOtherVersions(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()

	crd, err := fixtures.CreateNewV1CustomResourceDefinition(unevenMarksCRD(), env.apiext, env.dynamic)
	if err != nil {
		t.Fatal(err)
	}
	const crdWarning = `spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[replicas].x-kubernetes-feature-gate: version "v2" marks .spec.replicas with feature gate ReplicasGate and version "v1" does not; ` +
		`with conversion None the versions share one shape, so the mark applies to both v1 and v2: mark .spec.replicas in version "v1" too`
	if w := env.warnings.Take(); !containsString(w, crdWarning) {
		t.Errorf("CRD create warnings = %q, want one that is %q", w, crdWarning)
	}
	client := func(version string) dynamic.ResourceInterface {
		return env.dynamic.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: "widgets"}).Namespace(gatesTestNamespace)
	}
	// v1 must be served too before the first write.
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client("v1").List(ctx, metav1.ListOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	object := func(version, name, spec string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		doc := fmt.Sprintf(`{"apiVersion":"uneven.example.com/%s","kind":"Widget","metadata":{"name":%q,"namespace":%q},"spec":%s}`, version, name, gatesTestNamespace, spec)
		if err := json.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		return u
	}
	type outcome struct {
		Warnings   []string
		Response   map[string]interface{}
		Stored     map[string]interface{}
		APIVersion string
	}
	create := func(version, name, spec string) outcome {
		t.Helper()
		out, err := client(version).Create(ctx, object(version, name, spec), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s in %s: %v", name, version, err)
		}
		o := outcome{Warnings: env.warnings.Take()}
		o.Response, _ = out.Object["spec"].(map[string]interface{})
		stored := env.stored(t, crd, name)
		o.Stored, _ = stored["spec"].(map[string]interface{})
		o.APIVersion, _ = stored["apiVersion"].(string)
		return o
	}
	dropped := []string{".spec.replicas was dropped: feature gate ReplicasGate (alpha) is disabled"}
	image := map[string]interface{}{"image": "a"}

	// Writes, with storage version v2.
	for i, tc := range []struct {
		name, version, spec string
		want                outcome
	}{
		{"v1 create without replicas: no default, no warning", "v1", `{"image":"a"}`,
			outcome{Response: image, Stored: image, APIVersion: "uneven.example.com/v2"}},
		{"v1 create with replicas: dropped", "v1", `{"image":"a","replicas":3}`,
			outcome{Warnings: dropped, Response: image, Stored: image, APIVersion: "uneven.example.com/v2"}},
		{"v2 create with replicas: dropped", "v2", `{"image":"a","replicas":3}`,
			outcome{Warnings: dropped, Response: image, Stored: image, APIVersion: "uneven.example.com/v2"}},
	} {
		name := fmt.Sprintf("a%d-%s", i, tc.version)
		if diff := cmp.Diff(tc.want, create(tc.version, name, tc.spec)); diff != "" {
			t.Errorf("storage v2, %s (-want +got):\n%s", tc.name, diff)
		}
	}

	// The OpenAPI of v1 shows the gate, disabled, and no default.
	replicasSchema := func(version string) (map[string]interface{}, error) {
		root := openapi3.NewRoot(env.apiext.Discovery().OpenAPIV3())
		doc, err := root.GVSpec(schema.GroupVersion{Group: crd.Spec.Group, Version: version})
		if err != nil {
			return nil, err
		}
		s, ok := doc.Components.Schemas["com.example.uneven."+version+".Widget"]
		if !ok {
			return nil, fmt.Errorf("no Widget schema")
		}
		replicas := s.Properties["spec"].Properties["replicas"]
		out := map[string]interface{}{"default": replicas.Default != nil}
		if g, ok := replicas.Extensions[featuregates.MarkExtension]; ok {
			out["gate"] = g
			out["state"] = replicas.Extensions[featuregates.StateExtension]
		}
		return out, nil
	}
	wantSchema := map[string]interface{}{"default": false, "gate": "ReplicasGate", "state": map[string]interface{}{"preRelease": "alpha", "enabled": false}}
	var got map[string]interface{}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err = replicasSchema("v1")
		return err == nil && cmp.Equal(wantSchema, got), nil
	}); err != nil {
		t.Errorf("the OpenAPI v3 of v1 has .spec.replicas %v (err %v), want %v", got, err, wantSchema)
	}

	// apihelpers agrees, in both versions.
	for _, version := range []string{"v1", "v2"} {
		if enabled, err := apihelpers.IsFieldEnabled(crd, version, ".spec.replicas"); err != nil || enabled {
			t.Errorf("apihelpers.IsFieldEnabled(%s, .spec.replicas) = %t, %v; want false", version, enabled, err)
		}
	}

	// Move the storage version to v1, which has no mark. The gates are not touched.
	crd, err = env.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd.Spec.Versions[0].Storage, crd.Spec.Versions[1].Storage = true, false
	if crd, err = env.apiext.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if w := env.warnings.Take(); !containsString(w, crdWarning) {
		t.Errorf("CRD update warnings = %q, want one that is %q", w, crdWarning)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		name := fmt.Sprintf("switch-%d", time.Now().UnixNano())
		if _, err := client("v2").Create(ctx, object("v2", name, `{"image":"x"}`), metav1.CreateOptions{}); err != nil {
			return false, nil
		}
		apiVersion, _ := env.stored(t, crd, name)["apiVersion"].(string)
		return apiVersion == "uneven.example.com/v1", client("v2").Delete(ctx, name, metav1.DeleteOptions{})
	}); err != nil {
		t.Fatalf("the server did not switch the storage version to v1: %v", err)
	}
	env.warnings.Take()

	for i, tc := range []struct {
		name, version, spec string
		want                outcome
	}{
		{"v1 create without replicas: no default, no warning", "v1", `{"image":"a"}`,
			outcome{Response: image, Stored: image, APIVersion: "uneven.example.com/v1"}},
		{"v1 create with replicas: still dropped", "v1", `{"image":"a","replicas":3}`,
			outcome{Warnings: dropped, Response: image, Stored: image, APIVersion: "uneven.example.com/v1"}},
		{"v2 create with replicas: dropped", "v2", `{"image":"a","replicas":3}`,
			outcome{Warnings: dropped, Response: image, Stored: image, APIVersion: "uneven.example.com/v1"}},
	} {
		name := fmt.Sprintf("b%d-%s", i, tc.version)
		if diff := cmp.Diff(tc.want, create(tc.version, name, tc.spec)); diff != "" {
			t.Errorf("storage v1, %s (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, version := range []string{"v1", "v2"} {
		if enabled, err := apihelpers.IsFieldEnabled(crd, version, ".spec.replicas"); err != nil || enabled {
			t.Errorf("storage v1: apihelpers.IsFieldEnabled(%s, .spec.replicas) = %t, %v; want false", version, enabled, err)
		}
	}
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}
