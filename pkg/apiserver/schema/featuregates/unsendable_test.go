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
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestUnsendable covers a write in a version whose schema lacks the lists and maps on the way
// to disabled paths: left out, they are kept as stored (PrepareForUpdateIn), and the last
// check refuses a result that removed or changed one (CheckKeptIn), such as what gating
// without them gives.
func TestUnsendable(t *testing.T) {
	gates := []GateSpec{{Name: "Size", PreRelease: Alpha, FieldPaths: []string{
		".spec.tiers[*].size", ".spec.group.items[*].x", ".spec.steps[*].retry", ".spec.ports[*].hostPort",
		".spec.rules[*].filters[*].secret", ".spec.blob.hidden"}}}
	storage := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"replicas":{"type":"integer"},
		"tiers":{"type":"object","additionalProperties":{"type":"object","properties":{"size":{"type":"integer"},"label":{"type":"string"}}}},
		"group":{"type":"object","properties":{"other":{"type":"string"},"items":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}}}}}},
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer"}}}},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"hostPort":{"type":"integer"}}}},
		"rules":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"filters":{"type":"array","items":{"type":"object","properties":{"kind":{"type":"string"},"secret":{"type":"string"}}}}}}},
		"blob":{"type":"object","properties":{"hidden":{"type":"string"},"shown":{"type":"string"}}}}}}}`)
	// The client's version: no tiers, steps, ports, group.items or rules[*].filters; blob is an
	// object there (objects are recreated, not kept whole); untyped preserves unknown fields.
	lacking := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"replicas":{"type":"integer"},
		"group":{"type":"object","properties":{"other":{"type":"string"}}},
		"rules":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}}}}}`)
	untyped := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`)
	ix := Compile(gates, storage)
	if u := ix.UnsendableIn(storage, storage); u != nil && len(u.nodes) > 0 {
		t.Errorf("the storage version's own schema lacks %d lists or maps", len(u.nodes))
	}
	if u := ix.UnsendableIn(untyped, storage); u != nil {
		t.Errorf("a schema that preserves unknown fields lacks %d lists or maps", len(u.nodes))
	}
	u := ix.UnsendableIn(lacking, storage)
	if u == nil || len(u.nodes) != 5 {
		t.Fatalf("UnsendableIn = %v, want tiers, group.items, steps, ports and rules[*].filters", u)
	}

	const stored = `{"spec":{"replicas":1,
		"tiers":{"gold":{"size":5,"label":"g"},"free":{"label":"f"}},
		"group":{"items":[{"x":"X1","y":"Y1"},{"y":"Y2"}]},
		"steps":[{"name":"a","retry":3},{"name":"b"}],
		"ports":[{"name":"http","hostPort":8080}],
		"rules":[{"name":"r","filters":[{"kind":"k","secret":"s1"}]},{"name":"q"}],
		"blob":{"hidden":"h","shown":"s"}}}`
	for _, tc := range []struct {
		name, sent, want string
	}{
		{name: "everything left out",
			sent: `{"spec":{"replicas":2,"group":{},"rules":[{"name":"r"},{"name":"q"}]}}`,
			want: `{"spec":{"replicas":2,
				"tiers":{"gold":{"size":5,"label":"g"},"free":{"label":"f"}},
				"group":{"items":[{"x":"X1","y":"Y1"},{"y":"Y2"}]},
				"steps":[{"name":"a","retry":3},{"name":"b"}],
				"ports":[{"name":"http","hostPort":8080}],
				"rules":[{"name":"r","filters":[{"kind":"k","secret":"s1"}]},{"name":"q"}],
				"blob":{"hidden":"h"}}}`},
		{name: "the parent object left out too",
			sent: `{"spec":{"replicas":2}}`,
			want: `{"spec":{"replicas":2,
				"tiers":{"gold":{"size":5,"label":"g"},"free":{"label":"f"}},
				"group":{"items":[{"x":"X1","y":"Y1"},{"y":"Y2"}]},
				"steps":[{"name":"a","retry":3},{"name":"b"}],
				"ports":[{"name":"http","hostPort":8080}],
				"blob":{"hidden":"h"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, sent, want := objFromJSON(t, stored), objFromJSON(t, tc.sent), objFromJSON(t, tc.want)
			// Gating without knowing the version: the lists and maps are removed, and the last
			// check, told the version, refuses that.
			plain := runtime.DeepCopyJSON(sent)
			if _, err := ix.PrepareForUpdate(plain, old, ScopeAll); err != nil {
				t.Fatalf("PrepareForUpdate: %v", err)
			}
			if err := ix.CheckKeptIn(plain, old, ix.SentLists(sent, ScopeAll), ScopeAll, u); err == nil {
				t.Errorf("CheckKeptIn accepted %s", jsonString(plain))
			}
			got := runtime.DeepCopyJSON(sent)
			if _, err := ix.PrepareForUpdateIn(got, old, ScopeAll, u); err != nil {
				t.Fatalf("PrepareForUpdateIn: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("PrepareForUpdateIn (-want +got):\n%s", diff)
			}
			if err := ix.CheckKeptIn(got, old, ix.SentLists(sent, ScopeAll), ScopeAll, u); err != nil {
				t.Errorf("CheckKeptIn refused the result: %v", err)
			}
			if diff := cmp.Diff(objFromJSON(t, stored), old); diff != "" {
				t.Errorf("the stored object was modified (-before +after):\n%s", diff)
			}
		})
	}
}

