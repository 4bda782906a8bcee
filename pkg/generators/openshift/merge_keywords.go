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

package openshift

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apimachinery/pkg/util/sets"
)

// enum gates enum values that only some variants allow: the node allows every value of every
// variant, and for each gate state that excludes values an entry lists the others.
func (m *merger) enum(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	ref := nodes[0]
	values := make([][]apiextensionsv1.JSON, len(nodes))
	distinct := sets.New[string]()
	for i, n := range nodes {
		values[i] = n.s.Enum
		if len(n.s.Enum) > 0 {
			js, _ := json.Marshal(sets.List(crdmerge.EnumSet(n.s.Enum)))
			distinct.Insert(string(js))
		}
	}
	// OpenShift's generator drops a feature-gate-aware enum from the files of gates that do
	// not change it: where the other files give the enum two forms, a file without any is
	// taken to have the base file's enum.
	if len(ref.s.Enum) > 0 && distinct.Len() > 1 {
		for i, n := range nodes {
			if len(n.s.Enum) == 0 {
				values[i] = ref.s.Enum
				m.quirks = append(m.quirks, Quirk{CRD: m.crd, File: n.v.file, Version: m.version, Path: nodePath(path), Keyword: "enum"})
			}
		}
	}
	same := true
	for i := range nodes {
		same = same && crdmerge.EnumSet(values[i]).Equal(crdmerge.EnumSet(values[0])) && (len(values[i]) == 0) == (len(values[0]) == 0)
	}
	if same {
		return
	}
	anyNone := false
	for i := range nodes {
		anyNone = anyNone || len(values[i]) == 0
	}
	out.Enum = nil
	orValues := map[string][]string{}
	if anyNone {
		// One form allows any value: the node allows any, and an entry holds each enum for
		// the gate state of the variants that have it.
		for i, n := range nodes {
			if len(values[i]) == 0 {
				continue
			}
			set := crdmerge.EnumSet(values[i])
			lits, ok := m.conjunction(nodes, owner, func(x at) bool {
				j := indexOf(nodes, x)
				return len(values[j]) > 0 && crdmerge.EnumSet(values[j]).Equal(set)
			})
			if !ok || len(lits) != 1 {
				m.fail(n.v.file, path, "the enum is %s here and absent in another file; gates cannot express that", enumText(values[i]))
				return
			}
			e := crdmerge.GatedEntry(out, lits[0].gate, lits[0].on)
			e.Enum = values[i]
		}
	} else {
		var union []apiextensionsv1.JSON
		seen := sets.New[string]()
		for i := range nodes {
			for _, v := range values[i] {
				if !seen.Has(string(v.Raw)) {
					seen.Insert(string(v.Raw))
					union = append(union, v)
				}
			}
		}
		out.Enum = union
		excluded := map[literal]sets.Set[string]{}
		var order []literal
		for _, v := range union {
			raw := string(v.Raw)
			present := func(x at) bool { return crdmerge.EnumSet(values[indexOf(nodes, x)]).Has(raw) }
			all := true
			for _, n := range nodes {
				all = all && present(n)
			}
			if all {
				continue
			}
			lits, ok := m.conjunction(nodes, owner, present)
			if !ok {
				// The value of either of several gates: entries intersect, so only a rule
				// can allow a value while any one of them is on.
				if adders := m.adders(nodes, owner, present); len(adders) > 1 && !present(nodes[0]) && m.anyOn(nodes, adders, present) {
					orValues[raw] = adders
					continue
				}
				m.fail(nodes[0].v.file, path, "the enum value %s is in some files and not in others in a way that no gate state expresses", raw)
				return
			}
			for _, l := range lits {
				// a value allowed only while l holds is excluded while it does not.
				neg := literal{gate: l.gate, on: !l.on}
				if excluded[neg] == nil {
					excluded[neg] = sets.New[string]()
					order = append(order, neg)
				}
				excluded[neg].Insert(raw)
			}
		}
		for _, l := range order {
			var allowed []apiextensionsv1.JSON
			for _, v := range union {
				if !excluded[l].Has(string(v.Raw)) {
					allowed = append(allowed, v)
				}
			}
			if len(allowed) == 0 {
				m.fail(nodes[0].v.file, path, "with gate %s %s no enum value would be allowed; gates cannot express that", l.gate, onOff(l.on))
				return
			}
			crdmerge.GatedEntry(out, l.gate, l.on).Enum = allowed
		}
		for _, v := range union {
			adders, ok := orValues[string(v.Raw)]
			if !ok {
				continue
			}
			var parts []string
			for _, g := range adders {
				parts = append(parts, m.cel(g))
			}
			out.XValidations = append(out.XValidations, apiextensionsv1.ValidationRule{
				Rule:    strings.Join(parts, " || ") + " || self != " + string(v.Raw),
				Message: fmt.Sprintf("%s is allowed only while one of the gates %s is on", string(v.Raw), strings.Join(adders, ", ")),
			})
		}
	}
	for i, n := range nodes {
		eff := crdmerge.EnumSet(out.Enum)
		none := len(out.Enum) == 0
		for j := range out.XFeatureGatedValidations {
			e := &out.XFeatureGatedValidations[j]
			if len(e.Enum) == 0 || !m.entryApplies(e, n.v) {
				continue
			}
			if none {
				eff, none = crdmerge.EnumSet(e.Enum), false
			} else {
				eff = eff.Intersection(crdmerge.EnumSet(e.Enum))
			}
		}
		for raw, adders := range orValues {
			if !m.anyGate(adders, n.v) {
				eff.Delete(raw)
			}
		}
		want := crdmerge.EnumSet(values[i])
		if none != (len(values[i]) == 0) || !eff.Equal(want) {
			m.fail(n.v.file, path, "the enum is %s here; the merged CRD would allow %v in this file's gate state", enumText(values[i]), sets.List(eff))
		}
	}
}

