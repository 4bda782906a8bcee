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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func obj(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	if s == "" {
		return nil
	}
	var m map[string]interface{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

// TestKEPMatrix is the KEP's 8-case table for nested gates: FooFeatureGate guards .spec.foo,
// QuxFeatureGate guards .spec.foo.qux. The write sets foo.baz=2 and foo.qux=3; for cases
// 5-8 the stored object has foo.qux=1.
func TestKEPMatrix(t *testing.T) {
	const applied = `{"spec":{"foo":{"baz":2,"qux":3}}}`
	const stored = `{"spec":{"foo":{"qux":1}}}`
	tests := []struct {
		n        int
		stored   bool
		foo, qux bool
		want     string
		changes  map[string]ChangeKind
	}{
		{n: 1, foo: false, qux: false, want: `{"spec":{}}`, changes: map[string]ChangeKind{".spec.foo": Dropped}},
		{n: 2, foo: false, qux: true, want: `{"spec":{}}`, changes: map[string]ChangeKind{".spec.foo": Dropped}},
		{n: 3, foo: true, qux: false, want: `{"spec":{"foo":{"baz":2}}}`, changes: map[string]ChangeKind{".spec.foo.qux": Dropped}},
		{n: 4, foo: true, qux: true, want: applied},
		{n: 5, stored: true, foo: false, qux: false, want: stored, changes: map[string]ChangeKind{".spec.foo": NotApplied}},
		{n: 6, stored: true, foo: false, qux: true, want: stored, changes: map[string]ChangeKind{".spec.foo": NotApplied}},
		{n: 7, stored: true, foo: true, qux: false, want: `{"spec":{"foo":{"baz":2,"qux":1}}}`, changes: map[string]ChangeKind{".spec.foo.qux": NotApplied}},
		{n: 8, stored: true, foo: true, qux: true, want: applied},
	}
	for _, tc := range tests {
		for _, create := range []bool{false, true} {
			if create && tc.stored {
				continue
			}
			ix := Compile([]GateSpec{
				{Name: "FooFeatureGate", PreRelease: Alpha, Enabled: ptr.To(tc.foo), FieldPaths: []string{".spec.foo"}},
				{Name: "QuxFeatureGate", PreRelease: Alpha, Enabled: ptr.To(tc.qux), FieldPaths: []string{".spec.foo.qux"}},
			}, nil)
			newObj := obj(t, applied)
			var oldObj map[string]interface{}
			if tc.stored {
				oldObj = obj(t, stored)
			} else if !create {
				oldObj = obj(t, `{"spec":{}}`)
			}
			oldCopy := runtime.DeepCopyJSON(oldObj)
			var changes []Change
			if create {
				changes = ix.PrepareForCreate(newObj, ScopeAll)
			} else {
				var err *field.Error
				if changes, err = ix.PrepareForUpdate(newObj, oldObj, ScopeAll); err != nil {
					t.Fatalf("case %d: %v", tc.n, err)
				}
			}
			if diff := cmp.Diff(obj(t, tc.want), newObj); diff != "" {
				t.Errorf("case %d (create=%v): object (-want +got):\n%s", tc.n, create, diff)
			}
			if diff := cmp.Diff(tc.changes, changeMap(changes), cmp.AllowUnexported()); diff != "" {
				t.Errorf("case %d (create=%v): changes (-want +got):\n%s", tc.n, create, diff)
			}
			if diff := cmp.Diff(oldCopy, oldObj); diff != "" {
				t.Errorf("case %d: old object was mutated:\n%s", tc.n, diff)
			}
		}
	}
}

func changeMap(changes []Change) map[string]ChangeKind {
	if len(changes) == 0 {
		return nil
	}
	m := map[string]ChangeKind{}
	for _, c := range changes {
		m[c.Path.Path.String()] = c.Kind
	}
	return m
}

func TestPrepareForUpdate(t *testing.T) {
	listSchema := func(listType string, keys ...string) *structuralschema.Structural {
		s := &structuralschema.Structural{
			Generic: structuralschema.Generic{Type: "object"},
			Properties: map[string]structuralschema.Structural{"spec": {
				Generic: structuralschema.Generic{Type: "object"},
				Properties: map[string]structuralschema.Structural{"containers": {
					Generic:    structuralschema.Generic{Type: "array"},
					Extensions: structuralschema.Extensions{XListType: ptr.To(listType), XListMapKeys: keys},
					Items:      &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}},
				}},
			}},
		}
		return s
	}
	disabled := func(paths ...string) []GateSpec {
		return []GateSpec{{Name: "G", PreRelease: Alpha, FieldPaths: paths}}
	}
	tests := []struct {
		name    string
		gates   []GateSpec
		schema  *structuralschema.Structural
		scope   Scope
		old     string
		new     string
		want    string
		changes map[string]ChangeKind
	}{
		{
			name:  "unchanged stored value: no change, no warning",
			gates: disabled(".spec.replicas"), old: `{"spec":{"replicas":3}}`, new: `{"spec":{"replicas":3,"image":"b"}}`,
			want: `{"spec":{"replicas":3,"image":"b"}}`,
		},
		{
			name:  "stored value removed by the write is kept",
			gates: disabled(".spec.replicas"), old: `{"spec":{"replicas":3}}`, new: `{"spec":{"image":"b"}}`,
			want: `{"spec":{"replicas":3,"image":"b"}}`, changes: map[string]ChangeKind{".spec.replicas": NotApplied},
		},
		{
			name:  "parent removed by the write is recreated to keep the stored value",
			gates: disabled(".spec.foo.qux"), old: `{"spec":{"foo":{"qux":1,"baz":1}}}`, new: `{"spec":{}}`,
			want: `{"spec":{"foo":{"qux":1}}}`, changes: map[string]ChangeKind{".spec.foo.qux": NotApplied},
		},
		{
			name:  "absent everywhere: nothing created",
			gates: disabled(".spec.foo.qux"), old: `{"spec":{}}`, new: `{"spec":{"a":1}}`, want: `{"spec":{"a":1}}`,
		},
		{
			name:  "null parent without a stored value below is left to validation",
			gates: disabled(".spec.foo.qux"), old: `{"spec":{"foo":{"baz":1}}}`, new: `{"spec":{"foo":null}}`, want: `{"spec":{"foo":null}}`,
		},
		{
			name:  "null parent is an absent parent: the stored value comes back",
			gates: disabled(".spec.backup.encryption"), old: `{"spec":{"backup":{"encryption":"aes","schedule":"daily"}}}`,
			new:     `{"spec":{"backup":null}}`,
			want:    `{"spec":{"backup":{"encryption":"aes"}}}`,
			changes: map[string]ChangeKind{".spec.backup.encryption": NotApplied},
		},
		{
			name:  "null grandparent is an absent grandparent",
			gates: disabled(".spec.backup.encryption.key"), old: `{"spec":{"backup":{"encryption":{"key":"k","mode":"m"}}}}`,
			new:     `{"spec":{"backup":null}}`,
			want:    `{"spec":{"backup":{"encryption":{"key":"k"}}}}`,
			changes: map[string]ChangeKind{".spec.backup.encryption.key": NotApplied},
		},
		{
			name:  "list without keys: items correlated by content, new items dropped",
			gates: disabled(".spec.containers[*].image"), schema: listSchema("atomic"),
			old:     `{"spec":{"containers":[{"name":"a","image":"i1"},{"name":"b"}]}}`,
			new:     `{"spec":{"containers":[{"name":"a","image":"i2"},{"name":"b","image":"x"},{"name":"c","image":"y"}]}}`,
			want:    `{"spec":{"containers":[{"name":"a","image":"i1"},{"name":"b"},{"name":"c"}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*].image": NotApplied},
		},
		{
			name:  "map list correlated by key, not index",
			gates: disabled(".spec.containers[*].image"), schema: listSchema("map", "name"),
			old:     `{"spec":{"containers":[{"name":"a","image":"ia"},{"name":"b","image":"ib"}]}}`,
			new:     `{"spec":{"containers":[{"name":"b","image":"new"},{"name":"c","image":"ic"},{"name":"a"}]}}`,
			want:    `{"spec":{"containers":[{"name":"b","image":"ib"},{"name":"c"},{"name":"a","image":"ia"}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*].image": NotApplied},
		},
		{
			name:  "wildcard as the last step drops new items and keeps stored ones",
			gates: disabled(".spec.containers[*]"), schema: listSchema("map", "name"),
			old:     `{"spec":{"containers":[{"name":"a","image":"ia"}]}}`,
			new:     `{"spec":{"containers":[{"name":"a","image":"changed"},{"name":"b"}]}}`,
			want:    `{"spec":{"containers":[{"name":"a","image":"ia"}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*]": NotApplied},
		},
		{
			name:  "list without keys: a removed item takes its stored value with it",
			gates: disabled(".spec.containers[*].retry"), schema: listSchema("atomic"),
			old:  `{"spec":{"containers":[{"name":"a","retry":7},{"name":"b"}]}}`,
			new:  `{"spec":{"containers":[{"name":"b"}]}}`,
			want: `{"spec":{"containers":[{"name":"b"}]}}`,
		},
		{
			name:  "list without keys: a stored value follows its item when the list is reordered",
			gates: disabled(".spec.containers[*].retry"), schema: listSchema("atomic"),
			old:     `{"spec":{"containers":[{"name":"a","retry":7},{"name":"b"}]}}`,
			new:     `{"spec":{"containers":[{"name":"b"},{"name":"a"}]}}`,
			want:    `{"spec":{"containers":[{"name":"b"},{"name":"a","retry":7}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*].retry": NotApplied},
		},
		{
			name:  "list without keys: insertion before the item",
			gates: disabled(".spec.containers[*].retry"), schema: listSchema("atomic"),
			old:     `{"spec":{"containers":[{"name":"a","retry":7},{"name":"b"}]}}`,
			new:     `{"spec":{"containers":[{"name":"x","retry":1},{"name":"a","retry":7},{"name":"b"}]}}`,
			want:    `{"spec":{"containers":[{"name":"x"},{"name":"a","retry":7},{"name":"b"}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*].retry": Dropped},
		},
		{
			name:  "list without keys: an item edited in place keeps its stored value",
			gates: disabled(".spec.containers[*].retry"), schema: listSchema("atomic"),
			old:     `{"spec":{"containers":[{"name":"a","retry":7},{"name":"b"},{"name":"c","retry":8}]}}`,
			new:     `{"spec":{"containers":[{"name":"a2","retry":9},{"name":"b"},{"name":"c2"}]}}`,
			want:    `{"spec":{"containers":[{"name":"a2","retry":7},{"name":"b"},{"name":"c2","retry":8}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*].retry": NotApplied},
		},
		{
			name:  "list without keys: a removal that adds no item drops the removed item's value",
			gates: disabled(".spec.containers[*].retry"), schema: listSchema("atomic"),
			old:  `{"spec":{"containers":[{"name":"a","retry":7},{"name":"b"}]}}`,
			new:  `{"spec":{"containers":[{"name":"b"}]}}`,
			want: `{"spec":{"containers":[{"name":"b"}]}}`,
		},
		{
			name:    "gated [*] list sent as null keeps the stored items",
			gates:   disabled(".spec.steps[*]"),
			old:     `{"spec":{"steps":[{"name":"s1"}]}}`,
			new:     `{"spec":{"steps":null}}`,
			want:    `{"spec":{"steps":[{"name":"s1"}]}}`,
			changes: map[string]ChangeKind{".spec.steps[*]": NotApplied},
		},
		{
			name:    "gated [*] list left out keeps the stored items",
			gates:   disabled(".spec.steps[*]"),
			old:     `{"spec":{"steps":[{"name":"s1"}],"x":1}}`,
			new:     `{"spec":{"x":2}}`,
			want:    `{"spec":{"steps":[{"name":"s1"}],"x":2}}`,
			changes: map[string]ChangeKind{".spec.steps[*]": NotApplied},
		},
		{
			name:    "gated [*] map sent as null keeps the stored keys",
			gates:   disabled(".spec.limits[*]"),
			old:     `{"spec":{"limits":{"cpu":"1"}}}`,
			new:     `{"spec":{"limits":null}}`,
			want:    `{"spec":{"limits":{"cpu":"1"}}}`,
			changes: map[string]ChangeKind{".spec.limits[*]": NotApplied},
		},
		{
			name:    "gated [*] map left out, with its parent, keeps the stored keys",
			gates:   disabled(".spec.limits[*]"),
			old:     `{"spec":{"limits":{"cpu":"1"}}}`,
			new:     `{}`,
			want:    `{"spec":{"limits":{"cpu":"1"}}}`,
			changes: map[string]ChangeKind{".spec.limits[*]": NotApplied},
		},
		{
			name:  "gated [*] list, empty when stored, left out: nothing to keep",
			gates: disabled(".spec.steps[*]"),
			old:   `{"spec":{"steps":[]}}`,
			new:   `{"spec":{}}`,
			want:  `{"spec":{}}`,
		},
		{
			name:  "a list whose items hold stored values, left out: the items are removed with them",
			gates: disabled(".spec.jobs[*].retry"),
			old:   `{"spec":{"jobs":[{"name":"a","retry":7}]}}`,
			new:   `{"spec":{"jobs":null}}`,
			want:  `{"spec":{"jobs":null}}`,
		},
		{
			name:  "list without keys: every item edited, each sending back its stored value",
			gates: disabled(".spec.jobs[*].retry"),
			old:   `{"spec":{"jobs":[{"name":"a","retry":7},{"name":"b"},{"name":"c","retry":9}]}}`,
			new:   `{"spec":{"jobs":[{"name":"a","image":"v2","retry":7},{"name":"b","image":"v2"},{"name":"c","image":"v2","retry":9}]}}`,
			want:  `{"spec":{"jobs":[{"name":"a","image":"v2","retry":7},{"name":"b","image":"v2"},{"name":"c","image":"v2","retry":9}]}}`,
		},
		{
			name:    "list without keys: one item edited between unchanged ones keeps its value",
			gates:   disabled(".spec.jobs[*].retry"),
			old:     `{"spec":{"jobs":[{"name":"a","retry":7},{"name":"b"},{"name":"c","retry":9}]}}`,
			new:     `{"spec":{"jobs":[{"name":"a"},{"name":"b"},{"name":"c","image":"v2","retry":1}]}}`,
			want:    `{"spec":{"jobs":[{"name":"a","retry":7},{"name":"b"},{"name":"c","image":"v2","retry":9}]}}`,
			changes: map[string]ChangeKind{".spec.jobs[*].retry": NotApplied},
		},
		{
			name:  "list without keys: identical duplicates, one removed",
			gates: disabled(".spec.containers[*].retry"), schema: listSchema("atomic"),
			old:  `{"spec":{"containers":[{"name":"a","retry":7},{"name":"a","retry":7}]}}`,
			new:  `{"spec":{"containers":[{"name":"a","retry":7}]}}`,
			want: `{"spec":{"containers":[{"name":"a","retry":7}]}}`,
		},
		{
			name:  "list without keys: a null parent inside an item",
			gates: disabled(".spec.containers[*].backup.key"), schema: listSchema("atomic"),
			old:     `{"spec":{"containers":[{"name":"b"},{"name":"a","backup":{"key":"k"}}]}}`,
			new:     `{"spec":{"containers":[{"name":"a","backup":null},{"name":"b"}]}}`,
			want:    `{"spec":{"containers":[{"name":"a","backup":{"key":"k"}},{"name":"b"}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*].backup.key": NotApplied},
		},
		{
			name:    "list without keys: nested lists, an insertion inside an item edited in place",
			gates:   disabled(".spec.containers[*].steps[*].retry"),
			old:     `{"spec":{"containers":[{"name":"a","steps":[{"s":1,"retry":3},{"s":2}]},{"name":"b","steps":[{"s":1,"retry":4}]}]}}`,
			new:     `{"spec":{"containers":[{"name":"a","steps":[{"s":0},{"s":1},{"s":2}]},{"name":"b","steps":[{"s":1,"retry":5}]}]}}`,
			want:    `{"spec":{"containers":[{"name":"a","steps":[{"s":0},{"s":1,"retry":3},{"s":2}]},{"name":"b","steps":[{"s":1,"retry":4}]}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*].steps[*].retry": NotApplied},
		},
		{
			name:  "list without keys, wildcard as the last step: the stored items are kept",
			gates: disabled(".spec.containers[*]"), schema: listSchema("atomic"),
			old:     `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			new:     `{"spec":{"containers":[{"name":"b"}]}}`,
			want:    `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			changes: map[string]ChangeKind{".spec.containers[*]": NotApplied},
		},
		{
			name:    "map values, wildcard as the last step: a removed stored key comes back",
			gates:   disabled(".spec.limits[*]"),
			old:     `{"spec":{"limits":{"cpu":1}}}`,
			new:     `{"spec":{"limits":{"mem":2}}}`,
			want:    `{"spec":{"limits":{"cpu":1}}}`,
			changes: map[string]ChangeKind{".spec.limits[*]": NotApplied},
		},
		{
			name:    "map values by key",
			gates:   disabled(".spec.limits[*].max"),
			old:     `{"spec":{"limits":{"cpu":{"max":1},"mem":{"max":2}}}}`,
			new:     `{"spec":{"limits":{"cpu":{"max":5},"disk":{"max":3,"min":1}}}}`,
			want:    `{"spec":{"limits":{"cpu":{"max":1},"disk":{"min":1}}}}`,
			changes: map[string]ChangeKind{".spec.limits[*].max": NotApplied},
		},
		{
			name:  "status scope touches only .status",
			gates: disabled(".spec.replicas", ".status.ready"), scope: ScopeStatus,
			old: `{"spec":{},"status":{}}`, new: `{"spec":{"replicas":3},"status":{"ready":true}}`,
			want: `{"spec":{"replicas":3},"status":{}}`, changes: map[string]ChangeKind{".status.ready": Dropped},
		},
		{
			name:  "main scope with a status subresource leaves .status alone",
			gates: disabled(".spec.replicas", ".status.ready"), scope: ScopeExceptStatus,
			old: `{"spec":{},"status":{}}`, new: `{"spec":{"replicas":3},"status":{"ready":true}}`,
			want: `{"spec":{},"status":{"ready":true}}`, changes: map[string]ChangeKind{".spec.replicas": Dropped},
		},
		{
			name: "enabled, stable and beta gates change nothing",
			gates: []GateSpec{
				{Name: "A", PreRelease: Alpha, Enabled: ptr.To(true), FieldPaths: []string{".spec.a"}},
				{Name: "B", PreRelease: Beta, FieldPaths: []string{".spec.b"}},
				{Name: "S", PreRelease: Stable, Enabled: ptr.To(false), FieldPaths: []string{".spec.s"}},
			},
			old: `{"spec":{}}`, new: `{"spec":{"a":1,"b":2,"s":3}}`, want: `{"spec":{"a":1,"b":2,"s":3}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := Compile(tc.gates, tc.schema)
			newObj, oldObj := obj(t, tc.new), obj(t, tc.old)
			oldCopy := runtime.DeepCopyJSON(oldObj)
			changes, err := ix.PrepareForUpdate(newObj, oldObj, tc.scope)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(obj(t, tc.want), newObj); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.changes, changeMap(changes)); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(oldCopy, oldObj); diff != "" {
				t.Errorf("old object was mutated:\n%s", diff)
			}
		})
	}
}

// TestPrepareForUpdateEqualProjectionsHoldingNothing: two stored items of a list without keys
// that are equal outside the disabled paths but not as JSON ({} against absent on the way to
// a disabled path), neither holding a value there, and a write that changes how many such
// items there are. Nothing stored is at stake, so the write is accepted as sent; it panicked
// (nil gated path in the ambiguity error) before.
func TestPrepareForUpdateEqualProjectionsHoldingNothing(t *testing.T) {
	ix := Compile([]GateSpec{{Name: "X", PreRelease: Alpha, FieldPaths: []string{".spec.steps[*].opts.x"}}}, nil)
	for _, tc := range []struct{ name, old, new string }{
		{"an empty object against an absent one", `{"spec":{"steps":[{"name":"b","opts":{}},{"name":"b"},{"name":"c","opts":{"x":1}}]}}`, `{"spec":{"steps":[{"name":"b"},{"name":"c","opts":{"x":1}}]}}`},
		{"null against absent", `{"spec":{"steps":[{"name":"b","opts":null},{"name":"b"},{"name":"c","opts":{"x":1}}]}}`, `{"spec":{"steps":[{"name":"b"},{"name":"c","opts":{"x":1}}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newObj, oldObj := obj(t, tc.new), obj(t, tc.old)
			if _, err := ix.PrepareForUpdate(newObj, oldObj, ScopeAll); err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(obj(t, tc.new), newObj); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrepareForUpdateAmbiguousList covers the writes to a list without keys after which the
// stored item that holds a disabled value cannot be found: they fail with the list's path
// and the gate, rather than move the value to another item or drop it.
func TestPrepareForUpdateAmbiguousList(t *testing.T) {
	gates := []GateSpec{{Name: "RetryGate", PreRelease: Alpha, FieldPaths: []string{".spec.steps[*].retry", ".spec.steps[*].timeout", ".spec.rules[*].filters[*].retry", ".spec.config.secret"}}}
	tests := []struct {
		name, old, new string
		wantPath       string
	}{
		{
			name:     "one of two items equal outside the gate, with different stored values, removed",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"a","retry":8}]}}`,
			new:      `{"spec":{"steps":[{"name":"a"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "reordered, and the item that holds the value edited",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b"},{"name":"c"}]}}`,
			new:      `{"spec":{"steps":[{"name":"c"},{"name":"b"},{"name":"a2"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "one item replaced by two",
			old:      `{"spec":{"steps":[{"name":"a","retry":7}]}}`,
			new:      `{"spec":{"steps":[{"name":"a2"},{"name":"x"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "two items swapped and both edited",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b","retry":8}]}}`,
			new:      `{"spec":{"steps":[{"name":"b","image":"v2","retry":8},{"name":"a","image":"v2","retry":7}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "two items swapped around an unchanged one and both edited",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b"},{"name":"c","retry":9}]}}`,
			new:      `{"spec":{"steps":[{"name":"c2","retry":9},{"name":"b"},{"name":"a2","retry":7}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "two items swapped around an unchanged one and both edited, sending back part of their values",
			old:      `{"spec":{"steps":[{"name":"a","retry":7,"timeout":1},{"name":"b"},{"name":"c","retry":9,"timeout":2}]}}`,
			new:      `{"spec":{"steps":[{"name":"c2","retry":9},{"name":"b"},{"name":"a2","retry":7}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "two items swapped around an unchanged one and both edited, sending back their values and more",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b"},{"name":"c","retry":9}]}}`,
			new:      `{"spec":{"steps":[{"name":"c2","retry":9,"timeout":5},{"name":"b"},{"name":"a2","retry":7,"timeout":5}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "an item that holds nothing swapped with a holder around an unchanged one, both edited",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b"},{"name":"c"}]}}`,
			new:      `{"spec":{"steps":[{"name":"c2"},{"name":"b"},{"name":"a2","retry":7}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "two neighbours edited at once",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b"}]}}`,
			new:      `{"spec":{"steps":[{"name":"a","image":"v2"},{"name":"b","image":"v2"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "one item moved and edited",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b"},{"name":"c"}]}}`,
			new:      `{"spec":{"steps":[{"name":"b"},{"name":"c"},{"name":"a","image":"v2","retry":7}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "an item removed while another is appended",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"b"}]}}`,
			new:      `{"spec":{"steps":[{"name":"b"},{"name":"x"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "one of two equal items duplicated, with different stored values",
			old:      `{"spec":{"steps":[{"name":"a","retry":7},{"name":"a","retry":8}]}}`,
			new:      `{"spec":{"steps":[{"name":"a"},{"name":"a"},{"name":"a"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "an item that holds a stored value replaced by null",
			old:      `{"spec":{"steps":[{"name":"a","retry":7}]}}`,
			new:      `{"spec":{"steps":[null]}}`,
			wantPath: "spec.steps[0]",
		},
		{
			name:     "an object that holds a stored value replaced by a scalar",
			old:      `{"spec":{"config":{"secret":"s"}}}`,
			new:      `{"spec":{"config":"plain"}}`,
			wantPath: "spec.config",
		},
		{
			name:     "an object that holds a stored value replaced by a list",
			old:      `{"spec":{"config":{"secret":"s"}}}`,
			new:      `{"spec":{"config":["plain"]}}`,
			wantPath: "spec.config",
		},
		{
			name:     "a list whose items hold stored values replaced by an object",
			old:      `{"spec":{"steps":[{"name":"a","retry":7}]}}`,
			new:      `{"spec":{"steps":{"name":"a"}}}`,
			wantPath: "spec.steps",
		},
		{
			name:     "in a nested list",
			old:      `{"spec":{"rules":[{"r":1},{"r":2,"filters":[{"f":1,"retry":1}]}]}}`,
			new:      `{"spec":{"rules":[{"r":1},{"r":2,"filters":[{"f":2},{"f":3}]}]}}`,
			wantPath: "spec.rules[1].filters",
		},
	}
	ix := Compile(gates, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			newObj, oldObj := obj(t, tc.new), obj(t, tc.old)
			changes, err := ix.PrepareForUpdate(newObj, oldObj, ScopeAll)
			if err == nil {
				t.Fatalf("want an error, got none; object %v, changes %v", newObj, changeMap(changes))
			}
			if err.Field != tc.wantPath || err.Type != field.ErrorTypeInvalid {
				t.Errorf("error at %q (%s), want Invalid at %q: %v", err.Field, err.Type, tc.wantPath, err)
			}
			for _, want := range []string{"RetryGate", "(alpha)"} {
				if !strings.Contains(err.Detail, want) {
					t.Errorf("error detail %q does not name %q", err.Detail, want)
				}
			}
		})
	}
}

func TestCompileEffectiveEnablement(t *testing.T) {
	ix := Compile([]GateSpec{
		{Name: "Qux", PreRelease: Beta, FieldPaths: []string{".spec.foo.qux", ".spec.bar[*].x"}},
		{Name: "Foo", PreRelease: Alpha, FieldPaths: []string{".spec.foo"}},
		{Name: "Bar", PreRelease: Stable, FieldPaths: []string{".spec.bar"}},
		{Name: "Bad", PreRelease: Beta, FieldPaths: []string{"not a path", ".metadata.name"}},
	}, nil)
	want := map[string]bool{".spec.foo": false, ".spec.bar": true, ".spec.foo.qux": false, ".spec.bar[*].x": true}
	got := map[string]bool{}
	for _, p := range ix.Paths() {
		got[p.Path.String()] = p.EffectivelyEnabled
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("effective enablement (-want +got):\n%s", diff)
	}
	if !ix.HasDisabled() || ix.HasDeprecated() {
		t.Errorf("HasDisabled=%v HasDeprecated=%v, want true, false", ix.HasDisabled(), ix.HasDeprecated())
	}
	if Compile(nil, nil) != nil {
		t.Error("Compile of no gates must be nil")
	}
	var none *Index
	if changes, err := none.PrepareForUpdate(map[string]interface{}{"spec": 1}, nil, ScopeAll); none.HasDisabled() || changes != nil || err != nil {
		t.Error("a nil index must gate nothing")
	}
}

// TestChangeWarning checks the warning texts, and that the ones cached on a compiled path are
// the ones built without the cache, for both kinds, whatever kind is asked for first.
func TestChangeWarning(t *testing.T) {
	ix := Compile([]GateSpec{
		{Name: "Foo", PreRelease: Alpha, FieldPaths: []string{".spec.foo"}},
		{Name: "Qux", PreRelease: Beta, FieldPaths: []string{".spec.foo.qux"}},
	}, nil)
	want := map[string][2]string{
		".spec.foo": {
			".spec.foo was dropped: feature gate Foo (alpha) is disabled",
			".spec.foo was not updated: feature gate Foo (alpha) is disabled; the stored value was kept",
		},
		".spec.foo.qux": {
			".spec.foo.qux was dropped: feature gate Qux (beta) is enabled, but a gated parent field is not live",
			".spec.foo.qux was not updated: feature gate Qux (beta) is enabled, but a gated parent field is not live; the stored value was kept",
		},
	}
	paths := ix.Paths()
	for i := range paths {
		p := &paths[i]
		w, ok := want[p.Path.String()]
		if !ok {
			t.Fatalf("unexpected path %s", p.Path.String())
		}
		kinds := []ChangeKind{Dropped, NotApplied, Dropped, NotApplied}
		if i%2 == 1 {
			kinds = []ChangeKind{NotApplied, Dropped, NotApplied, Dropped}
		}
		for _, kind := range kinds {
			c := Change{Kind: kind, Path: p}
			uncached := Change{Kind: kind, Path: &GatedPath{Path: p.Path, Gate: p.Gate}}
			if got := c.Warning(); got != w[kind] || got != uncached.Warning() {
				t.Errorf("%s kind %d: Warning() = %q, uncached %q, want %q", p.Path.String(), kind, got, uncached.Warning(), w[kind])
			}
		}
	}
}

// TestPrepareForUpdateRequiredSibling: a write that removes an object below which a stored
// value is kept is refused, naming the gate, when the object recreated to hold the value
// would lack a required property; without one, the object is recreated.
func TestPrepareForUpdateRequiredSibling(t *testing.T) {
	gates := []GateSpec{{Name: "EncryptionGate", PreRelease: Alpha, FieldPaths: []string{".spec.backup.encryption", ".spec.loose.encryption"}}}
	schema := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"backup":{"type":"object","nullable":true,"required":["size"],"properties":{"size":{"type":"string"},"encryption":{"type":"string"}}},
		"loose":{"type":"object","nullable":true,"properties":{"size":{"type":"string"},"encryption":{"type":"string"}}}}}}}`)
	ix := Compile(gates, schema)
	for _, tc := range []struct {
		name, old, new, want, wantErr string
	}{
		{name: "required sibling", old: `{"spec":{"backup":{"size":"1","encryption":"k"}}}`, new: `{"spec":{"backup":null}}`, wantErr: "spec.backup"},
		{name: "no required sibling", old: `{"spec":{"loose":{"size":"1","encryption":"k"}}}`, new: `{"spec":{"loose":null}}`, want: `{"spec":{"loose":{"encryption":"k"}}}`},
		{name: "object kept", old: `{"spec":{"backup":{"size":"1","encryption":"k"}}}`, new: `{"spec":{"backup":{"size":"2"}}}`, want: `{"spec":{"backup":{"size":"2","encryption":"k"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newObj := obj(t, tc.new)
			_, err := ix.PrepareForUpdate(newObj, obj(t, tc.old), ScopeAll)
			if tc.wantErr != "" {
				if err == nil || err.Field != tc.wantErr || !strings.Contains(err.Detail, "EncryptionGate (alpha)") || !strings.Contains(err.Detail, `"size"`) {
					t.Fatalf("error %v, want one at %s naming the gate and the required field", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(obj(t, tc.want), newObj); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrepareForUpdateRecreatedDefaults: an object that gating recreates to hold a stored
// value gets the defaults that decoding gives every object it finds, at its live fields and
// below (in objects it holds), and none at a disabled path; a required property with a
// default is then present. Without them, reads would show defaults the stored object lacks,
// and the next write, changing nothing, would store them and move the resourceVersion.
func TestPrepareForUpdateRecreatedDefaults(t *testing.T) {
	gates := []GateSpec{{Name: "EncryptionGate", PreRelease: Alpha, FieldPaths: []string{".spec.backup.encryption", ".spec.backup.keyRef", ".spec.tiers[*].encryption", ".spec.zones.east.enc"}}}
	schema := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"image":{"type":"string"},
		"backup":{"type":"object","nullable":true,"required":["size"],"properties":{
			"size":{"type":"string","default":"1Gi"},
			"schedule":{"type":"string","default":"@daily"},
			"keyRef":{"type":"string","default":"default-key"},
			"encryption":{"type":"object","properties":{"cipher":{"type":"string","default":"aes"},"key":{"type":"string"}}},
			"target":{"type":"object","properties":{"bucket":{"type":"string","default":"b"}}}}},
		"tiers":{"type":"object","additionalProperties":{"type":"object","nullable":true,"properties":{
			"encryption":{"type":"string"},"class":{"type":"string","default":"standard"}}}},
		"zones":{"type":"object","nullable":true,"additionalProperties":{"type":"object","nullable":true,"properties":{
			"enc":{"type":"string"},"class":{"type":"string","default":"standard"}}}}}}}}`)
	ix := Compile(gates, schema)
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{
			// keyRef is disabled: its default is not applied; the stored encryption is kept
			// as stored (no default below a disabled path); target is not created.
			name: "parent left out",
			old:  `{"spec":{"image":"a","backup":{"size":"5Gi","schedule":"@hourly","encryption":{"key":"k"}}}}`,
			new:  `{"spec":{"image":"b"}}`,
			want: `{"spec":{"image":"b","backup":{"size":"1Gi","schedule":"@daily","encryption":{"key":"k"}}}}`,
		},
		{
			name: "parent sent as null",
			old:  `{"spec":{"backup":{"size":"5Gi","keyRef":"mine"}}}`,
			new:  `{"spec":{"backup":null}}`,
			want: `{"spec":{"backup":{"size":"1Gi","schedule":"@daily","keyRef":"mine"}}}`,
		},
		{
			name: "map value sent as null",
			old:  `{"spec":{"tiers":{"gold":{"encryption":"e","class":"premium"}}}}`,
			new:  `{"spec":{"tiers":{"gold":null}}}`,
			want: `{"spec":{"tiers":{"gold":{"encryption":"e","class":"standard"}}}}`,
		},
		{
			name: "value at a named key of a map sent as null",
			old:  `{"spec":{"zones":{"east":{"enc":"e","class":"premium"}}}}`,
			new:  `{"spec":{"zones":{"east":null}}}`,
			want: `{"spec":{"zones":{"east":{"enc":"e","class":"standard"}}}}`,
		},
		{
			name: "map holding a named key left out",
			old:  `{"spec":{"image":"a","zones":{"east":{"enc":"e","class":"premium"},"west":{"class":"premium"}}}}`,
			new:  `{"spec":{"image":"a"}}`,
			want: `{"spec":{"image":"a","zones":{"east":{"enc":"e","class":"standard"}}}}`,
		},
		{
			name: "parent sent: not recreated, left as decoding made it",
			old:  `{"spec":{"backup":{"size":"5Gi","encryption":{"key":"k"}}}}`,
			new:  `{"spec":{"backup":{"size":"6Gi"}}}`,
			want: `{"spec":{"backup":{"size":"6Gi","encryption":{"key":"k"}}}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newObj := obj(t, tc.new)
			if _, err := ix.PrepareForUpdate(newObj, obj(t, tc.old), ScopeAll); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(obj(t, tc.want), newObj); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}