// TestUnsendableBelowAListWithoutKeys: items of a list without keys are told apart by what
// they hold outside the disabled paths and outside the lists and maps the client's version
// lacks, since that client shows and sends its items without them: a write that sends the
// items back as read, or reorders them, keeps each stored list with its item; one that
// removes one of two items that look alike from that version, when only one holds a value, is
// refused, since which one it removed cannot be told. The last check agrees with gating on
// each.
func TestUnsendableBelowAListWithoutKeys(t *testing.T) {
	gates := []GateSpec{{Name: "Size", PreRelease: Alpha, FieldPaths: []string{".spec.rules[*].filters[*].secret", ".spec.groups[*].limits[*].secret"}}}
	storage := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"rules":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"zone":{"type":"string"},"filters":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"secret":{"type":"string"}}}}}}},
		"groups":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"limits":{"type":"object","additionalProperties":{"type":"object","properties":{"secret":{"type":"string"}}}}}}}}}}}`)
	lacking := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"rules":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
		"groups":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}}}}}`)
	ix := Compile(gates, storage)
	u := ix.UnsendableIn(lacking, storage)
	for _, tc := range []struct {
		name, old, sent string
		want            string // "" when the write must be refused at spec.rules or spec.groups
	}{
		{name: "sent back as read",
			old:  `{"spec":{"rules":[{"name":"r1","filters":[{"name":"f1","secret":"S1"},{"name":"f2","secret":"S2"}]},{"name":"r2","filters":[{"name":"f3","secret":"S3"}]}]}}`,
			sent: `{"spec":{"rules":[{"name":"r1"},{"name":"r2"}]}}`,
			want: `{"spec":{"rules":[{"name":"r1","filters":[{"name":"f1","secret":"S1"},{"name":"f2","secret":"S2"}]},{"name":"r2","filters":[{"name":"f3","secret":"S3"}]}]}}`},
		{name: "reordered",
			old:  `{"spec":{"rules":[{"name":"r","filters":[{"name":"f","secret":"S1"}]},{"name":"q"}]}}`,
			sent: `{"spec":{"rules":[{"name":"q"},{"name":"r"}]}}`,
			want: `{"spec":{"rules":[{"name":"q"},{"name":"r","filters":[{"name":"f","secret":"S1"}]}]}}`},
		{name: "look-alikes sent back as read",
			old:  `{"spec":{"rules":[{"name":"r1","filters":[{"name":"f1","secret":"S1"}]},{"name":"r1"}]}}`,
			sent: `{"spec":{"rules":[{"name":"r1"},{"name":"r1"}]}}`,
			want: `{"spec":{"rules":[{"name":"r1","filters":[{"name":"f1","secret":"S1"}]},{"name":"r1"}]}}`},
		{name: "one of two look-alikes removed",
			old:  `{"spec":{"rules":[{"name":"r1"},{"name":"r1","filters":[{"name":"f1","secret":"S1"}]}]}}`,
			sent: `{"spec":{"rules":[{"name":"r1"}]}}`},
		{name: "one of two look-alikes removed, differing in a field the version lacks",
			old:  `{"spec":{"rules":[{"name":"r1","zone":"a","filters":[{"name":"f1","secret":"S1"}]},{"name":"r1","filters":[{"name":"f2","secret":"S2"}]}]}}`,
			sent: `{"spec":{"rules":[{"name":"r1"}]}}`},
		{name: "reordered, items differing in a field the version lacks",
			old:  `{"spec":{"rules":[{"name":"r1","zone":"a","filters":[{"name":"f1","secret":"S1"}]},{"name":"r2","zone":"b","filters":[{"name":"f2","secret":"S2"}]}]}}`,
			sent: `{"spec":{"rules":[{"name":"r2"},{"name":"r1"}]}}`,
			want: `{"spec":{"rules":[{"name":"r2","filters":[{"name":"f2","secret":"S2"}]},{"name":"r1","filters":[{"name":"f1","secret":"S1"}]}]}}`},
		{name: "one of two look-alikes removed, a map below",
			old:  `{"spec":{"groups":[{"name":"g","limits":{"x":{"secret":"S1"}}},{"name":"g"}]}}`,
			sent: `{"spec":{"groups":[{"name":"g"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkWriteIn(t, ix, u, tc.old, tc.sent, tc.want, "spec.rules", "spec.groups")
		})
	}
}

// TestUnsendableDefaultsOfTheVersion covers a version whose schema defaults a field in the
// items of a list without keys that the storage version does not: a request in that version
// gets the default when it is decoded, and the object an update starts from, defaulted in the
// storage version when it was read, does not. Items are told apart as the version decodes
// them: a write that removes one of two items that look alike there is refused, though
// they differ as stored, and one that sends them back as read keeps each value with its item.
func TestUnsendableDefaultsOfTheVersion(t *testing.T) {
	gates := []GateSpec{{Name: "Retry", PreRelease: Alpha, FieldPaths: []string{".spec.steps[*].retry"}}}
	const item = `"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer"},"mode":{"type":"string"%s}}}}`
	storage := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{`+fmt.Sprintf(item, "")+`}}}}`)
	version := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{`+fmt.Sprintf(item, `,"default":"x"`)+`}}}}`)
	ix := Compile(gates, storage)
	if u := ix.UnsendableIn(storage, storage); u != nil {
		t.Errorf("UnsendableIn(the storage version) = %v, want nil", u)
	}
	for name, u := range map[string]*Unsendable{
		"conversion None":    ix.UnsendableIn(version, storage),
		"conversion webhook": ix.UnsendableIn(version, nil),
	} {
		if u == nil || len(u.items) != 1 || len(u.nodes) != 0 {
			t.Fatalf("%s: UnsendableIn = %v, want the items of steps", name, u)
		}
		for _, tc := range []struct {
			name, old, sent string
			want            string // "" when the write must be refused at spec.steps
		}{
			{name: "one of two look-alikes removed",
				old:  `{"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x","retry":2}]}}`,
				sent: `{"spec":{"steps":[{"name":"s","mode":"x"}]}}`},
			{name: "the other look-alike removed",
				old:  `{"spec":{"steps":[{"name":"s","mode":"x","retry":1},{"name":"s","retry":2}]}}`,
				sent: `{"spec":{"steps":[{"name":"s","mode":"x"}]}}`},
			{name: "sent back as read",
				old:  `{"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x","retry":2}]}}`,
				sent: `{"spec":{"steps":[{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2}]}}`,
				want: `{"spec":{"steps":[{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2}]}}`},
			{name: "sent back without the disabled values",
				old:  `{"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x","retry":2}]}}`,
				sent: `{"spec":{"steps":[{"name":"s","mode":"x"},{"name":"s","mode":"x"}]}}`,
				want: `{"spec":{"steps":[{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2}]}}`},
			{name: "an item told apart by name removed",
				old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","mode":"y","retry":2}]}}`,
				sent: `{"spec":{"steps":[{"name":"b","mode":"y"}]}}`,
				want: `{"spec":{"steps":[{"name":"b","mode":"y","retry":2}]}}`},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				checkWriteIn(t, ix, u, tc.old, tc.sent, tc.want, "spec.steps")
			})
		}
	}
}

