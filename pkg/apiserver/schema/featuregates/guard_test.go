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
	"flag"
	"hash/fnv"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/test/featuregatetest/writemodel"
)

var (
	modelSeed   = flag.Int64("writes.seed", 2608, "seed of TestWritesAgainstModel and TestCheckKeptWithBrokenMatcher")
	modelWrites = flag.Int("writes.count", 20000, "writes of TestWritesAgainstModel and TestCheckKeptWithBrokenMatcher")
)

// TestCheckKept covers the last check on results that gating did not give: a stored value
// lost, moved to another item, changed, or a value let in; and results it accepts.
func TestCheckKept(t *testing.T) {
	gates := []GateSpec{{Name: "RetryGate", PreRelease: Alpha, FieldPaths: []string{
		".spec.steps[*].retry", ".spec.steps[*].note", ".spec.tags[*]", ".spec.config.secret", ".spec.ports[*].hostPort"}}}
	schema := structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer"},"note":{"type":"string"}}}},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"hostPort":{"type":"integer"}}}},
		"tags":{"type":"array","items":{"type":"string"}},
		"config":{"type":"object","properties":{"secret":{"type":"string"},"mode":{"type":"string"}}}}}}}`)
	ix := Compile(gates, schema)
	tests := []struct {
		name, old, sent, result string
		wantPath                string // "" when the result must be accepted
	}{
		{name: "kept", old: `{"spec":{"config":{"secret":"s"}}}`, result: `{"spec":{"config":{"secret":"s","mode":"m"}}}`},
		{name: "lost", old: `{"spec":{"config":{"secret":"s"}}}`, result: `{"spec":{"config":{"mode":"m"}}}`, wantPath: "spec.config.secret"},
		{name: "changed", old: `{"spec":{"config":{"secret":"s"}}}`, result: `{"spec":{"config":{"secret":"t"}}}`, wantPath: "spec.config.secret"},
		{name: "parent gone", old: `{"spec":{"config":{"secret":"s"}}}`, result: `{"spec":{}}`, wantPath: "spec.config.secret"},
		{name: "grandparent gone", old: `{"spec":{"config":{"secret":"s"}}}`, result: `{}`, wantPath: "spec.config.secret"},
		{name: "grandparent null", old: `{"spec":{"config":{"secret":"s"}}}`, result: `{"spec":null}`, wantPath: "spec.config.secret"},
		{name: "grandparent a scalar", old: `{"spec":{"steps":[{"name":"a","retry":1}]}}`, result: `{"spec":"plain"}`, wantPath: "spec"},
		{name: "list removed with its parent", old: `{"spec":{"steps":[{"name":"a","retry":1}]}}`, result: `{}`},
		{name: "list removed with its parent sent null", old: `{"spec":{"steps":[{"name":"a","retry":1}]}}`, result: `{"spec":null}`},
		{name: "list-map removed with its parent", old: `{"spec":{"ports":[{"name":"a","hostPort":1}]}}`, result: `{}`},
		{name: "gated [*] removed with its parent", old: `{"spec":{"tags":["a"]}}`, result: `{}`, wantPath: "spec.tags"},
		{name: "parent a scalar", old: `{"spec":{"config":{"secret":"s"}}}`, result: `{"spec":{"config":"plain"}}`, wantPath: "spec.config"},
		{name: "let in", old: `{"spec":{}}`, result: `{"spec":{"config":{"secret":"s"}}}`, wantPath: "spec.config.secret"},
		{name: "let in on create", result: `{"spec":{"steps":[{"name":"a","retry":1}]}}`, wantPath: "spec.steps[0].retry"},
		{name: "gated [*] kept", old: `{"spec":{"tags":["a"]}}`, result: `{"spec":{"tags":["a"]}}`},
		{name: "gated [*] emptied", old: `{"spec":{"tags":["a"]}}`, result: `{"spec":{"tags":null}}`, wantPath: "spec.tags"},
		{name: "gated [*] grown", old: `{"spec":{"tags":[]}}`, result: `{"spec":{"tags":["a"]}}`, wantPath: "spec.tags[0]"},
		{name: "list-map item removed with its value", old: `{"spec":{"ports":[{"name":"a","hostPort":1},{"name":"b"}]}}`, result: `{"spec":{"ports":[{"name":"b"}]}}`},
		{name: "list-map value moved", old: `{"spec":{"ports":[{"name":"a","hostPort":1},{"name":"b"}]}}`, result: `{"spec":{"ports":[{"name":"b","hostPort":1}]}}`, wantPath: "spec.ports[0].hostPort"},
		{
			name: "reordered, values with their items",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`, result: `{"spec":{"steps":[{"name":"b","retry":2},{"name":"a","retry":1}]}}`,
		},
		{
			name: "reordered, values left in place",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`, result: `{"spec":{"steps":[{"name":"b","retry":1},{"name":"a","retry":2}]}}`,
			wantPath: "spec.steps[0].retry",
		},
		{
			name: "one item edited in place",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"}]}}`, result: `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"b"}]}}`,
		},
		{
			name: "two neighbours edited, sent back",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`,
			sent: `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"b2","retry":2}]}}`, result: `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"b2","retry":2}]}}`,
		},
		{
			name: "two neighbours edited, not sent back",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`,
			sent: `{"spec":{"steps":[{"name":"a2"},{"name":"b2"}]}}`, result: `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"b2","retry":2}]}}`,
			wantPath: "spec.steps",
		},
		{
			name: "swapped and edited, values restored in place",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`,
			sent: `{"spec":{"steps":[{"name":"b2","retry":2},{"name":"a2","retry":1}]}}`, result: `{"spec":{"steps":[{"name":"b2","retry":1},{"name":"a2","retry":2}]}}`,
			wantPath: "spec.steps",
		},
		{
			name: "swapped around an unchanged item and edited, values restored in place",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"},{"name":"c","retry":3}]}}`,
			sent: `{"spec":{"steps":[{"name":"c2","retry":3},{"name":"b"},{"name":"a2","retry":1}]}}`, result: `{"spec":{"steps":[{"name":"c2","retry":1},{"name":"b"},{"name":"a2","retry":3}]}}`,
			wantPath: "spec.steps",
		},
		{
			name: "swapped around an unchanged item and edited, part of the values sent back",
			old:  `{"spec":{"steps":[{"name":"a","retry":1,"note":"x"},{"name":"b"},{"name":"c","retry":3,"note":"y"}]}}`,
			sent: `{"spec":{"steps":[{"name":"c2","retry":3},{"name":"b"},{"name":"a2"}]}}`, result: `{"spec":{"steps":[{"name":"c2","retry":1,"note":"x"},{"name":"b"},{"name":"a2","retry":3,"note":"y"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name: "two items edited in place around an unchanged one, values sent back",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"},{"name":"c","retry":3}]}}`,
			sent: `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"b"},{"name":"c2","retry":3}]}}`, result: `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"b"},{"name":"c2","retry":3}]}}`,
		},
		{
			name: "two items edited in place around an unchanged one, a value changed",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"},{"name":"c","retry":3}]}}`,
			sent: `{"spec":{"steps":[{"name":"a2","retry":5},{"name":"b"},{"name":"c2"}]}}`, result: `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"b"},{"name":"c2","retry":3}]}}`,
		},
		{
			name: "moved and edited, value dropped",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"},{"name":"c"}]}}`, result: `{"spec":{"steps":[{"name":"b"},{"name":"c"},{"name":"a2"}]}}`,
			wantPath: "spec.steps",
		},
		{
			name: "removed, and nothing added",
			old:  `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"}]}}`, result: `{"spec":{"steps":[{"name":"b"}]}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			result, old := obj(t, tc.result), obj(t, tc.old)
			sentObj := result
			if tc.sent != "" {
				sentObj = obj(t, tc.sent)
			}
			resultCopy, oldCopy := runtime.DeepCopyJSON(result), runtime.DeepCopyJSON(old)
			err := ix.CheckKept(result, old, ix.SentLists(sentObj, ScopeAll), ScopeAll)
			switch {
			case tc.wantPath == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantPath != "" && err == nil:
				t.Fatalf("accepted, want an error at %s", tc.wantPath)
			case err != nil:
				if err.Field != tc.wantPath || err.Type != field.ErrorTypeInvalid || !strings.Contains(err.Detail, "RetryGate (alpha)") {
					t.Errorf("error %v, want Invalid at %s naming RetryGate (alpha)", err, tc.wantPath)
				}
			}
			if !writemodel.Equal(result, resultCopy) || !writemodel.Equal(old, oldCopy) {
				t.Error("CheckKept modified its arguments")
			}
		})
	}
}

// TestParentLeftOutAboveLists: a write that leaves out, or sends as null, the parent of lists
// and maps whose items hold stored values at a disabled path removes their items, with the
// values, as a write that leaves out the lists themselves does; gating and the last check
// agree, and a stored value that must be kept recreates the parent.
func TestParentLeftOutAboveLists(t *testing.T) {
	gates := []GateSpec{{Name: "RetryGate", PreRelease: Alpha, FieldPaths: []string{
		".spec.steps[*].retry", ".spec.ports[*].hostPort", ".spec.config.secret"}}}
	ix := Compile(gates, structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"image":{"type":"string"},
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer"}}}},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"hostPort":{"type":"integer"}}}},
		"config":{"type":"object","properties":{"secret":{"type":"string"}}}}}}}`))
	lists := `{"spec":{"image":"x","steps":[{"name":"a","retry":1}],"ports":[{"name":"p","hostPort":2}]}}`
	tests := []struct {
		name, stored, sent, want string
	}{
		{name: "left out", stored: lists, sent: `{}`, want: `{}`},
		{name: "null", stored: lists, sent: `{"spec":null}`, want: `{"spec":null}`},
		{name: "empty", stored: lists, sent: `{"spec":{}}`, want: `{"spec":{}}`},
		{
			name:   "left out, with a stored value that recreates it",
			stored: `{"spec":{"image":"x","steps":[{"name":"a","retry":1}],"config":{"secret":"s"}}}`, sent: `{}`,
			want: `{"spec":{"config":{"secret":"s"}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := writeOutcome(ix, obj(t, tc.stored), obj(t, tc.sent), nil)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if want := obj(t, tc.want); !writemodel.Equal(got, want) {
				b, _ := json.Marshal(got)
				t.Errorf("got %s, want %s", b, tc.want)
			}
		})
	}
}

// TestRule2SentValues: rule 2's refusal of a new item that sends, at a disabled path, what
// another stored item left over holds there (the item may be that one moved), through
// gating and the last check together: writes from a review on a running server, moves that
// must be refused and ordinary writes that must not.
// rule2Index gates retry and timeout in a list without keys and in a list without keys below it.
func rule2Index(t *testing.T) *Index {
	t.Helper()
	return Compile([]GateSpec{{Name: "RetryGate", PreRelease: Alpha, FieldPaths: []string{
		".spec.steps[*].retry", ".spec.steps[*].timeout", ".spec.steps[*].subs[*].retry", ".spec.steps[*].subs[*].timeout"}}},
		structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"retry":{"type":"integer"},"timeout":{"type":"integer"},
		"subs":{"type":"array","items":{"type":"object","properties":{"n":{"type":"string"},"retry":{"type":"integer"},"timeout":{"type":"integer"}}}}}}}}}}}`))
}

