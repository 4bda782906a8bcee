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
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr string
	}{
		{in: ".spec", want: ".spec"},
		{in: ".spec.replicas", want: ".spec.replicas"},
		{in: ".spec.containers[*].image", want: ".spec.containers[*].image"},
		{in: ".spec.matrix[*][*]", want: ".spec.matrix[*][*]"},
		{in: ".spec.labels[*]", want: ".spec.labels[*]"},
		{in: ".spec.x-kubernetes_field$1", want: ".spec.x-kubernetes_field$1"},
		{in: ".spec.größe", want: ".spec.größe"},
		{in: "", wantErr: "must not be empty"},
		{in: "spec.replicas", wantErr: "must start with '.'"},
		{in: ".", wantErr: "empty field name at position 1"},
		{in: ".spec.", wantErr: "empty field name at position 6"},
		{in: ".spec..replicas", wantErr: "empty field name at position 6"},
		{in: ".spec[0]", wantErr: "must start the wildcard [*]"},
		{in: ".spec[*", wantErr: "must start the wildcard [*]"},
		{in: "[*]", wantErr: "must start with '.'"},
		{in: ".spec]", wantErr: "invalid character ']'"},
		{in: ".spec.a b", wantErr: "invalid character ' '"},
		{in: ".spec.a\nb", wantErr: "invalid character '\\n'"},
		{in: ".spec.\"a\"", wantErr: "invalid character '\"'"},
		{in: ".spec.\xff", wantErr: "invalid character"},
		{in: "." + strings.Repeat("a", MaxPathLength), wantErr: "at most 256 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			p, err := ParsePath(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParsePath(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePath(%q) unexpected error: %v", tc.in, err)
			}
			if got := p.String(); got != tc.want {
				t.Errorf("ParsePath(%q).String() = %q, want %q", tc.in, got, tc.want)
			}
			again, err := ParsePath(p.String())
			if err != nil || again.String() != p.String() {
				t.Errorf("normalized form %q does not parse back to itself: %v", p.String(), err)
			}
		})
	}
}

func TestPathRelations(t *testing.T) {
	mustParse := func(s string) Path {
		p, err := ParsePath(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		p, q       string
		hasPrefix  bool
		pReserved  bool
		wantRootOf string
	}{
		{p: ".spec.foo.bar", q: ".spec.foo", hasPrefix: true, wantRootOf: "spec"},
		{p: ".spec.foo", q: ".spec.foo", hasPrefix: true, wantRootOf: "spec"},
		{p: ".spec.foo", q: ".spec.foo.bar", hasPrefix: false, wantRootOf: "spec"},
		{p: ".spec.foobar", q: ".spec.foo", hasPrefix: false, wantRootOf: "spec"},
		{p: ".spec.items[*].name", q: ".spec.items[*]", hasPrefix: true, wantRootOf: "spec"},
		{p: ".spec.items[*].name", q: ".spec.items.name", hasPrefix: false, wantRootOf: "spec"},
		{p: ".metadata.labels", q: ".spec", pReserved: true, wantRootOf: "metadata"},
		{p: ".apiVersion", q: ".spec", pReserved: true, wantRootOf: "apiVersion"},
		{p: ".kind", q: ".spec", pReserved: true, wantRootOf: "kind"},
		{p: ".kinds", q: ".spec", wantRootOf: "kinds"},
	}
	for _, tc := range tests {
		p, q := mustParse(tc.p), mustParse(tc.q)
		if got := p.HasPrefix(q); got != tc.hasPrefix {
			t.Errorf("%s.HasPrefix(%s) = %v, want %v", tc.p, tc.q, got, tc.hasPrefix)
		}
		if got := p.IsReserved(); got != tc.pReserved {
			t.Errorf("%s.IsReserved() = %v, want %v", tc.p, got, tc.pReserved)
		}
		if got := p.Root(); got != tc.wantRootOf {
			t.Errorf("%s.Root() = %q, want %q", tc.p, got, tc.wantRootOf)
		}
	}
}