// checkWriteIn gates sent over old, a write in the version of u, and checks the result:
// want, which the last check accepts, or, when want is "", a refusal at one of the lists
// refusedAt; then the last check also refuses what gating gives without knowing the version.
func checkWriteIn(t *testing.T, ix *Index, u *Unsendable, oldJSON, sentJSON, want string, refusedAt ...string) {
	t.Helper()
	old, sent := objFromJSON(t, oldJSON), objFromJSON(t, sentJSON)
	got := runtime.DeepCopyJSON(sent)
	_, err := ix.PrepareForUpdateIn(got, old, ScopeAll, u)
	if want == "" {
		if err == nil || !slices.Contains(refusedAt, err.Field) {
			t.Errorf("PrepareForUpdateIn = %v, %s; want a refusal at %v", err, jsonString(got), refusedAt)
		}
		plain := runtime.DeepCopyJSON(sent)
		if _, err := ix.PrepareForUpdate(plain, old, ScopeAll); err == nil {
			if err := ix.CheckKeptIn(plain, old, ix.SentLists(sent, ScopeAll), ScopeAll, u); err == nil {
				t.Errorf("CheckKeptIn accepted %s", jsonString(plain))
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("PrepareForUpdateIn: %v", err)
	}
	if diff := cmp.Diff(objFromJSON(t, want), got); diff != "" {
		t.Errorf("PrepareForUpdateIn (-want +got):\n%s", diff)
	}
	if err := ix.CheckKeptIn(got, old, ix.SentLists(sent, ScopeAll), ScopeAll, u); err != nil {
		t.Errorf("CheckKeptIn refused the result: %v", err)
	}
}

func objFromJSON(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func jsonString(v interface{}) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDefaultsListItemsAndSameDisabledValues covers the two checks a write through a
// conversion webhook relies on to tell stored items apart as the client's version decodes
// them: which schemas default inside items of lists without keys, and whether two objects
// hold the same values at the disabled paths in the same places.
func TestDefaultsListItemsAndSameDisabledValues(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         bool
	}{
		{name: "no default", schema: `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"mode":{"type":"string"}}}}}}`},
		{name: "a default in the items", want: true, schema: `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"mode":{"type":"string","default":"x"}}}}}}`},
		{name: "a default below, in an object of the items", want: true, schema: `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"cfg":{"type":"object","properties":{"level":{"type":"integer","default":1}}}}}}}}`},
		{name: "a default in the items of a list map", schema: `{"type":"object","properties":{"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"mode":{"type":"string","default":"x"}}}}}}`},
		{name: "a list without keys in the items of a list map", want: true, schema: `{"type":"object","properties":{"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"subs":{"type":"array","items":{"type":"object","properties":{"w":{"type":"integer","default":5}}}}}}}}}`},
		{name: "a default outside lists", schema: `{"type":"object","properties":{"mode":{"type":"string","default":"x"}}}`},
		{name: "a list without keys in a map's values", want: true, schema: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"array","items":{"type":"object","properties":{"w":{"type":"integer","default":5}}}}}}}`},
	} {
		if got := DefaultsListItems(structuralFromJSON(t, tc.schema)); got != tc.want {
			t.Errorf("%s: DefaultsListItems = %t, want %t", tc.name, got, tc.want)
		}
	}

	storage := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"mode":{"type":"string"},"retry":{"type":"integer"}}}}}}}}`)
	ix := Compile([]GateSpec{{Name: "Retry", PreRelease: Alpha, FieldPaths: []string{".spec.steps[*].retry"}}}, storage)
	const stored = `{"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x","retry":2},{"name":"t"}]}}`
	for _, tc := range []struct {
		name, other string
		want        bool
	}{
		{name: "live fields changed", want: true, other: `{"spec":{"steps":[{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2},{"name":"u","mode":"x"}]}}`},
		{name: "a value changed", other: `{"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x","retry":3},{"name":"t"}]}}`},
		{name: "values swapped", other: `{"spec":{"steps":[{"name":"s","retry":2},{"name":"s","mode":"x","retry":1},{"name":"t"}]}}`},
		{name: "an item without a value removed", other: `{"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x","retry":2}]}}`},
		{name: "a value lost", other: `{"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x"},{"name":"t"}]}}`},
	} {
		if got := ix.SameDisabledValues(objFromJSON(t, stored), objFromJSON(t, tc.other)); got != tc.want {
			t.Errorf("%s: SameDisabledValues = %t, want %t", tc.name, got, tc.want)
		}
	}
}

