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

package app

import (
	"bytes"
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
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

func ptr[T any](v T) *T { return &v }

// databaseCRD is the nested example: BackupGate (alpha) guards .spec.backup, and
// BackupEncryptionGate (beta) guards .spec.backup.encryption.
func databaseCRD() *apiextensionsv1.CustomResourceDefinition {
	obj := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "databases.gates.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "gates.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "databases", Kind: "Database"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: ptr(obj(map[string]apiextensionsv1.JSONSchemaProps{
					"spec": obj(map[string]apiextensionsv1.JSONSchemaProps{
						"engine": str,
						"backup": obj(map[string]apiextensionsv1.JSONSchemaProps{
							"schedule":   str,
							"encryption": obj(map[string]apiextensionsv1.JSONSchemaProps{"keySecretName": str}),
						}),
						"tags": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
						"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
							Allows: true, Schema: &str}},
					}),
				}))},
			}},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				Component: ptr("databases.gates.example.com"),
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{
					{Name: "BackupGate", PreRelease: "alpha", FieldPaths: []string{".spec.backup"}},
					{Name: "BackupEncryptionGate", PreRelease: "beta", FieldPaths: []string{".spec.backup.encryption"}},
					{Name: "TagsGate", PreRelease: "stable", FieldPaths: []string{".spec.tags"}},
					{Name: "LabelsGate", PreRelease: "deprecated", Default: ptr(true), FieldPaths: []string{".spec.labels[*]"}},
				},
			},
		},
	}
}

func withEnabled(crd *apiextensionsv1.CustomResourceDefinition, gate string, v *bool) *apiextensionsv1.CustomResourceDefinition {
	for i := range crd.Spec.CustomFeatureGates.FeatureGates {
		if crd.Spec.CustomFeatureGates.FeatureGates[i].Name == gate {
			crd.Spec.CustomFeatureGates.FeatureGates[i].Enabled = v
		}
	}
	return crd
}

func TestGateRows(t *testing.T) {
	type want struct {
		gate, state string
		paths       map[string]string // path -> "" when live, else the disabling gate
	}
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		want []want
	}{{
		name: "defaults: alpha parent off disables its beta child",
		crd:  databaseCRD(),
		want: []want{
			{"BackupGate", "disabled", map[string]string{".spec.backup": "BackupGate"}},
			{"BackupEncryptionGate", "enabled", map[string]string{".spec.backup.encryption": "BackupGate"}},
			{"TagsGate", "enabled", map[string]string{".spec.tags": ""}},
			{"LabelsGate", "enabled", map[string]string{".spec.labels[*]": ""}},
		},
	}, {
		name: "admin enables the parent: the child is live",
		crd:  withEnabled(databaseCRD(), "BackupGate", ptr(true)),
		want: []want{
			{"BackupGate", "enabled", map[string]string{".spec.backup": ""}},
			{"BackupEncryptionGate", "enabled", map[string]string{".spec.backup.encryption": ""}},
			{"TagsGate", "enabled", map[string]string{".spec.tags": ""}},
			{"LabelsGate", "enabled", map[string]string{".spec.labels[*]": ""}},
		},
	}, {
		name: "admin disables the child and a deprecated gate; stable ignores enabled",
		crd: withEnabled(withEnabled(withEnabled(databaseCRD(), "BackupGate", ptr(true)),
			"BackupEncryptionGate", ptr(false)), "LabelsGate", ptr(false)),
		want: []want{
			{"BackupGate", "enabled", map[string]string{".spec.backup": ""}},
			{"BackupEncryptionGate", "disabled", map[string]string{".spec.backup.encryption": "BackupEncryptionGate"}},
			{"TagsGate", "enabled", map[string]string{".spec.tags": ""}},
			{"LabelsGate", "disabled", map[string]string{".spec.labels[*]": "LabelsGate"}},
		},
	}, {
		name: "no gates",
		crd: func() *apiextensionsv1.CustomResourceDefinition {
			c := databaseCRD()
			c.Spec.CustomFeatureGates = nil
			return c
		}(),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := GateRows(tc.crd)
			if len(rows) != len(tc.want) {
				t.Fatalf("got %d rows, want %d: %+v", len(rows), len(tc.want), rows)
			}
			for i, w := range tc.want {
				r := rows[i]
				if r.Gate != w.gate || r.State != w.state || r.CRD != tc.crd.Name || r.Component != "databases.gates.example.com" {
					t.Errorf("row %d = %s %s %s %s, want %s %s", i, r.CRD, r.Gate, r.State, r.Component, w.gate, w.state)
				}
				if len(r.FieldPaths) != len(w.paths) {
					t.Fatalf("row %d paths = %+v, want %v", i, r.FieldPaths, w.paths)
				}
				for _, p := range r.FieldPaths {
					by, ok := w.paths[p.Path]
					if !ok {
						t.Fatalf("row %d: unexpected path %s", i, p.Path)
					}
					got := ""
					if p.DisabledBy != nil {
						got = p.DisabledBy.Gate
					}
					if got != by || p.Live != (by == "") {
						t.Errorf("row %d path %s: live=%v disabledBy=%q, want disabledBy=%q", i, p.Path, p.Live, got, by)
					}
				}
			}
		})
	}
}

