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

	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"sigs.k8s.io/yaml"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []string
		wantErr string
		// wantAbsent must not be in the output.
		wantAbsent string
	}{
		{name: "list table", args: []string{"list"}, want: []string{
			"CRD                         GATE                   STAGE        ENABLED   STATE      FIELDS",
			"databases.gates.example.com BackupEncryptionGate   beta         <unset>   enabled    .spec.backup.encryption (off: BackupGate)",
		}},
		{name: "version", args: []string{"--version"}, want: []string{"kubectl-featuregates devel (KEP-2608 field feature gates, Kubernetes v1.37.1, go"}},
		{name: "list wide", args: []string{"list", "-o", "wide"}, want: []string{"DEFAULT", "LabelsGate             deprecated   <unset>   true"}},
		{name: "list json", args: []string{"list", "databases.gates.example.com", "-o", "json"}, want: []string{`"kind": "FeatureGateList"`, `"gate": "BackupGate"`, `"disabledBy": {`}},
		{name: "list yaml", args: []string{"list", "-o", "yaml"}, want: []string{"apiVersion: " + ReportAPIVersion, "crd: databases.gates.example.com"}},
		{name: "list jsonpath", args: []string{"list", "-o", "jsonpath={.items[*].gate}"}, want: []string{"BackupGate BackupEncryptionGate TagsGate LabelsGate"}},
		{name: "list unknown CRD", args: []string{"list", "nopes.example.com"}, wantErr: "not found"},
		{name: "list bad output", args: []string{"list", "-o", "bogus"}, wantErr: "bogus"},
		{name: "list help names wide", args: []string{"list", "--help"}, want: []string{"Output format. One of: (wide, json, yaml,"}},
		{name: "status", args: []string{"status", "databases.gates.example.com"}, want: []string{
			"# databases.gates.example.com, storage version v1",
			".spec.backup.schedule", "parent .spec.backup is disabled by feature gate BackupGate (alpha)"}},
		{name: "status one field yaml", args: []string{"status", "databases.gates.example.com", ".spec.backup", "-o", "yaml"}, want: []string{"kind: FieldStatus", "live: false"}},
		{name: "status no CRD", args: []string{"status"}, wantErr: "requires at least 1 arg"},
		{name: "enable via patch", args: []string{"enable", "databases.gates.example.com", "BackupGate", "--method=patch"}, want: []string{
			"feature gate BackupGate enabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: enabled"}},
		{name: "disable with a manager", args: []string{"disable", "databases.gates.example.com", "BackupEncryptionGate", "--method=patch", "--field-manager=ops"}, want: []string{
			"1 object holds values at the fields of BackupEncryptionGate (examples: default/orders); they are kept, and writes can no longer change them.\n" +
				"customresourcedefinition.apiextensions.k8s.io/databases.gates.example.com: feature gate BackupEncryptionGate disabled (JSON patch guarded by the gate's name, field manager ops); state: disabled"}},
		{name: "disable without the count", args: []string{"disable", "databases.gates.example.com", "BackupGate", "--method=patch", "--skip-usage"}, want: []string{
			"feature gate BackupGate disabled"}, wantAbsent: "hold"},
		{name: "enable has no --skip-usage", args: []string{"enable", "databases.gates.example.com", "BackupGate", "--skip-usage"}, wantErr: "unknown flag: --skip-usage"},
		{name: "usage", args: []string{"usage", "databases.gates.example.com"}, want: []string{
			"# databases.gates.example.com, storage version v1: 2 objects scanned",
			"BackupGate             alpha        disabled   1         default/orders",
			"LabelsGate             deprecated   enabled    1         default/users"}},
		{name: "usage yaml", args: []string{"usage", "databases.gates.example.com", "TagsGate", "-o", "yaml"}, want: []string{"kind: FeatureGateUsage", "objects: 0"}},
		{name: "usage no CRD", args: []string{"usage"}, wantErr: "requires at least 1 arg"},
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
				newDynamicClient: func() (dynamic.Interface, error) {
					return pagedClient{FakeDynamicClient: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), server: &pagedServer{objs: []*unstructured.Unstructured{
						cr("databases", "default", "orders", `{"engine": "pg", "backup": {"encryption": {"keySecretName": "k"}}}`),
						cr("databases", "default", "users", `{"labels": {"team": "a"}}`),
					}}}, nil
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
			if tc.wantAbsent != "" && strings.Contains(out.String(), tc.wantAbsent) {
				t.Errorf("output has %q:\n%s", tc.wantAbsent, out.String())
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
