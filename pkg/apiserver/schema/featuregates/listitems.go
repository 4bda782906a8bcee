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

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ambiguity is a stored list item that holds a value at a disabled path and that a write
// made impossible to find in the new list.
type ambiguity struct {
	// item is the index of the stored item; held is the gated path of the value it holds.
	item int
	held *GatedPath
	why  string
}

// correlate returns, for each new item of the list that n's wildcard iterates, the index of
// the stored item it continues, or -1 for an item the write adds. Every stored item is the
// continuation of at most one new item. Stored values are restored into the new item a stored
// item continues, so the invariant is: a stored value at a disabled path is never moved into
// another item, and it is dropped only with its own item.
//
//   - Maps (when n's list is of type map): by the list-map keys.
//   - When no stored item holds a value at a disabled path, every new item is new: there is
//     nothing to restore, and gating an item as new or as a continuation is the same.
//   - Otherwise, by content. Two items are the same item when they are equal outside the
//     disabled paths (see project); equal items pair in order, or, where the write changed
//     how many of them there are, at their own index first. That keeps stored values with
//     their items when the write reorders, inserts or removes items. The stored items
//     left over are then matched with the new items left over, gap by gap between the items
//     paired so far: a gap with as many new items as stored ones is a run of in-place edits
//     (paired in order), a gap without new items is a removal.
//   - Where a stored item that holds a value at a disabled path could have become more than
//     one new item, or could have been removed or edited, correlate returns an ambiguity
//     rather than guess: the write must then be rejected.
func correlate(n *node, items, oldItems []interface{}) ([]int, *ambiguity) {
	match := make([]int, len(items))
	for i := range match {
		match[i] = -1
	}
	if len(oldItems) == 0 || len(items) == 0 {
		return match, nil
	}
	if len(n.listMapKeys) > 0 {
		byKey := make(map[string]int, len(oldItems))
		for j, it := range oldItems {
			if k, ok := listMapKey(it, n.listMapKeys); ok {
				byKey[k] = j
			}
		}
		for i, it := range items {
			if k, ok := listMapKey(it, n.listMapKeys); ok {
				if j, found := byKey[k]; found {
					match[i] = j
				}
			}
		}
		return match, nil
	}
	held := make([]*GatedPath, len(oldItems))
	anyHeld := false
	for j, it := range oldItems {
		held[j] = firstHeld(n.wildcard, it)
		anyHeld = anyHeld || held[j] != nil
	}
	if !anyHeld {
		return match, nil
	}

	// Pair items equal outside the disabled paths. Where a group of equal items has as many
	// new items as stored ones, in order; otherwise an item at its own index first (the
	// others were edited, inserted or removed), then in order.
	oldKeys := make([]string, len(oldItems))
	oldGroups := map[string][]int{}
	for j, it := range oldItems {
		oldKeys[j] = projectionKey(n.wildcard, it)
		oldGroups[oldKeys[j]] = append(oldGroups[oldKeys[j]], j)
	}
	newKeys := make([]string, len(items))
	newGroups := map[string][]int{}
	var order []string
	for i, it := range items {
		newKeys[i] = projectionKey(n.wildcard, it)
		if _, seen := newGroups[newKeys[i]]; !seen {
			order = append(order, newKeys[i])
		}
		newGroups[newKeys[i]] = append(newGroups[newKeys[i]], i)
	}
	oldMatched := make([]bool, len(oldItems))
	for _, k := range order {
		news, olds := newGroups[k], oldGroups[k]
		if len(olds) == 0 {
			continue
		}
		if len(news) != len(olds) {
			for _, i := range news {
				if i < len(oldItems) && oldKeys[i] == k && !oldMatched[i] {
					match[i], oldMatched[i] = i, true
				}
			}
		}
		next := 0
		for _, i := range news {
			if match[i] >= 0 {
				continue
			}
			for next < len(olds) && oldMatched[olds[next]] {
				next++
			}
			if next == len(olds) {
				break
			}
			match[i], oldMatched[olds[next]] = olds[next], true
		}
	}

	// The items left over, gap by gap.
	leftNew := false
	monotone, last := true, -1
	for i := range items {
		if match[i] < 0 {
			leftNew = true
			continue
		}
		if match[i] < last {
			monotone = false
		}
		last = match[i]
	}
	if leftNew && !monotone {
		// The write reordered the list: which new item continues a stored item that changed
		// cannot be told from where it is.
		for j := range oldItems {
			if !oldMatched[j] && held[j] != nil {
				return nil, &ambiguity{item: j, held: held[j], why: "the write reordered the list and also changed or removed this item"}
			}
		}
	}
	if leftNew && monotone {
		// With the paired items in the same order in both lists, the gap of an item is the
		// number of paired items before it, in its own list.
		gapOld := gapsOf(len(oldItems), func(j int) bool { return oldMatched[j] })
		gapNew := gapsOf(len(items), func(i int) bool { return match[i] >= 0 })
		newInGap := map[int][]int{}
		for i := range items {
			if match[i] < 0 {
				newInGap[gapNew[i]] = append(newInGap[gapNew[i]], i)
			}
		}
		oldInGap := map[int][]int{}
		for j := range oldItems {
			if !oldMatched[j] {
				oldInGap[gapOld[j]] = append(oldInGap[gapOld[j]], j)
			}
		}
		for gap, olds := range oldInGap {
			news := newInGap[gap]
			switch {
			case len(news) == 0:
				// Removed, with their values.
			case len(news) == len(olds):
				// Edited in place.
				for k, j := range olds {
					match[news[k]], oldMatched[j] = j, true
				}
			default:
				for _, j := range olds {
					if held[j] != nil {
						return nil, &ambiguity{item: j, held: held[j], why: fmt.Sprintf("the write replaced %d items here with %d different ones", len(olds), len(news))}
					}
				}
			}
		}
	}
	return match, removedOneOfEqual(match, oldItems, oldKeys, held)
}

