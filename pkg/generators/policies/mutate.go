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
	"regexp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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
	schema   *structuralschema.Structural
	pairings []pairing
	// gated are the CRD's gated paths, each with the CEL condition that it is live, from
	// which relTree builds the paths below a list's items, for matching items by content.
	gated []livePath
	// heldBelow returns the CEL condition that x, an item of the list at prefix (a path
	// ending in a wildcard), holds a value at a gated path below it that is not live.
	heldBelow func(prefix []featuregates.Step, x string) string
}

// livePath is a gated path and the CEL condition that it is live.
type livePath struct {
	path featuregates.Path
	live string
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
				next = childNode(s, st.Field)
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
	// untyped is set where node is not known (rather than nil because the schema does not
	// say): selections below it are not checked for the kind of the value.
	untyped bool
}

func (a anchor) newAt(names []string) string {
	if len(names) == 0 {
		return "optional.of(" + a.newV + ")"
	}
	return selectNames(a.newV, false, a.node, a.untyped, names)
}

func (a anchor) oldAt(names []string) string {
	return selectNames(a.oldV, true, a.node, a.untyped, names)
}

// selectNames returns the optional value at names below e (an optional if opt, else a
// present value) whose schema is node. Where the schema does not say that a value is an
// object (below x-kubernetes-preserve-unknown-fields), the selection checks that it is a map
// first: a value of another kind holds nothing there, and selecting a field of it would be
// an error, which fails the write.
func selectNames(e string, opt bool, node *structuralschema.Structural, untyped bool, names []string) string {
	for _, n := range names {
		// A node without a type (x-kubernetes-preserve-unknown-fields) says no more than none.
		if (node == nil && !untyped) || (node != nil && node.Type != "object") {
			if !opt {
				e = "optional.of(" + e + ")"
			}
			e = let("sq", e, fmt.Sprintf("sq.hasValue() && type(sq.value()) == map ? %s : optional.none()", optField("sq.value()", n)))
		} else {
			e = optField(e, n)
			if node != nil {
				node = childNode(node, n)
			}
		}
		opt = true
	}
	return e
}

// childNode is the schema of field name of a value whose schema is s; nil where it does not
// say.
func childNode(s *structuralschema.Structural, name string) *structuralschema.Structural {
	if c, ok := s.Properties[name]; ok {
		return &c
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		return s.AdditionalProperties.Structural
	}
	return nil
}

func (a anchor) ptrAt(names []string) pointer {
	p := a.ptr
	for _, n := range names {
		p = p.field(n)
	}
	return p
}

// let binds name to the value of expr in body: the policies' environment has no cel.bind,
// so the binding is a one-item list's map macro. It keeps an expression linear in the depth
// of its path instead of repeating a stored value's lookup at every use. Where expr is a
// short chain of field selections (object.?spec.?replicas) used at most three times, body
// reads it in place instead: a selection costs less than the macro (a list, a fold and an
// index) on every write.
func let(name, expr, body string) string {
	if selectChain.MatchString(expr) && len(expr) <= 120 {
		// Neither name nor the variable expr starts from may be bound again by a macro in
		// body: there the text would mean another value.
		root := expr[:strings.IndexAny(expr+".[", ".[")]
		rebinds := func(v string) bool {
			return strings.Contains(body, "("+v+",") || strings.Contains(body, ", "+v+",")
		}
		if out, n := replaceIdent(body, name, "("+expr+")"); n <= 3 && !rebinds(name) && !rebinds(root) {
			return "(" + out + ")"
		}
	}
	return fmt.Sprintf("[%s].map(%s, %s)[0]", expr, name, body)
}

// replaceIdent replaces the identifier name in the CEL text body with repl, outside string
// literals (a JSON pointer may hold a field of the same name) and field selections, and
// counts the replacements.
func replaceIdent(body, name, repl string) (string, int) {
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	var out strings.Builder
	n := 0
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == '"' || c == '\'':
			// A literal as celString writes it: escapes, no raw or triple-quoted strings.
			j := i + 1
			for j < len(body) && body[j] != c {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(body) {
				j++
			}
			out.WriteString(body[i:j])
			i = j
		case strings.HasPrefix(body[i:], name) && (i == 0 || !isWord(body[i-1]) && body[i-1] != '.' && !strings.HasSuffix(body[:i], ".?")) &&
			(i+len(name) == len(body) || !isWord(body[i+len(name)])):
			// Not a field selected by that name (x.name, x.?name).
			out.WriteString(repl)
			n++
			i += len(name)
		default:
			out.WriteByte(c)
			i++
		}
	}
	return out.String(), n
}