// required gates the fields that only some variants require: the node requires those all
// of them do, and an entry requires a field while a gate state that the variants requiring
// it share holds.
func (m *merger) required(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	all := sets.New[string]()
	for _, n := range nodes {
		all.Insert(n.s.Required...)
	}
	var native []string
	changed := false
	for _, f := range sets.List(all) {
		present := func(x at) bool { return sets.New(x.s.Required...).Has(f) }
		every := true
		for _, n := range nodes {
			every = every && present(n)
		}
		if every {
			continue
		}
		changed = true
		var lits []literal
		if present(nodes[0]) {
			// required unless a gate is on: one gate off.
			l, ok := m.conjunction(nodes, owner, present)
			if !ok || len(l) != 1 {
				m.fail(nodes[0].v.file, path, "the field %s is required here and not in other files in a way that one gate state cannot express", f)
				continue
			}
			lits = l
		} else {
			for _, g := range m.adders(nodes, owner, present) {
				lits = append(lits, literal{gate: g, on: true})
			}
		}
		for _, l := range lits {
			e := crdmerge.GatedEntry(out, l.gate, l.on)
			e.Required = append(e.Required, f)
		}
		for _, n := range nodes {
			req := false
			for _, l := range lits {
				req = req || m.on(l.gate, n.v) == l.on
			}
			if req != present(n) {
				m.fail(n.v.file, path, "the field %s is required in some files and not in others in a way that gate states cannot express", f)
				break
			}
		}
	}
	if !changed {
		return
	}
	for _, f := range nodes[0].s.Required {
		every := true
		for _, n := range nodes {
			every = every && sets.New(n.s.Required...).Has(f)
		}
		if every {
			native = append(native, f)
		}
	}
	out.Required = native
}

// bound is one bound keyword, read as a float (nil: no bound).
type bound struct {
	name string
	max  bool
	get  func(*apiextensionsv1.JSONSchemaProps) *float64
	set  func(*apiextensionsv1.JSONSchemaProps, *float64)
}

