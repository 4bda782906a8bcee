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

package policies

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

// The CEL of the mutating policy. Every expression reads the object as a dynamic
// (unstructured) value: optional chaining (x.?f) tells an absent field from a present one,
// and every op is guarded, because a JSON patch that removes a missing member fails the
// write.
//
// A gated path is split at its wildcards into runs of field names. A run starts at an
// anchor, a value known to exist in the new object (the root, or the item a wildcard
// iterates), and the anchor's counterpart in the stored object, an optional. Items of a
// list are matched with stored items by their list-map keys, values of a map by key, and
// items of other lists by what they hold outside the gated paths below them (the same
// index first), so a stored value is only ever put back into its own item.

// oldRoot is the stored object, an empty object on create: the variable old of every
// generated policy (gateVariables). A variable holding an optional loses its optional type
// where a policy reads it, so the anchor's stored value is the object itself; every path
// below it is selected with .? and is an optional.
const oldRoot = "variables.old"

// walker builds the expressions of one CRD's storage version.
type walker struct {
	// relTrees holds, per list or map path (the path up to a wildcard), the gated paths
	// below its items, for matching list items by content.
	gated []featuregates.Path
}

// step is one field name or a wildcard; node is the schema of the value it reaches, nil
// where the schema does not say (below x-kubernetes-preserve-unknown-fields).
type step struct {
	featuregates.Step
	node *structuralschema.Structural
}

// steps resolves p's steps in the schema s.
func resolveSteps(p featuregates.Path, s *structuralschema.Structural) []step {
	out := make([]step, 0, p.Len())
	for _, st := range p.Steps() {
		var next *structuralschema.Structural
		if s != nil {
			switch {
			case !st.Wildcard:
				if c, ok := s.Properties[st.Field]; ok {
					next = &c
				} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
					next = s.AdditionalProperties.Structural
				}
			case s.Items != nil:
				next = s.Items
			case s.AdditionalProperties != nil:
				next = s.AdditionalProperties.Structural
			}
		}
		out = append(out, step{Step: st, node: next})
		s = next
	}
	return out
}

// pointer is a JSON pointer being built: a CEL string expression.
type pointer string

func rootPointer() pointer { return pointer(celString("")) }

// field appends a field name.
func (p pointer) field(name string) pointer { return p.literal("/" + pointerToken(name)) }

func (p pointer) literal(tail string) pointer {
	if s, err := strconv.Unquote(string(p)); err == nil && strings.HasPrefix(string(p), `"`) {
		return pointer(celString(s + tail))
	}
	if strings.HasSuffix(string(p), `"`) {
		// ... + "lit": merge into the last literal.
		if i := strings.LastIndex(string(p), ` + "`); i >= 0 {
			if s, err := strconv.Unquote(string(p)[i+3:]); err == nil {
				return pointer(string(p)[:i+3] + celString(s+tail))
			}
		}
	}
	return pointer(string(p) + " + " + celString(tail))
}

// dynamic appends a computed token (a CEL string expression).
func (p pointer) dynamic(token string) pointer {
	return pointer(string(p.literal("/")) + " + " + token)
}

// anchor is where a run of field names starts.
type anchor struct {
	newV string  // CEL: a value present in the new object
	oldV string  // CEL: its stored counterpart, an optional
	ptr  pointer // the JSON pointer of newV
	node *structuralschema.Structural
}

func (a anchor) newAt(names []string) string {
	if len(names) == 0 {
		return "optional.of(" + a.newV + ")"
	}
	e := a.newV
	for _, n := range names {
		e = optField(e, n)
	}
	return e
}

func (a anchor) oldAt(names []string) string {
	e := a.oldV
	for _, n := range names {
		e = optField(e, n)
	}
	return e
}

func (a anchor) ptrAt(names []string) pointer {
	p := a.ptr
	for _, n := range names {
		p = p.field(n)
	}
	return p
}

