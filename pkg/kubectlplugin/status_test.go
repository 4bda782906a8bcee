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
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

type props = map[string]apiextensionsv1.JSONSchemaProps

func object(p props) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: p}
}

func scalar(typ string) apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{Type: typ}
}

// marked returns s marked with x-kubernetes-feature-gate: gate.
func marked(s apiextensionsv1.JSONSchemaProps, gate string) apiextensionsv1.JSONSchemaProps {
	s.XFeatureGate = &gate
	return s
}

// versionsCRD returns the CRD widgets.example.com with the given versions, of which the last
// is the storage version, each with the schema {spec: spec}.
func versionsCRD(strategy apiextensionsv1.ConversionStrategyType, gates []apiextensionsv1.CustomResourceDefinitionFeatureGate, specs ...apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group:              "example.com",
			Names:              apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Scope:              apiextensionsv1.NamespaceScoped,
			Conversion:         &apiextensionsv1.CustomResourceConversion{Strategy: strategy},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: gates},
		},
	}
	if strategy == apiextensionsv1.WebhookConverter {
		crd.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr("https://convert.example.com/widgets")},
			ConversionReviewVersions: []string{"v1"},
		}
	}
	for i, spec := range specs {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: "v" + string(rune('1'+i)), Served: true, Storage: i == len(specs)-1,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: ptr(object(props{"spec": spec}))},
		})
	}
	return crd
}

// portsCRD has a conversion webhook: v1 names the port hostPort, v2 (storage) names it port,
// and each version marks its own field with PortGate, which has no fieldPaths.
func portsCRD(enabled *bool) *apiextensionsv1.CustomResourceDefinition {
	return versionsCRD(apiextensionsv1.WebhookConverter,
		[]apiextensionsv1.CustomResourceDefinitionFeatureGate{{Name: "PortGate", PreRelease: "alpha", Enabled: enabled}},
		object(props{"hostPort": marked(scalar("integer"), "PortGate"), "image": scalar("string")}),
		object(props{"port": marked(scalar("integer"), "PortGate"), "image": scalar("string")}))
}

// replicasCRD has no conversion webhook: ReplicasGate's fieldPaths are paths of both
// versions. storageMark adds ImageGate, marked in v2 only.
func replicasCRD(storageMark bool) *apiextensionsv1.CustomResourceDefinition {
	gates := []apiextensionsv1.CustomResourceDefinitionFeatureGate{{Name: "ReplicasGate", PreRelease: "alpha", FieldPaths: []string{".spec.replicas"}}}
	image := scalar("string")
	if storageMark {
		gates = append(gates, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "ImageGate", PreRelease: "beta", Enabled: ptr(false)})
		image = marked(image, "ImageGate")
	}
	return versionsCRD(apiextensionsv1.NoneConverter, gates,
		object(props{"replicas": scalar("integer"), "image": scalar("string")}),
		object(props{"replicas": scalar("integer"), "image": image}))
}

// backupCRD has one version that marks .spec.backup with BackupGate (alpha, off), whose
// child .spec.backup.encryption is the fieldPath of EncryptionGate (beta, on).
func backupCRD() *apiextensionsv1.CustomResourceDefinition {
	return versionsCRD(apiextensionsv1.NoneConverter,
		[]apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "BackupGate", PreRelease: "alpha"},
			{Name: "EncryptionGate", PreRelease: "beta", FieldPaths: []string{".spec.backup.encryption"}},
		},
		object(props{
			"engine": scalar("string"),
			"backup": marked(object(props{
				"schedule":   scalar("string"),
				"encryption": object(props{"key": scalar("string")}),
			}), "BackupGate"),
		}))
}

// labelsCRD gates one named key of a map, which the schema has no node of its own for.
func labelsCRD() *apiextensionsv1.CustomResourceDefinition {
	labels := apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
		Allows: true, Schema: ptr(scalar("string"))}}
	return versionsCRD(apiextensionsv1.NoneConverter,
		[]apiextensionsv1.CustomResourceDefinitionFeatureGate{{Name: "TeamGate", PreRelease: "alpha", FieldPaths: []string{".spec.labels.team"}}},
		object(props{"labels": labels, "zone": scalar("string")}))
}

