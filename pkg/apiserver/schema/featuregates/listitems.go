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
	"strconv"

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

// correlateItems is correlate; a test replaces it to show that CheckKept holds with a
// broken matcher.
var correlateItems = correlate

// correlate returns, for each new item of the list that n's wildcard iterates, the index of
// the stored item it continues, or -1 for an item the write adds. Every stored item is the
// continuation of at most one new item. Stored values are restored into the new item a stored
// item continues, so the invariant is: a stored value at a disabled path is never moved into
// another item, and it is dropped only with its own item, when no new item can be it.
//
// It implements the rule of docs/reference/semantics.md, "Which new item continues a
// stored one":
//
//   - Maps (when n's list is of type map): by the list-map keys.
//   - When no stored item holds a value at a disabled path (a holder), every new item is new:
//     there is nothing to restore.
//   - Same item: a new item equal to a stored one outside the disabled paths (see project)
//     continues it; equal items pair in order. Where the write changed how many equal items
//     there are, the stored ones must be wholly equal (otherwise which one was removed or
//     duplicated cannot be told).
//   - Edited in place: with the pairs so far in the same order in both lists, one stored item
//     left alone between two pairs (or an end of the list) continues the one new item left
//     between the same pairs.
//   - A holder still unpaired is removed, with its values, when no new item is unpaired after
//     the rules above; otherwise correlate returns an ambiguity (the write must be refused): it
//     may have been moved, swapped or edited together with its neighbours into one of those
//     new items.
func correlate(n *node, items, oldItems []interface{}, u *Unsendable) ([]int, *ambiguity) {
	match := make([]int, len(items))
	for i := range match {
		match[i] = -1
	}
	if len(oldItems) == 0 || len(items) == 0 {
		return match, nil
	}
	if len(n.listMapKeys) > 0 {
		pairByKeys(match, items, oldItems, n.listMapKeys)
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

	// Same item: equal outside the disabled paths, in order.
	oldGroups := map[string][]int{}
	for j, it := range oldItems {
		k := projectionKey(n.wildcard, u.shown(n.wildcard, it), u)
		oldGroups[k] = append(oldGroups[k], j)
	}
	newGroups := map[string][]int{}
	var order []string
	for i, it := range items {
		k := projectionKey(n.wildcard, u.shown(n.wildcard, it), u)
		if _, seen := newGroups[k]; !seen {
			order = append(order, k)
		}
		newGroups[k] = append(newGroups[k], i)
	}
	oldMatched := make([]bool, len(oldItems))
	for _, k := range order {
		news, olds := newGroups[k], oldGroups[k]
		if len(olds) == 0 {
			continue
		}
		if len(news) != len(olds) {
			for _, j := range olds[1:] {
				if !jsonEqual(oldItems[j], oldItems[olds[0]]) {
					item := j
					if held[item] == nil {
						item = olds[0]
					}
					if held[item] == nil {
						// Neither holds a value at a disabled path (they differ only where the
						// projection does not look, {} against absent): nothing to lose here.
						continue
					}
					return nil, &ambiguity{item: item, held: held[item], why: fmt.Sprintf("the write changed the number of items equal to it outside the disabled fields from %d to %d, and they hold different values there", len(olds), len(news))}
				}
			}
		}
		for x := 0; x < len(news) && x < len(olds); x++ {
			match[news[x]], oldMatched[olds[x]] = olds[x], true
		}
	}

	// The holders left over.
	firstLeft := -1
	for j := range oldItems {
		if !oldMatched[j] && held[j] != nil {
			firstLeft = j
			break
		}
	}
	if firstLeft < 0 {
		return match, nil
	}
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
	if !leftNew {
		return match, nil // removed, with their values: no new item can be them
	}
	if !monotone {
		return nil, &ambiguity{item: firstLeft, held: held[firstLeft], why: "the write reordered the list and also changed or removed this item"}
	}
	// With the pairs in the same order in both lists, the gap of an item is the number of
	// paired items before it, in its own list.
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
	// The holders that rule 1 left and that no item of their own gap sends back (see echoes):
	// a new item that sends, at a disabled path, what one of them holds there, in another
	// one's place, may be that one moved.
	var left []int
	for j := range oldItems {
		if oldMatched[j] || held[j] == nil {
			continue
		}
		if olds, news := oldInGap[gapOld[j]], newInGap[gapOld[j]]; len(olds) == len(news) && echoes(n.wildcard, items, news, oldItems, olds) {
			continue
		}
		left = append(left, j)
	}
	// Rule 2, gap by gap in order; rule 3 for the holders of the gaps the write left without
	// new items, once every gap is decided.
	removed := -1
	for g := 0; g <= len(oldItems); g++ {
		olds, news := oldInGap[g], newInGap[g]
		if len(olds) == 0 {
			continue
		}
		if len(olds) == 1 && len(news) == 1 {
			if other, ok := sendsAnothers(n.wildcard, items[news[0]], oldItems, olds[0], left, u); ok {
				return nil, &ambiguity{item: other, held: held[other], why: "the write put this item, changed, in the place of another stored item: it sends back, at the disabled fields, what this item holds"}
			}
		}
		if len(olds) == len(news) && (len(olds) == 1 || echoes(n.wildcard, items, news, oldItems, olds)) {
			for x, o := range olds {
				match[news[x]], oldMatched[o] = o, true // edited in place
			}
			continue
		}
		for _, o := range olds {
			if held[o] == nil {
				continue
			}
			if len(news) == 0 {
				if removed < 0 {
					removed = o // removed, if rule 2 leaves no new item unpaired
				}
				continue
			}
			return nil, &ambiguity{item: o, held: held[o], why: fmt.Sprintf("the write replaced %d items here, which this item is one of, with %d different ones that do not send back the values the stored items hold at the disabled fields, so which became which cannot be told", len(olds), len(news))}
		}
		for _, o := range olds {
			oldMatched[o] = true // no holder, or removed: the new items are new
		}
	}
	if removed >= 0 {
		for i := range items {
			if match[i] < 0 {
				return nil, &ambiguity{item: removed, held: held[removed], why: "the write removed this item and added one elsewhere in the list, which may be this item moved and changed"}
			}
		}
	}
	return match, nil
}

// echoes reports whether each new item items[news[x]] sends, at the disabled paths of n,
// exactly what the stored item oldItems[olds[x]] holds there (nothing, for a stored item that
// holds nothing there): a client that writes back what it read says, by those values, which
// item is which. A holder with a value that the client's version cannot show (its schema
// lacks the field) cannot be sent back whole: its client cannot say which item holds it.
func echoes(n *node, items []interface{}, news []int, oldItems []interface{}, olds []int) bool {
	for x := range news {
		if heldKey(n, items[news[x]]) != heldKey(n, oldItems[olds[x]]) {
			return false
		}
	}
	return true
}

// sendsAnothers returns a stored item among left (the holders that rule 1 left), other than
// oldItems[own], that holds, at a disabled path of n, a value the new item sends there,
// where oldItems[own] does not hold it: the new item, in own's place, may be that item
// moved. Places below the item are compared as leavesOf gives them: a value is at a place
// when it is there by any of the place's names. ok is false when there is none.
func sendsAnothers(n *node, item interface{}, oldItems []interface{}, own int, left []int, u *Unsendable) (other int, ok bool) {
	sent := leavesOf(n, item, u)
	if len(sent) == 0 {
		return 0, false
	}
	mine := byName(leavesOf(n, u.shown(n, oldItems[own]), u))
	for _, j := range left {
		if j == own {
			continue
		}
		theirs := byName(leavesOf(n, u.shown(n, oldItems[j]), u))
		for _, l := range sent {
			if l.in(theirs) && !l.in(mine) {
				return j, true
			}
		}
	}
	return 0, false
}

// leaf is one value an item holds at a disabled path, as canonical JSON, with the names of
// its place below the item (see leavesOf).
type leaf struct {
	names []string
	value string
}

// in reports whether the values by name hold the leaf's value at one of its names.
func (l leaf) in(byName map[string]string) bool {
	for _, name := range l.names {
		if v, ok := byName[name]; ok && v == l.value {
			return true
		}
	}
	return false
}

// byName indexes leaves by each of their names.
func byName(leaves []leaf) map[string]string {
	out := make(map[string]string, len(leaves))
	for _, l := range leaves {
		for _, name := range l.names {
			out[name] = l.value
		}
	}
	return out
}

// leavesOf lists the values that v, whose node is n, holds at the disabled paths of n, each
// with the names of its place below v: the path by field, map key and list index, where an
// item of a list without keys below v, on the way to a disabled path, is also named by how it
// looks to rule 1 (see projectionKey) and its rank among the items of that list that look
// alike, and an item of a list of type map by its keys instead of its index (see itemName). So a value sent in a nested item is found in the stored item that looks the same,
// also when the write inserted or removed an item in front of it, and by its index when the
// item was edited.
func leavesOf(n *node, v interface{}, u *Unsendable) []leaf {
	var out []leaf
	extend := func(ats []string, step string) []string {
		next := make([]string, len(ats))
		for i, at := range ats {
			next[i] = at + step
		}
		return next
	}
	var plain func(ats []string, v interface{})
	plain = func(ats []string, v interface{}) {
		switch x := v.(type) {
		case nil:
		case map[string]interface{}:
			for k, cv := range x {
				plain(extend(ats, "\x00"+k), cv)
			}
		case []interface{}:
			for i, cv := range x {
				plain(extend(ats, "\x00"+strconv.Itoa(i)), cv)
			}
		default:
			b, err := json.Marshal(v)
			if err != nil {
				out = append(out, leaf{names: ats, value: fmt.Sprintf("%#v", v)})
				return
			}
			out = append(out, leaf{names: ats, value: string(b)})
		}
	}
	var walk func(n *node, ats []string, v interface{})
	walk = func(n *node, ats []string, v interface{}) {
		if n.target != nil {
			plain(ats, v)
			return
		}
		switch x := v.(type) {
		case map[string]interface{}:
			for _, c := range n.children {
				if cv, ok := x[c.name]; ok {
					walk(c.node, extend(ats, "\x00"+c.name), cv)
				}
			}
			if n.wildcard != nil {
				for k, cv := range x {
					if _, named := childNamed(n, k); !named {
						walk(n.wildcard, extend(ats, "\x00"+k), cv)
					}
				}
			}
		case []interface{}:
			if n.wildcard == nil {
				return
			}
			looked := n.wildcard.target == nil && len(n.listMapKeys) == 0
			rank := map[string]int{}
			for i, cv := range x {
				next := extend(ats, "\x00"+itemName(n, i, cv))
				if looked {
					k := projectionKey(n.wildcard, cv, u)
					next = append(next, extend(ats, "\x01"+k+"\x01"+strconv.Itoa(rank[k]))...)
					rank[k]++
				}
				walk(n.wildcard, next, cv)
			}
		}
	}
	walk(n, []string{""}, v)
	return out
}

// heldKey renders what v holds at the disabled paths of n (see held), as canonical JSON.
func heldKey(n *node, v interface{}) string {
	b, err := json.Marshal(held(n, v))
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// held returns v restricted to the disabled paths of n: nil when v holds nothing there; the
// items of a list without keys keep their places (an item that holds nothing is nil), and the
// items of a list of type map are put by their keys (an object).
func held(n *node, v interface{}) interface{} {
	if n == nil {
		return nil
	}
	if n.target != nil {
		return v
	}
	switch x := v.(type) {
	case map[string]interface{}:
		var out map[string]interface{}
		put := func(k string, h interface{}) {
			if h == nil {
				return
			}
			if out == nil {
				out = map[string]interface{}{}
			}
			out[k] = h
		}
		for _, c := range n.children {
			if cv, ok := x[c.name]; ok {
				put(c.name, held(c.node, cv))
			}
		}
		if n.wildcard != nil {
			for k, cv := range x {
				if _, named := childNamed(n, k); !named {
					put(k, held(n.wildcard, cv))
				}
			}
		}
		if out == nil {
			return nil
		}
		return out
	case []interface{}:
		if n.wildcard == nil {
			return nil
		}
		if len(n.listMapKeys) > 0 {
			var out map[string]interface{}
			for i, cv := range x {
				if h := held(n.wildcard, cv); h != nil {
					if out == nil {
						out = map[string]interface{}{}
					}
					out[itemName(n, i, cv)] = h
				}
			}
			if out == nil {
				return nil
			}
			return out
		}
		out := make([]interface{}, len(x))
		any := false
		for i, cv := range x {
			out[i] = held(n.wildcard, cv)
			any = any || out[i] != nil
		}
		if !any {
			return nil
		}
		return out
	}
	return nil
}

// itemName names item i of the list at n, cv: by its list-map keys in a list of type map
// (where an item continues the stored item with its keys, wherever it is), by its index in
// any other list.
func itemName(n *node, i int, cv interface{}) string {
	if len(n.listMapKeys) > 0 {
		if k, ok := listMapKey(cv, n.listMapKeys); ok {
			return "\x02" + k
		}
	}
	return strconv.Itoa(i)
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
func projectionKey(n *node, v interface{}, u *Unsendable) string {
	b, err := json.Marshal(project(n, v, u))
	if err != nil {
		return fmt.Sprintf("%#v", v) // not JSON-marshalable: no two such items are the same
	}
	return string(b)
}

// project returns v without its values at the disabled paths of n, and without the lists and
// maps that the client's version lacks (u; see Unsendable), which its client can neither see
// nor send; v is not modified.
func project(n *node, v interface{}, u *Unsendable) interface{} {
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
			if c.node.target != nil || u.lacks(c.node) {
				delete(out, c.name)
				continue
			}
			p := project(c.node, cv, u)
			if m, isMap := p.(map[string]interface{}); p == nil || (isMap && len(m) == 0) || allGated(c.node, u) {
				delete(out, c.name)
				continue
			}
			out[c.name] = p
		}
		if n.wildcard != nil {
			for k, cv := range out {
				if _, named := childNamed(n, k); named {
					continue
				}
				if n.wildcard.target != nil || u.lacks(n.wildcard) {
					delete(out, k)
				} else {
					out[k] = project(n.wildcard, cv, u)
				}
			}
		}
		return out
	case []interface{}:
		if n.wildcard == nil {
			return v
		}
		if n.wildcard.target != nil || u.lacks(n.wildcard) {
			return []interface{}{}
		}
		out := make([]interface{}, len(x))
		for i, cv := range x {
			out[i] = project(n.wildcard, cv, u)
		}
		return out
	}
	return v
}

// allGated reports whether n is a list or map whose every item is at a disabled path ([*]) or
// that the client's version lacks: it is on the way to those values only, and counts as
// absent to the rule, as an object left empty does.
func allGated(n *node, u *Unsendable) bool {
	return n.wildcard != nil && len(n.children) == 0 && (n.wildcard.target != nil || u.lacks(n.wildcard))
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

// path renders a.at, the path from the root to the value being gated, as a field path.
func (a *applier) path() *field.Path { return pathOf(a.at) }

// ambiguous is the error of a write to the list at a.at whose stored item could not be
// found in the new list: it names the list, the item, the gated path and its gate, and says
// what to do.
func (a *applier) ambiguous(n *node, amb *ambiguity) *field.Error {
	g := amb.held.Gate
	return field.Invalid(a.path(), field.OmitValueType{}, headerSafe(fmt.Sprintf(
		"item %d of the stored list holds a value at %s, which feature gate %s (%s) disables, and the new list does not say which item it became (%s): the server will not move the stored value to another item nor drop it; reorder, remove and edit items in separate writes, one edited item at a time, or remove the item in a write that adds none",
		amb.item, amb.held.Path.String(), g.Name, g.PreRelease, amb.why)))
}

// kindChanged is the error of a write that replaces a value below which the stored object
// holds a value at the disabled path held with a value of another kind (see replaced).
func (a *applier) kindChanged(held *GatedPath, newV interface{}) *field.Error {
	g := held.Gate
	what := "a value of another type"
	if newV == nil {
		what = "null"
	}
	return field.Invalid(a.path(), field.OmitValueType{}, headerSafe(fmt.Sprintf(
		"the stored value here holds a value at %s, which feature gate %s (%s) disables, and the write replaces it with %s, which cannot hold it: the server will not drop the stored value; keep the value's type, or enable the gate first",
		held.Path.String(), g.Name, g.PreRelease, what)))
}

// requiredMissing is the error of a write that removes an object below which the stored
// object holds a value at the disabled path held, when the object recreated to hold that
// value would lack its required property name.
func (a *applier) requiredMissing(held *GatedPath, name string) *field.Error {
	g := held.Gate
	return field.Invalid(a.path(), field.OmitValueType{}, headerSafe(fmt.Sprintf(
		"the write removes this object, which holds a stored value at %s, which feature gate %s (%s) disables: the server keeps that value, and the object recreated to hold it would lack its required field %q; keep the object, or enable the gate first",
		held.Path.String(), g.Name, g.PreRelease, name)))
}
