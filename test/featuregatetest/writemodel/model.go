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

// Package writemodel is a reference model of what the API server stores for a write to a
// custom resource whose CRD has fields that are not live, written from
// docs/reference/semantics.md ("What a write does" and "Which new item continues a
// stored one") and from nothing else: it imports no server code. Tests compare the server
// (and its parts) with it, and generate the writes to compare with Gen. Test support only.
package writemodel

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Schema is what the model knows of a CRD: the paths that are not live (as the gates'
// field paths spell them: `.spec.steps[*].retry`, `.spec.tags[*]`) with no such path above
// them, and the x-kubernetes-list-map-keys of the lists of type map, by the list's path.
type Schema struct {
	Disabled []string
	ListKeys map[string][]string
	// Required are the required properties of objects, by the object's path.
	Required map[string][]string
	// ItemDefaults are, by the path of a list without keys, the defaults that the client's
	// version gives properties of the list's items (property name to value): the rule tells
	// items apart as that version decodes them.
	ItemDefaults map[string]map[string]interface{}
	// ItemLacks are, by the path of a list without keys, the properties of its items that the
	// client's version's schema lacks (conversion None): the rule tells items apart without
	// them, as that version decodes them.
	ItemLacks map[string][]string
}

// Expect returns what the server stores for a write that sends sent (the object after the
// write's patch, decoding and defaulting) over stored (nil for a create), or refused when the
// rule says the write must be refused with 422. Neither argument is modified.
func (s Schema) Expect(stored, sent map[string]interface{}) (map[string]interface{}, bool) {
	m := model{s: s}
	out, has := m.value("", stored, stored != nil, sent, true)
	if m.refused {
		return nil, true
	}
	if !has {
		return nil, false
	}
	o, _ := out.(map[string]interface{})
	return o, false
}

type model struct {
	s       Schema
	refused bool
}

func (m *model) disabled(p string) bool {
	for _, d := range m.s.Disabled {
		if d == p {
			return true
		}
	}
	return false
}

// below reports whether a path that is not live lies strictly below p.
func (m *model) below(p string) bool {
	for _, d := range m.s.Disabled {
		if len(d) > len(p) && strings.HasPrefix(d, p) && (d[len(p)] == '.' || d[len(p)] == '[') {
			return true
		}
	}
	return false
}

// named returns the field names that, below p, lead to a path that is not live.
func (m *model) named(p string) map[string]bool {
	out := map[string]bool{}
	for _, d := range m.s.Disabled {
		if len(d) > len(p)+1 && strings.HasPrefix(d, p) && d[len(p)] == '.' {
			rest := d[len(p)+1:]
			if i := strings.IndexAny(rest, ".["); i >= 0 {
				rest = rest[:i]
			}
			out[rest] = true
		}
	}
	return out
}

// holds reports whether v, at p, holds a value at a path that is not live.
func (m *model) holds(p string, v interface{}) bool {
	if m.disabled(p) {
		return true
	}
	if !m.below(p) {
		return false
	}
	switch x := v.(type) {
	case map[string]interface{}:
		named := m.named(p)
		for k, cv := range x {
			if named[k] {
				if m.holds(p+"."+k, cv) {
					return true
				}
			} else if m.holds(p+"[*]", cv) {
				return true
			}
		}
	case []interface{}:
		for _, cv := range x {
			if m.holds(p+"[*]", cv) {
				return true
			}
		}
	}
	return false
}

// look is v at p as the rule sees an item: without the values at paths that are not live,
// and without the objects and nulls on the way to them that are then empty or were null, nor
// the lists and maps whose every item is not live.
func (m *model) look(p string, v interface{}) interface{} {
	if !m.below(p) {
		return v
	}
	switch x := v.(type) {
	case map[string]interface{}:
		named := m.named(p)
		out := map[string]interface{}{}
		for k, cv := range x {
			if named[k] {
				if m.disabled(p + "." + k) {
					continue
				}
				l := m.look(p+"."+k, cv)
				if lm, ok := l.(map[string]interface{}); l == nil || (ok && len(lm) == 0) || m.disabled(p+"."+k+"[*]") {
					continue // empty, null, or a list or map of values that are not live only
				}
				out[k] = l
			} else if m.disabled(p + "[*]") {
				continue
			} else {
				out[k] = m.look(p+"[*]", cv)
			}
		}
		return out
	case []interface{}:
		if m.disabled(p + "[*]") {
			return []interface{}{}
		}
		out := make([]interface{}, len(x))
		for i, cv := range x {
			out[i] = m.look(p+"[*]", cv)
		}
		return out
	}
	return v
}

// part is v at p restricted to the paths that are not live; nil when it holds nothing there.
// The items of a list of type map are put by their keys, in an object: an item continues the
// stored item with its keys, wherever the write put it.
func (m *model) part(p string, v interface{}) interface{} {
	if m.disabled(p) {
		return v
	}
	if !m.below(p) {
		return nil
	}
	switch x := v.(type) {
	case map[string]interface{}:
		named := m.named(p)
		out := map[string]interface{}{}
		for k, cv := range x {
			q := p + "[*]"
			if named[k] {
				q = p + "." + k
			}
			if h := m.part(q, cv); h != nil {
				out[k] = h
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []interface{}:
		if _, keyed := m.s.ListKeys[p]; keyed {
			out := map[string]interface{}{}
			for i, cv := range x {
				if h := m.part(p+"[*]", cv); h != nil {
					out[m.itemName(p, i, cv)] = h
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
			out[i] = m.part(p+"[*]", cv)
			some = some || out[i] != nil
		}
		if !some {
			return nil
		}
		return out
	}
	return nil
}

func kind(v interface{}) string {
	switch v.(type) {
	case map[string]interface{}:
		return "object"
	case []interface{}:
		return "list"
	case nil:
		return "null"
	}
	return "scalar"
}

func copyJSON(v interface{}) interface{} {
	b, _ := json.Marshal(v)
	var out interface{}
	_ = json.Unmarshal(b, &out)
	return normalize(out)
}

// normalize turns JSON numbers decoded as float64 into int64 where they are whole, as the
// API server's decoder does.
func normalize(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, cv := range x {
			x[k] = normalize(cv)
		}
	case []interface{}:
		for i, cv := range x {
			x[i] = normalize(cv)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}

// Equal compares two JSON values as the API server stores them.
func Equal(a, b interface{}) bool {
	return reflect.DeepEqual(copyJSON(a), copyJSON(b))
}

// value is the rule at one place p: the stored value sv (present when sHas) and the sent
// one nv (present when nHas). It returns what is stored there, and whether anything is.
func (m *model) value(p string, sv interface{}, sHas bool, nv interface{}, nHas bool) (interface{}, bool) {
	// A field that is not live: the stored value, or nothing.
	if p != "" && m.disabled(p) {
		if sHas {
			return copyJSON(sv), true
		}
		return nil, false
	}
	// A gated [*]: the stored items or entries as they are; new ones are dropped.
	if m.disabled(p + "[*]") {
		if sHas && m.holds(p, sv) {
			return copyJSON(sv), true
		}
		switch nv.(type) {
		case []interface{}:
			return []interface{}{}, true
		case map[string]interface{}:
			return map[string]interface{}{}, true
		}
		return nv, nHas
	}
	if !m.below(p) {
		return nv, nHas
	}
	if sHas && m.holds(p, sv) && (!nHas || nv == nil || kind(nv) != kind(sv)) {
		if nHas && nv != nil {
			m.refused = true // a value of another kind cannot hold the stored values
			return nv, nHas
		}
		if so, ok := sv.(map[string]interface{}); ok && len(m.named(p)) > 0 {
			// An object left out or sent as null is recreated to hold the stored values.
			out := map[string]interface{}{}
			for k := range m.named(p) {
				if v, has := m.value(p+"."+k, so[k], hasKey(so, k), nil, false); has {
					out[k] = v
				}
			}
			if len(out) > 0 {
				for _, r := range m.s.Required[p] {
					if !hasKey(out, r) {
						m.refused = true // the recreated object would lack a required property
					}
				}
				return out, true
			}
		}
		return nv, nHas // a list or map left out: its items go, with their values
	}
	switch x := nv.(type) {
	case map[string]interface{}:
		so, _ := sv.(map[string]interface{})
		named := m.named(p)
		out := map[string]interface{}{}
		for k, cv := range x {
			if !named[k] {
				ov, oHas := so[k]
				if v, has := m.value(p+"[*]", ov, oHas, cv, true); has {
					out[k] = v
				}
				continue
			}
		}
		for k := range named {
			ov, oHas := so[k]
			cv, cHas := x[k]
			if v, has := m.value(p+"."+k, ov, oHas, cv, cHas); has {
				out[k] = v
			}
		}
		return out, true
	case []interface{}:
		sl, _ := sv.([]interface{})
		if keys, ok := m.s.ListKeys[p]; ok {
			return m.byKeys(p, keys, sl, x), true
		}
		return m.keyless(p, sl, x), true
	}
	return nv, nHas
}

func hasKey(m map[string]interface{}, k string) bool {
	_, ok := m[k]
	return ok
}

func (m *model) byKeys(p string, keys []string, sl, nl []interface{}) []interface{} {
	keyOf := func(v interface{}) (string, bool) {
		o, ok := v.(map[string]interface{})
		if !ok {
			return "", false
		}
		vals := make([]interface{}, len(keys))
		for i, k := range keys {
			vals[i] = o[k]
		}
		b, _ := json.Marshal(vals)
		return string(b), true
	}
	stored := map[string]interface{}{}
	for _, it := range sl {
		if k, ok := keyOf(it); ok {
			stored[k] = it
		}
	}
	out := make([]interface{}, 0, len(nl))
	for _, it := range nl {
		var sv interface{}
		sHas := false
		if k, ok := keyOf(it); ok {
			sv, sHas = stored[k]
		}
		v, _ := m.value(p+"[*]", sv, sHas, it, true)
		out = append(out, v)
	}
	return out
}

// decodedItem is v, an item of the list without keys at p, as the client's version decodes it:
// without the properties its schema lacks, and with the defaults it gives absent ones.
func (m *model) decodedItem(p string, v interface{}) interface{} {
	o, ok := v.(map[string]interface{})
	defaults, lacks := m.s.ItemDefaults[p], m.s.ItemLacks[p]
	if !ok || len(defaults)+len(lacks) == 0 {
		return v
	}
	out := copyJSON(o).(map[string]interface{})
	for _, k := range lacks {
		delete(out, k)
	}
	for k, d := range defaults {
		if x, has := out[k]; !has || x == nil {
			out[k] = copyJSON(d)
		}
	}
	return out
}

// startedFrom is v, a stored item of the list without keys at p, as a write in the client's
// version starts from it: without the properties that version's schema lacks and that are
// live, which decoding there prunes from every stored item and the write erases (as upstream's
// does). Those that are not live stay: they are stored values the write keeps.
func (m *model) startedFrom(p string, v interface{}) interface{} {
	o, ok := v.(map[string]interface{})
	if !ok || len(m.s.ItemLacks[p]) == 0 {
		return v
	}
	out := copyJSON(o).(map[string]interface{})
	for _, k := range m.s.ItemLacks[p] {
		if !m.disabled(p+"[*]."+k) && !m.below(p+"[*]."+k) {
			delete(out, k)
		}
	}
	return out
}

// keyless is the rule for a list without keys: which new item continues which stored one.
func (m *model) keyless(p string, sl, nl []interface{}) []interface{} {
	q := p + "[*]"
	// view is an item as the rule compares it: as the client's version decodes it, outside
	// the fields that are not live.
	view := func(v interface{}) interface{} { return m.look(q, m.decodedItem(p, v)) }
	cont := make([]int, len(nl))
	for i := range cont {
		cont[i] = -1
	}
	holder := make([]bool, len(sl))
	anyHolder := false
	for j, it := range sl {
		holder[j] = m.holds(q, it)
		anyHolder = anyHolder || holder[j]
	}
	if anyHolder {
		// 1. Same item: equal outside the fields that are not live, in order.
		used := make([]bool, len(sl))
		for i, it := range nl {
			for j, st := range sl {
				if !used[j] && Equal(view(it), view(st)) {
					cont[i], used[j] = j, true
					break
				}
			}
		}
		// A changed number of equal items is only allowed among wholly equal stored items, as
		// the write starts from them.
		for j := range sl {
			nStored, nSent, differ := 0, 0, false
			for _, st := range sl {
				if Equal(view(st), view(sl[j])) {
					nStored++
					differ = differ || !Equal(m.startedFrom(p, st), m.startedFrom(p, sl[j]))
				}
			}
			for _, it := range nl {
				if Equal(view(it), view(sl[j])) {
					nSent++
				}
			}
			if nSent > 0 && nSent != nStored && differ {
				m.refused = true
				return nl
			}
		}
		// 2. The holders left over.
		leftHolder, leftNew := false, false
		for j := range sl {
			leftHolder = leftHolder || (!used[j] && holder[j])
		}
		for i := range nl {
			leftNew = leftNew || cont[i] < 0
		}
		if leftHolder && leftNew {
			last := -1
			for i := range nl {
				if cont[i] >= 0 {
					if cont[i] < last {
						m.refused = true // reordered, and a holder changed or removed
						return nl
					}
					last = cont[i]
				}
			}
			// Gaps between the pairs: the stored and new items left between the same pairs.
			type gap struct{ olds, news []int }
			var gaps []gap
			for j := 0; j < len(sl); {
				if used[j] {
					j++
					continue
				}
				var olds []int
				for ; j < len(sl) && !used[j]; j++ {
					olds = append(olds, j)
				}
				before := olds[0] - 1 // the pair before the gap, in the stored list
				var news []int
				start := 0
				if before >= 0 {
					for i := range nl {
						if cont[i] == before {
							start = i + 1
						}
					}
				}
				for i := start; i < len(nl) && cont[i] < 0; i++ {
					news = append(news, i)
				}
				gaps = append(gaps, gap{olds, news})
			}
			// The stored items that the new items of their gap send back, in order.
			echoed := map[int]bool{}
			for _, gp := range gaps {
				if len(gp.olds) != len(gp.news) {
					continue
				}
				same := true
				for x := range gp.olds {
					same = same && Equal(m.part(q, nl[gp.news[x]]), m.part(q, sl[gp.olds[x]]))
				}
				for _, o := range gp.olds {
					echoed[o] = same
				}
			}
			for _, gp := range gaps {
				olds, news := gp.olds, gp.news
				if len(olds) == 1 && len(news) == 1 {
					// The new item sends, at some field that is not live, what another holder
					// left over, and not sent back in its own gap, holds there, and its own
					// stored item does not: it may be that item, moved and changed.
					sent, own := m.placed(q, nl[news[0]]), m.placed(q, m.decodedItem(p, sl[olds[0]]))
					for k := range sl {
						if k == olds[0] || used[k] || !holder[k] || echoed[k] {
							continue
						}
						other := m.placed(q, m.decodedItem(p, sl[k]))
						for _, v := range sent {
							if v.in(other) && !v.in(own) {
								m.refused = true
								return nl
							}
						}
					}
				}
				sendBack := true
				for x := range news {
					if x >= len(olds) || !Equal(m.part(q, nl[news[x]]), m.part(q, sl[olds[x]])) {
						sendBack = false
					}
				}
				if len(olds) == len(news) && (len(olds) == 1 || sendBack) {
					for x := range olds {
						cont[news[x]] = olds[x]
					}
					continue
				}
				for _, o := range olds {
					if holder[o] && len(news) > 0 {
						m.refused = true // moved, swapped or edited with its neighbours
						return nl
					}
				}
			}
			// 3. A holder left over, in a gap without new items, is removed only when no new
			// item is left unpaired: otherwise it may be any of them.
			paired := make([]bool, len(sl))
			unpairedNew := false
			for i := range nl {
				if cont[i] >= 0 {
					paired[cont[i]] = true
				} else {
					unpairedNew = true
				}
			}
			for j := range sl {
				if holder[j] && !paired[j] && unpairedNew {
					m.refused = true
					return nl
				}
			}
		}
	}
	out := make([]interface{}, len(nl))
	for i, it := range nl {
		if cont[i] >= 0 {
			if it == nil && holder[cont[i]] {
				m.refused = true // a null item cannot hold the stored values
				return nl
			}
			out[i], _ = m.value(q, sl[cont[i]], true, it, true)
		} else {
			out[i], _ = m.value(q, nil, false, it, true)
		}
	}
	return out
}

// placedValue is a value an item holds at a path that is not live, with the names of its
// place in the item (see placed).
type placedValue struct {
	names []string
	value interface{}
}

// in reports whether the item whose values are vs holds this value at one of its names.
func (v placedValue) in(vs []placedValue) bool {
	for _, o := range vs {
		if !Equal(o.value, v.value) {
			continue
		}
		for _, a := range o.names {
			for _, b := range v.names {
				if a == b {
					return true
				}
			}
		}
	}
	return false
}

// placed lists the values v, an item at q, holds at the paths that are not live, each with
// the names of its place in the item: its path (fields, map keys, list indexes), and, for
// each item of a list without keys on the way, the same path with that item named by its
// look and its rank among the items of its list that look alike. A value sent in a nested
// item is then found in the stored item that looks the same, wherever the write put it in
// its list, and, by index, in an item that was edited.
func (m *model) placed(q string, v interface{}) []placedValue {
	var out []placedValue
	extend := func(ats []string, step string) []string {
		next := make([]string, len(ats))
		for i, at := range ats {
			next[i] = at + step
		}
		return next
	}
	var walk func(p string, ats []string, v interface{})
	walk = func(p string, ats []string, v interface{}) {
		if m.disabled(p) {
			for f, x := range byField(v) {
				out = append(out, placedValue{names: extend(ats, f), value: x})
			}
			return
		}
		if !m.below(p) {
			return
		}
		switch x := v.(type) {
		case map[string]interface{}:
			fields := m.named(p)
			for k, cv := range x {
				next := p + "[*]"
				if fields[k] {
					next = p + "." + k
				}
				walk(next, extend(ats, "."+k), cv)
			}
		case []interface{}:
			_, keyed := m.s.ListKeys[p]
			rank := map[string]int{}
			for i, cv := range x {
				next := extend(ats, "["+m.itemName(p, i, cv)+"]")
				if !keyed && !m.disabled(p+"[*]") {
					b, _ := json.Marshal(copyJSON(m.look(p+"[*]", m.decodedItem(p, cv))))
					k := string(b)
					next = append(next, extend(ats, fmt.Sprintf("[~%s#%d]", k, rank[k]))...)
					rank[k]++
				}
				walk(p+"[*]", next, cv)
			}
		}
	}
	walk(q, []string{""}, v)
	return out
}

// itemName names item i, cv, of the list at p: by its list-map keys in a list of type map, by
// its index in any other.
func (m *model) itemName(p string, i int, cv interface{}) string {
	if keys, keyed := m.s.ListKeys[p]; keyed {
		if o, ok := cv.(map[string]interface{}); ok {
			vals := make([]interface{}, len(keys))
			for x, k := range keys {
				vals[x] = o[k]
			}
			b, _ := json.Marshal(copyJSON(vals))
			return "key=" + string(b)
		}
	}
	return fmt.Sprint(i)
}

// byField lists the values of a part (see part) by their place in it: objects and lists (by
// index) are entered, and each other value is one. Absent and null values are left out.
func byField(v interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	var walk func(at string, v interface{})
	walk = func(at string, v interface{}) {
		switch x := v.(type) {
		case nil:
		case map[string]interface{}:
			for k, cv := range x {
				walk(at+"."+k, cv)
			}
		case []interface{}:
			for i, cv := range x {
				walk(fmt.Sprintf("%s[%d]", at, i), cv)
			}
		default:
			out[at] = x
		}
	}
	walk("", v)
	return out
}
