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

package crdmerge

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

func TestValidGateName(t *testing.T) {
	for name, want := range map[string]bool{
		"Example": true, "ExampleWithExample2": true, "A": true, strings.Repeat("A", 63): true,
		"": false, "example": false, "Example+Example2": false, "Ex-ample": false, strings.Repeat("A", 64): false, "É": false,
	} {
		if got := ValidGateName(name); got != want {
			t.Errorf("ValidGateName(%q) = %t, want %t", name, got, want)
		}
	}
}

func TestCanGateKeywords(t *testing.T) {
	for path, want := range map[string]bool{
		"": false, ".": false, ".metadata": false, ".metadata.name": false, ".kind": false, ".apiVersion": false,
		".spec": true, ".spec.metadata": true, ".metadataX": true, ".status.a[*]": true,
	} {
		if got := CanGateKeywords(path); got != want {
			t.Errorf("CanGateKeywords(%q) = %t, want %t", path, got, want)
		}
	}
}

func TestLooser(t *testing.T) {
	for _, tc := range []struct {
		a, b *int64
		max  bool
		want *int64
	}{
		{ptr.To[int64](1), ptr.To[int64](3), true, ptr.To[int64](3)},
		{ptr.To[int64](1), ptr.To[int64](3), false, ptr.To[int64](1)},
		{nil, ptr.To[int64](3), true, nil},
		{ptr.To[int64](1), nil, false, nil},
	} {
		got := Looser(tc.a, tc.b, tc.max)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("Looser(%v, %v, max %t) = %v, want %v", tc.a, tc.b, tc.max, got, tc.want)
		}
	}
}

func TestReadCRDs(t *testing.T) {
	data := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\n" +
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n---\n"
	crds, notes, err := ReadCRDs("f.yaml", []byte(data))
	if err != nil || len(crds) != 1 || crds[0].Name != "widgets.example.com" || len(notes) != 1 || !strings.Contains(notes[0], "f.yaml, document 2: v1 ConfigMap is not a CRD") {
		t.Errorf("ReadCRDs: %v, %v, %v", crds, notes, err)
	}
	if _, _, err := ReadCRDs("f.yaml", []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  nope: 1\n")); err == nil || !strings.Contains(err.Error(), "f.yaml, document 1") {
		t.Errorf("an unknown field: %v, want an error naming the document", err)
	}
	out, err := MarshalCRD(crds[0])
	if err != nil || strings.Contains(string(out), "creationTimestamp") || strings.Contains(string(out), "status") {
		t.Errorf("MarshalCRD: %s, %v", out, err)
	}
}
