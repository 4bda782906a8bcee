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
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// listKeysAlong returns, for each step of path, the x-kubernetes-list-map-keys of the list
// that the step iterates when it is [*] over a list of type map in schema, and nil for every
// other step (a field, a map's values, a list without keys, or a place schema does not know).
func listKeysAlong(path Path, schema *structuralschema.Structural) [][]string {
	keys := make([][]string, len(path.steps))
	for i, st := range path.steps {
		schema, keys[i] = schemaBelow(schema, st)
	}
	return keys
}

// schemaBelow returns the schema of what step st reaches in a value of schema (nil where
// schema does not say), and, when st is [*] over a list of type map, the list's
// x-kubernetes-list-map-keys.
func schemaBelow(schema *structuralschema.Structural, st Step) (*structuralschema.Structural, []string) {
	switch {
	case schema == nil:
		return nil, nil
	case st.Wildcard && schema.Items != nil:
		if schema.XListType != nil && *schema.XListType == "map" {
			return schema.Items, schema.XListMapKeys
		}
		return schema.Items, nil
	case !st.Wildcard && schema.Properties != nil:
		if prop, ok := schema.Properties[st.Field]; ok {
			return &prop, nil
		}
	}
	if schema.AdditionalProperties != nil {
		return schema.AdditionalProperties.Structural, nil
	}
	return nil, nil
}

// setAt reports whether newV holds, at a place that steps lead to, a value that oldV (present
// when oldHas) does not hold at the same place: a value the write sets or changes there.
// Removing a value does not set one. A place is the same place in both when every step to it
// is: a field by its name, a map's value by its key, an item of a list of type map by its
// list-map keys (keys[i] for step i, see listKeysAlong), and an item of another list by
// pairItems. It never modifies its arguments.
func setAt(newV, oldV interface{}, oldHas bool, steps []Step, keys [][]string) bool {
	if len(steps) == 0 {
		return !oldHas || !jsonEqual(newV, oldV)
	}
	st := steps[0]
	switch t := newV.(type) {
	case map[string]interface{}:
		oldMap, _ := oldV.(map[string]interface{})
		if !st.Wildcard {
			child, ok := t[st.Field]
			if !ok {
				return false
			}
			oldChild, oldChildHas := oldMap[st.Field]
			return setAt(child, oldChild, oldChildHas, steps[1:], keys[1:])
		}
		for k, child := range t {
			oldChild, oldChildHas := oldMap[k]
			if setAt(child, oldChild, oldChildHas, steps[1:], keys[1:]) {
				return true
			}
		}
	case []interface{}:
		if !st.Wildcard {
			return false
		}
		oldItems, _ := oldV.([]interface{})
		pairs := pairItems(t, oldItems, steps[1:], keys[0], keys[1:])
		for i, it := range t {
			var oldItem interface{}
			j := pairs[i]
			if j >= 0 {
				oldItem = oldItems[j]
			}
			if setAt(it, oldItem, j >= 0, steps[1:], keys[1:]) {
				return true
			}
		}
	}
	return false
}

// pairItems returns, for each new item, the index of the stored item whose place it takes for
// the values that rest (the steps below the items) leads to, or -1. Items of a list of type
// map pair by their list-map keys (listMapKeys; restKeys are those of the steps of rest). In
// another list, each stored item pairs at most once, in this order: a new item equal to a
// stored item (the item as stored, wherever the write put it); then one equal to a stored
// item but for the values at rest (the same item, with those values set or changed); then one
// that holds values at rest, with an unpaired stored item that holds them all at the same
// places (an item edited elsewhere, or whose nested items the write reordered, that sends its
// values unchanged); then the unpaired stored item at the same index (an item edited in
// place). So reorders, at any depth, set nothing, and a value sent in another item than the
// one that holds it is set there.
func pairItems(items, oldItems []interface{}, rest []Step, listMapKeys []string, restKeys [][]string) []int {
	pairs := make([]int, len(items))
	for i := range pairs {
		pairs[i] = -1
	}
	if len(oldItems) == 0 {
		return pairs
	}
	if len(listMapKeys) > 0 {
		pairByKeys(pairs, items, oldItems, listMapKeys)
		return pairs
	}
	used := make([]bool, len(oldItems))
	pass := func(same func(i, j int) bool) {
		for i := range items {
			if pairs[i] >= 0 {
				continue
			}
			for j := range oldItems {
				if !used[j] && same(i, j) {
					pairs[i], used[j] = j, true
					break
				}
			}
		}
	}
	pass(func(i, j int) bool { return jsonEqual(items[i], oldItems[j]) })
	pass(func(i, j int) bool { return jsonEqual(without(items[i], rest), without(oldItems[j], rest)) })
	pass(func(i, j int) bool {
		return setAt(items[i], nil, false, rest, restKeys) && !setAt(items[i], oldItems[j], true, rest, restKeys)
	})
	pass(func(i, j int) bool { return i == j })
	return pairs
}

// gone stands, in the result of without, for a value that the steps lead to.
type gone struct{}

// without returns v without the values that steps lead to: each such value is gone{} in a
// list, and absent from an object. v is not modified; what is not on the way is shared.
func without(v interface{}, steps []Step) interface{} {
	if len(steps) == 0 {
		return gone{}
	}
	st := steps[0]
	switch t := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, child := range t {
			if !st.Wildcard && k != st.Field {
				out[k] = child
				continue
			}
			if w := without(child, steps[1:]); w != (gone{}) {
				out[k] = w
			}
		}
		return out
	case []interface{}:
		if !st.Wildcard {
			return v
		}
		out := make([]interface{}, len(t))
		for i, it := range t {
			out[i] = without(it, steps[1:])
		}
		return out
	}
	return v
}
