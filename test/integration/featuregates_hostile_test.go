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
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Hostile input to spec.customFeatureGates: every request gets a clear 4xx and nothing is
// persisted (or, for a patch, the stored CRD is left byte for byte as it was).
func TestFieldGatesHostileInput(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crds := env.apiext.ApiextensionsV1().CustomResourceDefinitions()

	deep := ".spec" + strings.Repeat(".a", 200)
	huge := ".spec." + strings.Repeat("x", 10000)
	manyGates := make([]apiextensionsv1.CustomResourceDefinitionFeatureGate, 10000)
	for i := range manyGates {
		manyGates[i] = featuregatetest.Gate(fmt.Sprintf("Gate%d", i), "alpha", fmt.Sprintf(".spec.f%d", i))
	}
	withWarning := func(text string) apiextensionsv1.CustomResourceDefinitionFeatureGate {
		g := featuregatetest.Gate("OldImage", "deprecated", ".spec.image")
		g.Default, g.FieldDeprecationWarning = ptr.To(true), ptr.To(text)
		return g
	}
	twoVersions := featuregatetest.CronTabCRD("skewtabs", featuregatetest.Gate("OnlyInV2", "alpha", ".spec.onlyInV2"))
	v2 := twoVersions.Spec.Versions[0].DeepCopy()
	v2.Name, v2.Storage = "v2", false
	v2.Schema.OpenAPIV3Schema.Properties["spec"].Properties["onlyInV2"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
	twoVersions.Spec.Versions = append(twoVersions.Spec.Versions, *v2)

	creates := []struct {
		name      string
		crd       *apiextensionsv1.CustomResourceDefinition
		wantCause string
	}{
		{"deeply nested path", featuregatetest.CronTabCRD("deeptabs", featuregatetest.Gate("Deep", "alpha", deep)), "fieldPaths[0]"},
		{"huge path", featuregatetest.CronTabCRD("hugetabs", featuregatetest.Gate("Huge", "alpha", huge)), "fieldPaths[0]"},
		{"10k gates", featuregatetest.CronTabCRD("manytabs", manyGates...), "spec.customFeatureGates.featureGates"},
		{"CR/LF in the deprecation warning", featuregatetest.CronTabCRD("crlftabs", withWarning("bad\r\nX-Injected: yes")), "fieldDeprecationWarning"},
		{"control character in the deprecation warning", featuregatetest.CronTabCRD("ctltabs", withWarning("bell\x07")), "fieldDeprecationWarning"},
		{"unicode gate name", featuregatetest.CronTabCRD("unitabs", featuregatetest.Gate("Répliques", "alpha", ".spec.replicas")), "featureGates[0].name"},
		{"path into metadata", featuregatetest.CronTabCRD("metatabs", featuregatetest.Gate("Meta", "alpha", ".metadata.labels")), "fieldPaths[0]"},
		{"path only in a non-storage version", twoVersions, "fieldPaths[0]"},
	}
	for _, tc := range creates {
		t.Run(tc.name, func(t *testing.T) {
			_, err := crds.Create(context.Background(), tc.crd, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want 422 Invalid, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.wantCause) {
				t.Errorf("the error does not name %q: %.500s", tc.wantCause, err.Error())
			}
			if n := len(err.Error()); n > 64*1024 {
				t.Errorf("the error is %d bytes long", n)
			}
			key := path.Join("/", env.prefix, "apiextensions.k8s.io", "customresourcedefinitions", tc.crd.Name)
			if resp, err := env.etcd.Get(context.Background(), key); err != nil || len(resp.Kvs) != 0 {
				t.Errorf("the rejected CRD was persisted (%v)", err)
			}
		})
	}

	// Malformed patches of a valid CRD leave it untouched.
	crd := env.createCRD(t, featuregatetest.CronTabCRD("patchtabs", featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas")))
	key := path.Join("/", env.prefix, "apiextensions.k8s.io", "customresourcedefinitions", crd.Name)
	before, err := env.etcd.Get(context.Background(), key)
	if err != nil || len(before.Kvs) != 1 {
		t.Fatalf("the CRD is not in etcd: %v", err)
	}
	patches := []struct {
		name string
		pt   types.PatchType
		body string
		want func(error) bool
	}{
		{"not JSON", types.JSONPatchType, `[{"op":"replace",`, apierrors.IsBadRequest},
		{"index out of range", types.JSONPatchType, `[{"op":"replace","path":"/spec/customFeatureGates/featureGates/7/enabled","value":true}]`, isClientError},
		{"wrong type for enabled", types.JSONPatchType, `[{"op":"replace","path":"/spec/customFeatureGates/featureGates/0/enabled","value":"yes"}]`, isClientError},
		{"unknown preRelease", types.MergePatchType, `{"spec":{"customFeatureGates":{"featureGates":[{"name":"ReplicasFeatureGate","preRelease":"gamma","fieldPaths":[".spec.replicas"]}]}}}`, apierrors.IsInvalid},
		{"featureGates not a list", types.MergePatchType, `{"spec":{"customFeatureGates":{"featureGates":"all"}}}`, isClientError},
		{"duplicate names", types.JSONPatchType, `[{"op":"add","path":"/spec/customFeatureGates/featureGates/-","value":{"name":"ReplicasFeatureGate","preRelease":"beta","fieldPaths":[".spec.image"]}}]`, apierrors.IsInvalid},
	}
	for _, tc := range patches {
		t.Run("patch: "+tc.name, func(t *testing.T) {
			_, err := crds.Patch(context.Background(), crd.Name, tc.pt, []byte(tc.body), metav1.PatchOptions{})
			if err == nil || !tc.want(err) {
				t.Fatalf("want a 4xx, got %v", err)
			}
			after, err := env.etcd.Get(context.Background(), key)
			if err != nil || len(after.Kvs) != 1 || !bytes.Equal(after.Kvs[0].Value, before.Kvs[0].Value) {
				t.Errorf("the stored CRD changed (%v)", err)
			}
		})
	}
}

func isClientError(err error) bool {
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return false
	}
	code := status.Status().Code
	return code >= 400 && code < 500
}
