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

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// structuralFromJSON builds a structural schema from a v1 openAPIV3Schema in JSON, as the
// API server does.
func structuralFromJSON(t *testing.T, s string) *structuralschema.Structural {
	t.Helper()
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(s), &v1); err != nil {
		t.Fatalf("bad test schema %s: %v", s, err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	out, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatalf("not structural: %v", err)
	}
	return out
}

const defaultsSchema = `{"type": "object", "properties": {"spec": {"type": "object",
  "default": {"image": "busybox", "replicas": 2, "ports": {"http": 80}, "items": [{"name": "first", "port": 8080}], "tags": ["a"]},
  "properties": {
    "image": {"type": "string"},
    "replicas": {"type": "integer", "default": 1},
    "foo": {"type": "object", "properties": {
      "bar": {"type": "string", "default": "b"},
      "qux": {"type": "object", "default": {}, "properties": {"x": {"type": "integer", "default": 3}}}}},
    "items": {"type": "array",
      "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer", "default": 80}}}},
    "ports": {"type": "object", "additionalProperties": {"type": "integer", "default": 443}},
    "tags": {"type": "array", "items": {"type": "string"}},
    "plain": {"type": "string"}}}}}`

// intObj decodes JSON as the API server does: integers are int64, like the defaults.
func intObj(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := utiljson.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return m
}

