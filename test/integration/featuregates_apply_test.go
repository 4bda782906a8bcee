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
	"sort"
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
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// While a field is not live, a write changes neither its value nor who owns it in
// metadata.managedFields: an applier whose value was dropped does not own the field, a
// client whose change was not applied (a forced apply, a merge patch, a write to the scale
// subresource) does not take it from its owner, and an applier that
// leaves a kept field out of its manifest still owns it, so that it prunes the field once the
// gate is on again.
func TestFieldGatesServerSideApplyOwnership(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	crd := env.createCRD(t, featuregatetest.CronTabCRD("ownedcrontabs",
		featuregatetest.Gate("ReplicasFeatureGate", "alpha", ".spec.replicas"),
		featuregatetest.Gate("AppProtocolGate", "alpha", ".spec.ports[*].appProtocol"),
	))
	replicas := fieldpath.MakePathOrDie("spec", "replicas")
	image := fieldpath.MakePathOrDie("spec", "image")
	port := fieldpath.MakePathOrDie("spec", "ports", fieldpath.KeyByFields("name", "http"), "port")
	appProtocol := fieldpath.MakePathOrDie("spec", "ports", fieldpath.KeyByFields("name", "http"), "appProtocol")
	notUpdated := ".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"
	manifest := func(spec string) string {
		return `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"owned","namespace":"default"},"spec":` + spec + `}`
	}
	apply := func(manager, spec string, force bool) error {
		_, err := env.client(crd).Patch(context.Background(), "owned", types.ApplyPatchType, []byte(manifest(spec)),
			metav1.PatchOptions{FieldManager: manager, Force: ptr.To(force)})
		return err
	}
	withReplicas := `{"image":"a","replicas":4,"ports":[{"name":"http","port":80,"appProtocol":"h2"}]}`

	t.Run("create: a dropped value is not owned", func(t *testing.T) {
		if err := apply("author", withReplicas, false); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "owned", `"spec":{"image":"a","ports":[{"name":"http","port":80}]}`, 1)
		env.warnings.Take()
		assertOwners(t, env, crd, "owned", map[string][]string{"image": {"author"}, "port": {"author"}, "replicas": nil, "appProtocol": nil},
			map[string]fieldpath.Path{"image": image, "port": port, "replicas": replicas, "appProtocol": appProtocol})

		// A POST by an updater: the same.
		if _, err := env.client(crd).Create(context.Background(), crObject(t, crd, "posted", `"spec":{"image":"a","replicas":4}`),
			metav1.CreateOptions{FieldManager: "poster"}); err != nil {
			t.Fatal(err)
		}
		env.warnings.Take()
		assertOwners(t, env, crd, "posted", map[string][]string{"image": {"poster"}, "replicas": nil},
			map[string]fieldpath.Path{"image": image, "replicas": replicas})
	})

	t.Run("the gate on: the next apply stores and owns the value", func(t *testing.T) {
		env.setGate(t, crd, 0, true, "replicas", `"spec":{"replicas":1}`)
		if err := apply("author", withReplicas, false); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "owned", `"spec":{"image":"a","replicas":4,"ports":[{"name":"http","port":80}]}`, 2)
		env.warnings.Take()
		assertOwners(t, env, crd, "owned", map[string][]string{"replicas": {"author"}}, map[string]fieldpath.Path{"replicas": replicas})
	})

	t.Run("the gate off: other writers neither change nor take the kept value", func(t *testing.T) {
		env.setGate(t, crd, 0, false, "replicas", `"spec":{"replicas":1}`)

		// Without force, the field manager reports the conflict before gating, as for any
		// field another manager owns.
		err := apply("other", `{"replicas":7}`, false)
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), ".spec.replicas") {
			t.Fatalf("apply of an owned field without force: got %v, want a conflict on .spec.replicas", err)
		}
		if err := apply("other", `{"replicas":7}`, true); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "owned", `"spec":{"image":"a","replicas":4,"ports":[{"name":"http","port":80}]}`, 2)
		env.assertWarnings(t, notUpdated)
		env.patch(t, crd, "owned", types.MergePatchType, `{"spec":{"replicas":9}}`)
		env.assertWarnings(t, notUpdated)
		env.patch(t, crd, "owned", types.MergePatchType, `{"spec":{"replicas":5}}`, "scale")
		env.assertWarnings(t, notUpdated)
		env.assertStored(t, crd, "owned", `"spec":{"image":"a","replicas":4,"ports":[{"name":"http","port":80}]}`, 2)
		assertOwners(t, env, crd, "owned", map[string][]string{"replicas": {"author"}}, map[string]fieldpath.Path{"replicas": replicas})
		assertManagers(t, env, crd, "owned", "author")
	})

	t.Run("the gate off: an apply that leaves the field out keeps the value and its owner", func(t *testing.T) {
		if err := apply("author", `{"image":"a","ports":[{"name":"http","port":80}]}`, false); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "owned", `"spec":{"image":"a","replicas":4,"ports":[{"name":"http","port":80}]}`, 2)
		env.assertWarnings(t, notUpdated)
		assertOwners(t, env, crd, "owned", map[string][]string{"replicas": {"author"}, "image": {"author"}}, map[string]fieldpath.Path{"replicas": replicas, "image": image})
	})

	t.Run("the gate on again: the same apply prunes the field", func(t *testing.T) {
		env.setGate(t, crd, 0, true, "replicas", `"spec":{"replicas":1}`)
		if err := apply("author", `{"image":"a","ports":[{"name":"http","port":80}]}`, false); err != nil {
			t.Fatal(err)
		}
		env.assertStored(t, crd, "owned", `"spec":{"image":"a","ports":[{"name":"http","port":80}]}`, 3)
		env.assertWarnings(t)
		assertOwners(t, env, crd, "owned", map[string][]string{"replicas": nil}, map[string]fieldpath.Path{"replicas": replicas})
	})
}