func TestFieldStatus(t *testing.T) {
	tests := []struct {
		name    string
		crd     *apiextensionsv1.CustomResourceDefinition
		fields  []string
		want    map[string]string // path -> reason ("" when live)
		wantLen int
		wantErr string
	}{{
		name: "whole schema, defaults",
		crd:  databaseCRD(),
		want: map[string]string{
			".spec":                                 "",
			".spec.engine":                          "",
			".spec.backup":                          "feature gate BackupGate (alpha) is disabled",
			".spec.backup.schedule":                 "parent .spec.backup is disabled by feature gate BackupGate (alpha)",
			".spec.backup.encryption":               "parent .spec.backup is disabled by feature gate BackupGate (alpha)",
			".spec.backup.encryption.keySecretName": "parent .spec.backup is disabled by feature gate BackupGate (alpha)",
			".spec.tags":                            "",
			".spec.tags[*]":                         "",
			".spec.labels":                          "",
			".spec.labels[*]":                       "",
		},
		wantLen: 10,
	}, {
		name:    "named fields, child gate off",
		crd:     withEnabled(withEnabled(databaseCRD(), "BackupGate", ptr(true)), "BackupEncryptionGate", ptr(false)),
		fields:  []string{".spec.backup.schedule", ".spec.backup.encryption.keySecretName", ".metadata.name"},
		want:    map[string]string{".spec.backup.schedule": "", ".spec.backup.encryption.keySecretName": "parent .spec.backup.encryption is disabled by feature gate BackupEncryptionGate (beta)", ".metadata.name": ""},
		wantLen: 3,
	}, {
		name:    "a map key under a wildcard gate",
		crd:     withEnabled(databaseCRD(), "LabelsGate", ptr(false)),
		fields:  []string{".spec.labels.team"},
		want:    map[string]string{".spec.labels.team": "parent .spec.labels[*] is disabled by feature gate LabelsGate (deprecated)"},
		wantLen: 1,
	}, {
		name:    "unknown field",
		crd:     databaseCRD(),
		fields:  []string{".spec.nope"},
		wantErr: "nope",
	}, {
		name:    "bad syntax",
		crd:     databaseCRD(),
		fields:  []string{"spec..x"},
		wantErr: "invalid field path",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := FieldStatus(tc.crd, tc.fields)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != "v1" || len(r.Fields) != tc.wantLen {
				t.Fatalf("version %s, %d fields, want v1 and %d: %+v", r.Version, len(r.Fields), tc.wantLen, r.Fields)
			}
			for _, f := range r.Fields {
				reason, ok := tc.want[f.Path]
				if !ok {
					t.Errorf("unexpected field %s", f.Path)
					continue
				}
				if f.Reason() != reason || f.Live != (reason == "") {
					t.Errorf("%s: live=%v reason=%q, want reason %q", f.Path, f.Live, f.Reason(), reason)
				}
			}
		})
	}
}

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
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"apply enable", ApplyBody("a.b.c", "G", true), `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.b.c"},"spec":{"customFeatureGates":{"featureGates":[{"enabled":true,"name":"G"}]}}}`},
		{"apply disable", ApplyBody("a.b.c", "G", false), `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.b.c"},"spec":{"customFeatureGates":{"featureGates":[{"enabled":false,"name":"G"}]}}}`},
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

