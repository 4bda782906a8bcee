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

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// scaleCRD has no conversion webhook; ScaleGate guards .spec.replicas by its fieldPaths and
// .spec.scale by a mark in both versions.
func scaleCRD() *apiextensionsv1.CustomResourceDefinition {
	spec := object(props{"replicas": scalar("integer"), "scale": marked(scalar("integer"), "ScaleGate")})
	return versionsCRD(apiextensionsv1.NoneConverter,
		[]apiextensionsv1.CustomResourceDefinitionFeatureGate{{Name: "ScaleGate", PreRelease: "beta", FieldPaths: []string{".spec.replicas"}}},
		spec, spec)
}

// backupStorageMarkCRD is backupCRD with two versions and no conversion webhook: only v2, the
// storage version, marks .spec.backup with BackupGate (alpha, off).
func backupStorageMarkCRD() *apiextensionsv1.CustomResourceDefinition {
	backup := object(props{"encryption": object(props{"key": scalar("string")})})
	return versionsCRD(apiextensionsv1.NoneConverter,
		[]apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "BackupGate", PreRelease: "alpha"},
			{Name: "EncryptionGate", PreRelease: "beta", FieldPaths: []string{".spec.backup.encryption"}},
		},
		object(props{"backup": backup}),
		object(props{"backup": marked(backup, "BackupGate")}))
}

