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

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// requiresGates are OpenShift's Example+Example2: .spec.both exists only while both Example and
// Example2 are enabled; .spec.one is Example's own field, and .spec.one.both a combination
// field nested in it.
func requiresGates(example, example2 *bool, example2Stage string) []GateSpec {
	return []GateSpec{
		{Name: "Example", PreRelease: Alpha, Enabled: example, FieldPaths: []string{".spec.one"}},
		{Name: "Example2", PreRelease: example2Stage, Enabled: example2},
		{Name: "ExampleWithExample2", PreRelease: Stable, Requires: []string{"Example", "Example2"}, FieldPaths: []string{".spec.both", ".spec.one.both"}},
	}
}

// TestRequiresWritePath walks the OpenShift story through the write path: a combination field
// is dropped on create and kept on update until both gates are enabled; promoting one alone
// does not enable it.
func TestRequiresWritePath(t *testing.T) {
	const applied = `{"spec":{"both":3,"one":{"x":1,"both":4}}}`
	const stored = `{"spec":{"both":1,"one":{"x":1,"both":2}}}`
	tests := []struct {
		name            string
		gates           []GateSpec
		wantCreate      string
		wantUpdate      string
		changes         map[string]ChangeKind
		updateChanges   map[string]ChangeKind
		combinationLive bool
	}{
		{
			name:          "both off",
			gates:         requiresGates(nil, nil, Alpha),
			wantCreate:    `{"spec":{}}`,
			wantUpdate:    stored,
			changes:       map[string]ChangeKind{".spec.both": Dropped, ".spec.one": Dropped},
			updateChanges: map[string]ChangeKind{".spec.both": NotApplied, ".spec.one": NotApplied},
		},
		{
			name:          "Example on alone",
			gates:         requiresGates(ptr.To(true), nil, Alpha),
			wantCreate:    `{"spec":{"one":{"x":1}}}`,
			wantUpdate:    stored,
			changes:       map[string]ChangeKind{".spec.both": Dropped, ".spec.one.both": Dropped},
			updateChanges: map[string]ChangeKind{".spec.both": NotApplied, ".spec.one.both": NotApplied},
		},
		{
			name:          "Example2 promoted to stable alone",
			gates:         requiresGates(nil, nil, Stable),
			wantCreate:    `{"spec":{}}`,
			wantUpdate:    stored,
			changes:       map[string]ChangeKind{".spec.both": Dropped, ".spec.one": Dropped},
			updateChanges: map[string]ChangeKind{".spec.both": NotApplied, ".spec.one": NotApplied},
		},
		{
			name:            "both on",
			gates:           requiresGates(ptr.To(true), nil, Stable),
			wantCreate:      applied,
			wantUpdate:      applied,
			combinationLive: true,
		},
		{
			name:          "Example2 off again after both were on",
			gates:         requiresGates(ptr.To(true), ptr.To(false), Beta),
			wantCreate:    `{"spec":{"one":{"x":1}}}`,
			wantUpdate:    stored,
			changes:       map[string]ChangeKind{".spec.both": Dropped, ".spec.one.both": Dropped},
			updateChanges: map[string]ChangeKind{".spec.both": NotApplied, ".spec.one.both": NotApplied},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := Compile(tc.gates, nil)
			newObj := obj(t, applied)
			changes := ix.PrepareForCreate(newObj, ScopeAll)
			if diff := cmp.Diff(obj(t, tc.wantCreate), newObj); diff != "" {
				t.Errorf("create (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.changes, changeMap(changes)); diff != "" {
				t.Errorf("create changes (-want +got):\n%s", diff)
			}
			newObj = obj(t, applied)
			changes, err := ix.PrepareForUpdate(newObj, obj(t, stored), ScopeAll)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(obj(t, tc.wantUpdate), newObj); diff != "" {
				t.Errorf("update (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.updateChanges, changeMap(changes)); diff != "" {
				t.Errorf("update changes (-want +got):\n%s", diff)
			}
			p, _ := ParsePath(".spec.both")
			if live := ix.DisabledBy(p) == nil; live != tc.combinationLive {
				t.Errorf(".spec.both live = %v, want %v", live, tc.combinationLive)
			}
		})
	}
}

// TestRequiresWarnings checks the texts that name the required gate that is disabled, and that
// gates without requires keep theirs.
func TestRequiresWarnings(t *testing.T) {
	ix := Compile(requiresGates(ptr.To(true), nil, Alpha), nil)
	want := map[string][2]string{
		".spec.both": {
			".spec.both was dropped: feature gate ExampleWithExample2 (stable) is disabled: requires Example2, which is disabled",
			".spec.both was not updated: feature gate ExampleWithExample2 (stable) is disabled: requires Example2, which is disabled; the stored value was kept",
		},
		".spec.one.both": {
			".spec.one.both was dropped: feature gate ExampleWithExample2 (stable) is disabled: requires Example2, which is disabled",
			".spec.one.both was not updated: feature gate ExampleWithExample2 (stable) is disabled: requires Example2, which is disabled; the stored value was kept",
		},
	}
	notes := map[string]string{
		".spec.one":      "Alpha (feature gate Example, enabled).",
		".spec.both":     "Stable (feature gate ExampleWithExample2, disabled: requires Example2, which is disabled).",
		".spec.one.both": "Stable (feature gate ExampleWithExample2, disabled: requires Example2, which is disabled).",
	}
	paths := ix.Paths()
	for i := range paths {
		p := &paths[i]
		if got, want := p.StageNote(), notes[p.Path.String()]; got != want {
			t.Errorf("%s: StageNote() = %q, want %q", p.Path.String(), got, want)
		}
		w, ok := want[p.Path.String()]
		if !ok {
			continue
		}
		for _, kind := range []ChangeKind{Dropped, NotApplied} {
			if got := (Change{Kind: kind, Path: p}).Warning(); got != w[kind] {
				t.Errorf("%s kind %d: Warning() = %q, want %q", p.Path.String(), kind, got, w[kind])
			}
		}
	}

	both := Compile([]GateSpec{
		{Name: "A", PreRelease: Alpha},
		{Name: "B", PreRelease: Alpha},
		{Name: "AB", PreRelease: Beta, Requires: []string{"A", "B"}, FieldPaths: []string{".spec.ab"}},
	}, nil)
	if got, want := (Change{Kind: Dropped, Path: &both.Paths()[0]}).Warning(),
		".spec.ab was dropped: feature gate AB (beta) is disabled: requires A and B, which are disabled"; got != want {
		t.Errorf("Warning() = %q, want %q", got, want)
	}
	// The own state decides the text when it is disabled: the gate's own switch is the cause.
	own := Compile([]GateSpec{
		{Name: "A", PreRelease: Alpha},
		{Name: "AB", PreRelease: Alpha, Requires: []string{"A"}, FieldPaths: []string{".spec.ab"}},
	}, nil)
	if got, want := (Change{Kind: Dropped, Path: &own.Paths()[0]}).Warning(),
		".spec.ab was dropped: feature gate AB (alpha) is disabled"; got != want {
		t.Errorf("Warning() = %q, want %q", got, want)
	}
}

// TestRequiresDefaults checks that no default is applied at a combination field while a gate it
// requires is disabled, and that it is once both are enabled.
func TestRequiresDefaults(t *testing.T) {
	s := structuralFromJSON(t, defaultsSchema)
	for _, tc := range []struct {
		name    string
		example *bool
		want    string
	}{
		{name: "Example off", example: ptr.To(false), want: `{"spec":{"replicas":1,"foo":{"bar":"b"}}}`},
		{name: "Example on", example: ptr.To(true), want: `{"spec":{"replicas":1,"foo":{"bar":"b","qux":{"x":3}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := Compile([]GateSpec{
				{Name: "Example", PreRelease: Alpha, Enabled: tc.example},
				{Name: "Example2", PreRelease: Stable},
				{Name: "Both", PreRelease: Stable, Requires: []string{"Example", "Example2"}, FieldPaths: []string{".spec.foo.qux"}},
			}, s)
			o := intObj(t, `{"spec":{"foo":{}}}`)
			structuraldefaulting.Default(o, ix.WithoutDisabledDefaults(s))
			if diff := cmp.Diff(intObj(t, tc.want), o); diff != "" {
				t.Errorf("defaulted (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequiresCycleCompiles checks that gates whose requires form a cycle (which validation
// rejects) compile without looping and gate their fields as disabled.
func TestRequiresCycleCompiles(t *testing.T) {
	ix := Compile([]GateSpec{
		{Name: "A", PreRelease: Stable, Requires: []string{"B"}, FieldPaths: []string{".spec.a"}},
		{Name: "B", PreRelease: Stable, Requires: []string{"A"}},
	}, nil)
	o := obj(t, `{"spec":{"a":1}}`)
	var err *field.Error
	if _, err = ix.PrepareForUpdate(o, nil, ScopeAll); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(obj(t, `{"spec":{}}`), o); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