// assertOwners checks, for each named path, the managers whose managedFields entry of the
// object in etcd owns it.
func assertOwners(t *testing.T, env *gatesEnv, crd *apiextensionsv1.CustomResourceDefinition, name string, want map[string][]string, paths map[string]fieldpath.Path) {
	t.Helper()
	entries := (&unstructured.Unstructured{Object: env.stored(t, crd, name)}).GetManagedFields()
	got := map[string][]string{}
	for what, p := range paths {
		got[what] = nil
		for _, e := range entries {
			set := &fieldpath.Set{}
			if e.FieldsV1 == nil {
				continue
			}
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
				t.Fatalf("managedFields of %s (%s): %v", name, e.Manager, err)
			}
			if set.Has(p) {
				got[what] = append(got[what], e.Manager)
			}
		}
		sort.Strings(got[what])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("owners of the fields of %s (-want +got):\n%s\nmanagedFields: %s", name, diff, managedFieldsText(entries))
	}
}

// assertManagers checks the managers that have a managedFields entry on the object in etcd.
func assertManagers(t *testing.T, env *gatesEnv, crd *apiextensionsv1.CustomResourceDefinition, name string, want ...string) {
	t.Helper()
	entries := (&unstructured.Unstructured{Object: env.stored(t, crd, name)}).GetManagedFields()
	var got []string
	for _, e := range entries {
		got = append(got, e.Manager)
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("managers of %s (-want +got):\n%s\nmanagedFields: %s", name, diff, managedFieldsText(entries))
	}
}

func managedFieldsText(entries []metav1.ManagedFieldsEntry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString("\n  " + e.Manager + " " + string(e.Operation) + " " + e.Subresource + ": ")
		if e.FieldsV1 != nil {
			b.Write(e.FieldsV1.Raw)
		}
	}
	return b.String()
}