// selectChain matches a variable followed by field selections, optional or not, with
// literal names: its value is read by lookups alone.
var selectChain = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.\??[A-Za-z_][A-Za-z0-9_]*|\[\??"[^"\\]*"\])*$`)

// untypedNode tells a schema node that does not say whether a [*] below it iterates a map's
// values or a list's items: none (below x-kubernetes-preserve-unknown-fields), or one that
// keeps unknown fields and has no type. There the value's own type says, as on our server.
func untypedNode(n *structuralschema.Structural) bool { return n == nil || n.Type == "" }

// pairing is a list without keys whose items the policy pairs with stored items by content:
// the variable name holds the pairing (correlation) of every instance of the list in the
// object, nested in the lists and maps of the wildcards above it and indexed like them.
type pairing struct {
	name string
	// steps lead from the root to the list.
	steps  []step
	prefix []featuregates.Step
}

// pairingOf returns the pairing variable of the list at steps (from the root), registering
// it on first use. Gated paths below one list share it, and it is computed once per
// request (policy variables are), instead of inside every mutation that needs it.
func (w *walker) pairingOf(steps []step, prefix []featuregates.Step) string {
	key := pathString(prefix)
	for _, p := range w.pairings {
		if pathString(p.prefix) == key {
			return p.name
		}
	}
	name := fmt.Sprintf("pairing%d", len(w.pairings))
	w.pairings = append(w.pairings, pairing{name: name, steps: append([]step(nil), steps...), prefix: append([]featuregates.Step(nil), prefix...)})
	return name
}

// pairingVariables returns the variables of the pairings the mutations use, outer lists
// first (a pairing reads the pairings of the lists above it).
func (w *walker) pairingVariables(root anchor) []admissionregistrationv1.Variable {
	var vars []admissionregistrationv1.Variable
	for i := 0; i < len(w.pairings); i++ { // pairingOf may append while building
		p := w.pairings[i]
		expr := w.descend(root, p.steps, 0, nil, 0, "", pairingValues|toList, func(a anchor, names []string, rest []step, here []featuregates.Step, d int, idx string) string {
			nv, sc := fmt.Sprintf("nv%d", d), fmt.Sprintf("sc%d", d)
			return let(sc, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf("%s.hasValue() && type(%s.value()) == list ? %s : []", nv, nv,
				correlation(nv+".value()", fmt.Sprintf("(%s.hasValue() && type(%s.value()) == list ? %s.value() : [])", sc, sc, sc), w.relTree(appendWildcard(here)), d,
					func(x string) string { return w.heldBelow(appendWildcard(here), x) }))))
		})
		vars = append(vars, admissionregistrationv1.Variable{Name: p.name, Expression: expr})
	}
	return vars
}

// descent says what descend builds.
type descent int

const (
	// pairingValues: the leaves' values nested in lists and maps indexed like the object's
	// (the pairing variables).
	pairingValues descent = iota
	// storedOps: the flattened list of the leaves' op lists, where the leaves compare the new
	// object with the stored one. A subtree that the write left as stored gives no op, and is
	// not descended: its gated values are the stored ones already, so nothing is dropped,
	// restored or ambiguous there, and a write that changes nothing below a gated path costs
	// one comparison instead of a pairing of its lists' items.
	storedOps
	// newOps: the flattened list of the leaves' op lists, where the leaves read only the new
	// object (defaults): the stored items are not looked up.
	newOps
	// toList, added to a mode, says that the steps end at a list without keys (a pairing's
	// list, or the list an ambiguity check judges), not at a gated path.
	toList descent = 1 << 4
)