// TestWithoutDisabledDefaults runs upstream's defaulting with the schema the gates give it:
// no value may appear at an effectively disabled path, every other default is upstream's.
func TestWithoutDisabledDefaults(t *testing.T) {
	tests := []struct {
		name    string
		gates   []GateSpec
		in      string
		want    string
		samePtr bool // no default is affected: the schema itself is returned
	}{{
		name:    "no gate",
		in:      `{"spec": {"foo": {}}}`,
		want:    `{"spec": {"foo": {"bar": "b", "qux": {"x": 3}}, "replicas": 1}}`,
		samePtr: true,
	}, {
		name:    "enabled gate: upstream's defaults",
		gates:   []GateSpec{{Name: "R", PreRelease: Beta, FieldPaths: []string{".spec.replicas"}}},
		in:      `{"spec": {}}`,
		want:    `{"spec": {"replicas": 1}}`,
		samePtr: true,
	}, {
		name:  "disabled field default",
		gates: []GateSpec{{Name: "R", PreRelease: Alpha, FieldPaths: []string{".spec.replicas"}}},
		in:    `{"spec": {"image": "nginx"}}`,
		want:  `{"spec": {"image": "nginx"}}`,
	}, {
		name:  "disabled path in an ancestor's default",
		gates: []GateSpec{{Name: "R", PreRelease: Alpha, FieldPaths: []string{".spec.replicas"}}},
		in:    `{}`,
		want:  `{"spec": {"image": "busybox", "ports": {"http": 80}, "tags": ["a"], "items": [{"name": "first", "port": 8080}]}}`,
	}, {
		name:  "a value sent by the client is not defaulting's business",
		gates: []GateSpec{{Name: "R", PreRelease: Alpha, FieldPaths: []string{".spec.replicas"}}},
		in:    `{"spec": {"replicas": 5}}`,
		want:  `{"spec": {"replicas": 5}}`,
	}, {
		name: "a disabled parent disables the defaults below it",
		gates: []GateSpec{
			{Name: "Foo", PreRelease: Alpha, FieldPaths: []string{".spec.foo"}},
			{Name: "Qux", PreRelease: Stable, FieldPaths: []string{".spec.foo.qux"}},
		},
		in:   `{"spec": {"foo": {}}}`,
		want: `{"spec": {"foo": {}, "replicas": 1}}`,
	}, {
		name:  "disabled child, enabled parent",
		gates: []GateSpec{{Name: "Qux", PreRelease: Alpha, FieldPaths: []string{".spec.foo.qux"}}},
		in:    `{"spec": {"foo": {}}}`,
		want:  `{"spec": {"foo": {"bar": "b"}, "replicas": 1}}`,
	}, {
		name:  "disabled path below a disabled default object",
		gates: []GateSpec{{Name: "X", PreRelease: Alpha, FieldPaths: []string{".spec.foo.qux.x"}}},
		in:    `{"spec": {"foo": {}}}`,
		want:  `{"spec": {"foo": {"bar": "b", "qux": {}}, "replicas": 1}}`,
	}, {
		name:  "list items",
		gates: []GateSpec{{Name: "Port", PreRelease: Alpha, FieldPaths: []string{".spec.items[*].port"}}},
		in:    `{"spec": {"image": "i", "items": [{"name": "a"}, {"name": "b", "port": 1}]}}`,
		want:  `{"spec": {"image": "i", "items": [{"name": "a"}, {"name": "b", "port": 1}], "replicas": 1}}`,
	}, {
		name:  "list items in an ancestor's default",
		gates: []GateSpec{{Name: "Port", PreRelease: Alpha, FieldPaths: []string{".spec.items[*].port"}}},
		in:    `{}`,
		want:  `{"spec": {"image": "busybox", "replicas": 2, "ports": {"http": 80}, "items": [{"name": "first"}], "tags": ["a"]}}`,
	}, {
		name:  "every item of a list",
		gates: []GateSpec{{Name: "Tags", PreRelease: Alpha, FieldPaths: []string{".spec.tags[*]"}}},
		in:    `{}`,
		want:  `{"spec": {"image": "busybox", "replicas": 2, "ports": {"http": 80}, "items": [{"name": "first", "port": 8080}], "tags": []}}`,
	}, {
		name:  "every value of a map",
		gates: []GateSpec{{Name: "Ports", PreRelease: Alpha, FieldPaths: []string{".spec.ports[*]"}}},
		in:    `{}`,
		want:  `{"spec": {"image": "busybox", "replicas": 2, "ports": {}, "tags": ["a"], "items": [{"name": "first", "port": 8080}]}}`,
	}, {
		name:    "a disabled path without defaults",
		gates:   []GateSpec{{Name: "P", PreRelease: Alpha, FieldPaths: []string{".spec.plain"}}},
		in:      `{"spec": {}}`,
		want:    `{"spec": {"replicas": 1}}`,
		samePtr: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := structuralFromJSON(t, defaultsSchema)
			pristine := s.DeepCopy()
			got := Compile(tc.gates, s).WithoutDisabledDefaults(s)
			if (got == s) != tc.samePtr {
				t.Errorf("returned the schema itself = %t, want %t", got == s, tc.samePtr)
			}
			if !cmp.Equal(pristine, s) {
				t.Errorf("the input schema was modified: %s", cmp.Diff(pristine, s))
			}
			o := intObj(t, tc.in)
			structuraldefaulting.Default(o, got)
			if diff := cmp.Diff(intObj(t, tc.want), o); diff != "" {
				t.Errorf("defaulted object (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultBelowNamedKey: a path through one named key of a map, whose value schema is
// shared by every key, has a default that WithoutDisabledDefaults cannot take from that key
// alone exactly when the value schema has a default at the rest of the path, below it, or
// holding a value there.
func TestDefaultBelowNamedKey(t *testing.T) {
	s := structuralFromJSON(t, `{"type": "object", "properties": {"spec": {"type": "object",
	  "default": {"ports": {"http": 80}},
	  "properties": {
	    "ports": {"type": "object", "additionalProperties": {"type": "integer", "default": 443}},
	    "plain": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "string"}}}},
	    "tiers": {"type": "object", "additionalProperties": {"type": "object", "properties": {
	      "size": {"type": "integer", "default": 1},
	      "deep": {"type": "object", "properties": {"x": {"type": "object", "properties": {"y": {"type": "string", "default": "d"}}}}},
	      "held": {"type": "object", "default": {"k": "v"}, "properties": {"k": {"type": "string"}, "m": {"type": "string"}}},
	      "none": {"type": "string"}}}},
	    "lists": {"type": "object", "additionalProperties": {"type": "array",
	      "default": [{"n": 1}], "items": {"type": "object", "properties": {"n": {"type": "integer"}, "o": {"type": "integer"}}}}},
	    "nested": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {
	      "type": "object", "properties": {"z": {"type": "string", "default": "z"}, "w": {"type": "string"}}}}},
	    "items": {"type": "array", "items": {"type": "object", "properties": {
	      "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"q": {"type": "integer", "default": 2}}}}}}},
	    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}`)
	tests := []struct {
		path    string
		wantMap string // empty: no such default
		wantKey string
	}{
		{path: ".spec.ports.https", wantMap: ".spec.ports", wantKey: "https"},
		{path: ".spec.ports[*]"},
		{path: ".spec.ports"},
		{path: ".spec.plain.k.a"},
		{path: ".spec.plain.k"},
		{path: ".spec.tiers.gold", wantMap: ".spec.tiers", wantKey: "gold"},
		{path: ".spec.tiers.gold.size", wantMap: ".spec.tiers", wantKey: "gold"},
		{path: ".spec.tiers.gold.deep", wantMap: ".spec.tiers", wantKey: "gold"},
		{path: ".spec.tiers.gold.deep.x.y", wantMap: ".spec.tiers", wantKey: "gold"},
		{path: ".spec.tiers.gold.held.k", wantMap: ".spec.tiers", wantKey: "gold"},
		{path: ".spec.tiers.gold.held.m"},
		{path: ".spec.tiers.gold.none"},
		{path: ".spec.tiers[*].size"},
		{path: ".spec.lists.a[*].n", wantMap: ".spec.lists", wantKey: "a"},
		{path: ".spec.lists.a[*].o"},
		{path: ".spec.nested.a.b.z", wantMap: ".spec.nested", wantKey: "a"},
		{path: ".spec.nested[*].b.z", wantMap: ".spec.nested[*]", wantKey: "b"},
		{path: ".spec.nested[*].b.w"},
		{path: ".spec.nested.a[*].w"},
		{path: ".spec.items[*].m.k.q", wantMap: ".spec.items[*].m", wantKey: "k"},
		{path: ".spec.items[*].m[*].q"},
		{path: ".spec.free.a.b"},
		{path: ".spec.missing.a"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p, err := ParsePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			mapPath, key, found := DefaultBelowNamedKey(p, s)
			if found != (tc.wantMap != "") || mapPath.String() != tc.wantMap || key != tc.wantKey {
				t.Errorf("DefaultBelowNamedKey = %q, %q, %t; want %q, %q, %t", mapPath.String(), key, found, tc.wantMap, tc.wantKey, tc.wantMap != "")
			}
		})
	}
}

// TestApplyDefaultsAsUpstream: applyDefaults gives a value what the API server's structural
// defaulting gives it (the reference), and changes nothing a value holds.
func TestApplyDefaultsAsUpstream(t *testing.T) {
	schema := structuralFromJSON(t, `{"type":"object","properties":{
		"a":{"type":"string","default":"da"},
		"n":{"type":"string","nullable":true,"default":"dn"},
		"o":{"type":"object","properties":{"x":{"type":"integer","default":1},"y":{"type":"object","default":{"z":"dz"},"properties":{"z":{"type":"string"}}}}},
		"l":{"type":"array","items":{"type":"object","default":{"k":"dk"},"properties":{"k":{"type":"string"},"m":{"type":"string","default":"dm"}}}},
		"mp":{"type":"object","additionalProperties":{"type":"object","default":{"v":"dv"},"properties":{"v":{"type":"string"},"w":{"type":"string","default":"dw"}}}}}}`)
	for _, value := range []string{
		`{}`,
		`{"a":"set","n":null,"o":{},"l":[],"mp":{}}`,
		`{"a":null,"o":{"x":7,"y":null},"l":[null,{"k":"k1"},{"m":"own"}],"mp":{"p":null,"q":{"v":"own"}}}`,
		`{"o":{"y":{}},"l":[{}],"mp":{"r":{}}}`,
	} {
		var got, want map[string]interface{}
		if err := utiljson.Unmarshal([]byte(value), &got); err != nil {
			t.Fatal(err)
		}
		if err := utiljson.Unmarshal([]byte(value), &want); err != nil {
			t.Fatal(err)
		}
		applyDefaults(got, schema)
		structuraldefaulting.Default(want, schema)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: applyDefaults differs from structural defaulting (-upstream +applyDefaults):\n%s", value, diff)
		}
	}
}
