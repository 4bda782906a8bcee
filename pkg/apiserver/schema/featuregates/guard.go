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

// This file is the last check of a gated write (the guard). It is written apart from the
// code that gates a write (apply.go, listitems.go) and calls none of it: it does not decide
// where a stored value goes, it checks, on the result of gating, that every stored value at
// a disabled path is where the rule of docs/feature-gates-semantics.md ("Which new item
// continues a stored one") puts it, and that no other value is there. A bug in the gating
// then refuses a write instead of losing, moving or letting in a value.

// Sent is what a write sent, before gating, in the lists without keys on the way to a
// disabled path: for each such list, by its path in the object, what each item sends at the
// disabled paths. CheckKept needs it to tell items edited in place, that send back what they
// hold, from items swapped and edited: gating has replaced those values by the stored ones.
type Sent struct {
	lists map[string][]string
}

// SentLists records, before gating, what newObj sends in its lists without keys on the way
// to a disabled path (see Sent). It returns nil, at no cost, when no disabled path goes
// through a list without keys; newObj is not modified.
func (ix *Index) SentLists(newObj map[string]interface{}, scope Scope) *Sent {
	if !ix.HasDisabled() || !ix.keyless || newObj == nil {
		return nil
	}
	s := &Sent{lists: map[string][]string{}}
	for _, c := range ix.disabled.children {
		if v, ok := newObj[c.name]; ok && scope.includes(c.name) {
			s.walk(c.node, v, "."+c.name)
		}
	}
	return s
}

func (s *Sent) walk(n *node, v interface{}, at string) {
	if n.target != nil {
		return
	}
	switch x := v.(type) {
	case map[string]interface{}:
		for _, c := range n.children {
			if cv, ok := x[c.name]; ok {
				s.walk(c.node, cv, at+"."+c.name)
			}
		}
		if w := n.wildcard; w != nil {
			for k, cv := range x {
				if !hasChild(n, k) {
					s.walk(w, cv, at+"["+strconv.Quote(k)+"]")
				}
			}
		}
	case []interface{}:
		w := n.wildcard
		if w == nil || w.target != nil {
			return
		}
		if len(n.listMapKeys) == 0 {
			keys := make([]string, len(x))
			for i, it := range x {
				keys[i] = canonical(gatedPart(w, it))
			}
			s.lists[at] = keys
		}
		for i, it := range x {
			s.walk(w, it, at+"["+strconv.Itoa(i)+"]")
		}
	}
}

// CheckKept is the last check of a gated write: result is the object gating gave for an
// update of oldObj (nil for a create), sent what the write sent in its lists without keys
// (SentLists, taken before gating). Within scope, it returns an error, and the write must be
// refused, unless:
//
//   - every value oldObj holds at a disabled path is in result at the place the rule gives
//     it, unchanged: at the same field, map key or list-map key; in the item of a list without
//     keys that continues the stored item; a gated [*] holds the stored items as they are;
//   - result holds no value at a disabled path where oldObj holds none.
//
// A stored value may be absent only with its own item or map entry, where the rule says the
// write removed it. The error is a 422's: its path is the value's or the list's, and it names
// the gate. oldObj and result are not modified.
func (ix *Index) CheckKept(result, oldObj map[string]interface{}, sent *Sent, scope Scope) *field.Error {
	if !ix.HasDisabled() || result == nil {
		return nil
	}
	// The walk tracks where it is only where it needs to: with lists without keys (Sent's
	// keys), or, after a walk that found a fault, to name its place.
	if err := ix.check(result, oldObj, sent, scope, sent != nil); err != errFault {
		return err
	}
	return ix.check(result, oldObj, sent, scope, true)
}

// errFault is what a walk that does not track its place returns for a fault.
var errFault = &field.Error{}