// descend walks steps from anchor a through every wildcard: at each, it iterates the items
// (values) of the new list (map) and binds each to its stored counterpart, then goes on below
// it; the last run of field names, and a trailing wildcard, go to leaf. What it returns is
// what mode says. idx is the CEL index chain of the items iterated so far ([i0][k1]...), for
// reading pairing variables.
func (w *walker) descend(a anchor, full []step, pos int, prefix []featuregates.Step, d int, idx string, mode descent,
	leaf func(a anchor, names []string, rest []step, here []featuregates.Step, d int, idx string) string) string {
	steps := full[pos:]
	names, rest := splitRun(steps)
	here := appendNames(prefix, names)
	// A trailing wildcard goes to the leaf (a gated [*]), but steps that end at a list
	// (toList) may end with the wildcard of the list or map whose items are that list
	// ([*][*]), which is iterated.
	if len(rest) == 0 || (len(rest) == 1 && mode&toList == 0) {
		return leaf(a, names, rest, here, d, idx)
	}
	toward := mode
	mode &^= toList
	ops := mode != pairingValues
	node := a.node
	if len(names) > 0 {
		node = steps[len(names)-1].node
	}
	ptr := a.ptrAt(names)
	nv, sc := fmt.Sprintf("nv%d", d), fmt.Sprintf("sc%d", d)
	i, v, si := fmt.Sprintf("i%d", d), fmt.Sprintf("v%d", d), fmt.Sprintf("si%d", d)
	item := anchor{newV: v, oldV: si, ptr: ptr.dynamic("string(" + i + ")"), node: rest[0].node}
	itemPrefix := appendWildcard(here)
	isMap := !untypedNode(node) && node.Items == nil
	var stored string
	switch {
	case mode == newOps:
		stored = "optional.none()"
	case isMap:
		stored = fmt.Sprintf("%s.hasValue() && type(%s.value()) == map ? %s.value()[?%s] : optional.none()", sc, sc, sc, i)
	case isListMap(node):
		o := fmt.Sprintf("o%d", d)
		var eq []string
		for _, k := range node.Extensions.XListMapKeys {
			eq = append(eq, fmt.Sprintf("%s == %s", optField(o, k), optField(v, k)))
		}
		stored = fmt.Sprintf("(%s.hasValue() && type(%s.value()) == list ? %s.value().filter(%s, %s) : [])[?0]", sc, sc, sc, o, strings.Join(eq, " && "))
	default:
		pv := "variables." + w.pairingOf(full[:pos+len(names)], here) + idx + "[" + i + "]"
		stored = fmt.Sprintf("%s >= 0 && %s.hasValue() && type(%s.value()) == list && %s < size(%s.value()) ? optional.of(%s.value()[%s]) : optional.none()", pv, sc, sc, pv, sc, sc, pv)
	}
	if isMap {
		item.ptr = ptr.dynamic("jsonpatch.escapeKey(" + i + ")")
	}
	inner := let(si, stored, w.descend(item, full, pos+len(names)+1, itemPrefix, d+1, idx+"["+i+"]", toward, leaf))
	kind, empty, each := "list", "[]", fmt.Sprintf("%s.value().transformList(%s, %s, %s)", nv, i, v, inner)
	if isMap {
		kind = "map"
		if !ops {
			empty, each = "{}", fmt.Sprintf("%s.value().transformMap(%s, %s, %s)", nv, i, v, inner)
		}
	}
	if ops {
		each += ".flatten()"
	}
	body := fmt.Sprintf("%s.hasValue() && type(%s.value()) == %s ? %s : %s", nv, nv, kind, each, empty)
	if untypedNode(node) {
		// Below x-kubernetes-preserve-unknown-fields the schema does not say whether [*]
		// iterates a map's values or a list's items: the value's own type does, as on our
		// server. The list branch above pairs items; this one matches values by key.
		mapItem := item
		mapItem.ptr = ptr.dynamic("jsonpatch.escapeKey(" + i + ")")
		mapStored := fmt.Sprintf("%s.hasValue() && type(%s.value()) == map ? %s.value()[?%s] : optional.none()", sc, sc, sc, i)
		if mode == newOps {
			mapStored = "optional.none()"
		}
		mapInner := let(si, mapStored, w.descend(mapItem, full, pos+len(names)+1, itemPrefix, d+1, idx+"["+i+"]", toward, leaf))
		mapEach := fmt.Sprintf("%s.value().transformMap(%s, %s, %s)", nv, i, v, mapInner)
		if ops {
			mapEach = fmt.Sprintf("%s.value().transformList(%s, %s, %s).flatten()", nv, i, v, mapInner)
		}
		if ops {
			body = fmt.Sprintf("%s.hasValue() && type(%s.value()) == map ? %s : %s", nv, nv, mapEach, body)
		} else {
			// Values: a map of the map's values or a list of the list's items, whose types
			// differ; dyn lets the checker take either.
			body = fmt.Sprintf("%s.hasValue() && type(%s.value()) == map ? dyn(%s) : dyn(%s)", nv, nv, mapEach, body)
		}
	}
	if mode == newOps {
		return let(nv, a.newAt(names), body)
	}
	if mode == storedOps {
		body = fmt.Sprintf("%s.hasValue() && %s.hasValue() && %s.value() == %s.value() ? [] : %s", sc, nv, nv, sc, body)
	}
	return let(sc, a.oldAt(names), let(nv, a.newAt(names), body))
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
//
// A list that the write left as stored pairs each item with itself. Where no stored item holds
// a value at a path below it that is not live (held), which item continues which changes
// nothing: no stored value is kept or moved, and every value sent at such a path is dropped,
// so nothing pairs. Both are told before the pairing, which compares every new item with every
// stored one, is computed.
func correlation(nl, ol string, t *tree, d int, held func(x string) string) string {
	o, z, h := fmt.Sprintf("col%d", d), fmt.Sprintf("cz%d", d), fmt.Sprintf("ch%d", d)
	return let(o, ol, fmt.Sprintf("%s == %s ? lists.range(size(%s)) : !%s.exists(%s, %s) ? %s.map(%s, -1) : %s",
		nl, o, nl, o, h, held(h), nl, z, correlate(nl, o, t, d, shortcuts{
			inPlace:   fmt.Sprintf("lists.range(size(%s))", nl),
			noneEqual: fmt.Sprintf("size(%s) == size(%s) ? lists.range(size(%s)) : %s.map(%s, -1)", nl, o, nl, nl, z),
		}, func(c corr) string { return c.m })))
}

// corr names the values correlate binds for its body: the pairing m1 of the groups, which
// stored items it pairs (mo), whether its pairs keep their order (mono), the gap of each new
// and stored item (gapN, gapO), the final pairing m, and the projections of the stored
// items (po).
type corr struct {
	nl, ol, m1, mo, mono, gapN, gapO, m, po string
	d                                       int
}

// correlate binds the steps of the pairing of nl with ol and returns body of them.
func correlate(nl, ol string, t *tree, d int, fast shortcuts, body func(corr) string) string {
	n := func(s string) string { return fmt.Sprintf("%s%d", s, d) }
	a, b, c := n("ca"), n("cb"), n("cc")
	e, nn, m1, mo, gn, gs, on, os, mono, gapN, gapO, un, uo, m := n("ce"), n("cnn"), n("cm"), n("cmo"), n("cgn"), n("cgs"), n("con"), n("cos"), n("cmono"), n("cgapn"), n("cgapo"), n("cun"), n("cuo"), n("cfinal")
	pn, po, x := n("cpn"), n("cpo"), n("cx")
	groups := fmt.Sprintf("lists.range(size(%s)).map(%s, %s)", nl, a,
		let(gn, fmt.Sprintf("lists.range(size(%s)).filter(%s, %s[%s][%s])", nl, b, nn, a, b),
			let(gs, fmt.Sprintf("lists.range(size(%s)).filter(%s, %s[%s][%s])", ol, b, e, a, b),
				fmt.Sprintf("size(%s) == 0 ? -1 : size(%s) == size(%s) ? %s[%s.indexOf(%s)] : %s < size(%s) && %s[%s][%s] ? %s : %s",
					gs, gn, gs, gs, gn, a, a, ol, e, a, a, a,
					let(on, fmt.Sprintf("%s.filter(%s, !(%s < size(%s) && %s[%s][%s]))", gn, b, b, ol, e, b, b),
						let(os, fmt.Sprintf("%s.filter(%s, !(%s < size(%s) && %s[%s][%s]))", gs, b, b, nl, e, b, b),
							fmt.Sprintf("%s.indexOf(%s) < size(%s) ? %s[%s.indexOf(%s)] : -1", on, a, os, os, on, a)))))))
	final := fmt.Sprintf("lists.range(size(%s)).map(%s, %s[%s] >= 0 ? %s[%s] : !%s ? -1 : %s)", nl, a, m1, a, m1, a, mono,
		let(un, fmt.Sprintf("lists.range(size(%s)).filter(%s, %s[%s] < 0 && %s[%s] == %s[%s])", nl, b, m1, b, gapN, b, gapN, a),
			let(uo, fmt.Sprintf("lists.range(size(%s)).filter(%s, !%s[%s] && %s[%s] == %s[%s])", ol, b, mo, b, gapO, b, gapN, a),
				fmt.Sprintf("size(%s) == size(%s) ? %s[%s.indexOf(%s)] : -1", un, uo, uo, un, a))))
	gapsStep := let(mo, fmt.Sprintf("lists.range(size(%s)).map(%s, %s.exists(%s, %s == %s))", ol, b, m1, c, c, b),
		let(gapN, fmt.Sprintf("lists.range(size(%s)).map(%s, size(lists.range(%s).filter(%s, %s[%s] >= 0)))", nl, a, a, b, m1, b),
			let(gapO, fmt.Sprintf("lists.range(size(%s)).map(%s, size(lists.range(%s).filter(%s, %s[%s])))", ol, b, b, c, mo, c),
				let(mono, fmt.Sprintf("lists.range(size(%s)).all(%s, %s[%s] < 0 || lists.range(%s).all(%s, %s[%s] < 0 || %s[%s] < %s[%s]))", nl, a, m1, a, a, b, m1, b, m1, b, m1, a),
					let(m, final, body(corr{nl: nl, ol: ol, m1: m1, mo: mo, mono: mono, gapN: gapN, gapO: gapO, m: m, po: po, d: d}))))))
	// Two cases are told before the rest is computed. As many items as stored ones, each equal
	// to the stored item at its index outside the gated paths or to no stored item (edits in
	// place): each item pairs with the stored item at its index (an item's group pairs it
	// there, and the edited items fill the gaps between such pairs one for one). No item equal
	// to any stored one: no group pairs, so the whole list is one gap, paired in order if the
	// sizes agree, else not at all. The first costs one comparison per item and one pass over
	// the stored items per edited item.
	r, q := n("cr"), n("cq")
	return let(pn, fmt.Sprintf("%s.map(%s, %s)", nl, x, project(x, t, d)),
		let(po, fmt.Sprintf("%s.map(%s, %s)", ol, x, project(x, t, d)),
			fmt.Sprintf("size(%s) == size(%s) && lists.range(size(%s)).all(%s, %s[%s] == %s[%s] || !%s.exists(%s, %s == %s[%s])) ? (%s) : %s",
				nl, ol, nl, a, pn, a, po, a, po, q, q, pn, a, fast.inPlace,
				fmt.Sprintf("!%s.exists(%s, %s.exists(%s, %s == %s)) ? (%s) : %s", pn, r, po, c, r, c, fast.noneEqual,
					let(e, fmt.Sprintf("lists.range(size(%s)).map(%s, lists.range(size(%s)).map(%s, %s[%s] == %s[%s]))", nl, a, ol, b, pn, a, po, b),
						let(nn, fmt.Sprintf("lists.range(size(%s)).map(%s, lists.range(size(%s)).map(%s, %s[%s] == %s[%s]))", nl, a, nl, b, pn, a, pn, b),
							let(m1, groups, gapsStep)))))))
}

// shortcuts are what correlate's body gives in the two cases it tells early, outside the
// gated paths: as many items as stored ones, each equal to the stored one at its index or to
// none (inPlace), and no item equal to any stored one, whatever the sizes (noneEqual).
type shortcuts struct{ inPlace, noneEqual string }

// ambiguous returns the CEL condition under which our server rejects a write to a list
// without keys as ambiguous (listitems.go): a stored item that holds a value at a disabled
// path (held, a condition on a stored item x) is left unpaired although new items are left
// too and the pairs changed order, or sits in a gap whose new and stored items differ in
// number; or the write removed one of several stored items that are equal outside the gated
// paths but differ inside them, one of which holds such a value.
func ambiguous(c corr, held func(x string) string) string {
	n := func(s string) string { return fmt.Sprintf("%s%d", s, c.d) }
	a, b, hl, x, y := n("aa"), n("ab"), n("ahl"), n("ax"), n("ay")
	leftNew := fmt.Sprintf("%s.exists(%s, %s < 0)", c.m1, y, y)
	unpairedHeld := func(extra string) string {
		return fmt.Sprintf("lists.range(size(%s)).exists(%s, !%s[%s] && %s[%s]%s)", c.ol, b, c.mo, b, hl, b, extra)
	}
	newInGap := fmt.Sprintf("size(lists.range(size(%s)).filter(%s, %s[%s] < 0 && %s[%s] == %s[%s]))", c.nl, a, c.m1, a, c.gapN, a, c.gapO, b)
	oldInGap := fmt.Sprintf("size(lists.range(size(%s)).filter(%s, !%s[%s] && %s[%s] == %s[%s]))", c.ol, a, c.mo, a, c.gapO, a, c.gapO, b)
	paired := func(k string) string { return fmt.Sprintf("%s.exists(%s, %s == %s)", c.m, y, y, k) }
	removedEqual := fmt.Sprintf("lists.range(size(%s)).exists(%s, !%s && lists.range(size(%s)).exists(%s, %s && %s[%s] == %s[%s] && %s[%s] != %s[%s] && (%s[%s] || %s[%s])))",
		c.ol, b, paired(b), c.ol, a, paired(a), c.po, a, c.po, b, c.ol, a, c.ol, b, hl, a, hl, b)
	return let(hl, fmt.Sprintf("%s.map(%s, %s)", c.ol, x, held(x)), fmt.Sprintf("(%s && (!%s ? %s : %s)) || %s",
		leftNew, c.mono, unpairedHeld(""), unpairedHeld(fmt.Sprintf(" && %s > 0 && %s != %s", newInGap, newInGap, oldInGap)), removedEqual))
}

// gateParents returns, for one gated path, the JSON pointers of the objects that a restore of
// a stored value at the path needs and the new object lacks (a list of CEL strings); the
// mutation creates them, each once, before any other op (see gen.mutating).
func (w *walker) gateParents(a anchor, steps []step) string {
	if len(leafNames(steps)) < 2 {
		return "[]" // every parent of a restored value is an item or the root: it exists
	}
	return w.descend(a, steps, 0, nil, 0, "", storedOps, func(a anchor, names []string, rest []step, here []featuregates.Step, d int, idx string) string {
		if len(names) < 2 {
			return "[]" // an anchor exists
		}
		nv, sv := fmt.Sprintf("nv%d", d), fmt.Sprintf("sv%d", d)
		var missing []string
		for j := 1; j < len(names); j++ {
			// A parent sent as null (a nullable object) is missing too: the add replaces it.
			missing = append(missing, let("pm", a.newAt(names[:j]), fmt.Sprintf("(!pm.hasValue() || pm.value() == null ? [%s] : [])", a.ptrAt(names[:j]))))
		}
		restores := fmt.Sprintf("%s.hasValue() && !(%s.hasValue() && %s.value() == %s.value())", sv, nv, nv, sv)
		if len(rest) > 0 {
			// Gated items: the stored ones come back where the write left the list or map
			// out or sent it as null (the same as sent unchanged); elsewhere it exists.
			restores = fmt.Sprintf("%s && (!%s.hasValue() || %s.value() == null)", heldItems(sv), nv, nv)
		}
		return let(sv, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf("%s ? %s : []", restores, strings.Join(missing, " + "))))
	})
}

