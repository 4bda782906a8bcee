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

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

func TestPrunesBelow(t *testing.T) {
	str := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
	obj := func(props map[string]structuralschema.Structural) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: props}
	}
	free := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Extensions: structuralschema.Extensions{XPreserveUnknownFields: true}}
	list := func(item structuralschema.Structural) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "array"}, Items: &item}
	}
	mapOf := func(value structuralschema.Structural) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, AdditionalProperties: &structuralschema.StructuralOrBool{Structural: &value, Bool: true}}
	}
	root := func(config structuralschema.Structural) *structuralschema.Structural {
		s := obj(map[string]structuralschema.Structural{"spec": obj(map[string]structuralschema.Structural{"image": str, "config": config})})
		return &s
	}
	rootWithout := func() *structuralschema.Structural {
		s := obj(map[string]structuralschema.Structural{"spec": obj(map[string]structuralschema.Structural{"image": str})})
		return &s
	}
	withPreserve := func(s structuralschema.Structural) structuralschema.Structural {
		s.XPreserveUnknownFields = true
		return s
	}
	embedded := func(s structuralschema.Structural) structuralschema.Structural {
		s.XEmbeddedResource = true
		return s
	}
	nullable := func(s structuralschema.Structural) structuralschema.Structural {
		s.Nullable = true
		return s
	}
	anyMap := func() structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Extensions: structuralschema.Extensions{XPreserveUnknownFields: true},
			AdditionalProperties: &structuralschema.StructuralOrBool{Bool: true}}
	}
	full := obj(map[string]structuralschema.Structural{"a": str, "nested": obj(map[string]structuralschema.Structural{"x": str})})
	partial := obj(map[string]structuralschema.Structural{"a": str})
	for _, tc := range []struct {
		name       string
		path       string
		storage, v *structuralschema.Structural
		want       bool
	}{
		{name: "same schema", path: ".spec.config", storage: root(full), v: root(full), want: false},
		{name: "the version lacks the path", path: ".spec.config", storage: root(full), v: rootWithout(), want: true},
		{name: "the version lacks a property below the path", path: ".spec.config", storage: root(full), v: root(partial), want: true},
		// Where the schemas differ below the path, the answer is true even where decoding in v
		// would keep all that the storage version keeps: a read, never a loss.
		{name: "the version has more below the path", path: ".spec.config", storage: root(partial), v: root(full), want: true},
		{name: "the version keeps unknown fields below the path", path: ".spec.config", storage: root(full), v: root(free), want: true},
		{name: "both keep unknown fields, the version lists a property more", path: ".spec.config", storage: root(free), v: root(withPreserve(full)), want: true},
		{name: "a list in one, a map in the other", path: ".spec.config[*]", storage: root(list(full)), v: root(mapOf(full)), want: true},
		{name: "items of a list that keeps unknown fields in one only", path: ".spec.config[*]", storage: root(withPreserve(list(partial))), v: root(list(partial)), want: true},
		{name: "an embedded resource in one only", path: ".spec.config", storage: root(embedded(free)), v: root(free), want: true},
		{name: "an embedded resource in the version only", path: ".spec.config", storage: root(free), v: root(embedded(free)), want: true},
		{name: "nullable in one only", path: ".spec.config", storage: root(nullable(full)), v: root(full), want: true},
		{name: "map values: a schema in one, additionalProperties true in the other", path: ".spec.config", storage: root(mapOf(free)), v: root(anyMap()), want: true},
		{name: "the storage version lacks the path", path: ".spec.config", storage: rootWithout(), v: root(full), want: true},
		{name: "the storage version keeps unknown fields, the version does not", path: ".spec.config", storage: root(free), v: root(full), want: true},
		{name: "list items lacking a property", path: ".spec.config[*]", storage: root(list(full)), v: root(list(partial)), want: true},
		{name: "list items alike", path: ".spec.config[*]", storage: root(list(full)), v: root(list(full)), want: false},
		{name: "a list where the version has no items", path: ".spec.config", storage: root(list(full)), v: root(structuralschema.Structural{Generic: structuralschema.Generic{Type: "array"}}), want: true},
		{name: "map values lacking a property", path: ".spec.config[*]", storage: root(mapOf(full)), v: root(mapOf(partial)), want: true},
		{name: "a path through a map key", path: ".spec.config.gold.nested", storage: root(mapOf(full)), v: root(mapOf(partial)), want: true},
		{name: "a sibling the version lacks does not count", path: ".spec.config.a", storage: root(full), v: root(partial), want: false},
		{name: "below unknown fields in the version", path: ".spec.config.nested.x", storage: root(full), v: root(free), want: true},
		{name: "the same schema through a map key", path: ".spec.config.gold.nested", storage: root(mapOf(full)), v: root(mapOf(full)), want: false},
		{name: "the same list", path: ".spec.config[*].nested", storage: root(list(full)), v: root(list(full)), want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := PrunesBelow(p, tc.storage, tc.v); got != tc.want {
				t.Errorf("PrunesBelow(%s) = %t, want %t", tc.path, got, tc.want)
			}
		})
	}
}