// TestCheckKeptRule2 gives the last check results that a matcher could give, on its own.
func TestCheckKeptRule2(t *testing.T) {
	ix := rule2Index(t)
	tests := []struct {
		name, old, sent, result string
		wantPath                string // "" when the result must be accepted
	}{
		{
			name:     "nested values crossed between items swapped around an unchanged one, a nested item inserted in front",
			old:      `{"spec":{"steps":[{"name":"a","subs":[{"n":"s","retry":1}]},{"name":"m"},{"name":"b","subs":[{"n":"s","retry":2}]}]}}`,
			sent:     `{"spec":{"steps":[{"name":"b2","subs":[{"n":"t"},{"n":"s","retry":2}]},{"name":"m"},{"name":"a2","subs":[{"n":"t"},{"n":"s","retry":1}]}]}}`,
			result:   `{"spec":{"steps":[{"name":"b2","subs":[{"n":"t"},{"n":"s","retry":1}]},{"name":"m"},{"name":"a2","subs":[{"n":"t"},{"n":"s","retry":2}]}]}}`,
			wantPath: "spec.steps",
		},
		{
			name:   "a holder removed while another item is edited in place",
			old:    `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3},{"name":"d","retry":4}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2"},{"name":"d","retry":4}]}}`,
			result: `{"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2","retry":3},{"name":"d","retry":4}]}}`,
		},
		{
			name:     "a holder removed while an item is added elsewhere",
			old:      `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3}]}}`,
			sent:     `{"spec":{"steps":[{"name":"b","retry":2},{"name":"x"},{"name":"c","retry":3}]}}`,
			result:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"x"},{"name":"c","retry":3}]}}`,
			wantPath: "spec.steps",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ix.SentLists(obj(t, tc.sent), ScopeAll)
			err := ix.CheckKept(obj(t, tc.result), obj(t, tc.old), s, ScopeAll)
			switch {
			case tc.wantPath == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.wantPath != "" && (err == nil || err.Field != tc.wantPath):
				t.Errorf("want a refusal at %s, got %v", tc.wantPath, err)
			}
		})
	}
}

func TestRule2SentValues(t *testing.T) {
	ix := rule2Index(t)
	tests := []struct {
		name, stored, sent string
		want               string // "" when the write must be refused at spec.steps
	}{
		{
			name:   "swapped around an unchanged item, edited, sent with part of their values",
			stored: `{"spec":{"steps":[{"name":"a","retry":7,"timeout":1},{"name":"u"},{"name":"c","retry":9,"timeout":2}]}}`,
			sent:   `{"spec":{"steps":[{"name":"c2","retry":9},{"name":"u"},{"name":"a2","retry":7}]}}`,
		},
		{
			name:   "swapped around an unchanged item, edited, sent with part of their values in a nested list",
			stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"p","retry":1,"timeout":5}]},{"name":"u"},{"name":"b","subs":[{"n":"q","retry":2,"timeout":6}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b2","subs":[{"n":"q","retry":2}]},{"name":"u"},{"name":"a2","subs":[{"n":"p","retry":1}]}]}}`,
		},
		{
			name:   "swapped around an unchanged item, edited, with an item of a nested list moved along",
			stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"p","retry":1},{"n":"p9"}]},{"name":"u"},{"name":"b","subs":[{"n":"q","retry":2}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b2","subs":[{"n":"q","retry":2},{"n":"p9"}]},{"name":"u"},{"name":"a2","subs":[{"n":"p","retry":1}]}]}}`,
		},
		{
			name:   "equal values everywhere, an item that holds none edited beside one sent back",
			stored: `{"spec":{"steps":[{"name":"a","retry":3},{"name":"u","retry":3},{"name":"c"}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a2","retry":3},{"name":"u","retry":3},{"name":"c2","retry":3}]}}`,
			want:   `{"spec":{"steps":[{"name":"a2","retry":3},{"name":"u","retry":3},{"name":"c2"}]}}`,
		},
		{
			name:   "a nested item removed in one item, another item edited, every value sent back",
			stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"p","retry":1},{"n":"p2","retry":1}]},{"name":"u"},{"name":"b","subs":[{"n":"q","retry":1}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a","subs":[{"n":"p","retry":1}]},{"name":"u"},{"name":"b2","subs":[{"n":"q","retry":1}]}]}}`,
			want:   `{"spec":{"steps":[{"name":"a","subs":[{"n":"p","retry":1}]},{"name":"u"},{"name":"b2","subs":[{"n":"q","retry":1}]}]}}`,
		},
		{
			name:   "a holder removed while another item is edited in place between unchanged ones",
			stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3},{"name":"d","retry":4}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2","retry":3},{"name":"d","retry":4}]}}`,
			want:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2","retry":3},{"name":"d","retry":4}]}}`,
		},
		{
			name:   "a holder removed while another item is edited in place, sent without its value",
			stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3},{"name":"d","retry":4}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2"},{"name":"d","retry":4}]}}`,
			want:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2","retry":3},{"name":"d","retry":4}]}}`,
		},
		{
			name:   "a holder removed while another item is edited in place, sent with the removed one's value",
			stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3},{"name":"d","retry":4}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"c","image":"v2","retry":1},{"name":"d","retry":4}]}}`,
		},
		{
			name:   "a holder removed while an item is added elsewhere",
			stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b","retry":2},{"name":"x"},{"name":"c","retry":3}]}}`,
		},
		{
			name:   "a holder removed while two items are edited in one gap and sent back",
			stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c","retry":3},{"name":"d","retry":4}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b2","retry":2},{"name":"c2","retry":3},{"name":"d","retry":4}]}}`,
		},
		{
			name:   "swapped around an unchanged item, edited, a nested item inserted in front of the one that holds",
			stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"s","retry":1}]},{"name":"m"},{"name":"b","subs":[{"n":"s","retry":2}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b2","subs":[{"n":"t"},{"n":"s","retry":2}]},{"name":"m"},{"name":"a2","subs":[{"n":"t"},{"n":"s","retry":1}]}]}}`,
		},
		{
			name:   "edited in place around an unchanged item, a nested item inserted in front of the one that holds",
			stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"s","retry":1}]},{"name":"m"},{"name":"b","subs":[{"n":"s","retry":2}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a2","subs":[{"n":"t"},{"n":"s","retry":1}]},{"name":"m"},{"name":"b2","subs":[{"n":"t"},{"n":"s","retry":2}]}]}}`,
			want:   `{"spec":{"steps":[{"name":"a2","subs":[{"n":"t"},{"n":"s","retry":1}]},{"name":"m"},{"name":"b2","subs":[{"n":"t"},{"n":"s","retry":2}]}]}}`,
		},
		{
			name:   "a nested item removed in front in each of two items around an unchanged one, every value sent back",
			stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"p","retry":1},{"n":"q","retry":2}]},{"name":"u"},{"name":"b","subs":[{"n":"r","retry":2},{"n":"s","retry":3}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a","subs":[{"n":"q","retry":2}]},{"name":"u"},{"name":"b","subs":[{"n":"s","retry":3}]}]}}`,
			want:   `{"spec":{"steps":[{"name":"a","subs":[{"n":"q","retry":2}]},{"name":"u"},{"name":"b","subs":[{"n":"s","retry":3}]}]}}`,
		},
		{
			name:   "edited in place, nested items that look alike sent back in their order after an inserted one",
			stored: `{"spec":{"steps":[{"name":"a","subs":[{"n":"s","retry":1},{"n":"s","retry":5}]},{"name":"m"},{"name":"b","subs":[{"n":"s","retry":5}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a2","subs":[{"n":"t"},{"n":"s","retry":1},{"n":"s","retry":5}]},{"name":"m"},{"name":"b","subs":[{"n":"s","retry":5}]}]}}`,
			want:   `{"spec":{"steps":[{"name":"a2","subs":[{"n":"t"},{"n":"s","retry":1},{"n":"s","retry":5}]},{"name":"m"},{"name":"b","subs":[{"n":"s","retry":5}]}]}}`,
		},
		{
			name:   "items edited in place around an unchanged one, a value changed to what the other holds",
			stored: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"u"},{"name":"c","retry":2}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a2","retry":2},{"name":"u"},{"name":"c2","retry":2}]}}`,
			want:   `{"spec":{"steps":[{"name":"a2","retry":1},{"name":"u"},{"name":"c2","retry":2}]}}`,
		},
	}
	model := writemodel.Schema{Disabled: []string{".spec.steps[*].retry", ".spec.steps[*].timeout", ".spec.steps[*].subs[*].retry", ".spec.steps[*].subs[*].timeout"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRuleCase(t, ix, model, tc.stored, tc.sent, tc.want)
		})
	}
}

