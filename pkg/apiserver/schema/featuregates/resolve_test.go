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

package featuregates

import (
	"strings"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

func TestResolve(t *testing.T) {
	str := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
	schema := &structuralschema.Structural{
		Generic: structuralschema.Generic{Type: "object"},
		Properties: map[string]structuralschema.Structural{
			"spec": {
				Generic: structuralschema.Generic{Type: "object"},
				Properties: map[string]structuralschema.Structural{
					"replicas": {Generic: structuralschema.Generic{Type: "integer"}},
					"containers": {
						Generic: structuralschema.Generic{Type: "array"},
						Items: &structuralschema.Structural{
							Generic:    structuralschema.Generic{Type: "object"},
							Properties: map[string]structuralschema.Structural{"image": str},
						},
					},
					"labels": {
						Generic:              structuralschema.Generic{Type: "object"},
						AdditionalProperties: &structuralschema.StructuralOrBool{Structural: &str, Bool: true},
					},
					"raw": {
						Generic:    structuralschema.Generic{Type: "object"},
						Extensions: structuralschema.Extensions{XPreserveUnknownFields: true},
					},
					"mixed": {
						Generic:    structuralschema.Generic{Type: "object"},
						Extensions: structuralschema.Extensions{XPreserveUnknownFields: true},
						Properties: map[string]structuralschema.Structural{"known": str},
					},
				},
			},
		},
	}
	tests := []struct {
		path    string
		wantErr string
	}{
		{path: ".spec"},
		{path: ".spec.replicas"},
		{path: ".spec.containers"},
		{path: ".spec.containers[*]"},
		{path: ".spec.containers[*].image"},
		{path: ".spec.labels.app"},
		{path: ".spec.labels[*]"},
		{path: ".spec.raw"},
		{path: ".spec.raw.anything.below[*].here"},
		{path: ".spec.mixed.known"},
		{path: ".spec.mixed.unknown", wantErr: `field "unknown" is not in the schema at .spec.mixed`},
		{path: ".spec.nope", wantErr: `field "nope" is not in the schema at .spec`},
		{path: ".status", wantErr: `field "status" is not in the schema at the root`},
		{path: ".spec.replicas.value", wantErr: `field "value" is not in the schema at .spec.replicas`},
		{path: ".spec.replicas[*]", wantErr: "[*] after .spec.replicas needs a list or a map, but the schema there is of type integer"},
		{path: ".spec.containers.image", wantErr: `field "image" is not in the schema at .spec.containers`},
		{path: ".spec.containers[*][*]", wantErr: "[*] after .spec.containers[*] needs a list or a map"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p, err := ParsePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			err = Resolve(p, schema)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Resolve(%s) unexpected error: %v", tc.path, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Resolve(%s) error = %v, want one containing %q", tc.path, err, tc.wantErr)
			}
		})
	}
}
