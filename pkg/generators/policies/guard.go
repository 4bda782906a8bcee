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
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

// The last guard on a stock server. The mutating policy is one mutator among others: another
// mutating policy or a mutating webhook can run after it and set a value at a disabled path,
// and reinvocation runs ours again at most once. Validating policies run after every
// mutation, so the guard is a Deny validation per gated path that refuses a write whose
// result holds, at a path that is not live, a value other than the stored one at the same
// place. It does not read the mutating policy's pairing of list items: it asks only whether
// the value is stored there, which is what a later mutator cannot fake.
//
// "The same place" is the stored value's own field, map key or list-map item (by its keys).
// In a list without keys, whose items the write may move, it is the stored item at the same
// index, or else another stored item of the same list: the guard lets pass a value that the
// stored items of that list hold at that path, as many times as they hold it, and refuses
// every other. Each item is checked against the stored item at its own index first, so a
// write that moves nothing costs one comparison per item; only a moved item is compared with
// the others.

// guardChecks adds the guard's validation for each gated path that can hold a value.
func (g *gen) guardChecks(onScale string) {
	root := anchor{newV: "object", oldV: oldRoot, node: g.schema}
	for _, p := range g.paths {
		steps := resolveSteps(p.path, g.schema)
		acts := fmt.Sprintf("%s && !%s", g.live(g.chainOf(p.path.Steps(), false)), g.gateVar(p.gate))
		g.validations = append(g.validations, admissionregistrationv1.Validation{
			Expression: fmt.Sprintf("%s || !(%s) || %s", onScale, acts, notLetIn(root, steps, 0, true)),
			Message: fmt.Sprintf("%s: Forbidden: while feature gate %s is disabled, only the stored value may be here: the write, after every mutating policy and webhook, holds a value that is not stored here, or lost the stored one (a mutator that ran after %s, or a parent replaced by a value of another kind); leave the field as stored, or enable the gate first",
				displayPath(p.path.Steps()), p.gate, g.policyName()),
			Reason: ptr.To(metav1.StatusReasonInvalid),
		})
	}
}

// notLetIn returns the CEL condition that every value at steps below anchor a in the new
// object is the stored one at the same place (see above). a.newV is a present value, a.oldV
// an optional. certain is set where the anchor's stored counterpart is certain (the root, a
// map value by key, a map-list item by its keys, not an item of a list without keys): there
// a stored value at a field must also still be there, unchanged, since the rule keeps it
// (recreating its parents); the write that would lose it is refused instead.
func notLetIn(a anchor, steps []step, d int, certain bool) string {
	names, rest := splitRun(steps)
	nv, sv := fmt.Sprintf("gn%d", d), fmt.Sprintf("gs%d", d)
	// A list or map that the write left as stored holds only stored values, each at its place:
	// it passes after one comparison, without a walk of its items.
	bind := func(body string) string {
		return let(sv, a.oldAt(names), let(nv, a.newAt(names),
			fmt.Sprintf("!%s.hasValue() || (%s.hasValue() && %s.value() == %s.value()) || %s", nv, sv, nv, sv, body)))
	}
	if len(rest) == 0 {
		if certain {
			return let(sv, a.oldAt(names), let(nv, a.newAt(names),
				fmt.Sprintf("(%s.hasValue() ? %s.hasValue() && %s.value() == %s.value() : !%s.hasValue() || %s.value() == null)", nv, sv, sv, nv, sv, sv)))
		}
		return bind(fmt.Sprintf("(%s.hasValue() && %s.value() == %s.value())", sv, sv, nv))
	}
	node := a.node
	if len(names) > 0 {
		node = steps[len(names)-1].node
	}
	below := rest[1:]
	item := func(x, stored string, certain bool) string {
		if len(below) == 0 {
			return fmt.Sprintf("(%s.hasValue() && %s.value() == %s)", stored, stored, x)
		}
		return notLetIn(anchor{newV: x, oldV: stored, node: rest[0].node}, below, d+1, certain)
	}
	v := nv + ".value()"
	k, x, i, o, c := fmt.Sprintf("gk%d", d), fmt.Sprintf("gx%d", d), fmt.Sprintf("gi%d", d), fmt.Sprintf("go%d", d), fmt.Sprintf("gc%d", d)
	storedList := fmt.Sprintf("(%s.hasValue() && type(%s.value()) == list ? %s.value() : [])", sv, sv, sv)
	byKey := fmt.Sprintf("%s.all(%s, %s)", v, k,
		let(c, fmt.Sprintf("%s.hasValue() && type(%s.value()) == map ? %s.value()[?%s] : optional.none()", sv, sv, sv, k), item(v+"["+k+"]", c, certain)))
	elsewhere := fmt.Sprintf("%s.exists(%s, %s)", o, c, item(x, "optional.of("+c+")", false))
	inPlace := ""
	if belowNames, more := splitRun(below); len(below) > 0 && len(more) == 0 {
		if len(belowNames) == 1 {
			inPlace = " && " + keptInPlace(v, o, belowNames[0], rest[0].node, d)
		}
		// The value at a field of an item: an item that does not hold what the stored item at
		// its index holds may hold a value only as often as the stored items do, so that a
		// value moves with its item but is not copied into another.
		at := func(y string) string {
			return selectNames(y, false, rest[0].node, false, belowNames)
		}
		vv, y := fmt.Sprintf("gv%d", d), fmt.Sprintf("gy%d", d)
		elsewhere = let(vv, at(x), fmt.Sprintf("!%s.hasValue() || size(%s.filter(%s, %s == %s)) <= size(%s.filter(%s, %s == %s))",
			vv, v, y, at(y), vv, o, y, at(y), vv))
	}
	keyless := let(o, storedList, fmt.Sprintf("lists.range(size(%s)).all(%s, %s)%s", v, i,
		let(x, v+"["+i+"]", fmt.Sprintf("%s || %s",
			item(x, fmt.Sprintf("(%s < size(%s) ? optional.of(%s[%s]) : optional.none())", i, o, o, i), false),
			elsewhere)), inPlace))
	switch {
	case untypedNode(node):
		// Below x-kubernetes-preserve-unknown-fields: the value's own type says which. A
		// stored list or map that holds a value here, replaced by a value of another kind,
		// loses it: refused, as on our server.
		rel := make([]featuregates.Step, len(rest))
		for j, st := range rest {
			rel[j] = st.Step
		}
		kindChanged := fmt.Sprintf("%s.hasValue() && (type(%s.value()) == list || type(%s.value()) == map) && type(%s.value()) != type(%s) && %s",
			sv, sv, sv, sv, v, hasAt(sv+".value()", rel, d))
		return bind(fmt.Sprintf("!(%s) && (type(%s) == map ? %s : type(%s) == list ? %s : true)", kindChanged, v, byKey, v, keyless))
	case node.Items == nil:
		return bind(fmt.Sprintf("(type(%s) != map || %s)", v, byKey))
	case isListMap(node):
		counterpart := storedByKeys(node, o, i, x, c)
		return bind(fmt.Sprintf("(type(%s) != list || %s)", v, let(o, storedList, fmt.Sprintf("lists.range(size(%s)).all(%s, %s)", v, i,
			let(x, v+"["+i+"]", let(k, counterpart, item(x, k, certain)))))))
	default:
		return bind(fmt.Sprintf("(type(%s) != list || %s)", v, keyless))
	}
}

