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
	"encoding/json"
	"testing"

	"k8s.io/utils/ptr"
)

func TestDisabledBy(t *testing.T) {
	ix := Compile([]GateSpec{
		{Name: "Replicas", PreRelease: Alpha, FieldPaths: []string{".spec.replicas"}},
		{Name: "Advanced", PreRelease: Alpha, FieldPaths: []string{".spec.advanced"}},
		{Name: "Level", PreRelease: Beta, FieldPaths: []string{".spec.advanced.level"}},
		{Name: "Image", PreRelease: Beta, FieldPaths: []string{".spec.image"}},
		{Name: "Protocol", PreRelease: Alpha, FieldPaths: []string{".spec.ports[*].appProtocol"}},
		{Name: "Limits", PreRelease: Beta, Default: ptr.To(false), FieldPaths: []string{".spec.limits[*]"}},
		{Name: "Cpu", PreRelease: Alpha, FieldPaths: []string{".spec.requests.cpu"}},
		{Name: "Stable", PreRelease: Stable, FieldPaths: []string{".spec.stable"}},
		{Name: "Owner", PreRelease: Alpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.owner"}},
	}, nil)

	tests := []struct {
		path string
		want string // the normalized disabling path, "" when live
	}{
		{path: ".spec", want: ""},
		{path: ".spec.cronSpec", want: ""},
		{path: ".spec.replicas", want: ".spec.replicas"},
		{path: ".spec.replicas.below", want: ".spec.replicas"},
		{path: ".spec.image", want: ""},
		{path: ".spec.owner", want: ""},
		{path: ".spec.stable", want: ""},
		// A disabled parent disables its children, whatever their own gates say; the
		// outermost disabled path is reported.
		{path: ".spec.advanced", want: ".spec.advanced"},
		{path: ".spec.advanced.level", want: ".spec.advanced"},
		{path: ".spec.advanced.mode", want: ".spec.advanced"},
		// Wildcards.
		{path: ".spec.ports", want: ""},
		{path: ".spec.ports[*]", want: ""},
		{path: ".spec.ports[*].name", want: ""},
		{path: ".spec.ports[*].appProtocol", want: ".spec.ports[*].appProtocol"},
		{path: ".spec.limits", want: ""},
		{path: ".spec.limits[*]", want: ".spec.limits[*]"},
		{path: ".spec.limits.memory", want: ".spec.limits[*]"},
		{path: ".spec.limits.memory.amount", want: ".spec.limits[*]"},
		// A named key does not cover every value.
		{path: ".spec.requests.cpu", want: ".spec.requests.cpu"},
		{path: ".spec.requests.memory", want: ""},
		{path: ".spec.requests[*]", want: ""},
		{path: ".status", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p, err := ParsePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if q := ix.DisabledBy(p); q != nil {
				got = q.Path.String()
				if q.EffectivelyEnabled {
					t.Errorf("DisabledBy(%s) returned the enabled path %s", tc.path, got)
				}
			}
			if got != tc.want {
				t.Errorf("DisabledBy(%s) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}

	var nilIndex *Index
	p, _ := ParsePath(".spec.replicas")
	if q := nilIndex.DisabledBy(p); q != nil {
		t.Errorf("a nil index disabled %s", q.Path.String())
	}
}

func TestHasValue(t *testing.T) {
	obj := map[string]interface{}{}
	if err := json.Unmarshal([]byte(`{
"spec": {"replicas": 0, "empty": {}, "nothing": null, "list": [], "items": [{"a": 1}, {"b": {"c": [1]}}],
         "matrix": [[{"x": 1}], []], "tiers": {"gold": {"size": 1}, "silver": {}}}}`), &obj); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{".spec", true},
		{".spec.replicas", true},
		{".spec.empty", true},
		{".spec.nothing", true},
		{".spec.list", true},
		{".spec.list[*]", false},
		{".spec.missing", false},
		{".spec.replicas.x", false},
		{".spec.items[*].a", true},
		{".spec.items[*].b.c[*]", true},
		{".spec.items[*].d", false},
		{".spec.items.a", false},
		{".spec.matrix[*][*].x", true},
		{".spec.tiers.gold.size", true},
		{".spec.tiers.silver.size", false},
		{".spec.tiers[*].size", true},
		{".spec.tiers.bronze", false},
	}
	for _, tc := range tests {
		p, err := ParsePath(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if got := HasValue(obj, p); got != tc.want {
			t.Errorf("HasValue(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
