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

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// TestDeprecationWarningsFollowItems: a field of a deprecated gate warns when the write sets
// or changes it at its place, items of lists without keys followed through reorders, items of
// lists of type map by their keys, map values by key. Neither argument is modified.
func TestDeprecationWarningsFollowItems(t *testing.T) {
	schema := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"image":{"type":"string"},"retry":{"type":"integer"},
			"subs":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"},"secret":{"type":"string"}}}}}}},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"},"hostPort":{"type":"integer"}}}},
		"limits":{"type":"object","additionalProperties":{"type":"object","properties":{"max":{"type":"integer"}}}},
		"tags":{"type":"array","items":{"type":"string"}}}}}}`)
	ix := Compile([]GateSpec{
		{Name: "Retry", PreRelease: Deprecated, Enabled: ptr.To(true), FieldPaths: []string{".spec.steps[*].retry"}},
		{Name: "Secret", PreRelease: Deprecated, Enabled: ptr.To(true), FieldPaths: []string{".spec.steps[*].subs[*].secret"}},
		{Name: "HostPort", PreRelease: Deprecated, Enabled: ptr.To(true), FieldPaths: []string{".spec.ports[*].hostPort"}},
		{Name: "Max", PreRelease: Deprecated, Enabled: ptr.To(true), FieldPaths: []string{".spec.limits[*].max"}},
		{Name: "Tags", PreRelease: Deprecated, Enabled: ptr.To(true), FieldPaths: []string{".spec.tags[*]"}},
	}, schema)
	const (
		retry    = ".spec.steps[*].retry is deprecated (feature gate Retry)"
		secret   = ".spec.steps[*].subs[*].secret is deprecated (feature gate Secret)"
		hostPort = ".spec.ports[*].hostPort is deprecated (feature gate HostPort)"
		max      = ".spec.limits[*].max is deprecated (feature gate Max)"
		tags     = ".spec.tags[*] is deprecated (feature gate Tags)"
	)
	stored := `{"spec":{"steps":[{"name":"a","image":"i","retry":1},{"name":"b","image":"i","retry":2},{"name":"c","image":"i"}]}}`
	for _, tc := range []struct {
		name, stored, sent string
		want               []string
	}{
		{name: "create", sent: stored, want: []string{retry}},
		{name: "unchanged", stored: stored, sent: stored},
		{name: "reordered", stored: stored, sent: `{"spec":{"steps":[{"name":"b","image":"i","retry":2},{"name":"a","image":"i","retry":1},{"name":"c","image":"i"}]}}`},
		{name: "item moved", stored: stored, sent: `{"spec":{"steps":[{"name":"c","image":"i"},{"name":"a","image":"i","retry":1},{"name":"b","image":"i","retry":2}]}}`},
		{name: "item inserted in front", stored: stored, sent: `{"spec":{"steps":[{"name":"x"},{"name":"a","image":"i","retry":1},{"name":"b","image":"i","retry":2},{"name":"c","image":"i"}]}}`},
		{name: "item removed", stored: stored, sent: `{"spec":{"steps":[{"name":"b","image":"i","retry":2},{"name":"c","image":"i"}]}}`},
		{name: "value removed", stored: stored, sent: `{"spec":{"steps":[{"name":"a","image":"i"},{"name":"b","image":"i","retry":2},{"name":"c","image":"i"}]}}`},
		{name: "value moved to another item", stored: stored, sent: `{"spec":{"steps":[{"name":"a","image":"i","retry":1},{"name":"b","image":"i"},{"name":"c","image":"i","retry":2}]}}`, want: []string{retry}},
		{name: "value moved to an item the write reorders", stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"}]}}`, sent: `{"spec":{"steps":[{"name":"b","retry":1},{"name":"a"}]}}`, want: []string{retry}},
		{name: "value changed", stored: stored, sent: `{"spec":{"steps":[{"name":"a","image":"i","retry":3},{"name":"b","image":"i","retry":2},{"name":"c","image":"i"}]}}`, want: []string{retry}},
		{name: "item edited in place, value sent back", stored: stored, sent: `{"spec":{"steps":[{"name":"a","image":"j","retry":1},{"name":"b","image":"i","retry":2},{"name":"c","image":"i"}]}}`},
		{name: "new item with a value", stored: stored, sent: `{"spec":{"steps":[{"name":"a","image":"i","retry":1},{"name":"b","image":"i","retry":2},{"name":"c","image":"i"},{"name":"d","retry":1}]}}`, want: []string{retry}},
		{name: "duplicated item", stored: stored, sent: `{"spec":{"steps":[{"name":"a","image":"i","retry":1},{"name":"a","image":"i","retry":1},{"name":"b","image":"i","retry":2},{"name":"c","image":"i"}]}}`, want: []string{retry}},
		{name: "nested items reordered", stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"x","secret":"s"},{"n":"y"}]}]}}`, sent: `{"spec":{"steps":[{"name":"a","subs":[{"n":"y"},{"n":"x","secret":"s"}]}]}}`},
		{name: "nested value moved", stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"x","secret":"s"},{"n":"y"}]}]}}`, sent: `{"spec":{"steps":[{"name":"a","subs":[{"n":"x"},{"n":"y","secret":"s"}]}]}}`, want: []string{secret}},
		{name: "items and nested items reordered", stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"x","secret":"s"},{"n":"y"}]},{"name":"b"}]}}`, sent: `{"spec":{"steps":[{"name":"b"},{"name":"a","subs":[{"n":"y"},{"n":"x","secret":"s"}]}]}}`},
		{name: "items and nested items inserted in front", stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"x","secret":"s"}]}]}}`, sent: `{"spec":{"steps":[{"name":"new"},{"name":"a","subs":[{"n":"w"},{"n":"x","secret":"s"}]}]}}`},
		{name: "item shifted and edited elsewhere, value sent unchanged", stored: `{"spec":{"steps":[{"name":"a","retry":1}]}}`, sent: `{"spec":{"steps":[{"name":"b"},{"name":"a","image":"j","retry":1}]}}`},
		{name: "item shifted, another deprecated value changed", stored: `{"spec":{"steps":[{"name":"a","retry":1,"subs":[{"n":"x","secret":"s"}]}]}}`, sent: `{"spec":{"steps":[{"name":"b"},{"name":"a","retry":1,"subs":[{"n":"x","secret":"s2"}]}]}}`, want: []string{secret}},
		{name: "value moved to a new item, its item kept", stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"}]}}`, sent: `{"spec":{"steps":[{"name":"c","retry":1},{"name":"a"}]}}`, want: []string{retry}},
		{name: "value copied to a new item", stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`, sent: `{"spec":{"steps":[{"name":"b","retry":2},{"name":"z","retry":2}]}}`, want: []string{retry}},
		{name: "map list reordered", stored: `{"spec":{"ports":[{"name":"p","port":1,"hostPort":8},{"name":"q","port":2}]}}`, sent: `{"spec":{"ports":[{"name":"q","port":2},{"name":"p","port":3,"hostPort":8}]}}`},
		{name: "map list value moved to another key", stored: `{"spec":{"ports":[{"name":"p","hostPort":8},{"name":"q"}]}}`, sent: `{"spec":{"ports":[{"name":"q","hostPort":8},{"name":"p"}]}}`, want: []string{hostPort}},
		{name: "map value moved to another key", stored: `{"spec":{"limits":{"x":{"max":1}}}}`, sent: `{"spec":{"limits":{"y":{"max":1}}}}`, want: []string{max}},
		{name: "map value kept", stored: `{"spec":{"limits":{"x":{"max":1}}}}`, sent: `{"spec":{"limits":{"x":{"max":1},"y":{}}}}`},
		{name: "tags reordered", stored: `{"spec":{"tags":["a","b"]}}`, sent: `{"spec":{"tags":["b","a"]}}`},
		{name: "tag changed", stored: `{"spec":{"tags":["a","b"]}}`, sent: `{"spec":{"tags":["a","c"]}}`, want: []string{tags}},
		{name: "tag removed", stored: `{"spec":{"tags":["a","b"]}}`, sent: `{"spec":{"tags":["b"]}}`},
		{name: "list replaced by a scalar", stored: stored, sent: `{"spec":{"steps":"x"}}`},
		{name: "map replaced by a list that holds the value", stored: `{"spec":{"limits":{"x":{"max":1}}}}`, sent: `{"spec":{"limits":[{"max":1}]}}`, want: []string{max}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var old map[string]interface{}
			if tc.stored != "" {
				old = obj(t, tc.stored)
			}
			sent := obj(t, tc.sent)
			oldCopy, sentCopy := runtime.DeepCopyJSON(old), runtime.DeepCopyJSON(sent)
			if old == nil {
				oldCopy = nil
			}
			got := ix.DeprecationWarnings(sent, old, ScopeAll)
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("warnings %q, want %q", got, tc.want)
				}
			}
			if !jsonEqual(sent, sentCopy) || (old != nil && !jsonEqual(old, oldCopy)) {
				t.Fatal("DeprecationWarnings modified its arguments")
			}
		})
	}
}