// keptInPlace returns the CEL condition that, in the list without keys v (the result) with
// the stored items o, every stored value at the items' field name is still there, unchanged,
// when the result is the stored list but for that field: same size, and each item the stored
// item at its index but for name. Then no item was moved, added, removed or edited, the rule
// pairs every item with the stored one at its index, and keeps its value; a later mutator that
// removed or changed the value in place is refused. Where the write changed the list
// otherwise, the guard cannot tell which stored item an item continues, and does not judge
// losses there (docs/guides/stock-clusters.md).
//
// Where the items' schema lists their properties and keeps no unknown fields, only those
// properties are compared: a field the schema does not know, which a later mutator may add,
// is pruned after validation, so it must not make a list that is stored as it was look
// changed.
func keptInPlace(v, o, name string, item *structuralschema.Structural, d int) string {
	j, sp, rp, q := fmt.Sprintf("gj%d", d), fmt.Sprintf("gp%d", d), fmt.Sprintf("gr%d", d), fmt.Sprintf("gq%d", d)
	f := celString(name)
	each := func(cond string) string {
		return fmt.Sprintf("lists.range(size(%s)).all(%s, %s)", o, j, let(sp, o+"["+j+"]", let(rp, v+"["+j+"]", cond)))
	}
	sameBut := fmt.Sprintf("(type(%s) == map && type(%s) == map ? %s.all(%s, %s == %s || (%s in %s && %s[%s] == %s[%s])) && %s.all(%s, %s == %s || %s in %s) : %s == %s)",
		sp, rp, rp, q, q, f, q, sp, sp, q, rp, q, sp, q, q, f, q, rp, sp, rp)
	if item != nil && item.Type == "object" && len(item.Properties) > 0 && !item.Extensions.XPreserveUnknownFields {
		var props []string
		for p := range item.Properties {
			if p != name {
				props = append(props, p)
			}
		}
		sort.Strings(props)
		eq := []string{"true"}
		for _, p := range props {
			k := celString(p)
			eq = append(eq, fmt.Sprintf("(%s in %s) == (%s in %s) && (!(%s in %s) || %s[%s] == %s[%s])", k, sp, k, rp, k, sp, sp, k, rp, k))
		}
		sameBut = fmt.Sprintf("(type(%s) == map && type(%s) == map ? %s : %s == %s)", sp, rp, strings.Join(eq, " && "), sp, rp)
	}
	kept := fmt.Sprintf("!(type(%s) == map && %s in %s) || (type(%s) == map && %s in %s && %s[%s] == %s[%s])",
		sp, f, sp, rp, f, rp, rp, f, sp, f)
	return fmt.Sprintf("(size(%s) != size(%s) || !%s || %s)", o, v, each(sameBut), each(kept))
}

// storedByKeys returns the optional stored item of the map list o (a list of stored items,
// whose schema is node) that has the keys of the new item x at index i: the stored item at
// the same index first, so that a list whose order the write kept costs one comparison per
// item, else the first stored item with those keys (c names the search's variable).
func storedByKeys(node *structuralschema.Structural, o, i, x, c string) string {
	same := func(p string) string {
		var eq []string
		for _, key := range node.Extensions.XListMapKeys {
			eq = append(eq, fmt.Sprintf("%s == %s", optField(p, key), optField(x, key)))
		}
		return strings.Join(eq, " && ")
	}
	return fmt.Sprintf("%s < size(%s) && %s ? optional.of(%s[%s]) : %s.filter(%s, %s)[?0]", i, o, same(o+"["+i+"]"), o, i, o, c, same(c))
}

func isListMap(node *structuralschema.Structural) bool {
	return node != nil && node.Extensions.XListType != nil && *node.Extensions.XListType == "map" && len(node.Extensions.XListMapKeys) > 0
}