// runPlugin runs the plugin against a fake cluster that holds crd.
func runPlugin(crd *apiextensionsv1.CustomResourceDefinition, args ...string) (string, error) {
	cs := fake.NewSimpleClientset(crd)
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
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// trimLines drops the spaces the table writer pads the last filled cell of a row with when
// the row's REASON is empty.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

func TestStatusByVersion(t *testing.T) {
	tests := []struct {
		name    string
		crd     *apiextensionsv1.CustomResourceDefinition
		args    []string
		want    string
		wantErr string
	}{{
		name: "webhook, marks only, gate off: each version shows its own marked field",
		crd:  portsCRD(nil),
		want: `# widgets.example.com, version v1
FIELD            GATE       STAGE   LIVE   REASON
.spec            -          -       yes
.spec.hostPort   PortGate   alpha   no     feature gate PortGate (alpha) is disabled
.spec.image      -          -       yes

# widgets.example.com, storage version v2
FIELD            GATE       STAGE   LIVE   REASON
.spec            -          -       yes
.spec.image      -          -       yes
.spec.port       PortGate   alpha   no     feature gate PortGate (alpha) is disabled

# Note: a write to v1 is also gated by the gates of storage version v2, after conversion to v2.
`,
	}, {
		name: "webhook, marks only, gate on",
		crd:  portsCRD(ptr(true)),
		want: `# widgets.example.com, version v1
FIELD            GATE       STAGE   LIVE   REASON
.spec            -          -       yes
.spec.hostPort   PortGate   alpha   yes
.spec.image      -          -       yes

# widgets.example.com, storage version v2
FIELD            GATE       STAGE   LIVE   REASON
.spec            -          -       yes
.spec.image      -          -       yes
.spec.port       PortGate   alpha   yes

# Note: a write to v1 is also gated by the gates of storage version v2, after conversion to v2.
`,
	}, {
		name: "webhook, a field of the storage version only",
		crd:  portsCRD(nil),
		args: []string{".spec.port"},
		want: `# widgets.example.com, version v1
# not in the schema of v1: .spec.port

# widgets.example.com, storage version v2
FIELD        GATE       STAGE   LIVE   REASON
.spec.port   PortGate   alpha   no     feature gate PortGate (alpha) is disabled

# Note: a write to v1 is also gated by the gates of storage version v2, after conversion to v2.
`,
	}, {
		name:    "webhook, a field of no version",
		crd:     portsCRD(nil),
		args:    []string{".spec.nope"},
		wantErr: `field path ".spec.nope" is in the schema of no version of widgets.example.com (version v2: field "nope" is not in the schema at .spec)`,
	}, {
		name: "webhook, json",
		crd:  portsCRD(nil),
		args: []string{"-o", "json"},
		want: `{
    "apiVersion": "featuregates.kubectl.k8s.io/v1alpha1",
    "crd": "widgets.example.com",
    "kind": "FieldStatus",
    "storageVersion": "v2",
    "versions": [
        {
            "alsoGatedBy": "v2",
            "fields": [
                {
                    "live": true,
                    "path": ".spec"
                },
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
                },
                {
                    "live": true,
                    "path": ".spec.image"
                }
            ],
            "served": true,
            "storage": false,
            "version": "v1"
        },
        {
            "fields": [
                {
                    "live": true,
                    "path": ".spec"
                },
                {
                    "live": true,
                    "path": ".spec.image"
                },
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
            "served": true,
            "storage": true,
            "version": "v2"
        }
    ]
}
`,
	}, {
		name: "conversion None: every version shows the fieldPaths, and no note",
		crd:  replicasCRD(false),
		want: `# widgets.example.com, version v1
FIELD            GATE           STAGE   LIVE   REASON
.spec            -              -       yes
.spec.image      -              -       yes
.spec.replicas   ReplicasGate   alpha   no     feature gate ReplicasGate (alpha) is disabled

# widgets.example.com, storage version v2
FIELD            GATE           STAGE   LIVE   REASON
.spec            -              -       yes
.spec.image      -              -       yes
.spec.replicas   ReplicasGate   alpha   no     feature gate ReplicasGate (alpha) is disabled
`,
	}, {
		// With conversion None, the storage version's mark gates v1 too: no note.
		name: "conversion None, a mark of the storage version only: it gates v1 too",
		crd:  replicasCRD(true),
		want: `# widgets.example.com, version v1
FIELD            GATE           STAGE   LIVE   REASON
.spec            -              -       yes
.spec.image      ImageGate      beta    no     feature gate ImageGate (beta) is disabled
.spec.replicas   ReplicasGate   alpha   no     feature gate ReplicasGate (alpha) is disabled

# widgets.example.com, storage version v2
FIELD            GATE           STAGE   LIVE   REASON
.spec            -              -       yes
.spec.image      ImageGate      beta    no     feature gate ImageGate (beta) is disabled
.spec.replicas   ReplicasGate   alpha   no     feature gate ReplicasGate (alpha) is disabled
`,
	}, {
		name: "nested: a disabled marked parent turns off its enabled child",
		crd:  backupCRD(),
		want: `# widgets.example.com, storage version v1
FIELD                         GATE             STAGE   LIVE   REASON
.spec                         -                -       yes
.spec.backup                  BackupGate       alpha   no     feature gate BackupGate (alpha) is disabled
.spec.backup.encryption       EncryptionGate   beta    no     parent .spec.backup is disabled by feature gate BackupGate (alpha)
.spec.backup.encryption.key   -                -       no     parent .spec.backup is disabled by feature gate BackupGate (alpha)
.spec.backup.schedule         -                -       no     parent .spec.backup is disabled by feature gate BackupGate (alpha)
.spec.engine                  -                -       yes
`,
	}, {
		name: "nested, yaml",
		crd:  backupCRD(),
		args: []string{".spec.backup.encryption", "-o", "yaml"},
		want: `apiVersion: featuregates.kubectl.k8s.io/v1alpha1
crd: widgets.example.com
kind: FieldStatus
storageVersion: v1
versions:
- fields:
  - disabledBy:
      gate: BackupGate
      path: .spec.backup
      preRelease: alpha
    gate: EncryptionGate
    live: false
    path: .spec.backup.encryption
    preRelease: beta
  served: true
  storage: true
  version: v1
`,
	}, {
		name: "a gated key of a map follows the map's rows",
		crd:  labelsCRD(),
		want: `# widgets.example.com, storage version v1
FIELD               GATE       STAGE   LIVE   REASON
.spec               -          -       yes
.spec.labels        -          -       yes
.spec.labels[*]     -          -       yes
.spec.labels.team   TeamGate   alpha   no     feature gate TeamGate (alpha) is disabled
.spec.zone          -          -       yes
`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runPlugin(tc.crd, append([]string{"status", tc.crd.Name}, tc.args...)...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, trimLines(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}