// gateLeafOps returns the ops of one effectively disabled gated path, for a mutation whose
// missing objects gateParents created: a stored value is put back with one add, a new one
// removed; where every item of a list or map is gated, the stored items stay as they are.
func (w *walker) gateLeafOps(a anchor, steps []step) string {
	return w.descend(a, steps, 0, nil, 0, "", storedOps, func(a anchor, names []string, rest []step, here []featuregates.Step, d int, idx string) string {
		nv, sv := fmt.Sprintf("nv%d", d), fmt.Sprintf("sv%d", d)
		if len(rest) == 0 {
			return let(sv, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf(
				`%s.hasValue() ? (%s.hasValue() && %s.value() == %s.value() ? [] : [JSONPatch{op: "add", path: %s, value: %s.value()}]) : (%s.hasValue() ? [JSONPatch{op: "remove", path: %s}] : [])`,
				sv, nv, nv, sv, a.ptrAt(names), sv, nv, a.ptrAt(names))))
		}
		ptr := a.ptrAt(names)
		return let(sv, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf(
			`!%s.hasValue() || %s.value() == null ? (%s ? [JSONPatch{op: "add", path: %s, value: %s.value()}] : []) : %s ? (%s.value() == %s.value() ? [] : [JSONPatch{op: "replace", path: %s, value: %s.value()}]) : (size(%s.value()) > 0 ? [JSONPatch{op: "replace", path: %s, value: type(%s.value()) == list ? dyn([]) : dyn({})}] : [])`,
			nv, nv, heldItems(sv), ptr, sv, heldItems(sv), nv, sv, ptr, sv, nv, ptr, nv)))
	})
}