// TestUnsendableGatedFieldTheVersionLacks covers a write in a version whose schema lacks a
// gated field of the items of a list without keys (conversion None): its client reads the
// items without that field and cannot send back what they hold there. Items it renames and
// sends back keep their values in order only when they hold nothing it cannot show; items
// told apart by rule 1 keep theirs wherever the write put them.
func TestUnsendableGatedFieldTheVersionLacks(t *testing.T) {
	gates := []GateSpec{{Name: "Retry", PreRelease: Alpha, FieldPaths: []string{".spec.steps[*].retry", ".spec.steps[*].timeout"}}}
	storage := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer"},"timeout":{"type":"integer"}}}}}}}}`)
	version := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer"}}}}}}}}`)
	ix := Compile(gates, storage)
	u := ix.UnsendableIn(version, storage)
	if u == nil {
		t.Fatal("UnsendableIn = nil, want the items of steps")
	}
	for _, tc := range []struct {
		name, old, sent string
		want            string // "" when the write must be refused at spec.steps
	}{
		{name: "every item renamed, sent back as read, holding only what the version shows",
			old:  `{"spec":{"steps":[{"name":"a","retry":3},{"name":"u"},{"name":"c","retry":4}]}}`,
			sent: `{"spec":{"steps":[{"name":"a2","retry":3},{"name":"u2"},{"name":"c2","retry":4}]}}`,
			want: `{"spec":{"steps":[{"name":"a2","retry":3},{"name":"u2"},{"name":"c2","retry":4}]}}`},
		{name: "every item renamed, sent back as read, some holding what the version cannot show",
			old:  `{"spec":{"steps":[{"name":"a","retry":3,"timeout":1},{"name":"u","retry":3},{"name":"c","retry":3,"timeout":2},{"name":"d","retry":3}]}}`,
			sent: `{"spec":{"steps":[{"name":"a2","retry":3},{"name":"u2","retry":3},{"name":"c2","retry":3},{"name":"d2","retry":3}]}}`},
		{name: "two items swapped and edited, each showing an equal value and hiding its own",
			old:  `{"spec":{"steps":[{"name":"a","retry":5,"timeout":7},{"name":"b","retry":5,"timeout":8}]}}`,
			sent: `{"spec":{"steps":[{"name":"b2","retry":5},{"name":"a2","retry":5}]}}`},
		{name: "two items swapped and edited, holding only what the version cannot show",
			old:  `{"spec":{"steps":[{"name":"a","timeout":1},{"name":"b","timeout":2}]}}`,
			sent: `{"spec":{"steps":[{"name":"b2"},{"name":"a2"}]}}`},
		{name: "two items swapped, holding only what the version cannot show",
			old:  `{"spec":{"steps":[{"name":"a","timeout":1},{"name":"b","timeout":2}]}}`,
			sent: `{"spec":{"steps":[{"name":"b"},{"name":"a"}]}}`,
			want: `{"spec":{"steps":[{"name":"b","timeout":2},{"name":"a","timeout":1}]}}`},
		{name: "two items renamed, their read values swapped",
			old:  `{"spec":{"steps":[{"name":"a","retry":1,"timeout":1},{"name":"b","retry":2,"timeout":2}]}}`,
			sent: `{"spec":{"steps":[{"name":"a2","retry":2},{"name":"b2","retry":1}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkWriteIn(t, ix, u, tc.old, tc.sent, tc.want, "spec.steps")
		})
	}
}
