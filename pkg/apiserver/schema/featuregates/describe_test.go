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
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
)

func TestStageNote(t *testing.T) {
	ix := Compile([]GateSpec{
		{Name: "Foo", PreRelease: Alpha, FieldPaths: []string{".spec.foo"}},
		{Name: "Qux", PreRelease: Beta, FieldPaths: []string{".spec.foo.qux"}},
		{Name: "Bar", PreRelease: Alpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.bar"}},
		{Name: "Baz", PreRelease: Beta, Enabled: ptr.To(false), FieldPaths: []string{".spec.baz"}},
		{Name: "Ga", PreRelease: Stable, FieldPaths: []string{".spec.ga"}},
		{Name: "Old", PreRelease: Deprecated, Default: ptr.To(true), FieldPaths: []string{".spec.old"}},
		{Name: "Gone", PreRelease: Deprecated, Default: ptr.To(false), FieldPaths: []string{".spec.gone"}},
	}, nil)
	want := map[string]string{
		".spec.foo":     "Alpha (feature gate Foo, disabled).",
		".spec.foo.qux": "Beta (feature gate Qux, enabled, but a gated parent field is not live).",
		".spec.bar":     "Alpha (feature gate Bar, enabled).",
		".spec.baz":     "Beta (feature gate Baz, disabled).",
		".spec.ga":      "Stable (feature gate Ga, enabled).",
		".spec.old":     "Deprecated (feature gate Old, enabled).",
		".spec.gone":    "Deprecated (feature gate Gone, disabled).",
	}
	got := map[string]string{}
	for _, p := range ix.Paths() {
		got[p.Path.String()] = p.StageNote()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stage notes (-want +got):\n%s", diff)
	}
}
