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
	"k8s.io/utils/ptr"
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

func TestEnabled(t *testing.T) {
	tests := []struct {
		name       string
		preRelease string
		enabled    *bool
		def        *bool
		want       bool
	}{
		{name: "stable is enabled", preRelease: Stable, want: true},
		{name: "stable ignores enabled=false", preRelease: Stable, enabled: ptr.To(false), want: true},
		{name: "stable ignores default=false", preRelease: Stable, def: ptr.To(false), want: true},
		{name: "enabled=true wins over alpha", preRelease: Alpha, enabled: ptr.To(true), want: true},
		{name: "enabled=false wins over beta", preRelease: Beta, enabled: ptr.To(false), want: false},
		{name: "enabled wins over default", preRelease: Alpha, enabled: ptr.To(true), def: ptr.To(false), want: true},
		{name: "enabled=false wins over default=true", preRelease: Beta, enabled: ptr.To(false), def: ptr.To(true), want: false},
		{name: "default=true decides", preRelease: Deprecated, def: ptr.To(true), want: true},
		{name: "default=false decides for beta", preRelease: Beta, def: ptr.To(false), want: false},
		{name: "beta is enabled", preRelease: Beta, want: true},
		{name: "alpha is disabled", preRelease: Alpha, want: false},
		{name: "deprecated without default is disabled", preRelease: Deprecated, want: false},
		{name: "unknown stage is disabled", preRelease: "gamma", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Enabled(tc.preRelease, tc.enabled, tc.def); got != tc.want {
				t.Errorf("Enabled(%q, %v, %v) = %v, want %v", tc.preRelease, tc.enabled, tc.def, got, tc.want)
			}
		})
	}
}
