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
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// This file is the last check of a gated write (the guard). It is written apart from the
// code that gates a write (apply.go, listitems.go) and calls none of it: it does not decide
// where a stored value goes, it checks, on the result of gating, that every stored value at
// a disabled path is where the rule of docs/reference/semantics.md ("Which new item
// continues a stored one") puts it, and that no other value is there. A bug in the gating
// then refuses a write instead of losing, moving or letting in a value.

// Sent is what a write sent, before gating, in the lists without keys on the way to a
// disabled path: for each such list, by its path in the object, what each item sends at the
// disabled paths. CheckKept needs it to tell items edited in place, that send back what they
// hold, from items swapped and edited: gating has replaced those values by the stored ones.
type Sent struct {
	lists map[string][]string
	// looks holds, for the same lists, what each item sends at the disabled paths, each value
	// with the names of its place (see namedLeaves), for the items that send a value below a
	// nested list without keys; nil for the others.
	looks map[string][][]namedLeaf
}

// SentLists records, before gating, what newObj sends in its lists without keys on the way
// to a disabled path (see Sent). It returns nil, at no cost, when no disabled path goes
// through a list without keys; newObj is not modified.
func (ix *Index) SentLists(newObj map[string]interface{}, scope Scope) *Sent {
	if !ix.HasDisabled() || !ix.keyless || newObj == nil {
		return nil
	}
	s := &Sent{lists: map[string][]string{}, looks: map[string][][]namedLeaf{}}
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
			var looks [][]namedLeaf
			for i, it := range x {
				keys[i] = canonical(sentPart(w, it))
				if l, nested := namedLeaves(w, it, nil); nested {
					if looks == nil {
						looks = make([][]namedLeaf, len(x))
					}
					looks[i] = l
				}
			}
			s.lists[at] = keys
			if looks != nil {
				s.looks[at] = looks
			}
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
	return ix.CheckKeptIn(result, oldObj, sent, scope, nil)
}

// CheckKeptIn is CheckKept for a write sent in a version whose schema lacks the lists and maps
// in unsendable (UnsendableIn; nil for none): a stored list or map there that holds a value at
// a disabled path must also be in result exactly as stored, since the write could not send it.
func (ix *Index) CheckKeptIn(result, oldObj map[string]interface{}, sent *Sent, scope Scope, unsendable *Unsendable) *field.Error {
	if !ix.HasDisabled() || result == nil {
		return nil
	}
	// The walk tracks where it is only where it needs to: with lists without keys (Sent's
	// keys), or, after a walk that found a fault, to name its place.
	if err := ix.check(result, oldObj, sent, scope, sent != nil, unsendable); err != errFault {
		return err
	}
	return ix.check(result, oldObj, sent, scope, true, unsendable)
}

// errFault is what a walk that does not track its place returns for a fault.
var errFault = &field.Error{}

func (ix *Index) check(result, oldObj map[string]interface{}, sent *Sent, scope Scope, track bool, unsendable *Unsendable) *field.Error {
	c := checker{sent: sent, track: track, unsendable: unsendable}
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
	sent       *Sent
	unsendable *Unsendable
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
	if c.unsendable.lacks(n) && (!rHas || !jsonEqual(ov, rv)) {
		// The client's version cannot send this list or map: nothing the write did may
		// change it.
		return c.fault(func(fp *field.Path) *field.Error { return lostError(fp, stored) })
	}
	switch o := ov.(type) {
	case map[string]interface{}:
		r, ok := rv.(map[string]interface{})
		if !ok {
			if rHas && rv != nil {
				return c.fault(func(fp *field.Path) *field.Error { return lostError(fp, stored) })
			}
			// Left out or null: an object or map without its fields and entries. What must
			// be kept below it is then missing (a parent is recreated to hold it); what goes
			// with its item or entry (every entry of a map, every item of a list) may go.
			r = nil
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