func intBound(name string, max bool, field func(*apiextensionsv1.JSONSchemaProps) **int64) bound {
	return bound{name: name, max: max,
		get: func(s *apiextensionsv1.JSONSchemaProps) *float64 {
			if p := *field(s); p != nil {
				f := float64(*p)
				return &f
			}
			return nil
		},
		set: func(s *apiextensionsv1.JSONSchemaProps, v *float64) { *field(s) = toInt(v) },
	}
}

var bounds = []struct {
	b        bound
	setEntry func(*apiextensionsv1.FeatureGatedValidation, *float64)
}{
	{intBound("maxItems", true, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MaxItems }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MaxItems = toInt(v) }},
	{intBound("minItems", false, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MinItems }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MinItems = toInt(v) }},
	{intBound("maxLength", true, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MaxLength }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MaxLength = toInt(v) }},
	{intBound("minLength", false, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MinLength }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MinLength = toInt(v) }},
	{intBound("maxProperties", true, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MaxProperties }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MaxProperties = toInt(v) }},
	{intBound("minProperties", false, func(s *apiextensionsv1.JSONSchemaProps) **int64 { return &s.MinProperties }),
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.MinProperties = toInt(v) }},
	{bound{name: "maximum", max: true, get: func(s *apiextensionsv1.JSONSchemaProps) *float64 { return s.Maximum },
		set: func(s *apiextensionsv1.JSONSchemaProps, v *float64) { s.Maximum = v }},
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.Maximum = v }},
	{bound{name: "minimum", max: false, get: func(s *apiextensionsv1.JSONSchemaProps) *float64 { return s.Minimum },
		set: func(s *apiextensionsv1.JSONSchemaProps, v *float64) { s.Minimum = v }},
		func(e *apiextensionsv1.FeatureGatedValidation, v *float64) { e.Minimum = v }},
}

func toInt(v *float64) *int64 {
	if v == nil {
		return nil
	}
	i := int64(*v)
	return &i
}

// bounds gates the bounds that differ: the node keeps the loosest, an entry holds a tighter
// one while a gate state holds.
func (m *merger) bounds(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	for _, bb := range bounds {
		b := bb.b
		vals := make([]*float64, len(nodes))
		same := true
		for i, n := range nodes {
			vals[i] = b.get(n.s)
			same = same && reflect.DeepEqual(vals[i], vals[0])
		}
		if same {
			continue
		}
		// OpenShift's generator drops a feature-gate-aware bound from the files of gates
		// that do not change it, as it does enums (see enum).
		if vals[0] != nil {
			distinct := sets.New[float64]()
			for _, v := range vals {
				if v != nil {
					distinct.Insert(*v)
				}
			}
			if distinct.Len() > 1 {
				for i, n := range nodes {
					if vals[i] == nil {
						vals[i] = vals[0]
						m.quirks = append(m.quirks, Quirk{CRD: m.crd, File: n.v.file, Version: m.version, Path: nodePath(path), Keyword: b.name})
					}
				}
			}
		}
		// tighter reports whether a is tighter than b (nil is no bound).
		tighter := func(a, c *float64) bool {
			switch {
			case a == nil:
				return false
			case c == nil:
				return true
			case b.max:
				return *a < *c
			default:
				return *a > *c
			}
		}
		var loose *float64
		for i, v := range vals {
			if i == 0 || tighter(loose, v) {
				loose = v
			}
		}
		b.set(out, loose)
		entries := map[literal]*float64{}
		var order []literal
		put := func(l literal, v *float64) {
			if cur, ok := entries[l]; ok && !tighter(v, cur) {
				return
			} else if !ok {
				order = append(order, l)
			}
			entries[l] = v
		}
		eff := func(v *variant) *float64 {
			cur := loose
			for l, e := range entries {
				if m.on(l.gate, v) == l.on && tighter(e, cur) {
					cur = e
				}
			}
			return cur
		}
		// The base value holds while the gates that loosen it are off.
		for i, n := range nodes[1:] {
			if tighter(vals[0], vals[i+1]) {
				d := n.v.gates.Difference(owner)
				if d.Len() == 1 {
					put(literal{gate: m.gateFor(d), on: false}, vals[0])
				}
			}
		}
		for i, n := range nodes {
			if cur := eff(n.v); tighter(vals[i], cur) {
				d := n.v.gates.Difference(owner)
				if d.Len() == 0 {
					m.fail(n.v.file, path, "%s is %s here; gates cannot express that", b.name, fmtBound(vals[i]))
					break
				}
				put(literal{gate: m.gateFor(d), on: true}, vals[i])
			}
		}
		for _, l := range order {
			bb.setEntry(crdmerge.GatedEntry(out, l.gate, l.on), entries[l])
		}
		for i, n := range nodes {
			if got := eff(n.v); !reflect.DeepEqual(got, vals[i]) {
				m.fail(n.v.file, path, "%s is %s here, but the merged CRD would give %s in this file's gate state: the bound of either of two gates cannot be gated", b.name, fmtBound(vals[i]), fmtBound(got))
				break
			}
		}
	}
}

