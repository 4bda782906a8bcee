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
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The guard's checks of lists (see guard.go): map lists by their keys, lists without keys
// by the rule of "Which new item continues a stored one".

// byKeys checks a list of type map: a result item continues the stored item with its keys.
func (c *checker) byKeys(n *node, o, r []interface{}) *field.Error {
	stored := make(map[string]int, len(o))
	for j, it := range o {
		if k, ok := keysOf(it, n.listMapKeys); ok {
			stored[k] = j // keys are unique in a valid list; with duplicates, the last
		}
	}
	for i, it := range r {
		var ov interface{}
		oHas := false
		if k, ok := keysOf(it, n.listMapKeys); ok {
			if j, found := stored[k]; found {
				ov, oHas = o[j], true
			}
		}
		c.push(step{index: i, kind: 2})
		err := c.value(n.wildcard, ov, oHas, it, true)
		c.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

// keyless checks a list without keys. It pairs the result items with the stored ones by the
// rule (items equal outside the disabled paths, in order; then one item, or items that send
// back what they hold, edited in place between pairs in order), refuses what the rule cannot
// tell, and checks every item against the stored item it continues, or against none.
func (c *checker) keyless(n *node, o, r []interface{}) *field.Error {
	w := n.wildcard
	holder := make([]*GatedPath, len(o))
	anyHolder := false
	for j, it := range o {
		holder[j] = firstGated(w, it)
		anyHolder = anyHolder || holder[j] != nil
	}
	pair := make([]int, len(r))
	for i := range pair {
		pair[i] = -1
	}
	if anyHolder {
		var err *field.Error
		if pair, err = c.pairKeyless(w, o, r, holder); err != nil {
			return err
		}
	}
	for i, it := range r {
		var ov interface{}
		oHas := false
		if pair[i] >= 0 {
			ov, oHas = o[pair[i]], true
		}
		c.push(step{index: i, kind: 2})
		err := c.value(w, ov, oHas, it, true)
		c.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) pairKeyless(w *node, o, r []interface{}, holder []*GatedPath) ([]int, *field.Error) {
	pair := make([]int, len(r))
	taken := make([]bool, len(o))
	byLook := map[string][]int{}
	for j, it := range o {
		k := canonical(withoutGated(w, c.unsendable.shown(w, it), c.unsendable))
		byLook[k] = append(byLook[k], j)
	}
	rLook := make([]string, len(r))
	count := map[string]int{}
	for i, it := range r {
		rLook[i] = canonical(withoutGated(w, c.unsendable.shown(w, it), c.unsendable))
		count[rLook[i]]++
	}
	// Same items, in order; a changed number of them only among stored items wholly equal as
	// the write starts from them: a live property that the client's version lacks, which the
	// write erases from every item, does not count; the values at disabled paths do.
	next := map[string]int{}
	for i := range r {
		pair[i] = -1
		olds := byLook[rLook[i]]
		if len(olds) == 0 {
			continue
		}
		if count[rLook[i]] != len(olds) {
			first := olds[0]
			for _, j := range olds[1:] {
				if jsonEqual(o[j], o[first]) {
					continue
				}
				u := c.unsendable
				if !jsonEqual(u.withoutLacked(w, o[j]), u.withoutLacked(w, o[first])) || !jsonEqual(gatedPart(w, o[j]), gatedPart(w, o[first])) {
					return nil, c.unclear(o, olds, holder)
				}
			}
		}
		if x := next[rLook[i]]; x < len(olds) {
			pair[i], taken[olds[x]] = olds[x], true
			next[rLook[i]] = x + 1
		}
	}
	left := false
	for j := range o {
		left = left || (!taken[j] && holder[j] != nil)
	}
	newLeft, inOrder, last := false, true, -1
	for i := range r {
		if pair[i] < 0 {
			newLeft = true
		} else {
			inOrder = inOrder && pair[i] > last
			last = pair[i]
		}
	}
	if !left || !newLeft {
		return pair, nil // nothing to find, or removed with their values
	}
	if !inOrder {
		return nil, c.unclear(o, nil, holder)
	}
	// Edited in place: gap by gap between the pairs.
	oGap, rGap := map[int][]int{}, map[int][]int{}
	g := 0
	for j := range o {
		if taken[j] {
			g++
		} else {
			oGap[g] = append(oGap[g], j)
		}
	}
	g = 0
	for i := range r {
		if pair[i] >= 0 {
			g++
		} else {
			rGap[g] = append(rGap[g], i)
		}
	}
	// The stored items that the items of their own gap were sent back as, in order.
	var echoed map[int]bool
	for gap, olds := range oGap {
		if news := rGap[gap]; len(news) == len(olds) && c.sentBack(w, o, olds, news) {
			if echoed == nil {
				echoed = map[int]bool{}
			}
			for _, j := range olds {
				echoed[j] = true
			}
		}
	}
	// Rule 3: the holders of a gap left without result items are removed only when every
	// result item is paired once rule 2 is done.
	var removed []int
	for gap, olds := range oGap {
		news := rGap[gap]
		if len(olds) == 1 && len(news) == 1 {
			if j, ok := c.sentAnothers(w, o, olds[0], news[0], taken, echoed, holder); ok {
				return nil, c.unclear(o, []int{j}, holder)
			}
		}
		if len(news) == len(olds) && (len(olds) == 1 || c.sentBack(w, o, olds, news)) {
			for x, j := range olds {
				pair[news[x]] = j
			}
			continue
		}
		for _, j := range olds {
			if holder[j] == nil {
				continue
			}
			if len(news) > 0 {
				return nil, c.unclear(o, olds, holder)
			}
			removed = append(removed, j)
		}
	}
	if len(removed) > 0 {
		for i := range r {
			if pair[i] < 0 {
				return nil, c.unclear(o, removed, holder)
			}
		}
	}
	return pair, nil
}

// sentBack reports whether each result item news[x] was sent with exactly what the stored
// item olds[x] holds at the disabled paths (all of it: a value the client's version cannot
// show cannot be sent back).
func (c *checker) sentBack(w *node, o []interface{}, olds, news []int) bool {
	if c.sent == nil {
		return false
	}
	sent, ok := c.sent.lists[c.sentKey()]
	if !ok {
		return false
	}
	for x, j := range olds {
		if news[x] >= len(sent) || sent[news[x]] != canonical(sentPart(w, o[j])) {
			return false
		}
	}
	return true
}

// sentAnothers returns a stored holder other than o[old], neither taken as the same item nor
// echoed (sent back by the items of its own gap), that holds, at some disabled path, a value
// the result item news was sent with there, where o[old] does not hold it: the item sent may
// be that holder moved and changed. A value is at a place when it is there by one of the
// place's names (see namedLeaves).
func (c *checker) sentAnothers(w *node, o []interface{}, old, news int, taken []bool, echoed map[int]bool, holder []*GatedPath) (int, bool) {
	if c.sent == nil {
		return 0, false
	}
	sent, ok := c.sent.lists[c.sentKey()]
	if !ok || news >= len(sent) || sent[news] == canonical(sentPart(w, o[old])) {
		return 0, false
	}
	var values []namedLeaf
	if looks := c.sent.looks[c.sentKey()]; news < len(looks) && looks[news] != nil {
		values = looks[news]
	} else {
		var part interface{}
		d := json.NewDecoder(strings.NewReader(sent[news]))
		d.UseNumber()
		if err := d.Decode(&part); err != nil {
			return 0, false
		}
		for at, v := range leaves(part) {
			values = append(values, namedLeaf{names: []string{at}, value: v})
		}
	}
	placed := func(j int) map[string]string {
		out := leaves(sentPart(w, o[j]))
		l, _ := namedLeaves(w, c.unsendable.shown(w, o[j]), c.unsendable)
		for _, v := range l {
			for _, name := range v.names {
				out[name] = v.value
			}
		}
		return out
	}
	own := placed(old)
	for j := range o {
		if j == old || taken[j] || echoed[j] || holder[j] == nil {
			continue
		}
		theirs := placed(j)
		for _, v := range values {
			if v.at(theirs) && !v.at(own) {
				return j, true
			}
		}
	}
	return 0, false
}

// leaves renders the values of v by their path from v, descending objects and lists (by
// index), each as canonical JSON (nil gives none).
func leaves(v interface{}) map[string]string {
	out := map[string]string{}
	var walk func(at string, v interface{})
	walk = func(at string, v interface{}) {
		switch x := v.(type) {
		case nil:
		case map[string]interface{}:
			for k, cv := range x {
				walk(at+"/"+strconv.Quote(k), cv)
			}
		case []interface{}:
			for i, cv := range x {
				walk(at+"/"+strconv.Itoa(i), cv)
			}
		default:
			out[at] = canonical(v)
		}
	}
	walk("", v)
	return out
}

// namedLeaf is a value held at a disabled path, as canonical JSON, with the names of its
// place (see namedLeaves).
type namedLeaf struct {
	names []string
	value string
}

// at reports whether byName holds the leaf's value at one of its names.
func (l namedLeaf) at(byName map[string]string) bool {
	for _, name := range l.names {
		if v, ok := byName[name]; ok && v == l.value {
			return true
		}
	}
	return false
}

// namedLeaves lists the values v (whose node is n) holds at the disabled paths of n, each as
// canonical JSON with the names of its place below v: its path as leaves renders it on
// sentPart (an item of a list of type map named by its keys), and, for
// each item of a nested list without keys on the way, the same path with that item named by
// how it looks to the rule (withoutGated, by u) and its rank among the items of its list that
// look alike instead of its index. An item inserted in front of another then leaves the
// other's name as it was. nested reports whether any value lies below such a list.
func namedLeaves(n *node, v interface{}, u *Unsendable) (out []namedLeaf, nested bool) {
	extend := func(ats []string, step string) []string {
		next := make([]string, len(ats))
		for i, at := range ats {
			next[i] = at + step
		}
		return next
	}
	var walk func(n *node, ats []string, v interface{})
	walk = func(n *node, ats []string, v interface{}) {
		if n.target != nil {
			for p, lv := range leaves(v) {
				out = append(out, namedLeaf{names: extend(ats, p), value: lv})
				nested = nested || len(ats) > 1
			}
			return
		}
		switch x := v.(type) {
		case map[string]interface{}:
			for k, cv := range x {
				child, ok := childOf(n, k)
				if !ok {
					if n.wildcard == nil {
						continue
					}
					child = n.wildcard
				}
				walk(child, extend(ats, "/"+strconv.Quote(k)), cv)
			}
		case []interface{}:
			w := n.wildcard
			if w == nil {
				return
			}
			looked := w.target == nil && len(n.listMapKeys) == 0
			rank := map[string]int{}
			for i, cv := range x {
				step := "/" + strconv.Itoa(i)
				if len(n.listMapKeys) > 0 {
					step = "/" + strconv.Quote(placeOf(n, i, cv)) // as leaves renders sentPart's object
				}
				next := extend(ats, step)
				if looked {
					k := canonical(withoutGated(w, cv, u))
					next = append(next, extend(ats, "/~"+k+"#"+strconv.Itoa(rank[k]))...)
					rank[k]++
				}
				walk(w, next, cv)
			}
		}
	}
	walk(n, []string{""}, v)
	return out, nested
}

// unclear is the error of a write to a list without keys after which a stored item that
// holds a value at a disabled path cannot be told apart in the new list.
func (c *checker) unclear(o []interface{}, among []int, holder []*GatedPath) *field.Error {
	if !c.track {
		return errFault
	}
	fp := c.path()
	if among == nil {
		among = make([]int, len(o))
		for j := range o {
			among[j] = j
		}
	}
	for _, j := range among {
		if p := holder[j]; p != nil {
			return field.Invalid(fp, field.OmitValueType{}, headerSafe(fmt.Sprintf(
				"refused by the last check before storage: item %d of the stored list holds a value at %s, which feature gate %s (%s) disables, and the write does not say which new item it became; nothing was stored; reorder, remove and edit items in separate writes",
				j, p.Path.String(), p.Gate.Name, p.Gate.PreRelease)))
		}
	}
	return field.Invalid(fp, field.OmitValueType{}, "refused by the last check before storage: a stored item cannot be told apart in the new list")
}

func lostError(fp *field.Path, p *GatedPath) *field.Error {
	return field.Invalid(fp, field.OmitValueType{}, headerSafe(fmt.Sprintf(
		"refused by the last check before storage: the write would lose or move the stored value at %s, which feature gate %s (%s) disables; nothing was stored",
		p.Path.String(), p.Gate.Name, p.Gate.PreRelease)))
}

func letInError(fp *field.Path, p *GatedPath) *field.Error {
	return field.Invalid(fp, field.OmitValueType{}, headerSafe(fmt.Sprintf(
		"refused by the last check before storage: the write would store a value at %s, which feature gate %s (%s) disables, where none was stored; nothing was stored",
		p.Path.String(), p.Gate.Name, p.Gate.PreRelease)))
}

// noneIn returns the error of the first value v holds at a disabled path of n (n is v's
// node), at that value's path; nil when it holds none.
func (c *checker) noneIn(n *node, v interface{}) *field.Error {
	if n.target != nil {
		return c.fault(func(fp *field.Path) *field.Error { return letInError(fp, n.target) })
	}
	var err *field.Error
	switch x := v.(type) {
	case map[string]interface{}:
		for _, ch := range n.children {
			if cv, ok := x[ch.name]; ok {
				c.push(step{field: ch.name})
				err = c.noneIn(ch.node, cv)
				c.pop()
				if err != nil {
					return err
				}
			}
		}
		if n.wildcard != nil {
			for k, cv := range x {
				if hasChild(n, k) {
					continue
				}
				c.push(step{key: k, kind: 1})
				err = c.noneIn(n.wildcard, cv)
				c.pop()
				if err != nil {
					return err
				}
			}
		}
	case []interface{}:
		if n.wildcard != nil {
			for i, cv := range x {
				c.push(step{index: i, kind: 2})
				err = c.noneIn(n.wildcard, cv)
				c.pop()
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// firstGated returns the gated path of the first value v holds at a disabled path of n (n is
// v's node), or nil.
func firstGated(n *node, v interface{}) *GatedPath {
	if n.target != nil {
		return n.target
	}
	switch x := v.(type) {
	case map[string]interface{}:
		for _, ch := range n.children {
			if cv, ok := x[ch.name]; ok {
				if p := firstGated(ch.node, cv); p != nil {
					return p
				}
			}
		}
		if n.wildcard != nil {
			for k, cv := range x {
				if hasChild(n, k) {
					continue
				}
				if p := firstGated(n.wildcard, cv); p != nil {
					return p
				}
			}
		}
	case []interface{}:
		if n.wildcard != nil {
			for _, cv := range x {
				if p := firstGated(n.wildcard, cv); p != nil {
					return p
				}
			}
		}
	}
	return nil
}

// withoutGated returns v without its values at the disabled paths of n, without the lists and
// maps that the client's version lacks (u), and without the objects and nulls that, on the
// way to a disabled path, are left empty or were null: how an item looks to the rule. v is
// not modified.
func withoutGated(n *node, v interface{}, u *Unsendable) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		if len(n.children) == 0 && n.wildcard == nil {
			return v
		}
		out := make(map[string]interface{}, len(x))
		for k, cv := range x {
			child, named := childOf(n, k)
			switch {
			case named && (child.target != nil || u.lacks(child)):
			case named:
				p := withoutGated(child, cv, u)
				if m, isMap := p.(map[string]interface{}); p == nil || (isMap && len(m) == 0) {
					continue
				}
				if child.wildcard != nil && len(child.children) == 0 && (child.wildcard.target != nil || u.lacks(child.wildcard)) {
					continue // a list or map of values at a disabled path only: absent, as an empty object
				}
				out[k] = p
			case n.wildcard != nil && (n.wildcard.target != nil || u.lacks(n.wildcard)):
			case n.wildcard != nil:
				out[k] = withoutGated(n.wildcard, cv, u)
			default:
				out[k] = cv
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
			out[i] = withoutGated(n.wildcard, cv, u)
		}
		return out
	}
	return v
}

// sentPart is gatedPart with the items of each list of type map put by their keys, in an
// object, instead of by their places: what an item sends at the disabled paths, compared with
// what a stored item holds there, wherever the write put the items of such a list.
func sentPart(n *node, v interface{}) interface{} { return restricted(n, v, true) }

// placeOf names item i, cv, of the list at n: by its keys in a list of type map, by its index
// in any other.
func placeOf(n *node, i int, cv interface{}) string {
	if len(n.listMapKeys) > 0 {
		if k, ok := keysOf(cv, n.listMapKeys); ok {
			return "#" + k
		}
	}
	return strconv.Itoa(i)
}

// gatedPart returns v restricted to the disabled paths of n (nil when it holds nothing
// there); list items keep their places.
func gatedPart(n *node, v interface{}) interface{} { return restricted(n, v, false) }

// restricted is gatedPart, and sentPart when byKeys is set.
func restricted(n *node, v interface{}, byKeys bool) interface{} {
	if n.target != nil {
		return v
	}
	switch x := v.(type) {
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, cv := range x {
			child, named := childOf(n, k)
			if !named {
				if n.wildcard == nil {
					continue
				}
				child = n.wildcard
			}
			if p := restricted(child, cv, byKeys); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []interface{}:
		if n.wildcard == nil {
			return nil
		}
		if byKeys && len(n.listMapKeys) > 0 {
			out := map[string]interface{}{}
			for i, cv := range x {
				if p := restricted(n.wildcard, cv, byKeys); p != nil {
					out[placeOf(n, i, cv)] = p
				}
			}
			if len(out) == 0 {
				return nil
			}
			return out
		}
		out := make([]interface{}, len(x))
		some := false
		for i, cv := range x {
			out[i] = restricted(n.wildcard, cv, byKeys)
			some = some || out[i] != nil
		}
		if !some {
			return nil
		}
		return out
	}
	return nil
}

// keysOf renders the list-map keys of an item as one string; false for an item that is not
// an object.
func keysOf(item interface{}, keys []string) (string, bool) {
	m, ok := item.(map[string]interface{})
	if !ok {
		return "", false
	}
	vals := make([]interface{}, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return canonical(vals), true
}

// canonical renders a JSON value as canonical JSON (object keys sorted); a value that is not
// JSON renders as Go syntax, equal to no JSON value.
func canonical(v interface{}) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func childOf(n *node, name string) (*node, bool) {
	for _, ch := range n.children {
		if ch.name == name {
			return ch.node, true
		}
	}
	return nil, false
}

func hasChild(n *node, name string) bool {
	_, ok := childOf(n, name)
	return ok
}