// nest wraps value in one map per name: {"a": {"b": value}}.
func nest(names []string, value string) string {
	for i := len(names) - 1; i >= 0; i-- {
		value = "{" + celString(names[i]) + ": " + value + "}"
	}
	return value
}

// put returns the op list that sets the value at anchor.names to value (a CEL expression),
// creating the missing objects between the anchor and it.
func put(a anchor, names []string, value string) string {
	if len(names) == 0 {
		return fmt.Sprintf(`[JSONPatch{op: "replace", path: %s, value: %s}]`, a.ptr, value)
	}
	expr := ""
	for j := len(names) - 1; j >= 0; j-- {
		op := fmt.Sprintf(`[JSONPatch{op: "add", path: %s, value: %s}]`, a.ptrAt(names[:j+1]), nest(names[j+1:], value))
		if j == 0 {
			if expr == "" {
				return op
			}
			return expr + op + strings.Repeat(")", len(names)-1)
		}
		expr += fmt.Sprintf("(%s.hasValue() ? %s : ", a.newAt(names[:j]), op)
	}
	return expr
}

// let binds name to the value of expr in body: CEL has no let in the policies' environment,
// so the binding is a one-item list's map macro. It keeps the expressions linear in the
// depth of the path instead of repeating the stored item's lookup at every use.
func let(name, expr, body string) string {
	return fmt.Sprintf("[%s].map(%s, %s)[0]", expr, name, body)
}

// gateOps returns the ops that apply one effectively disabled gated path, steps from anchor a,
// at wildcard depth d.
func (w *walker) gateOps(a anchor, steps []step, prefix []featuregates.Step, d int) string {
	names, rest := splitRun(steps)
	node := a.node
	if len(names) > 0 {
		node = steps[len(names)-1].node
	}
	here := appendNames(prefix, names)
	nv, sv := fmt.Sprintf("nv%d", d), fmt.Sprintf("sv%d", d)
	if len(rest) == 0 {
		// The gated value itself: the stored one back, or none.
		return let(sv, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf(
			`%s.hasValue() ? (%s.hasValue() && %s.value() == %s.value() ? [] : %s) : (%s.hasValue() ? [JSONPatch{op: "remove", path: %s}] : [])`,
			sv, nv, nv, sv, put(a, names, sv+".value()"), nv, a.ptrAt(names))))
	}
	ptr := a.ptrAt(names)
	if len(rest) == 1 {
		// Every item (value) is gated: where the write keeps the list (map), the stored items
		// stay as they are and new ones go; a write that removes the list removes them.
		empty := "{}"
		if node != nil && node.Items != nil {
			empty = "[]"
		}
		return let(sv, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf(
			`!%s.hasValue() ? [] : %s.hasValue() && size(%s.value()) > 0 ? (%s.value() == %s.value() ? [] : [JSONPatch{op: "replace", path: %s, value: %s.value()}]) : (size(%s.value()) > 0 ? [JSONPatch{op: "replace", path: %s, value: %s}] : [])`,
			nv, sv, sv, nv, sv, ptr, sv, nv, ptr, empty)))
	}
	i, v := fmt.Sprintf("i%d", d), fmt.Sprintf("v%d", d)
	sc, si := fmt.Sprintf("sc%d", d), fmt.Sprintf("si%d", d)
	item := anchor{newV: v, oldV: si, ptr: ptr.dynamic("string(" + i + ")"), node: rest[0].node}
	itemPrefix := appendWildcard(here)
	var guard, stored string
	wrap := func(body string) string { return body }
	switch {
	case node != nil && node.Items == nil:
		// A map: values by key.
		item.ptr = ptr.dynamic("jsonpatch.escapeKey(" + i + ")")
		stored = fmt.Sprintf("%s.hasValue() && type(%s.value()) == map ? %s.value()[?%s] : optional.none()", sc, sc, sc, i)
		guard = "map"
	case node != nil && node.Extensions.XListType != nil && *node.Extensions.XListType == "map" && len(node.Extensions.XListMapKeys) > 0:
		// A map list: items by their keys.
		o := fmt.Sprintf("o%d", d)
		var eq []string
		for _, k := range node.Extensions.XListMapKeys {
			eq = append(eq, fmt.Sprintf("%s == %s", optField(o, k), optField(v, k)))
		}
		stored = fmt.Sprintf("(%s.hasValue() && type(%s.value()) == list ? %s.value().filter(%s, %s) : [])[?0]", sc, sc, sc, o, strings.Join(eq, " && "))
		guard = "list"
	default:
		// Another list: the pairing of new with stored items that our server's correlate
		// computes, as a list M of stored indexes (-1: a new item), once per list.
		ol, nl, m := fmt.Sprintf("ol%d", d), fmt.Sprintf("nl%d", d), fmt.Sprintf("m%d", d)
		wrap = func(body string) string {
			return let(ol, fmt.Sprintf("%s.hasValue() && type(%s.value()) == list ? %s.value() : []", sc, sc, sc),
				let(nl, nv+".value()", let(m, correlation(nl, ol, w.relTree(itemPrefix), d), body)))
		}
		stored = fmt.Sprintf("%s[%s] >= 0 ? optional.of(%s[%s[%s]]) : optional.none()", m, i, ol, m, i)
		guard = "list"
	}
	inner := let(si, stored, w.gateOps(item, rest[1:], itemPrefix, d+1))
	return let(sc, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf("%s.hasValue() && type(%s.value()) == %s ? %s : []",
		nv, nv, guard, wrap(fmt.Sprintf("%s.value().transformList(%s, %s, %s).flatten()", nv, i, v, inner)))))
}

