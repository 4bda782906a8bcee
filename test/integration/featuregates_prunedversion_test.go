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

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// prunedVersionCRD has conversion None, a status subresource, and two versions: v1, the
// storage version, has .spec.extra and .status.only, both gated by Extra (enabled); v2 has
// neither, so decoding in v2 prunes them. Deep (enabled) gates .spec.deep, which both
// versions have, but only v1 has .spec.deep.nested.
func prunedVersionCRD() *apiextensionsv1.CustomResourceDefinition {
	object := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"k": {Type: "string"}}}
	schema := func(full bool) *apiextensionsv1.CustomResourceValidation {
		deep := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"k": {Type: "string"}}}
		if full {
			deep.Properties["nested"] = object
		}
		spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"image": {Type: "string"}, "deep": deep}}
		status := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"phase": {Type: "string"}}}
		if full {
			spec.Properties["extra"], status.Properties["only"] = object, object
		}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec, "status": status}}}
	}
	status := &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(true), Subresources: status},
				{Name: "v2", Served: true, Schema: schema(false), Subresources: status},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
				{Name: "Extra", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.extra", ".status.only"}},
				{Name: "Deep", PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.deep"}}}},
		},
	}
}

// TestFieldGatesPrunedVersionKeepsTheOtherPart: with the gate disabled, a write through v2
// (which lacks some gated fields, and part of one) keeps the stored values in both parts of
// the object: a status write the stored .spec.extra and .spec.deep.nested, a main write those
// and the stored .status.only, although decoding in v2 pruned them from the object the
// update starts from.
func TestFieldGatesPrunedVersionKeepsTheOtherPart(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	ctx := context.Background()
	crd := env.createCRD(t, prunedVersionCRD())
	env.create(t, crd, "w", `"spec":{"image":"a","extra":{"k":"stored"},"deep":{"k":"d","nested":{"k":"stored"}}}`)
	env.patch(t, crd, "w", types.MergePatchType, `{"status":{"phase":"P","only":{"k":"stored"}}}`, "status")
	v2 := env.versionClient(crd, "v2")
	deep := map[string]interface{}{"k": "d", "nested": map[string]interface{}{"k": "stored"}}

	// Deep alone disabled: v2 has its path, not all of what is below it. (A write through v2
	// while Extra is enabled prunes .spec.extra as upstream does: its own object.)
	env.create(t, crd, "deep-only", `"spec":{"image":"a","deep":{"k":"d","nested":{"k":"stored"}}}`)
	env.setGate(t, crd, 1, false, "deep", `"spec":{"image":"p","deep":{"k":"p"}}`)
	if _, err := v2.Patch(ctx, "deep-only", types.MergePatchType, []byte(`{"spec":{"image":"b"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := env.stored(t, crd, "deep-only")["spec"].(map[string]interface{})["deep"]; !cmp.Equal(got, deep) {
		t.Errorf("Deep disabled, a write in v2: stored .spec.deep = %v, want %v", got, deep)
	}

	env.setGate(t, crd, 0, false, "extra", `"spec":{"image":"p","extra":{"k":"p"}}`)
	for _, w := range []struct {
		name, patch  string
		subresources []string
		want         map[string]interface{}
	}{
		{name: "status write in v2", patch: `{"status":{"phase":"Ready"}}`, subresources: []string{"status"},
			want: map[string]interface{}{"spec": map[string]interface{}{"image": "a", "extra": map[string]interface{}{"k": "stored"}, "deep": deep},
				"status": map[string]interface{}{"phase": "Ready", "only": map[string]interface{}{"k": "stored"}}}},
		{name: "main write in v2", patch: `{"spec":{"image":"b"}}`,
			want: map[string]interface{}{"spec": map[string]interface{}{"image": "b", "extra": map[string]interface{}{"k": "stored"}, "deep": deep},
				"status": map[string]interface{}{"phase": "Ready", "only": map[string]interface{}{"k": "stored"}}}},
	} {
		if _, err := v2.Patch(ctx, "w", types.MergePatchType, []byte(w.patch), metav1.PatchOptions{}, w.subresources...); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		stored := env.stored(t, crd, "w")
		if diff := cmp.Diff(w.want, map[string]interface{}{"spec": stored["spec"], "status": stored["status"]}); diff != "" {
			t.Errorf("%s: stored spec and status (-want +got):\n%s", w.name, diff)
		}
	}
}
