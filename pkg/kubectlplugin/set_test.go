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
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestParseGateValues(t *testing.T) {
	tests := []struct {
		args    []string
		want    []GateValue
		wantErr string
	}{
		{args: []string{"A=true", "B=false"}, want: []GateValue{{"A", true}, {"B", false}}},
		{args: []string{"A"}, wantErr: `argument "A" is not GATE=true or GATE=false`},
		{args: []string{"=true"}, wantErr: "is not GATE=true"},
		{args: []string{"A=on"}, wantErr: "the value of gate A must be true or false"},
		{args: []string{"A=true", "A=false"}, wantErr: "gate A is named twice"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, err := ParseGateValues(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("got %v, %v", got, err)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestSetGates(t *testing.T) {
	tests := []struct {
		name        string
		values      []GateValue
		wantErr     string
		wantEnabled map[string]bool
		wantNoop    []string
		wantSent    int
	}{
		{name: "two gates, one patch", values: []GateValue{{"BackupGate", true}, {"BackupEncryptionGate", false}},
			wantEnabled: map[string]bool{"BackupGate": true, "BackupEncryptionGate": false}, wantSent: 1},
		{name: "enable stable is a no-op", values: []GateValue{{"TagsGate", true}, {"LabelsGate", false}},
			wantEnabled: map[string]bool{"LabelsGate": false}, wantNoop: []string{"TagsGate"}, wantSent: 1},
		{name: "only stable: nothing sent", values: []GateValue{{"TagsGate", true}}, wantNoop: []string{"TagsGate"}},
		{name: "disable stable: nothing written", values: []GateValue{{"BackupGate", true}, {"TagsGate", false}}, wantErr: "cannot be disabled"},
		{name: "unknown gate: nothing written", values: []GateValue{{"BackupGate", true}, {"Nope", true}}, wantErr: `declares no feature gate named "Nope"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewSimpleClientset(databaseCRD())
			sent := serverLikeJSONPatch(cs, nil)
			c := cs.ApiextensionsV1().CustomResourceDefinitions()
			tg := &Toggler{Client: c, FieldManager: "cluster-admin", Method: MethodPatch}
			res, err := tg.SetGates(context.Background(), "databases.gates.example.com", tc.values)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if len(*sent) != 0 {
					t.Errorf("sent %v after an error", *sent)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(*sent) != tc.wantSent {
				t.Errorf("sent %d patches, want %d: %v", len(*sent), tc.wantSent, *sent)
			}
			if strings.Join(res.Noop, ",") != strings.Join(tc.wantNoop, ",") {
				t.Errorf("noop %v, want %v", res.Noop, tc.wantNoop)
			}
			for gate, want := range tc.wantEnabled {
				if got := gateEnabled(t, c, gate); got == nil || *got != want {
					t.Errorf("%s enabled = %v, want %v", gate, got, want)
				}
			}
		})
	}
}

func TestApplyBodyMany(t *testing.T) {
	body, err := applyBodyMany(databaseCRD(), "cluster-admin", []GateValue{{"BackupGate", true}, {"LabelsGate", false}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Spec struct {
			CustomFeatureGates struct {
				FeatureGates []struct {
					Name    string
					Enabled *bool
				}
			}
		}
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	gates := got.Spec.CustomFeatureGates.FeatureGates
	if len(gates) != 2 || gates[0].Name != "BackupGate" || !*gates[0].Enabled || gates[1].Name != "LabelsGate" || *gates[1].Enabled {
		t.Errorf("body %s", body)
	}
}

func TestSetCommand(t *testing.T) {
	tests := []struct {
		args    []string
		want    string
		wantErr string
	}{
		{args: []string{"set", "databases.gates.example.com", "BackupGate=true", "BackupEncryptionGate=false", "--method=patch"},
			want: "customresourcedefinition.apiextensions.k8s.io/databases.gates.example.com: 2 gates set (JSON patch guarded by the gates' names, field manager cluster-admin); state: BackupEncryptionGate=disabled BackupGate=enabled"},
		{args: []string{"set", "databases.gates.example.com", "TagsGate=true"}, want: "nothing written, every gate named is stable and always enabled; state: TagsGate=enabled"},
		{args: []string{"set", "databases.gates.example.com"}, wantErr: "requires at least 2 arg(s)"},
		{args: []string{"set", "databases.gates.example.com", "BackupGate"}, wantErr: "is not GATE=true or GATE=false"},
		{args: []string{"set", "databases.gates.example.com", "BackupGate=true", "--method=merge"}, wantErr: `invalid --method "merge"`},
		{args: []string{"set", "nopes.example.com", "BackupGate=true"}, wantErr: "not found"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cs := fake.NewSimpleClientset(databaseCRD())
			serverLikeJSONPatch(cs, nil)
			var out bytes.Buffer
			o := &Options{
				ConfigFlags: genericclioptions.NewConfigFlags(false),
				PrintFlags:  genericclioptions.NewPrintFlags(""),
				Streams:     genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
				newClient: func() (apiextensionsv1client.CustomResourceDefinitionInterface, error) {
					return cs.ApiextensionsV1().CustomResourceDefinitions(), nil
				},
			}
			cmd := newCommand(o)
			cmd.SetArgs(tc.args)
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(out.String(), tc.want) {
				t.Errorf("err %v, output %q, want %q", err, out.String(), tc.want)
			}
		})
	}
}