func (ix *Index) check(result, oldObj map[string]interface{}, sent *Sent, scope Scope, track bool) *field.Error {
	c := checker{sent: sent, track: track}
	for _, ch := range ix.disabled.children {
		if !scope.includes(ch.name) {
			continue
		}
		ov, oHas := oldObj[ch.name]
		rv, rHas := result[ch.name]
		c.push(step{field: ch.name})
		err := c.value(ch.node, ov, oHas, rv, rHas)
		c.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

type checker struct {
	sent *Sent
	// track is true when the walk keeps at, the place being checked, from the root (its field
	// path and Sent's key are built from it when needed). Without it, the walk allocates
	// nothing, and a fault is errFault.
	track bool
	at    []step
}

// step is one step of a place: a field, a map key, or a list index.
type step struct {
	field, key string
	index      int
	kind       int // 0 field, 1 key, 2 index
}

func (c *checker) push(s step) {
	if c.track {
		c.at = append(c.at, s)
	}
}

func (c *checker) pop() {
	if c.track {
		c.at = c.at[:len(c.at)-1]
	}
}

// fault returns the error build makes at the current place, or errFault when the walk does
// not track its place.
func (c *checker) fault(build func(*field.Path) *field.Error) *field.Error {
	if !c.track {
		return errFault
	}
	return build(c.path())
}

// path is the current place as a field path.
func (c *checker) path() *field.Path { return pathOf(c.at) }

// pathOf renders steps from the root as a field path.
func pathOf(steps []step) *field.Path {
	var p *field.Path
	for _, s := range steps {
		switch {
		case s.kind == 1:
			p = p.Key(s.key)
		case s.kind == 2:
			p = p.Index(s.index)
		case p == nil:
			p = field.NewPath(s.field)
		default:
			p = p.Child(s.field)
		}
	}
	return p
}

// sentKey is the current place as Sent's key (see Sent.walk).
func (c *checker) sentKey() string {
	var b strings.Builder
	for _, s := range c.at {
		switch s.kind {
		case 1:
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		case 2:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		default:
			b.WriteString("." + s.field)
		}
	}
	return b.String()
}

// value checks node n at the current place: the stored ov (present when oHas) against the
// result rv (present when rHas).
func (c *checker) value(n *node, ov interface{}, oHas bool, rv interface{}, rHas bool) *field.Error {
	if n.target != nil {
		switch {
		case oHas && (!rHas || !jsonEqual(ov, rv)):
			return c.fault(func(fp *field.Path) *field.Error { return lostError(fp, n.target) })
		case !oHas && rHas:
			return c.fault(func(fp *field.Path) *field.Error { return letInError(fp, n.target) })
		}
		return nil
	}
	var stored *GatedPath
	if oHas {
		stored = firstGated(n, ov)
	}
	if stored == nil {
		if rHas {
			return c.noneIn(n, rv)
		}
		return nil
	}
	if w := n.wildcard; w != nil && w.target != nil && len(n.children) == 0 {
		if !rHas || !jsonEqual(ov, rv) {
			return c.fault(func(fp *field.Path) *field.Error { return lostError(fp, w.target) })
		}
		return nil
	}
	switch o := ov.(type) {
	case map[string]interface{}:
		r, ok := rv.(map[string]interface{})
		if !ok {
			if len(n.children) == 0 && (!rHas || rv == nil) {
				return nil // every entry of the map removed, with its values
			}
			return c.fault(func(fp *field.Path) *field.Error { return lostError(fp, stored) })
		}
		for _, ch := range n.children {
			cov, coh := o[ch.name]
			crv, crh := r[ch.name]
			if ch.node.target != nil && coh == crh && (!coh || jsonEqual(cov, crv)) {
				continue // the common case, kept or absent in both, without a call
			}
			c.push(step{field: ch.name})
			err := c.value(ch.node, cov, coh, crv, crh)
			c.pop()
			if err != nil {
				return err
			}
		}
		w := n.wildcard
		if w == nil {
			return nil
		}
		for k, cov := range o {
			if hasChild(n, k) {
				continue
			}
			crv, crh := r[k]
			if w.target != nil && (!crh || !jsonEqual(cov, crv)) {
				c.push(step{key: k, kind: 1})
				return c.fault(func(fp *field.Path) *field.Error { return lostError(fp, w.target) })
			}
		}
		for k, crv := range r {
			if hasChild(n, k) {
				continue
			}
			cov, coh := o[k]
			c.push(step{key: k, kind: 1})
			err := c.value(w, cov, coh, crv, true)
			c.pop()
			if err != nil {
				return err
			}
		}
		return nil
	case []interface{}:
		r, ok := rv.([]interface{})
		if !ok {
			if !rHas || rv == nil {
				return nil // every item removed, with its values
			}
			return c.fault(func(fp *field.Path) *field.Error { return lostError(fp, stored) })
		}
		if len(n.listMapKeys) > 0 {
			return c.byKeys(n, o, r)
		}
		return c.keyless(n, o, r)
	}
	return nil
}

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
		k := canonical(withoutGated(w, it))
		byLook[k] = append(byLook[k], j)
	}
	rLook := make([]string, len(r))
	count := map[string]int{}
	for i, it := range r {
		rLook[i] = canonical(withoutGated(w, it))
		count[rLook[i]]++
	}
	// Same items, in order; a changed number of them only among wholly equal stored items.
	next := map[string]int{}
	for i := range r {
		pair[i] = -1
		olds := byLook[rLook[i]]
		if len(olds) == 0 {
			continue
		}
		if count[rLook[i]] != len(olds) {
			for _, j := range olds[1:] {
				if !jsonEqual(o[j], o[olds[0]]) {
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
	for gap, olds := range oGap {
		news := rGap[gap]
		if len(news) == len(olds) && (len(olds) == 1 || c.sentBack(w, o, olds, news)) {
			for x, j := range olds {
				pair[news[x]] = j
			}
			continue
		}
		for _, j := range olds {
			if holder[j] != nil {
				return nil, c.unclear(o, olds, holder)
			}
		}
	}
	return pair, nil
}

// sentBack reports whether each result item news[x] was sent with exactly what the stored
// item olds[x] holds at the disabled paths.
func (c *checker) sentBack(w *node, o []interface{}, olds, news []int) bool {
	if c.sent == nil {
		return false
	}
	sent, ok := c.sent.lists[c.sentKey()]
	if !ok {
		return false
	}
	for x, j := range olds {
		if news[x] >= len(sent) || sent[news[x]] != canonical(gatedPart(w, o[j])) {
			return false
		}
	}
	return true
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

// withoutGated returns v without its values at the disabled paths of n, and without the
// objects and nulls that, on the way to a disabled path, are left empty or were null: how an
// item looks to the rule. v is not modified.
func withoutGated(n *node, v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		if len(n.children) == 0 && n.wildcard == nil {
			return v
		}
		out := make(map[string]interface{}, len(x))
		for k, cv := range x {
			child, named := childOf(n, k)
			switch {
			case named && child.target != nil:
			case named:
				p := withoutGated(child, cv)
				if m, isMap := p.(map[string]interface{}); p == nil || (isMap && len(m) == 0) {
					continue
				}
				out[k] = p
			case n.wildcard != nil && n.wildcard.target != nil:
			case n.wildcard != nil:
				out[k] = withoutGated(n.wildcard, cv)
			default:
				out[k] = cv
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
			out[i] = withoutGated(n.wildcard, cv)
		}
		return out
	}
	return v
}

// gatedPart returns v restricted to the disabled paths of n (nil when it holds nothing
// there); list items keep their places.
func gatedPart(n *node, v interface{}) interface{} {
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
			if p := gatedPart(child, cv); p != nil {
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
		out := make([]interface{}, len(x))
		some := false
		for i, cv := range x {
			out[i] = gatedPart(n.wildcard, cv)
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