// writesSchema is the fuzzed CRD's structural schema (writemodel.CRDSchemaYAML).
func writesSchema(t *testing.T) *structuralschema.Structural {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(writemodel.CRDSchemaYAML))
	if err != nil {
		t.Fatal(err)
	}
	return structuralFromJSON(t, string(j))
}

// defaultingSchema is the fuzzed CRD's structural schema in a version that also gives
// .spec.steps[*].mode the default writemodel.DefaultMode and lacks the gated
// writemodel.LackedStepField of the steps (as the write fuzzer's third version does), which
// the storage version (writesSchema) does not.
func defaultingSchema(t *testing.T) *structuralschema.Structural {
	t.Helper()
	s := writesSchema(t)
	spec := s.Properties["spec"]
	item := spec.Properties["steps"].Items
	mode := item.Properties["mode"]
	mode.Default.Object = writemodel.DefaultMode
	item.Properties["mode"] = mode
	delete(item.Properties, writemodel.LackedStepField)
	return s
}

// writeOutcome runs a write through the gating and the last check as the API server does:
// what the write sent in lists without keys, gating, then the check; u is what the client's
// version cannot send as stored (nil in the storage version).
func writeOutcome(ix *Index, stored, sent map[string]interface{}, u *Unsendable) (map[string]interface{}, *field.Error) {
	got := runtime.DeepCopyJSON(sent)
	s := ix.SentLists(got, ScopeAll)
	_, err := ix.PrepareForUpdateIn(got, stored, ScopeAll, u)
	if err == nil {
		err = ix.CheckKeptIn(got, stored, s, ScopeAll, u)
	}
	return got, err
}