func TestCommands(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []string
		wantErr string
	}{
		{name: "list table", args: []string{"list"}, want: []string{
			"CRD                         GATE                   STAGE        ENABLED   STATE      FIELDS",
			"databases.gates.example.com BackupEncryptionGate   beta         <unset>   enabled    .spec.backup.encryption (off: BackupGate)",
		}},
		{name: "list wide", args: []string{"list", "-o", "wide"}, want: []string{"DEFAULT", "LabelsGate             deprecated   <unset>   true"}},
		{name: "list json", args: []string{"list", "databases.gates.example.com", "-o", "json"}, want: []string{`"kind": "FeatureGateList"`, `"gate": "BackupGate"`, `"disabledBy": {`}},
		{name: "list yaml", args: []string{"list", "-o", "yaml"}, want: []string{"apiVersion: " + ReportAPIVersion, "crd: databases.gates.example.com"}},
		{name: "list jsonpath", args: []string{"list", "-o", "jsonpath={.items[*].gate}"}, want: []string{"BackupGate BackupEncryptionGate TagsGate LabelsGate"}},
		{name: "list unknown CRD", args: []string{"list", "nopes.example.com"}, wantErr: "not found"},
		{name: "list bad output", args: []string{"list", "-o", "bogus"}, wantErr: "bogus"},
		{name: "status", args: []string{"status", "databases.gates.example.com"}, want: []string{
			"# databases.gates.example.com, storage version v1",
			".spec.backup.schedule", "parent .spec.backup is disabled by feature gate BackupGate (alpha)"}},
		{name: "status one field yaml", args: []string{"status", "databases.gates.example.com", ".spec.backup", "-o", "yaml"}, want: []string{"kind: FieldStatus", "live: false"}},
		{name: "status no CRD", args: []string{"status"}, wantErr: "requires at least 1 arg"},
		{name: "enable via patch", args: []string{"enable", "databases.gates.example.com", "BackupGate", "--method=patch"}, want: []string{
			"feature gate BackupGate enabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: enabled"}},
		{name: "disable with a manager", args: []string{"disable", "databases.gates.example.com", "BackupEncryptionGate", "--method=patch", "--field-manager=ops"}, want: []string{
			"BackupEncryptionGate disabled (JSON patch guarded by the gate's name, field manager ops); state: disabled"}},
		{name: "enable stable", args: []string{"enable", "databases.gates.example.com", "TagsGate"}, want: []string{"is stable and always enabled; nothing to change"}},
		{name: "disable stable", args: []string{"disable", "databases.gates.example.com", "TagsGate"}, wantErr: "cannot be disabled"},
		{name: "bad method", args: []string{"enable", "databases.gates.example.com", "BackupGate", "--method=merge"}, wantErr: `invalid --method "merge"`},
		{name: "missing gate arg", args: []string{"enable", "databases.gates.example.com"}, wantErr: "accepts 2 arg(s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewSimpleClientset(databaseCRD())
			serverLikeJSONPatch(cs, nil)
			var out, errOut bytes.Buffer
			o := &Options{
				ConfigFlags: genericclioptions.NewConfigFlags(false),
				PrintFlags:  genericclioptions.NewPrintFlags(""),
				Streams:     genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
				newClient: func() (apiextensionsv1client.CustomResourceDefinitionInterface, error) {
					return cs.ApiextensionsV1().CustomResourceDefinitions(), nil
				},
			}
			cmd := newCommand(o)
			cmd.SetArgs(tc.args)
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q\n%s", err, tc.wantErr, out.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, errOut.String())
			}
			squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
			for _, w := range tc.want {
				if !strings.Contains(squeeze(out.String()), squeeze(w)) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(strings.Join(tc.args, " "), "yaml") {
				var v interface{}
				if err := yaml.Unmarshal(out.Bytes(), &v); err != nil {
					t.Errorf("not YAML: %v", err)
				}
			}
		})
	}
}
