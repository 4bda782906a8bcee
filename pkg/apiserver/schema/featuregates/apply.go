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
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
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

// Rest returns the scope of the part of an object that s leaves out, and false when s
// leaves out nothing (ScopeAll).
func (s Scope) Rest() (Scope, bool) {
	switch s {
	case ScopeExceptStatus:
		return ScopeStatus, true
	case ScopeStatus:
		return ScopeExceptStatus, true
	}
	return ScopeAll, false
}

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
// path, in path order. A create has no stored items to correlate, so it cannot fail.
func (ix *Index) PrepareForCreate(obj map[string]interface{}, scope Scope) []Change {
	changes, _ := ix.PrepareForUpdate(obj, nil, scope)
	return changes
}

// PrepareForUpdate applies the gates to an update of oldObj into newObj, both in the
// storage version's shape. For every effectively disabled path: where oldObj has a value,
// newObj gets that value back; elsewhere the value is removed from newObj. A null
// sent for a parent of a stored value is treated like an absent parent: the parent gets the
// stored value back. Items reached through [*] are correlated by key for maps, by their
// list-map keys for lists of type map, and for other lists by what they hold outside the
// disabled paths (see correlate): a stored value stays with its own item, whatever the write
// does to the order of the list, and leaves with it when the item is removed. Where a path's
// whole value is an item ([*] is the gated path), the stored items are kept as they are. A
// nil oldObj means create. oldObj is never modified, and a stored object or list that newObj
// keeps is oldObj's own, not a copy (as upstream's strategy keeps the stored status): the
// caller modifies neither afterwards.
//
// It returns an error, and newObj must not be persisted, only when a list without keys
// changed so that the stored item that holds a disabled value cannot be told apart in the
// new list (see correlate); the error's path is the list's.
func (ix *Index) PrepareForUpdate(newObj, oldObj map[string]interface{}, scope Scope) ([]Change, *field.Error) {
	return ix.PrepareForUpdateIn(newObj, oldObj, scope, nil)
}

// PrepareForUpdateIn is PrepareForUpdate for a write sent in a version whose schema lacks the
// lists and maps in unsendable (UnsendableIn of that version's schema; nil for none): where
// the write leaves out such a list or map, and the stored one holds a value at a disabled path,
// the stored list or map is kept as it is, items and all, since the client could not send it.
func (ix *Index) PrepareForUpdateIn(newObj, oldObj map[string]interface{}, scope Scope, unsendable *Unsendable) ([]Change, *field.Error) {
	if !ix.HasDisabled() || newObj == nil {
		return nil, nil
	}
	a := applier{scope: scope, targets: ix.targets, unsendable: unsendable}
	a.at = a.atBuf[:0]
	a.fields(ix.disabled, newObj, oldObj, true)
	if a.err != nil {
		return nil, a.err
	}
	if len(a.changes) == 0 {
		return nil, nil
	}
	changes := a.changes
	// In path order; a path reached more than once (through [*]) is one change, and a value
	// not applied anywhere makes it NotApplied.
	slices.SortStableFunc(changes, func(x, y Change) int {
		switch {
		case x.Path.before(y.Path):
			return -1
		case y.Path.before(x.Path):
			return 1
		}
		return 0
	})
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
	return out, nil
}

type applier struct {
	scope   Scope
	changes []Change
	// at is the path from the root to the value being gated (field names, map keys and list
	// indexes), for the error of an ambiguous list; err is the first such error.
	at  []step
	err *field.Error
	// atBuf holds at for paths of ordinary depth, and targets is the index's number of
	// disabled paths, the usual number of changes at most: a write then allocates for neither.
	atBuf   [8]step
	targets int
	// unsendable are the lists and maps the client's version lacks (see PrepareForUpdateIn).
	unsendable *Unsendable
}