func fmtBound(v *float64) string {
	if v == nil {
		return "unset"
	}
	if *v == math.Trunc(*v) {
		return fmt.Sprintf("%d", int64(*v))
	}
	return fmt.Sprint(*v)
}

// strings gates a pattern or a format that differs: the node has none where the variants
// disagree, and an entry holds each variant's while its gate state holds.
func (m *merger) strings(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, owner sets.Set[string]) {
	for _, kw := range []struct {
		name  string
		get   func(*apiextensionsv1.JSONSchemaProps) string
		set   func(*apiextensionsv1.JSONSchemaProps, string)
		entry func(*apiextensionsv1.FeatureGatedValidation) *string
	}{
		{"pattern", func(s *apiextensionsv1.JSONSchemaProps) string { return s.Pattern }, func(s *apiextensionsv1.JSONSchemaProps, v string) { s.Pattern = v },
			func(e *apiextensionsv1.FeatureGatedValidation) *string { return &e.Pattern }},
		{"format", func(s *apiextensionsv1.JSONSchemaProps) string { return s.Format }, func(s *apiextensionsv1.JSONSchemaProps, v string) { s.Format = v },
			func(e *apiextensionsv1.FeatureGatedValidation) *string { return &e.Format }},
	} {
		same := true
		for _, n := range nodes {
			same = same && kw.get(n.s) == kw.get(nodes[0].s)
		}
		if same {
			continue
		}
		kw.set(out, "")
		for _, n := range nodes {
			v := kw.get(n.s)
			if v == "" {
				continue
			}
			lits, ok := m.conjunction(nodes, owner, func(x at) bool { return kw.get(x.s) == v })
			if !ok || len(lits) != 1 {
				m.fail(n.v.file, path, "the %s %q is in some files and not in others in a way that one gate state cannot express", kw.name, v)
				return
			}
			p := kw.entry(crdmerge.GatedEntry(out, lits[0].gate, lits[0].on))
			if *p != "" && *p != v {
				m.fail(n.v.file, path, "two %ss would apply with gate %s %s", kw.name, lits[0].gate, onOff(lits[0].on))
				return
			}
			*p = v
		}
		for _, n := range nodes {
			got := sets.New[string]()
			for j := range out.XFeatureGatedValidations {
				if e := &out.XFeatureGatedValidations[j]; m.entryApplies(e, n.v) && *kw.entry(e) != "" {
					got.Insert(*kw.entry(e))
				}
			}
			want := sets.New[string]()
			if v := kw.get(n.s); v != "" {
				want.Insert(v)
			}
			if !got.Equal(want) {
				m.fail(n.v.file, path, "the %s is %q here, but the merged CRD would apply %v in this file's gate state", kw.name, kw.get(n.s), sets.List(got))
			}
		}
	}
}
