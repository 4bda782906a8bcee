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

package kubectlplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

func TestManagedByClientSideApply(t *testing.T) {
	csaFields := `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},"f:spec":{"f:group":{}}}`
	ssaFields := `{"f:spec":{"f:group":{}}}`
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "apiextensions.k8s.io/v1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	tests := []struct {
		name        string
		annotations map[string]string
		managed     []metav1.ManagedFieldsEntry
		want        bool
	}{
		{"server-side apply only", nil, []metav1.ManagedFieldsEntry{entry("kubectl", metav1.ManagedFieldsOperationApply, ssaFields)}, false},
		{"client-side apply", map[string]string{lastAppliedAnnotation: "{}"}, []metav1.ManagedFieldsEntry{entry("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, csaFields)}, true},
		{"migrated to server-side apply: kubectl's Apply owns the annotation", map[string]string{lastAppliedAnnotation: "{}"}, []metav1.ManagedFieldsEntry{entry("kubectl", metav1.ManagedFieldsOperationApply, csaFields)}, false},
		{"annotation without an owner", map[string]string{lastAppliedAnnotation: "{}"}, nil, false},
		{"Update manager without the annotation", nil, []metav1.ManagedFieldsEntry{entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, ssaFields)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := databaseCRD()
			crd.Annotations, crd.ManagedFields = tc.annotations, tc.managed
			if got := ManagedByClientSideApply(crd); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBodies(t *testing.T) {
	// owned is a CRD on which the field manager cluster-admin owns enabled of gate A (set to
	// true) and ops owns enabled of gate B.
	owned := func() *apiextensionsv1.CustomResourceDefinition {
		crd := databaseCRD()
		crd.Name = "a.b.c"
		crd.ManagedFields = []metav1.ManagedFieldsEntry{
			{Manager: "cluster-admin", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apiextensions.k8s.io/v1", FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:customFeatureGates":{"f:featureGates":{"k:{\"name\":\"A\"}":{".":{},"f:enabled":{},"f:name":{}}}}}}`)}},
			{Manager: "ops", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apiextensions.k8s.io/v1", FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:customFeatureGates":{"f:featureGates":{"k:{\"name\":\"B\"}":{".":{},"f:enabled":{},"f:name":{}}}}}}`)}},
		}
		crd.Spec.CustomFeatureGates = &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "A", PreRelease: "alpha", Enabled: ptr(true)},
			{Name: "B", PreRelease: "alpha", Enabled: ptr(false)},
			{Name: "G", PreRelease: "alpha"},
		}}
		return crd
	}
	fresh := func() *apiextensionsv1.CustomResourceDefinition {
		crd := owned()
		crd.ManagedFields = nil
		return crd
	}
	apply := func(crd *apiextensionsv1.CustomResourceDefinition, manager, gate string, value bool) []byte {
		b, err := ApplyBody(crd, manager, gate, value)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"apply enable, nothing owned", apply(fresh(), "cluster-admin", "G", true), `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"a.b.c"},"spec":{"customFeatureGates":{"featureGates":[{"name":"G","enabled":true}]}}}`},
		{"apply disable, nothing owned", apply(fresh(), "cluster-admin", "G", false), `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"a.b.c"},"spec":{"customFeatureGates":{"featureGates":[{"name":"G","enabled":false}]}}}`},
		// The manager's gate A stays in its configuration; ops's gate B is not the manager's.
		{"apply keeps the manager's other gates", apply(owned(), "cluster-admin", "G", true), `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"a.b.c"},"spec":{"customFeatureGates":{"featureGates":[{"name":"A","enabled":true},{"name":"G","enabled":true}]}}}`},
		{"apply changes an owned gate in place", apply(owned(), "cluster-admin", "A", false), `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"a.b.c"},"spec":{"customFeatureGates":{"featureGates":[{"name":"A","enabled":false}]}}}`},
		{"guarded patch", GuardedPatch(3, "G", true), `[{"op":"test","path":"/spec/customFeatureGates/featureGates/3/name","value":"G"},{"op":"add","path":"/spec/customFeatureGates/featureGates/3/enabled","value":true}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if string(tc.got) != tc.want {
				t.Errorf("got  %s\nwant %s", tc.got, tc.want)
			}
		})
	}
}

// serverLikeJSONPatch makes the fake clientset answer JSON patches as kube-apiserver does:
// the patch is applied with the same library, and a failed operation is a 422. before runs
// ahead of each patch, so a test can change the stored CRD concurrently.
func serverLikeJSONPatch(cs *fake.Clientset, before func(n int)) *[]string {
	var sent []string
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	cs.PrependReactor("patch", "customresourcedefinitions", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pa := a.(clienttesting.PatchAction)
		if pa.GetPatchType() != types.JSONPatchType {
			return true, nil, fmt.Errorf("unexpected patch type %s", pa.GetPatchType())
		}
		sent = append(sent, string(pa.GetPatch()))
		if before != nil {
			before(len(sent))
		}
		obj, err := cs.Tracker().Get(gvr, "", pa.GetName())
		if err != nil {
			return true, nil, err
		}
		js, _ := json.Marshal(obj)
		p, err := jsonpatch.DecodePatch(pa.GetPatch())
		if err != nil {
			return true, nil, err
		}
		out, err := p.Apply(js)
		if err != nil {
			return true, nil, apierrors.NewGenericServerResponse(422, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(out, crd); err != nil {
			return true, nil, err
		}
		return true, crd, cs.Tracker().Update(gvr, crd, "")
	})
	return &sent
}

func gateEnabled(t *testing.T, c apiextensionsv1client.CustomResourceDefinitionInterface, gate string) *bool {
	t.Helper()
	crd, err := c.Get(context.Background(), "databases.gates.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		if g.Name == gate {
			return g.Enabled
		}
	}
	t.Fatalf("no gate %s", gate)
	return nil
}

func TestTogglePatch(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	// reorder reverses the stored gates through the tracker (the reactor holds the fake's lock).
	reorder := func(cs *fake.Clientset) {
		obj, err := cs.Tracker().Get(gvr, "", "databases.gates.example.com")
		if err != nil {
			t.Error(err)
			return
		}
		crd := obj.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
		g := crd.Spec.CustomFeatureGates.FeatureGates
		g[0], g[1], g[2], g[3] = g[3], g[2], g[1], g[0]
		if err := cs.Tracker().Update(gvr, crd, ""); err != nil {
			t.Error(err)
		}
	}
	tests := []struct {
		name         string
		gate         string
		value        bool
		reorderTimes int // the gates are reversed before each of the first reorderTimes patches
		wantAttempts int
		wantErr      string
	}{
		{name: "enable", gate: "BackupGate", value: true, wantAttempts: 1},
		{name: "disable", gate: "BackupEncryptionGate", value: false, wantAttempts: 1},
		{name: "reordered once between read and patch", gate: "BackupGate", value: true, reorderTimes: 1, wantAttempts: 2},
		{name: "reordered on every attempt", gate: "BackupEncryptionGate", value: true, reorderTimes: 100, wantErr: "moved in the list on each of 5 attempts"},
		{name: "unknown gate", gate: "NoSuchGate", value: true, wantErr: `declares no feature gate named "NoSuchGate"; its gates are: BackupEncryptionGate, BackupGate, LabelsGate, TagsGate`},
		{name: "disable stable", gate: "TagsGate", value: false, wantErr: "is stable: a stable gate is always enabled and cannot be disabled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewSimpleClientset(databaseCRD())
			sent := serverLikeJSONPatch(cs, func(n int) {
				if n <= tc.reorderTimes {
					reorder(cs)
				}
			})
			c := cs.ApiextensionsV1().CustomResourceDefinitions()
			before := map[string]*bool{}
			for _, g := range databaseCRD().Spec.CustomFeatureGates.FeatureGates {
				before[g.Name] = g.Enabled
			}
			tg := &Toggler{Client: c, FieldManager: "cluster-admin", Method: MethodPatch}
			res, err := tg.Toggle(context.Background(), "databases.gates.example.com", tc.gate, tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if res.Attempts != tc.wantAttempts || res.Method != MethodPatch {
					t.Errorf("attempts %d method %s, want %d patch; sent %v", res.Attempts, res.Method, tc.wantAttempts, *sent)
				}
				if got := gateEnabled(t, c, tc.gate); got == nil || *got != tc.value {
					t.Errorf("%s enabled = %v, want %v", tc.gate, got, tc.value)
				}
			}
			// Never another gate: every other gate keeps its enabled.
			for name, was := range before {
				if name == tc.gate && tc.wantErr == "" {
					continue
				}
				if got := gateEnabled(t, c, name); (got == nil) != (was == nil) {
					t.Errorf("gate %s changed: enabled %v, was %v", name, got, was)
				}
			}
		})
	}
}

func TestToggleNotFoundAndNoop(t *testing.T) {
	tests := []struct {
		name, crd, gate string
		value           bool
		wantErr         string
		wantNoop        bool
	}{
		{name: "unknown CRD", crd: "nopes.example.com", gate: "G", value: true, wantErr: `customresourcedefinition "nopes.example.com" not found`},
		{name: "short name hint", crd: "databases", gate: "G", value: true, wantErr: "full name"},
		{name: "enable stable is a no-op", crd: "databases.gates.example.com", gate: "TagsGate", value: true, wantNoop: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewSimpleClientset(databaseCRD())
			sent := serverLikeJSONPatch(cs, nil)
			tg := &Toggler{Client: cs.ApiextensionsV1().CustomResourceDefinitions(), FieldManager: "x", Method: MethodAuto}
			res, err := tg.Toggle(context.Background(), tc.crd, tc.gate, tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Noop != tc.wantNoop || len(*sent) != 0 {
				t.Errorf("noop %v, sent %v", res.Noop, *sent)
			}
		})
	}
}
