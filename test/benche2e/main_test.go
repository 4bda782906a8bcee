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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateSlimParam: -slim-param takes only its three values, and a wrong one is refused
// before any control plane starts, naming the flag and the values it takes; so is
// -slim-param with -param-configmap.
func TestValidateSlimParam(t *testing.T) {
	bin := t.TempDir()
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if err := os.WriteFile(filepath.Join(bin, b), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		slim      string
		configMap bool
		wantErr   string
	}{
		{slim: ""},
		{configMap: true},
		{slim: "all", configMap: true, wantErr: "-slim-param and -param-configmap are two different experiments"},
		{slim: "managed-fields"},
		{slim: "all"},
		{slim: "fieldPaths", wantErr: `-slim-param "fieldPaths": want managed-fields, all or empty`},
		{slim: "ALL", wantErr: `-slim-param "ALL"`},
	} {
		o := options{binDir: bin, mode: "e2e", gates: 50, clients: 8, writes: 10, rounds: 1, crds: 1, creators: 1, samples: 1, slimParam: tc.slim, paramConfigMap: tc.configMap}
		err := o.validate()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("-slim-param %q -param-configmap=%t: %v", tc.slim, tc.configMap, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("-slim-param %q -param-configmap=%t: error %v, want one containing %q", tc.slim, tc.configMap, err, tc.wantErr)
		}
	}
}