func TestListByVersion(t *testing.T) {
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		args []string
		want string
	}{{
		name: "webhook, marks only, the field has another name in each version",
		crd:  portsCRD(nil),
		want: `CRD                   GATE       STAGE   ENABLED   STATE      FIELDS                                 COMPONENT
widgets.example.com   PortGate   alpha   <unset>   disabled   .spec.hostPort (v1), .spec.port (v2)   <none>
`,
	}, {
		name: "webhook, marks only, json",
		crd:  portsCRD(nil),
		args: []string{"-o", "json"},
		want: `{
    "apiVersion": "featuregates.kubectl.k8s.io/v1alpha1",
    "items": [
        {
            "crd": "widgets.example.com",
            "fieldPaths": [
                {
                    "disabledBy": {
                        "gate": "PortGate",
                        "path": ".spec.port",
                        "preRelease": "alpha"
                    },
                    "gate": "PortGate",
                    "live": false,
                    "path": ".spec.port",
                    "preRelease": "alpha"
                }
            ],
            "gate": "PortGate",
            "preRelease": "alpha",
            "state": "disabled",
            "versions": [
                {
                    "fieldPaths": [
                        {
                            "disabledBy": {
                                "gate": "PortGate",
                                "path": ".spec.hostPort",
                                "preRelease": "alpha"
                            },
                            "gate": "PortGate",
                            "live": false,
                            "path": ".spec.hostPort",
                            "preRelease": "alpha"
                        }
                    ],
                    "version": "v1"
                },
                {
                    "fieldPaths": [
                        {
                            "disabledBy": {
                                "gate": "PortGate",
                                "path": ".spec.port",
                                "preRelease": "alpha"
                            },
                            "gate": "PortGate",
                            "live": false,
                            "path": ".spec.port",
                            "preRelease": "alpha"
                        }
                    ],
                    "version": "v2"
                }
            ]
        }
    ],
    "kind": "FeatureGateList"
}
`,
	}, {
		name: "webhook, fieldPaths only: the storage version's paths, as without versions",
		crd: versionsCRD(apiextensionsv1.WebhookConverter,
			[]apiextensionsv1.CustomResourceDefinitionFeatureGate{{Name: "ReplicasGate", PreRelease: "alpha", Enabled: ptr(true), FieldPaths: []string{".spec.replicas"}}},
			object(props{"replicas": scalar("integer")}), object(props{"replicas": scalar("integer")})),
		want: `CRD                   GATE           STAGE   ENABLED   STATE     FIELDS           COMPONENT
widgets.example.com   ReplicasGate   alpha   true      enabled   .spec.replicas   <none>
`,
	}, {
		name: "conversion None, fieldPaths and marks the same in every version",
		crd:  scaleCRD(),
		want: `CRD                   GATE        STAGE   ENABLED   STATE     FIELDS                       COMPONENT
widgets.example.com   ScaleGate   beta    <unset>   enabled   .spec.replicas,.spec.scale   <none>
`,
	}, {
		name: "conversion None, the same in every version, yaml has no versions",
		crd:  scaleCRD(),
		args: []string{"-o", "yaml"},
		want: `apiVersion: featuregates.kubectl.k8s.io/v1alpha1
items:
- crd: widgets.example.com
  fieldPaths:
  - gate: ScaleGate
    live: true
    path: .spec.replicas
    preRelease: beta
  - gate: ScaleGate
    live: true
    path: .spec.scale
    preRelease: beta
  gate: ScaleGate
  preRelease: beta
  state: enabled
kind: FeatureGateList
`,
	}, {
		// With conversion None, the storage version's mark gates v1 too.
		name: "conversion None, a mark of the storage version only",
		crd:  replicasCRD(true),
		args: []string{"-o", "wide"},
		want: `CRD                   GATE           STAGE   ENABLED   DEFAULT   STATE      FIELDS           COMPONENT
widgets.example.com   ReplicasGate   alpha   <unset>   <unset>   disabled   .spec.replicas   <none>
widgets.example.com   ImageGate      beta    false     <unset>   disabled   .spec.image      <none>
`,
	}, {
		name: "a fieldPath below a disabled marked parent",
		crd:  backupCRD(),
		want: `CRD                   GATE             STAGE   ENABLED   STATE      FIELDS                                      COMPONENT
widgets.example.com   BackupGate       alpha   <unset>   disabled   .spec.backup                                <none>
widgets.example.com   EncryptionGate   beta    <unset>   enabled    .spec.backup.encryption (off: BackupGate)   <none>
`,
	}, {
		// With conversion None, the storage version's mark gates v1 too.
		name: "a fieldPath below a parent that only the storage version marks",
		crd:  backupStorageMarkCRD(),
		want: `CRD                   GATE             STAGE   ENABLED   STATE      FIELDS                                      COMPONENT
widgets.example.com   BackupGate       alpha   <unset>   disabled   .spec.backup                                <none>
widgets.example.com   EncryptionGate   beta    <unset>   enabled    .spec.backup.encryption (off: BackupGate)   <none>
`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runPlugin(tc.crd, append([]string{"list", tc.crd.Name}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, trimLines(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// Without marks, the rows are GateRows': the fieldPaths with their state, and no versions.
func TestListWithoutMarks(t *testing.T) {
	webhook := func(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		return crd
	}
	for name, crd := range map[string]*apiextensionsv1.CustomResourceDefinition{
		"defaults":          databaseCRD(),
		"parent on":         withEnabled(databaseCRD(), "BackupGate", ptr(true)),
		"child off":         withEnabled(withEnabled(databaseCRD(), "BackupGate", ptr(true)), "BackupEncryptionGate", ptr(false)),
		"webhook":           webhook(databaseCRD()),
		"two versions":      replicasCRD(false),
		"a map key":         labelsCRD(),
		"an unparsable one": withFieldPaths(databaseCRD(), "TagsGate", ".spec..tags"),
	} {
		t.Run(name, func(t *testing.T) {
			want := GateRows(crd)
			got := listRows(crd)
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i, r := range got {
				if diff := cmp.Diff(want[i], r.GateRow); diff != "" || r.Versions != nil {
					t.Errorf("row %d (-want +got):\n%s\nversions: %+v", i, diff, r.Versions)
				}
				var fields []string
				for _, p := range want[i].FieldPaths {
					f := p.Path
					if want[i].State == "enabled" && p.DisabledBy != nil {
						f += " (off: " + p.DisabledBy.Gate + ")"
					}
					fields = append(fields, f)
				}
				if r.fields != strings.Join(fields, ",") {
					t.Errorf("row %d: FIELDS %q, want %q", i, r.fields, strings.Join(fields, ","))
				}
			}
		})
	}
}

func withFieldPaths(crd *apiextensionsv1.CustomResourceDefinition, gate string, paths ...string) *apiextensionsv1.CustomResourceDefinition {
	for i := range crd.Spec.CustomFeatureGates.FeatureGates {
		if crd.Spec.CustomFeatureGates.FeatureGates[i].Name == gate {
			crd.Spec.CustomFeatureGates.FeatureGates[i].FieldPaths = paths
		}
	}
	return crd
}