// heldItems is the CEL condition that the stored optional sv is a list or map with items: at
// a gated [*], each of them is a stored value at a disabled path.
func heldItems(sv string) string {
	return fmt.Sprintf("(%s.hasValue() && (type(%s.value()) == list || type(%s.value()) == map) && size(%s.value()) > 0)", sv, sv, sv, sv)
}

// defaultOps returns the ops that set a schema default at steps from the root anchor a where
// the value's parent exists and the value does not.
func (w *walker) defaultOps(a anchor, steps []step, value string) string {
	return w.descend(a, steps, 0, nil, 0, "", newOps, func(a anchor, names []string, rest []step, here []featuregates.Step, d int, idx string) string {
		if len(rest) > 0 || len(names) == 0 {
			return "[]" // a default of every item of a list or map: the schema has none
		}
		return fmt.Sprintf(`%s.hasValue() && !%s.hasValue() ? [JSONPatch{op: "add", path: %s, value: %s}] : []`,
			a.newAt(names[:len(names)-1]), a.newAt(names), a.ptrAt(names), value)
	})
}

// leafNames returns the field names that descend passes to its leaf for steps: those after
// the last wildcard, a trailing wildcard left out.
func leafNames(steps []step) []string {
	if n := len(steps); n > 0 && steps[n-1].Wildcard {
		steps = steps[:n-1]
	}
	var names []string
	for _, s := range steps {
		if s.Wildcard {
			names = nil
			continue
		}
		names = append(names, s.Field)
	}
	return names
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

// tree is a set of relative gated paths, each node a value on the way to one or at one.
type tree struct {
	fields   map[string]*tree
	wildcard *tree
	// wildcardMap is set when the wildcard iterates the values of a map (not a list's items);
	// wildcardAny when the schema does not say (the value's type does).
	wildcardMap, wildcardAny bool
	// off is the CEL condition that this value is at a gated path that is not live; "" where
	// no gated path ends here.
	off string
}

// visit calls f on t, at the path at, and on every node below it, fields by name before the
// wildcard.
func (t *tree) visit(at string, f func(at string, n *tree)) {
	f(at, t)
	for _, name := range t.names() {
		t.fields[name].visit(at+"."+name, f)
	}
	if t.wildcard != nil {
		t.wildcard.visit(at+"[*]", f)
	}
}

// names returns the names of t's fields, in order.
func (t *tree) names() []string {
	names := make([]string, 0, len(t.fields))
	for n := range t.fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// anyOff returns the CEL condition that a gated path at or below t is not live, "false"
// where there is none.
func (t *tree) anyOff() string {
	var parts []string
	t.visit("", func(_ string, n *tree) {
		if n.off != "" {
			parts = append(parts, n.off)
		}
	})
	if len(parts) == 0 {
		return "false"
	}
	return strings.Join(parts, " || ")
}

// relTree returns the gated paths below prefix (a path ending in a wildcard), relative to it,
// each with the condition that it is not live: where items are compared, only those are left
// out, as on our server, whose comparison knows only the paths that are off.
func (w *walker) relTree(prefix []featuregates.Step) *tree {
	root := &tree{}
	for _, g := range w.gated {
		st := g.path.Steps()
		if len(st) <= len(prefix) || !stepsHavePrefix(st, prefix) {
			continue
		}
		resolved := resolveSteps(g.path, w.schema)
		t := root
		for j, s := range st[len(prefix):] {
			if s.Wildcard {
				if t.wildcard == nil {
					t.wildcard = &tree{}
				}
				if at := len(prefix) + j - 1; at >= 0 {
					switch n := resolved[at].node; {
					case untypedNode(n):
						t.wildcardAny = true
					case n.Items == nil:
						t.wildcardMap = true
					}
				}
				t = t.wildcard
				continue
			}
			if t.fields == nil {
				t.fields = map[string]*tree{}
			}
			child := t.fields[s.Field]
			if child == nil {
				child = &tree{}
				t.fields[s.Field] = child
			}
			t = child
		}
		t.off = "!(" + g.live + ")"
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

// project returns the CEL value of x without its values at the gated paths of t that are not
// live (removed from maps, list items and map values projected the same way), so that two
// items are the same item, outside those paths, exactly when their projections are equal. As
// on our server, a null, an object that holds nothing once they are left out, and a list or
// map whose items are all at such a path count as absent on the way to them.
func project(x string, t *tree, d int) string {
	if t == nil || (len(t.fields) == 0 && t.wildcard == nil) {
		return x
	}
	k, e := fmt.Sprintf("pk%d", d), fmt.Sprintf("pe%d", d)
	if len(t.fields) == 0 {
		w := t.wildcard
		keep := "true"
		if w.off != "" {
			keep = "!(" + w.off + ")"
		}
		asMap := fmt.Sprintf("dyn(%s.transformMap(%s, %s, %s, %s))", x, k, e, keep, project(e, w, d+1))
		asList := fmt.Sprintf("dyn(%s.map(%s, %s))", x, e, project(e, w, d+1))
		if w.off != "" {
			asList = fmt.Sprintf("(%s ? dyn([]) : %s)", w.off, asList)
		}
		switch {
		case t.wildcardMap:
			return fmt.Sprintf("(type(%s) == map ? %s : %s)", x, asMap, x)
		case t.wildcardAny:
			return fmt.Sprintf("(type(%s) == map ? %s : type(%s) == list ? %s : %s)", x, asMap, x, asList, x)
		}
		return fmt.Sprintf("(type(%s) == list ? %s : %s)", x, asList, x)
	}
	names := t.names()
	// A map's values at other keys than the named ones: its [*], as on our server, which
	// projects a named key by its own paths only.
	w := t.wildcard
	value := e
	var drop []string
	if w != nil {
		value = project(e, w, d+1)
		if w.off != "" {
			quoted := make([]string, len(names))
			for i, n := range names {
				quoted[i] = celString(n)
			}
			drop = append(drop, fmt.Sprintf("(!(%s in [%s]) && (%s))", k, strings.Join(quoted, ", "), w.off))
		}
	}
	// A named key of a map with a [*]: our server's comparison knows a named key by its own
	// paths while one of them is off, and by the [*]'s otherwise (its trie holds only the
	// paths that are off), and the policies compare as it does.
	for i := len(names) - 1; i >= 0; i-- {
		n, c := names[i], t.fields[names[i]]
		name, cOff := celString(n), c.anyOff()
		if c.off != "" {
			drop = append(drop, fmt.Sprintf("(%s == %s && (%s))", k, name, c.off))
		}
		if w != nil && w.off != "" {
			drop = append(drop, fmt.Sprintf("(%s == %s && !(%s) && (%s))", k, name, cOff, w.off))
		}
		if len(c.fields) == 0 && c.wildcard == nil && w == nil {
			continue
		}
		proj := project(e, c, d+1)
		if w != nil {
			proj = fmt.Sprintf("((%s) ? %s : %s)", cOff, proj, project(e, w, d+1))
		}
		value = fmt.Sprintf("%s == %s ? %s : %s", k, name, proj, value)
	}
	filter := "true"
	if len(drop) > 0 {
		sort.Strings(drop)
		filter = "!(" + strings.Join(drop, " || ") + ")"
	}
	projected := fmt.Sprintf("%s.transformMap(%s, %s, %s, %s)", x, k, e, filter, value)
	// Then the fields on the way to paths that are not live, where they hold nothing else.
	q, f := fmt.Sprintf("pq%d", d), fmt.Sprintf("pf%d", d)
	var absent []string
	for _, n := range names {
		c := t.fields[n]
		if len(c.fields) == 0 && c.wildcard == nil {
			continue
		}
		empty := fmt.Sprintf("%s == null || (type(%s) == map && size(%s) == 0)", f, f, f)
		if c.wildcard != nil && len(c.fields) == 0 && c.wildcard.off != "" {
			empty += " || (" + c.wildcard.off + ")"
		}
		absent = append(absent, fmt.Sprintf("(%s == %s && (%s) && (%s))", q, celString(n), c.anyOff(), empty))
	}
	if len(absent) > 0 {
		projected = fmt.Sprintf("%s.transformMap(%s, %s, !(%s), %s)", projected, q, f, strings.Join(absent, " || "), f)
	}
	return fmt.Sprintf("(type(%s) == map ? dyn(%s) : %s)", x, projected, x)
}