type writeCase struct {
	off          map[string]bool
	stored, sent map[string]interface{}
	// startsFrom is the stored object as the gating of the write starts from it: stored, but
	// in the version of defaulting, whose decoding prunes the live
	// writemodel.LackedStepField, half of the time without it (as the API server's step in
	// the client's version gets it) and half of the time with it (as its step in the storage
	// version does, when that version lacks a disabled path too).
	startsFrom      map[string]interface{}
	family          string
	index           *Index
	unsendable      *Unsendable
	model           writemodel.Schema
	want            map[string]interface{}
	modelRefuses    bool
	gotErr          *field.Error
	got             map[string]interface{}
	seed, iteration int64
}

func (c *writeCase) String() string {
	j := func(v interface{}) string { b, _ := json.Marshal(v); return string(b) }
	var off []string
	for g := range c.off {
		off = append(off, g)
	}
	sort.Strings(off)
	return "seed " + j(c.seed) + " write " + j(c.iteration) + " (" + c.family + "), gates off " + j(off) +
		"\nstored: " + j(c.stored) + "\nsent:   " + j(c.sent) + "\nmodel:  " + j(c.want) + " refused " + j(c.modelRefuses) +
		"\ngot:    " + j(c.got) + " error " + j(c.gotErr)
}

// randomWrite makes one write of the fuzzed CRD: a random set of gates off, a stored object
// written while every gate was on (none for a create), and a write made from it. A quarter of
// the updates are sent in the version of defaulting (defaultingSchema): each step of the
// write without a mode gets the default, and loses writemodel.LackedStepField, as decoding
// there does.
func randomWrite(t *testing.T, r *rand.Rand, g *writemodel.Gen, schema, defaulting *structuralschema.Structural) *writeCase {
	c := &writeCase{off: map[string]bool{}}
	var specs []GateSpec
	for _, gate := range writemodel.Gates {
		off := r.Intn(2) == 0
		c.off[gate.Name] = off
		specs = append(specs, GateSpec{Name: gate.Name, PreRelease: Alpha, Enabled: ptr.To(!off), FieldPaths: []string{gate.Path}})
	}
	c.index = Compile(specs, schema)
	c.model = writemodel.SchemaFor(c.off)
	spec := g.Spec()
	var sentSpec map[string]interface{}
	sentSpec, c.family = g.Write(spec, "")
	if r.Intn(20) == 0 {
		c.family = "create"
	} else {
		c.stored = map[string]interface{}{"spec": spec}
	}
	c.sent = map[string]interface{}{"spec": sentSpec}
	c.startsFrom = c.stored
	if c.stored != nil && r.Intn(4) == 0 {
		c.family += " (defaulting version)"
		c.unsendable = c.index.UnsendableIn(defaulting, schema)
		c.model.ItemDefaults = map[string]map[string]interface{}{".spec.steps": {"mode": writemodel.DefaultMode}}
		c.model.ItemLacks = map[string][]string{".spec.steps": {writemodel.LackedStepField}}
		steps, _ := sentSpec["steps"].([]interface{})
		for _, it := range steps {
			if step, ok := it.(map[string]interface{}); ok {
				if step["mode"] == nil {
					step["mode"] = writemodel.DefaultMode
				}
				delete(step, writemodel.LackedStepField)
			}
		}
		if !c.off["NoteGate"] && r.Intn(2) == 0 {
			c.startsFrom = runtime.DeepCopyJSON(c.stored)
			steps, _ := c.startsFrom["spec"].(map[string]interface{})["steps"].([]interface{})
			for _, it := range steps {
				if step, ok := it.(map[string]interface{}); ok {
					delete(step, writemodel.LackedStepField)
				}
			}
		}
	}
	c.want, c.modelRefuses = c.model.Expect(c.stored, c.sent)
	return c
}

