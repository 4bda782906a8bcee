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
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
)

// ChangeKind says what gating did to a value of a write.
type ChangeKind int

const (
	// Dropped: the write set a value that was not stored; it was removed.
	Dropped ChangeKind = iota
	// NotApplied: the write changed or removed a stored value; the stored value was kept.
	NotApplied
)

// Change is what gating did at one gated path of one write.
type Change struct {
	Kind ChangeKind
	Path *GatedPath
}

// Scope selects the part of an object a write may change.
type Scope int

const (
	// ScopeAll applies to the whole object (a write to the main resource without a status
	// subresource).
	ScopeAll Scope = iota
	// ScopeExceptStatus applies to everything but .status (a write to the main resource
	// when the status subresource is enabled: upstream already keeps the old status).
	ScopeExceptStatus
	// ScopeStatus applies to .status only (a write to the status subresource).
	ScopeStatus
)

func (s Scope) includes(root string) bool {
	switch s {
	case ScopeExceptStatus:
		return root != "status"
	case ScopeStatus:
		return root == "status"
	}
	return true
}

// PrepareForCreate removes every value at an effectively disabled path from obj, an
// object in the storage version's shape. It returns what it removed, one change per gated
// path, in path order.
func (ix *Index) PrepareForCreate(obj map[string]interface{}, scope Scope) []Change {
	return ix.PrepareForUpdate(obj, nil, scope)
}

// PrepareForUpdate applies the gates to an update of oldObj into newObj, both in the
// storage version's shape. For every effectively disabled path: where oldObj has a value,
// newObj gets that value back (a copy); elsewhere the value is removed from newObj. Items
// reached through [*] are correlated by their list-map keys, by index for other lists, and
// by key for maps. A nil oldObj means create. oldObj is never modified.
func (ix *Index) PrepareForUpdate(newObj, oldObj map[string]interface{}, scope Scope) []Change {
	if !ix.HasDisabled() || newObj == nil {
		return nil
	}
	a := applier{scope: scope}
	a.fields(ix.disabled, newObj, oldObj, true)
	if len(a.changes) == 0 {
		return nil
	}
	changes := a.changes
	// In path order; a path reached more than once (through [*]) is one change, and a value
	// not applied anywhere makes it NotApplied.
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path.before(changes[j].Path) })
	out := changes[:1]
	for _, c := range changes[1:] {
		last := &out[len(out)-1]
		if c.Path == last.Path {
			if c.Kind == NotApplied {
				last.Kind = NotApplied
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

type applier struct {
	scope   Scope
	changes []Change
}

func (a *applier) record(p *GatedPath, kind ChangeKind) {
	a.changes = append(a.changes, Change{Kind: kind, Path: p})
}

// value applies node n to one value: newV (present when newHas) against the stored oldV
// (present when oldHas). It returns the value to keep and whether to keep one.
func (a *applier) value(n *node, newV interface{}, newHas bool, oldV interface{}, oldHas bool) (interface{}, bool) {
	if n.target != nil {
		switch {
		case oldHas:
			if !newHas || !jsonEqual(newV, oldV) {
				a.record(n.target, NotApplied)
				return runtime.DeepCopyJSONValue(oldV), true
			}
			return newV, true
		case newHas:
			a.record(n.target, Dropped)
		}
		return nil, false
	}
	oldMap, _ := oldV.(map[string]interface{})
	if len(n.children) > 0 {
		newMap, isMap := newV.(map[string]interface{})
		switch {
		case newHas && !isMap:
			// A null or a value of the wrong type: there is nothing below to gate, and
			// validation judges the value itself.
		case !newHas && oldMap == nil:
			// Neither object has the value.
		default:
			created := !newHas
			if created {
				newMap = map[string]interface{}{}
			}
			a.fields(n, newMap, oldMap, false)
			if created && len(newMap) == 0 {
				return nil, false
			}
			newV, newHas = newMap, true
		}
	}
	if n.wildcard != nil && newHas {
		switch items := newV.(type) {
		case []interface{}:
			oldItems, _ := oldV.([]interface{})
			newV = a.list(n, items, oldItems)
		case map[string]interface{}:
			a.mapValues(n.wildcard, items, oldMap)
		}
	}
	return newV, newHas
}

// fields applies the field children of n to the properties of newMap.
func (a *applier) fields(n *node, newMap, oldMap map[string]interface{}, root bool) {
	for _, c := range n.children {
		name, child := c.name, c.node
		if root && !a.scope.includes(name) {
			continue
		}
		newV, newHas := newMap[name]
		oldV, oldHas := oldMap[name]
		if child.target != nil && newHas && oldHas && jsonEqual(newV, oldV) {
			continue // the write leaves the stored value as it is: nothing to restore or write
		}
		v, keep := a.value(child, newV, newHas, oldV, oldHas)
		if keep {
			newMap[name] = v
		} else if newHas {
			delete(newMap, name)
		}
	}
}

// mapValues applies n to every value of a map, correlated with the old map by key.
func (a *applier) mapValues(n *node, newMap, oldMap map[string]interface{}) {
	for k, newV := range newMap {
		oldV, oldHas := oldMap[k]
		if v, keep := a.value(n, newV, true, oldV, oldHas); keep {
			newMap[k] = v
		} else {
			delete(newMap, k)
		}
	}
}

// list applies the wildcard child of n to every item of a list, correlated with the old
// list by the list-map keys of n, or by index.
func (a *applier) list(n *node, items, oldItems []interface{}) []interface{} {
	var byKey map[string]interface{}
	if len(n.listMapKeys) > 0 && len(oldItems) > 0 {
		byKey = make(map[string]interface{}, len(oldItems))
		for _, it := range oldItems {
			if k, ok := listMapKey(it, n.listMapKeys); ok {
				byKey[k] = it
			}
		}
	}
	out := items[:0:0]
	removed := false
	for i, it := range items {
		var oldV interface{}
		oldHas := false
		if byKey != nil {
			if k, ok := listMapKey(it, n.listMapKeys); ok {
				oldV, oldHas = byKey[k]
			}
		} else if len(n.listMapKeys) == 0 && i < len(oldItems) {
			oldV, oldHas = oldItems[i], true
		}
		v, keep := a.value(n.wildcard, it, true, oldV, oldHas)
		if !keep {
			removed = true
			continue
		}
		items[i] = v
		out = append(out, v)
	}
	if !removed {
		return items
	}
	return out
}

// listMapKey renders the list-map key values of a list item as one comparable string.
func listMapKey(item interface{}, keys []string) (string, bool) {
	m, ok := item.(map[string]interface{})
	if !ok {
		return "", false
	}
	vals := make([]interface{}, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return fmt.Sprintf("%#v", vals), true
}