// correlation returns the CEL list that pairs the items of the new list nl with the stored
// list ol, item by item: the index of the stored item a new item continues, or -1. It is our
// server's correlate (pkg/apiserver/schema/featuregates/listitems.go) for lists without
// keys: items are the same item when equal outside the gated paths below them (t). Such
// items form a group; a group with as many new items as stored ones pairs in order;
// otherwise an item pairs with the stored item at its own index if that one is in its group,
// and the others in order. If that leaves new items unpaired and the pairs keep their order,
// the items between two pairs (a gap) pair in order where the gap has as many new items as
// stored ones (edits in place). Where our server finds the write ambiguous and rejects it,
// the items it cannot pair are new here.
func correlation(nl, ol string, t *tree, d int) string {
	n := func(s string) string { return fmt.Sprintf("%s%d", s, d) }
	a, b, c := n("ca"), n("cb"), n("cc")
	e, nn, m1, mo, gn, gs, on, os, mono, gapN, gapO, un, uo := n("ce"), n("cnn"), n("cm"), n("cmo"), n("cgn"), n("cgs"), n("con"), n("cos"), n("cmono"), n("cgapn"), n("cgapo"), n("cun"), n("cuo")
	eq := func(x, y string) string { return equalOutside(x, y, t, d) }
	groups := fmt.Sprintf("lists.range(size(%s)).map(%s, %s)", nl, a,
		let(gn, fmt.Sprintf("lists.range(size(%s)).filter(%s, %s[%s][%s])", nl, b, nn, a, b),
			let(gs, fmt.Sprintf("lists.range(size(%s)).filter(%s, %s[%s][%s])", ol, b, e, a, b),
				fmt.Sprintf("size(%s) == 0 ? -1 : size(%s) == size(%s) ? %s[%s.indexOf(%s)] : %s < size(%s) && %s[%s][%s] ? %s : %s",
					gs, gn, gs, gs, gn, a, a, ol, e, a, a, a,
					let(on, fmt.Sprintf("%s.filter(%s, !(%s < size(%s) && %s[%s][%s]))", gn, b, b, ol, e, b, b),
						let(os, fmt.Sprintf("%s.filter(%s, !(%s < size(%s) && %s[%s][%s]))", gs, b, b, nl, e, b, b),
							fmt.Sprintf("%s.indexOf(%s) < size(%s) ? %s[%s.indexOf(%s)] : -1", on, a, os, os, on, a)))))))
	gapsStep := let(mo, fmt.Sprintf("lists.range(size(%s)).map(%s, %s.exists(%s, %s == %s))", ol, b, m1, c, c, b),
		let(gapN, fmt.Sprintf("lists.range(size(%s)).map(%s, size(lists.range(%s).filter(%s, %s[%s] >= 0)))", nl, a, a, b, m1, b),
			let(gapO, fmt.Sprintf("lists.range(size(%s)).map(%s, size(lists.range(%s).filter(%s, %s[%s])))", ol, b, b, c, mo, c),
				let(mono, fmt.Sprintf("lists.range(size(%s)).all(%s, %s[%s] < 0 || lists.range(%s).all(%s, %s[%s] < 0 || %s[%s] < %s[%s]))", nl, a, m1, a, a, b, m1, b, m1, b, m1, a),
					fmt.Sprintf("lists.range(size(%s)).map(%s, %s[%s] >= 0 ? %s[%s] : !%s ? -1 : %s)", nl, a, m1, a, m1, a, mono,
						let(un, fmt.Sprintf("lists.range(size(%s)).filter(%s, %s[%s] < 0 && %s[%s] == %s[%s])", nl, b, m1, b, gapN, b, gapN, a),
							let(uo, fmt.Sprintf("lists.range(size(%s)).filter(%s, !%s[%s] && %s[%s] == %s[%s])", ol, b, mo, b, gapO, b, gapN, a),
								fmt.Sprintf("size(%s) == size(%s) ? %s[%s.indexOf(%s)] : -1", un, uo, uo, un, a))))))))
	return let(e, fmt.Sprintf("lists.range(size(%s)).map(%s, lists.range(size(%s)).map(%s, %s))", nl, a, ol, b, eq(nl+"["+a+"]", ol+"["+b+"]")),
		let(nn, fmt.Sprintf("lists.range(size(%s)).map(%s, lists.range(size(%s)).map(%s, %s))", nl, a, nl, b, eq(nl+"["+a+"]", nl+"["+b+"]")),
			let(m1, groups, gapsStep)))
}