// TestWritesAgainstModel compares gating and the last check with the reference model
// (test/featuregatetest/writemodel, written from docs/reference/semantics.md) on random
// writes of every family: each write gives the model's result, or is refused where the model
// refuses it, and only there.
func TestWritesAgainstModel(t *testing.T) {
	r := rand.New(rand.NewSource(*modelSeed))
	g := &writemodel.Gen{R: r}
	schema, defaulting := writesSchema(t), defaultingSchema(t)
	type tally struct{ writes, refused int }
	families := map[string]*tally{}
	for i := 0; i < *modelWrites; i++ {
		c := randomWrite(t, r, g, schema, defaulting)
		c.seed, c.iteration = *modelSeed, int64(i)
		c.got, c.gotErr = writeOutcome(c.index, c.startsFrom, c.sent, c.unsendable)
		f := families[c.family]
		if f == nil {
			f = &tally{}
			families[c.family] = f
		}
		f.writes++
		switch {
		case c.modelRefuses && c.gotErr == nil:
			t.Fatalf("accepted a write the model refuses:\n%s", c)
		case !c.modelRefuses && c.gotErr != nil:
			t.Fatalf("refused a write the model accepts:\n%s", c)
		case c.gotErr != nil:
			f.refused++
		case !writemodel.Equal(c.got, c.want):
			t.Fatalf("stored something other than the model:\n%s", c)
		}
	}
	var names []string
	for n := range families {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-14s %6d writes, %5d refused as the model refuses them", n, families[n].writes, families[n].refused)
	}
	if len(families) != 2*len(writemodel.Families)+1 {
		t.Errorf("%d families exercised, want %d", len(families), 2*len(writemodel.Families)+1)
	}
}