func (a *applier) record(p *GatedPath, kind ChangeKind) {
	if a.changes == nil {
		a.changes = make([]Change, 0, a.targets)
	}
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
			}
			return oldV, true
		case newHas:
			a.record(n.target, Dropped)
		}
		return nil, false
	}
	if oldHas && (!newHas || newV == nil || !sameKind(newV, oldV)) {
		if held := firstHeld(n, oldV); held != nil {
			return a.replaced(n, held, newV, newHas, oldV)
		}
	}
	oldMap, _ := oldV.(map[string]interface{})
	if newMap, isMap := newV.(map[string]interface{}); len(n.children) > 0 && isMap {
		a.fields(n, newMap, oldMap, false)
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

// replaced applies node n to a write that left out, nulled or replaced with a value of
// another kind (a scalar, a list for an object, an object for a list) a value below which the
// stored object holds a value at a disabled path, held:
//
//   - the items or values of a gated [*] (n's wildcard is the gated path) are kept as they
//     are, as if the write had sent them unchanged;
//   - an object left out or sent as null is recreated to hold the stored values below it;
//   - a list or map left out or sent as null lost its items with their values, as a write
//     that removes every item does;
//   - a list or map that the client's version lacks (see PrepareForUpdateIn), left out, is
//     kept as stored;
//   - a value of another kind is refused: keeping the stored values would undo the write,
//     and storing it would lose them.
func (a *applier) replaced(n *node, held *GatedPath, newV interface{}, newHas bool, oldV interface{}) (interface{}, bool) {
	if n.wildcard != nil && n.wildcard.target != nil && len(n.children) == 0 {
		a.record(n.wildcard.target, NotApplied)
		return oldV, true
	}
	if !newHas && a.unsendable.lacks(n) {
		a.record(held, NotApplied)
		return oldV, true
	}
	if newHas && newV != nil {
		a.fail(a.kindChanged(held, newV))
		return newV, newHas
	}
	if oldMap, ok := oldV.(map[string]interface{}); ok && len(n.children) > 0 {
		restored := map[string]interface{}{}
		a.fields(n, restored, oldMap, false)
		if len(restored) > 0 {
			if n.defaults != nil {
				// What decoding gives an object it finds: without it, reads would show
				// defaults that the stored object lacks, until the next write stores them.
				applyDefaults(restored, n.defaults)
			}
			for _, r := range n.required {
				if _, ok := restored[r]; !ok {
					a.fail(a.requiredMissing(held, r))
					break
				}
			}
			return restored, true
		}
	}
	return newV, newHas
}

// fail records the first error of a write that must be refused.
func (a *applier) fail(err *field.Error) {
	if a.err == nil {
		a.err = err
	}
}

// sameKind reports whether two JSON values are both objects, both lists, or both scalars.
func sameKind(x, y interface{}) bool {
	return jsonKind(x) == jsonKind(y)
}

func jsonKind(v interface{}) int {
	switch v.(type) {
	case map[string]interface{}:
		return 1
	case []interface{}:
		return 2
	case nil:
		return 3
	}
	return 0
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
			// The write leaves the stored value as it is. An object or a list becomes the
			// stored one itself, which CheckKept then finds in place without comparing it
			// again; a scalar costs less to compare than to write.
			if composite(oldV) {
				newMap[name] = oldV
			}
			continue
		}
		a.at = append(a.at, step{field: name})
		v, keep := a.value(child, newV, newHas, oldV, oldHas)
		a.at = a.at[:len(a.at)-1]
		if keep {
			newMap[name] = v
		} else if newHas {
			delete(newMap, name)
		}
	}
}

// mapValues applies n to every value of a map, correlated with the old map by key. When n is
// a gated path (every value of the map is gated), a stored key that the write removed comes
// back too.
func (a *applier) mapValues(n *node, newMap, oldMap map[string]interface{}) {
	for k, newV := range newMap {
		oldV, oldHas := oldMap[k]
		a.at = append(a.at, step{key: k, kind: 1})
		v, keep := a.value(n, newV, true, oldV, oldHas)
		a.at = a.at[:len(a.at)-1]
		if keep {
			newMap[k] = v
		} else {
			delete(newMap, k)
		}
	}
	if n.target == nil {
		return
	}
	for k, oldV := range oldMap {
		if _, ok := newMap[k]; !ok {
			a.record(n.target, NotApplied)
			newMap[k] = oldV
		}
	}
}

// list applies the wildcard child of n to every item of a list, each correlated with the
// stored item it continues (see correlate). When the items themselves are gated, the stored
// items are kept as they are and the new ones are dropped.
func (a *applier) list(n *node, items, oldItems []interface{}) []interface{} {
	if t := n.wildcard.target; t != nil {
		switch {
		case len(oldItems) > 0:
			if !jsonEqual(items, oldItems) {
				a.record(t, NotApplied)
			}
			return oldItems
		case len(items) > 0:
			a.record(t, Dropped)
		}
		return items[:0]
	}
	match, err := correlateItems(n, items, oldItems, a.unsendable)
	if err != nil {
		a.fail(a.ambiguous(n, err))
		return items
	}
	out := items[:0:0]
	removed := false
	for i, it := range items {
		var oldV interface{}
		oldHas := false
		if j := match[i]; j >= 0 {
			oldV, oldHas = oldItems[j], true
		}
		a.at = append(a.at, step{index: i, kind: 2})
		if it == nil && oldHas {
			// A null item is not an absent parent: there is no item left to hold the values.
			if held := firstHeld(n.wildcard, oldV); held != nil {
				a.fail(a.kindChanged(held, it))
			}
		}
		v, keep := a.value(n.wildcard, it, true, oldV, oldHas)
		a.at = a.at[:len(a.at)-1]
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

// pairByKeys sets match[i] to the index of the stored item with the list-map keys of new
// item i, for each new item that has a stored counterpart; the other entries are left as
// they are.
func pairByKeys(match []int, items, oldItems []interface{}, keys []string) {
	byKey := make(map[string]int, len(oldItems))
	for j, it := range oldItems {
		if k, ok := listMapKey(it, keys); ok {
			byKey[k] = j
		}
	}
	for i, it := range items {
		if k, ok := listMapKey(it, keys); ok {
			if j, found := byKey[k]; found {
				match[i] = j
			}
		}
	}
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