// defaultOps returns the ops that set a schema default at steps from a where the value's
// parent exists and the value does not.
func defaultOps(a anchor, steps []step, value string, d int) string {
	names, rest := splitRun(steps)
	if len(rest) == 0 {
		return fmt.Sprintf(`%s.hasValue() && !%s.hasValue() ? [JSONPatch{op: "add", path: %s, value: %s}] : []`,
			a.newAt(names[:len(names)-1]), a.newAt(names), a.ptrAt(names), value)
	}
	node := a.node
	if len(names) > 0 {
		node = steps[len(names)-1].node
	}
	newC, ptr := a.newAt(names), a.ptrAt(names)
	i, v := fmt.Sprintf("i%d", d), fmt.Sprintf("v%d", d)
	item := anchor{newV: v, oldV: "optional.none()", ptr: ptr.dynamic("string(" + i + ")"), node: rest[0].node}
	guard := "list"
	if node != nil && node.Items == nil {
		item.ptr = ptr.dynamic("jsonpatch.escapeKey(" + i + ")")
		guard = "map"
	}
	inner := defaultOps(item, rest[1:], value, d+1)
	return fmt.Sprintf("%s.hasValue() && type(%s.value()) == %s ? %s.value().transformList(%s, %s, %s).flatten() : []",
		newC, newC, guard, newC, i, v, inner)
}

// splitRun splits steps at the first wildcard: the field names before it, and the rest
// starting with the wildcard.
func splitRun(steps []step) ([]string, []step) {
	var names []string
	for i, s := range steps {
		if s.Wildcard {
			return names, steps[i:]
		}
		names = append(names, s.Field)
	}
	return names, nil
}