// TestCheckKeptWithBrokenMatcher breaks the matcher (items of lists without keys paired at
// random) and shows that the last check turns every would-be loss, move or let-in value into
// an error: every write the pair accepts stores exactly what the model says.
func TestCheckKeptWithBrokenMatcher(t *testing.T) {
	r := rand.New(rand.NewSource(*modelSeed))
	g := &writemodel.Gen{R: r}
	schema, defaulting := writesSchema(t), defaultingSchema(t)
	defer func(c func(*node, []interface{}, []interface{}, *Unsendable) ([]int, *ambiguity)) { correlateItems = c }(correlateItems)
	correlateItems = func(n *node, items, oldItems []interface{}, _ *Unsendable) ([]int, *ambiguity) {
		// At random, but the same for the same lists, so that a write gated twice is gated
		// alike.
		h := fnv.New64a()
		h.Write([]byte(canonical([]interface{}{items, oldItems})))
		r := rand.New(rand.NewSource(int64(h.Sum64())))
		match := make([]int, len(items))
		perm := r.Perm(len(oldItems))
		for i := range match {
			match[i] = -1
			if i < len(perm) && r.Intn(4) != 0 {
				match[i] = perm[i]
			}
		}
		return match, nil
	}
	caught, wrongWithoutCheck := 0, 0
	for i := 0; i < *modelWrites; i++ {
		c := randomWrite(t, r, g, schema, defaulting)
		c.seed, c.iteration = *modelSeed, int64(i)
		c.got, c.gotErr = writeOutcome(c.index, c.startsFrom, c.sent, c.unsendable)
		unchecked := runtime.DeepCopyJSON(c.sent)
		_, matcherErr := c.index.PrepareForUpdateIn(unchecked, c.startsFrom, ScopeAll, c.unsendable)
		if matcherErr == nil && (c.modelRefuses || !writemodel.Equal(unchecked, c.want)) {
			wrongWithoutCheck++
			if c.gotErr != nil {
				caught++
			}
		}
		if c.gotErr == nil && (c.modelRefuses || !writemodel.Equal(c.got, c.want)) {
			t.Fatalf("with the matcher broken, the last check let a wrong result through:\n%s", c)
		}
	}
	if wrongWithoutCheck == 0 || caught != wrongWithoutCheck {
		t.Fatalf("the broken matcher gave %d wrong results, the last check refused %d of them", wrongWithoutCheck, caught)
	}
	t.Logf("%d writes: the broken matcher gave %d wrong results; the last check refused all of them", *modelWrites, wrongWithoutCheck)
}