// removedOneOfEqual returns an ambiguity when the write removed a stored item that is equal,
// outside the disabled paths, to a stored item it kept, while the two hold different values
// there: which of them was removed, and so which values stay, cannot be known.
func removedOneOfEqual(match []int, oldItems []interface{}, oldKeys []string, held []*GatedPath) *ambiguity {
	paired := make([]bool, len(oldItems))
	for _, j := range match {
		if j >= 0 {
			paired[j] = true
		}
	}
	for j := range oldItems {
		if paired[j] {
			continue
		}
		for m := range oldItems {
			if !paired[m] || oldKeys[m] != oldKeys[j] || jsonEqual(oldItems[m], oldItems[j]) {
				continue
			}
			item, p := j, held[j]
			if p == nil {
				item, p = m, held[m]
			}
			if p == nil {
				continue
			}
			return &ambiguity{item: item, held: p, why: "the write removed one of several items that are equal outside the disabled fields but hold different values there"}
		}
	}
	return nil
}

// gapsOf returns, for each of n items, how many items before it are paired.
func gapsOf(n int, paired func(int) bool) []int {
	gaps := make([]int, n)
	count := 0
	for i := 0; i < n; i++ {
		gaps[i] = count
		if paired(i) {
			count++
		}
	}
	return gaps
}

// firstHeld returns the first gated path, in trie order, at which v holds a value, with n
// the trie node of v; nil when v holds none.
func firstHeld(n *node, v interface{}) *GatedPath {
	if n.target != nil {
		return n.target
	}
	switch x := v.(type) {
	case map[string]interface{}:
		for _, c := range n.children {
			if cv, ok := x[c.name]; ok {
				if p := firstHeld(c.node, cv); p != nil {
					return p
				}
			}
		}
		if n.wildcard != nil {
			for _, cv := range x {
				if p := firstHeld(n.wildcard, cv); p != nil {
					return p
				}
			}
		}
	case []interface{}:
		if n.wildcard != nil {
			for _, cv := range x {
				if p := firstHeld(n.wildcard, cv); p != nil {
					return p
				}
			}
		}
	}
	return nil
}

// projectionKey renders v without its values at the disabled paths of n, as canonical JSON.
// Objects that hold nothing but disabled values, and nulls, on the way to a disabled path
// are left out as well, so that an item the write sent without a parent, with an empty
// parent or with a null one is the same item as the stored one with the parent.
func projectionKey(n *node, v interface{}) string {
	b, err := json.Marshal(project(n, v))
	if err != nil {
		return fmt.Sprintf("%#v", v) // not JSON-marshalable: no two such items are the same
	}
	return string(b)
}

// project returns v without its values at the disabled paths of n; v is not modified.
func project(n *node, v interface{}) interface{} {
	if n == nil || v == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]interface{}:
		if len(n.children) == 0 && n.wildcard == nil {
			return v
		}
		out := make(map[string]interface{}, len(x))
		for k, cv := range x {
			out[k] = cv
		}
		for _, c := range n.children {
			cv, ok := x[c.name]
			if !ok {
				continue
			}
			if c.node.target != nil {
				delete(out, c.name)
				continue
			}
			p := project(c.node, cv)
			if m, isMap := p.(map[string]interface{}); p == nil || (isMap && len(m) == 0) {
				delete(out, c.name)
				continue
			}
			out[c.name] = p
		}
		if n.wildcard != nil {
			for k, cv := range out {
				if n.wildcard.target != nil {
					delete(out, k)
				} else if _, named := childNamed(n, k); !named {
					out[k] = project(n.wildcard, cv)
				}
			}
		}
		return out
	case []interface{}:
		if n.wildcard == nil {
			return v
		}
		if n.wildcard.target != nil {
			return []interface{}{}
		}
		out := make([]interface{}, len(x))
		for i, cv := range x {
			out[i] = project(n.wildcard, cv)
		}
		return out
	}
	return v
}

// childNamed returns the field child of n named name.
func childNamed(n *node, name string) (*node, bool) {
	for _, c := range n.children {
		if c.name == name {
			return c.node, true
		}
	}
	return nil, false
}

// ambiguous is the error of a write to the list at a.at whose stored item could not be
// found in the new list: it names the list, the item, the gated path and its gate, and says
// what to do.
func (a *applier) ambiguous(n *node, amb *ambiguity) *field.Error {
	p := field.NewPath("")
	for i, s := range a.at {
		switch x := s.(type) {
		case int:
			p = p.Index(x)
		case string:
			if i == 0 {
				p = field.NewPath(x)
			} else {
				p = p.Child(x)
			}
		}
	}
	g := amb.held.Gate
	return field.Invalid(p, field.OmitValueType{}, headerSafe(fmt.Sprintf(
		"item %d of the stored list holds a value at %s, which feature gate %s (%s) disables, and the new list does not say which item it became (%s): the server will not move the stored value to another item nor drop it; change the order of the list and the items' other fields in separate writes, or remove the item explicitly",
		amb.item, amb.held.Path.String(), g.Name, g.PreRelease, amb.why)))
}