func appendNames(p []featuregates.Step, names []string) []featuregates.Step {
	out := append([]featuregates.Step(nil), p...)
	for _, n := range names {
		out = append(out, featuregates.Step{Field: n})
	}
	return out
}

func appendWildcard(p []featuregates.Step) []featuregates.Step {
	return append(append([]featuregates.Step(nil), p...), featuregates.Step{Wildcard: true})
}

// tree is a set of relative gated paths: a nil child is a gated value (left out of
// comparisons).
type tree struct {
	fields   map[string]*tree
	wildcard *tree
	// gatedItems is set when the wildcard's values themselves are gated.
	gatedItems bool
}

// relTree returns the gated paths below prefix (a path ending in a wildcard), relative to it.
func (w *walker) relTree(prefix []featuregates.Step) *tree {
	root := &tree{}
	for _, g := range w.gated {
		st := g.Steps()
		if len(st) <= len(prefix) || !stepsHavePrefix(st, prefix) {
			continue
		}
		t := root
		rel := st[len(prefix):]
		for j, s := range rel {
			last := j == len(rel)-1
			if s.Wildcard {
				if last {
					t.gatedItems = true
					break
				}
				if t.wildcard == nil {
					t.wildcard = &tree{}
				}
				t = t.wildcard
				continue
			}
			if t.fields == nil {
				t.fields = map[string]*tree{}
			}
			child, seen := t.fields[s.Field]
			if seen && child == nil {
				break // an ancestor is gated already
			}
			if last {
				t.fields[s.Field] = nil
				break
			}
			if child == nil {
				child = &tree{}
				t.fields[s.Field] = child
			}
			t = child
		}
	}
	return root
}

func stepsHavePrefix(st, prefix []featuregates.Step) bool {
	for i, p := range prefix {
		if st[i] != p {
			return false
		}
	}
	return true
}

// equalOutside returns a CEL condition: x and y are equal outside the gated paths of t.
func equalOutside(x, y string, t *tree, d int) string {
	if t == nil {
		return "true"
	}
	if t.gatedItems {
		return "true"
	}
	if len(t.fields) == 0 && t.wildcard == nil {
		return fmt.Sprintf("%s == %s", x, y)
	}
	k := fmt.Sprintf("k%d", d)
	if t.wildcard != nil {
		j, e := fmt.Sprintf("j%d", d), fmt.Sprintf("e%d", d)
		inner := equalOutside(e, y+"["+j+"]", t.wildcard, d+1)
		innerMap := equalOutside(e, y+"["+j+"]", t.wildcard, d+1)
		return fmt.Sprintf("(type(%s) == list && type(%s) == list ? size(%s) == size(%s) && %s.all(%s, %s, %s) : type(%s) == map && type(%s) == map ? size(%s) == size(%s) && %s.all(%s, %s, %s in %s && %s) : %s == %s)",
			x, y, x, y, x, j, e, inner, x, y, x, y, x, j, e, j, y, innerMap, x, y)
	}
	names := make([]string, 0, len(t.fields))
	for n := range t.fields {
		names = append(names, n)
	}
	sort.Strings(names)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = celString(n)
	}
	list := "[" + strings.Join(quoted, ", ") + "]"
	parts := []string{
		fmt.Sprintf("%s.all(%s, %s in %s || (%s in %s && %s[%s] == %s[%s]))", x, k, k, list, k, y, x, k, y, k),
		fmt.Sprintf("%s.all(%s, %s in %s || %s in %s)", y, k, k, list, k, x),
	}
	for i, n := range names {
		sub := t.fields[n]
		if sub == nil {
			continue
		}
		q := quoted[i]
		parts = append(parts, fmt.Sprintf("(%s in %s) == (%s in %s) && (!(%s in %s) || %s)",
			q, x, q, y, q, x, equalOutside(x+"["+q+"]", y+"["+q+"]", sub, d+1)))
	}
	return fmt.Sprintf("(type(%s) == map && type(%s) == map ? %s : %s == %s)", x, y, strings.Join(parts, " && "), x, y)
}