// TestRule2MapListBelow covers rule 2 with a list of type map below the items of a list
// without keys: a value's place in it is its item's keys, wherever the write put the item.
// The reference model, the gating and the last check must agree.
func TestRule2MapListBelow(t *testing.T) {
	ix := Compile([]GateSpec{{Name: "ProtoGate", PreRelease: Alpha, FieldPaths: []string{".spec.steps[*].ports[*].proto"}}},
		structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"proto":{"type":"string"}}}}}}}}}}}`))
	model := writemodel.Schema{Disabled: []string{".spec.steps[*].ports[*].proto"}, ListKeys: map[string][]string{".spec.steps[*].ports": {"name"}}}
	for _, tc := range []struct {
		name, stored, sent string
		want               string // "" when the write must be refused at spec.steps
	}{
		{
			name:   "a holder removed, and its value sent at the same key in an edited item, at another index",
			stored: `{"spec":{"steps":[{"name":"a","ports":[{"name":"http","proto":"TCP"}]},{"name":"z"},{"name":"b","ports":[{"name":"dns"},{"name":"http"}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"z"},{"name":"b2","ports":[{"name":"dns"},{"name":"http","proto":"TCP"}]}]}}`,
		},
		{
			name:   "a holder removed, and its value sent at another key in an edited item, at the same index",
			stored: `{"spec":{"steps":[{"name":"a","ports":[{"name":"http","proto":"TCP"}]},{"name":"z"},{"name":"b","ports":[{"name":"dns"}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"z"},{"name":"b2","ports":[{"name":"dns","proto":"TCP"}]}]}}`,
			want:   `{"spec":{"steps":[{"name":"z"},{"name":"b2","ports":[{"name":"dns"}]}]}}`,
		},
		{
			name:   "two items edited, each sending back its values with its map list reordered",
			stored: `{"spec":{"steps":[{"name":"a","ports":[{"name":"http","proto":"TCP"},{"name":"dns","proto":"UDP"}]},{"name":"b","ports":[{"name":"x","proto":"SCTP"}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a2","ports":[{"name":"dns","proto":"UDP"},{"name":"http","proto":"TCP"}]},{"name":"b2","ports":[{"name":"x","proto":"SCTP"}]}]}}`,
			want:   `{"spec":{"steps":[{"name":"a2","ports":[{"name":"dns","proto":"UDP"},{"name":"http","proto":"TCP"}]},{"name":"b2","ports":[{"name":"x","proto":"SCTP"}]}]}}`,
		},
		{
			name:   "two items edited, their values swapped between them",
			stored: `{"spec":{"steps":[{"name":"a","ports":[{"name":"http","proto":"TCP"}]},{"name":"b","ports":[{"name":"http","proto":"UDP"}]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a2","ports":[{"name":"http","proto":"UDP"}]},{"name":"b2","ports":[{"name":"http","proto":"TCP"}]}]}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRuleCase(t, ix, model, tc.stored, tc.sent, tc.want)
		})
	}
	// The last check on its own: the holder removed and the edited item kept as its own
	// (what a matcher that compares map lists by index gives) is refused.
	stored := obj(t, `{"spec":{"steps":[{"name":"a","ports":[{"name":"http","proto":"TCP"}]},{"name":"z"},{"name":"b","ports":[{"name":"dns"},{"name":"http"}]}]}}`)
	sent := obj(t, `{"spec":{"steps":[{"name":"z"},{"name":"b2","ports":[{"name":"dns"},{"name":"http","proto":"TCP"}]}]}}`)
	result := obj(t, `{"spec":{"steps":[{"name":"z"},{"name":"b2","ports":[{"name":"dns"},{"name":"http"}]}]}}`)
	if err := ix.CheckKept(result, stored, ix.SentLists(sent, ScopeAll), ScopeAll); err == nil || err.Field != "spec.steps" {
		t.Errorf("CheckKept of a holder removed while its value was sent on an edited item: %v, want a refusal at spec.steps", err)
	}
}

// TestRuleLooksPastGatedLists covers a list whose every item is at a disabled path ([*])
// below the items of a list without keys: on the way to those values only, it counts as
// absent to the rule, as an object left empty does, so a write that leaves it out, sends it
// null or empty, reorders or sends back the items keeps every value with its item.
func TestRuleLooksPastGatedLists(t *testing.T) {
	ix := Compile([]GateSpec{{Name: "TagsGate", PreRelease: Alpha, FieldPaths: []string{".spec.steps[*].tags[*]"}}},
		structuralFromJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"steps":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"image":{"type":"string"},
		"tags":{"type":"array","items":{"type":"string"}}}}}}}}}`))
	model := writemodel.Schema{Disabled: []string{".spec.steps[*].tags[*]"}}
	for _, tc := range []struct {
		name, stored, sent string
		want               string // "" when the write must be refused at spec.steps
	}{
		{
			name:   "look-alikes sent back without their gated lists",
			stored: `{"spec":{"steps":[{"name":"a","tags":["x"]},{"name":"a","tags":["y"]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a"},{"name":"a"}]}}`,
			want:   `{"spec":{"steps":[{"name":"a","tags":["x"]},{"name":"a","tags":["y"]}]}}`,
		},
		{
			name:   "reordered, the gated lists left out",
			stored: `{"spec":{"steps":[{"name":"a","tags":["x"]},{"name":"b","tags":["y"]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b"},{"name":"a"}]}}`,
			want:   `{"spec":{"steps":[{"name":"b","tags":["y"]},{"name":"a","tags":["x"]}]}}`,
		},
		{
			name:   "reordered, the gated lists sent null",
			stored: `{"spec":{"steps":[{"name":"a","tags":["x"]},{"name":"b","tags":["y"]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"b","tags":null},{"name":"a","tags":null}]}}`,
			want:   `{"spec":{"steps":[{"name":"b","tags":["y"]},{"name":"a","tags":["x"]}]}}`,
		},
		{
			name:   "one of two items told apart only by their gated lists removed",
			stored: `{"spec":{"steps":[{"name":"a","tags":["x"]},{"name":"a","tags":["y"]}]}}`,
			sent:   `{"spec":{"steps":[{"name":"a"}]}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRuleCase(t, ix, model, tc.stored, tc.sent, tc.want)
		})
	}
}

// checkRuleCase checks one write of the list rule: the reference model, written from the
// semantics page, and the gating with the last check must both give want, or both refuse
// the write at spec.steps when want is "".
func checkRuleCase(t *testing.T, ix *Index, model writemodel.Schema, stored, sent, want string) {
	t.Helper()
	modelWant, modelRefuses := model.Expect(obj(t, stored), obj(t, sent))
	if modelRefuses != (want == "") || (!modelRefuses && !writemodel.Equal(modelWant, obj(t, want))) {
		b, _ := json.Marshal(modelWant)
		t.Errorf("the model gives %s, refused %v", b, modelRefuses)
	}
	got, err := writeOutcome(ix, obj(t, stored), obj(t, sent), nil)
	if want == "" {
		if err == nil || err.Field != "spec.steps" {
			b, _ := json.Marshal(got)
			t.Fatalf("want a refusal at spec.steps, got %v, result %s", err, b)
		}
		return
	}
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if !writemodel.Equal(got, obj(t, want)) {
		b, _ := json.Marshal(got)
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestLookAlikesThatDifferInALackedField: through a version that lacks a field of the items
// of a list without keys, stored items that differ only there are alike to a write in that
// version when the field is live (decoding prunes it from every item, and the write erases
// it), so the write may change how many of them there are; while the field is not live, it is
// a stored value that tells them apart, and such a write is refused. The gating gets the
// stored object as stored, as the API server's step in the storage version does. The reference
// model, the gating and the last check must agree.
func TestLookAlikesThatDifferInALackedField(t *testing.T) {
	schema, defaulting := writesSchema(t), defaultingSchema(t)
	stored := `{"spec":{"steps":[{"name":"b","note":"n1"},{"name":"b"},{"name":"h","retry":7}]}}`
	sent := `{"spec":{"steps":[{"name":"b","mode":"x"},{"name":"b","mode":"x"},{"name":"b","mode":"x"},{"name":"h","mode":"x","retry":7}]}}`
	for _, tc := range []struct {
		name string
		off  map[string]bool
		want string // "" when the write must be refused at spec.steps
	}{
		{name: "the lacked field live", off: map[string]bool{"RetryGate": true}, want: sent},
		{name: "the lacked field not live", off: map[string]bool{"RetryGate": true, "NoteGate": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var specs []GateSpec
			for _, gate := range writemodel.Gates {
				specs = append(specs, GateSpec{Name: gate.Name, PreRelease: Alpha, Enabled: ptr.To(!tc.off[gate.Name]), FieldPaths: []string{gate.Path}})
			}
			ix := Compile(specs, schema)
			model := writemodel.SchemaFor(tc.off)
			model.ItemDefaults = map[string]map[string]interface{}{".spec.steps": {"mode": writemodel.DefaultMode}}
			model.ItemLacks = map[string][]string{".spec.steps": {writemodel.LackedStepField}}
			want, modelRefuses := model.Expect(obj(t, stored), obj(t, sent))
			if modelRefuses != (tc.want == "") || (!modelRefuses && !writemodel.Equal(want, obj(t, tc.want))) {
				t.Fatalf("the model gives %v (refused %t), the test wants %s", want, modelRefuses, tc.want)
			}
			got, err := writeOutcome(ix, obj(t, stored), obj(t, sent), ix.UnsendableIn(defaulting, schema))
			if tc.want == "" {
				if err == nil || err.Field != "spec.steps" {
					t.Fatalf("want a refusal at spec.steps, got %v, stored %v", err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !writemodel.Equal(got, obj(t, tc.want)) {
				t.Fatalf("stored %v, want %s", got, tc.want)
			}
		})
	}
}
