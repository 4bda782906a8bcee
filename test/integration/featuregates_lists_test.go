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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// stepsCRD is the crontab with .spec.steps, an atomic list of {name, retry} (no keys), and
// .spec.backup {encryption, schedule}, nullable; RetryGate guards .spec.steps[*].retry and
// EncryptionGate .spec.backup.encryption, both enabled.
func stepsCRD(plural string) *apiextensionsv1.CustomResourceDefinition {
	retry := featuregatetest.Gate("RetryGate", "alpha", ".spec.steps[*].retry")
	retry.Enabled = ptr.To(true)
	encryption := featuregatetest.Gate("EncryptionGate", "alpha", ".spec.backup.encryption")
	encryption.Enabled = ptr.To(true)
	crd := featuregatetest.CronTabCRD(plural, retry, encryption)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	str, integer := apiextensionsv1.JSONSchemaProps{Type: "string"}, apiextensionsv1.JSONSchemaProps{Type: "integer"}
	spec.Properties["steps"] = apiextensionsv1.JSONSchemaProps{
		Type:      "array",
		XListType: ptr.To("atomic"),
		Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str, "retry": integer},
		}},
	}
	spec.Properties["backup"] = apiextensionsv1.JSONSchemaProps{
		Type: "object", Nullable: true,
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"encryption": str, "schedule": str},
	}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	return crd
}

// Issue 27, items 2 and 3, on a real etcd: with the gate of .spec.steps[*].retry disabled, a
// stored retry follows its own step when a merge patch removes or reorders steps, a write
// that makes the step impossible to find is rejected with 422 at the list's path, and a null
// sent for .spec.backup keeps the stored encryption, as an absent backup does.
func TestFieldGatesListsWithoutKeys(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := env.createCRD(t, stepsCRD("stepcrontabs"))

	env.create(t, crd, "remove-first", `"spec":{"steps":[{"name":"a","retry":7},{"name":"b"}]}`)
	env.create(t, crd, "reorder", `"spec":{"steps":[{"name":"a","retry":7},{"name":"b"}]}`)
	env.create(t, crd, "edit-in-place", `"spec":{"steps":[{"name":"a","retry":7},{"name":"b"}]}`)
	env.create(t, crd, "ambiguous", `"spec":{"steps":[{"name":"a","retry":7},{"name":"a","retry":8}]}`)
	env.create(t, crd, "null-parent", `"spec":{"backup":{"encryption":"aes","schedule":"daily"}}`)
	env.assertWarnings(t)

	env.setGate(t, crd, 0, false, "retry", `"spec":{"steps":[{"name":"p","retry":1}]}`)
	env.setGate(t, crd, 1, false, "encryption", `"spec":{"backup":{"encryption":"aes"}}`)
	kept := ".spec.steps[*].retry was not updated: feature gate RetryGate (alpha) is disabled; the stored value was kept"

	t.Run("a removed step takes its retry with it", func(t *testing.T) {
		env.patch(t, crd, "remove-first", types.MergePatchType, `{"spec":{"steps":[{"name":"b"}]}}`)
		env.assertStored(t, crd, "remove-first", `"spec":{"steps":[{"name":"b"}]}`, 2)
		env.assertWarnings(t)
	})
	t.Run("a retry follows its step when the steps are reordered", func(t *testing.T) {
		env.patch(t, crd, "reorder", types.MergePatchType, `{"spec":{"steps":[{"name":"b"},{"name":"a"}]}}`)
		env.assertStored(t, crd, "reorder", `"spec":{"steps":[{"name":"b"},{"name":"a","retry":7}]}`, 2)
		env.assertWarnings(t, kept)
	})
	t.Run("a step edited in place keeps its retry", func(t *testing.T) {
		env.patch(t, crd, "edit-in-place", types.JSONPatchType, `[{"op":"replace","path":"/spec/steps/0/name","value":"a2"}]`)
		env.assertStored(t, crd, "edit-in-place", `"spec":{"steps":[{"name":"a2","retry":7},{"name":"b"}]}`, 2)
		env.assertWarnings(t)
	})
	t.Run("a write that hides which step was removed is rejected", func(t *testing.T) {
		_, err := env.client(crd).Patch(context.Background(), "ambiguous", types.MergePatchType, []byte(`{"spec":{"steps":[{"name":"a"}]}}`), metav1.PatchOptions{})
		if !apierrors.IsInvalid(err) {
			t.Fatalf("want 422 Invalid, got %v", err)
		}
		status, ok := err.(apierrors.APIStatus)
		if !ok || status.Status().Details == nil || len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Field != "spec.steps" {
			t.Fatalf("want one cause at spec.steps, got %v", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "RetryGate (alpha)") || !strings.Contains(msg, ".spec.steps[*].retry") {
			t.Errorf("the error does not name the gate and the path: %s", msg)
		}
		env.assertStored(t, crd, "ambiguous", `"spec":{"steps":[{"name":"a","retry":7},{"name":"a","retry":8}]}`, 1)
		env.warnings.Take()
	})
	t.Run("a null parent is an absent parent", func(t *testing.T) {
		env.update(t, crd, "null-parent", `"spec":{"backup":null}`)
		env.assertStored(t, crd, "null-parent", `"spec":{"backup":{"encryption":"aes"}}`, 2)
		env.assertWarnings(t, ".spec.backup.encryption was not updated: feature gate EncryptionGate (alpha) is disabled; the stored value was kept")
	})
}
