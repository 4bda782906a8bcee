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
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
			if r.StorageVersion != "v1" || len(r.Versions) != 1 || r.Versions[0].Version != "v1" {
				t.Fatalf("storage version %s, versions %+v, want v1 alone", r.StorageVersion, r.Versions)
			}
			fields := r.Versions[0].Fields
			if len(fields) != tc.wantLen {
				t.Fatalf("%d fields, want %d: %+v", len(fields), tc.wantLen, fields)
			}
			for _, f := range fields {
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
