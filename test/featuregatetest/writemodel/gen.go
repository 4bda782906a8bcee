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

package writemodel

import (
	"fmt"
	"math/rand"
	"sort"
)

// Gate is one gate of the fuzzed CRD and the path it guards.
type Gate struct {
	Name, Path string
}

// Gates are the gates of the fuzzed CRD (see CRDYAML): fields of the items of a list without
// keys (one of which a version lacks, see LackedStepField), of the items of a list without keys
// and of a list of type map nested in them, a gated [*] list nested in them, a field of a list
// of type map, of the values of a map, a gated [*] of a list and of a map, a field below an
// untyped object that keeps unknown fields, and a field of a nullable object with a required
// property.
var Gates = []Gate{
	{"RetryGate", ".spec.steps[*].retry"},
	{"WeightGate", ".spec.steps[*].sub[*].w"},
	{"NoteGate", ".spec.steps[*].note"},
	{"LabelsGate", ".spec.steps[*].labels[*]"},
	{"VarSecretGate", ".spec.steps[*].vars[*].secret"},
	{"HostPortGate", ".spec.ports[*].hostPort"},
	{"MaxGate", ".spec.limits[*].max"},
	{"TagsGate", ".spec.tags[*]"},
	{"ExtraGate", ".spec.extra[*]"},
	{"SecretGate", ".spec.config.secret"},
	{"EncryptionGate", ".spec.backup.encryption"},
}

// SchemaFor is the model's Schema of the fuzzed CRD with the gates in off disabled.
func SchemaFor(off map[string]bool) Schema {
	s := Schema{ListKeys: map[string][]string{".spec.ports": {"name"}, ".spec.steps[*].vars": {"name"}}, Required: map[string][]string{".spec.backup": {"size"}}}
	for _, g := range Gates {
		if off[g.Name] {
			s.Disabled = append(s.Disabled, g.Path)
		}
	}
	sort.Strings(s.Disabled)
	return s
}

// CRDYAML is the fuzzed CRD's openAPIV3Schema (version v1), every gate alpha, each one's
// `enabled` given by on.
const CRDSchemaYAML = `
type: object
properties:
  spec:
    type: object
    properties:
      steps:
        type: array
        items:
          type: object
          properties:
            name: {type: string}
            image: {type: string}
            mode: {type: string}
            retry: {type: integer}
            note: {type: string}
            labels:
              type: array
              items: {type: string}
            vars:
              type: array
              x-kubernetes-list-type: map
              x-kubernetes-list-map-keys: [name]
              items:
                type: object
                required: [name]
                properties:
                  name: {type: string}
                  value: {type: string}
                  secret: {type: string}
            sub:
              type: array
              items:
                type: object
                properties:
                  v: {type: integer}
                  w: {type: integer}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer}
            hostPort: {type: integer}
      limits:
        type: object
        additionalProperties:
          type: object
          properties:
            max: {type: integer}
            min: {type: integer}
      tags:
        type: array
        items: {type: string}
      extra:
        type: object
        additionalProperties: {type: string}
      config:
        x-kubernetes-preserve-unknown-fields: true
      backup:
        type: object
        nullable: true
        required: [size]
        properties:
          size: {type: string}
          encryption: {type: string}
`

// DefaultMode is the default of .spec.steps[*].mode in a version of the fuzzed CRD that gives
// one (the storage version gives none): stored items are made with and without it, so that
// items that differ as stored look alike as that version decodes them.
const DefaultMode = "x"

// LackedStepField is the gated field of .spec.steps items that a version of the fuzzed CRD
// lacks (the one that defaults DefaultMode): writes through it cannot send the stored values,
// and the rule tells items apart without them.
const LackedStepField = "note"

// Gen makes stored objects and writes for the fuzzed CRD. Every value is unique, so that a
// stored value that moves can be seen; names come from a small set, so that items equal
// outside the gated fields are common.
type Gen struct {
	R    *rand.Rand
	next int
}

func (g *Gen) unique() int64 {
	g.next++
	return int64(g.next)
}

func (g *Gen) str(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, g.unique())
}

// Spec returns a random spec with every field (all gates on).
func (g *Gen) Spec() map[string]interface{} {
	spec := map[string]interface{}{}
	if g.R.Intn(5) != 0 {
		var steps []interface{}
		for i := g.R.Intn(5); i > 0; i-- {
			steps = append(steps, g.step())
		}
		spec["steps"] = orEmpty(steps)
	}
	if g.R.Intn(3) != 0 {
		var ports []interface{}
		for i := g.R.Intn(4); i > 0; i-- {
			ports = append(ports, g.port())
		}
		spec["ports"] = orEmpty(ports)
	}
	if g.R.Intn(3) != 0 {
		limits := map[string]interface{}{}
		for i := g.R.Intn(3); i > 0; i-- {
			limits[g.str("l")] = g.limit()
		}
		spec["limits"] = limits
	}
	if g.R.Intn(3) != 0 {
		var tags []interface{}
		for i := g.R.Intn(3); i > 0; i-- {
			tags = append(tags, g.str("t"))
		}
		spec["tags"] = orEmpty(tags)
	}
	if g.R.Intn(3) != 0 {
		extra := map[string]interface{}{}
		for i := g.R.Intn(3); i > 0; i-- {
			extra[g.str("e")] = g.str("x")
		}
		spec["extra"] = extra
	}
	if g.R.Intn(3) != 0 {
		cfg := map[string]interface{}{"mode": g.str("m")}
		if g.R.Intn(3) != 0 {
			cfg["secret"] = g.str("s")
		}
		spec["config"] = cfg
	}
	if g.R.Intn(3) != 0 {
		b := map[string]interface{}{"size": g.str("z")}
		if g.R.Intn(3) != 0 {
			b["encryption"] = g.str("k")
		}
		spec["backup"] = b
	}
	return spec
}

func orEmpty(l []interface{}) []interface{} {
	if l == nil {
		return []interface{}{}
	}
	return l
}

func (g *Gen) step() map[string]interface{} {
	s := map[string]interface{}{"name": []string{"a", "b", "c"}[g.R.Intn(3)]}
	if g.R.Intn(3) == 0 {
		s["mode"] = DefaultMode // what the fuzzer's third version defaults it to
	}
	if g.R.Intn(2) == 0 {
		s["retry"] = g.unique()
	}
	if g.R.Intn(3) == 0 {
		var sub []interface{}
		for i := g.R.Intn(3) + 1; i > 0; i-- {
			it := map[string]interface{}{"v": int64(g.R.Intn(2))}
			if g.R.Intn(2) == 0 {
				it["w"] = g.unique()
			}
			sub = append(sub, it)
		}
		s["sub"] = sub
	}
	if g.R.Intn(4) == 0 {
		s["note"] = g.str("n")
	}
	if g.R.Intn(4) == 0 {
		var labels []interface{}
		for i := g.R.Intn(2) + 1; i > 0; i-- {
			labels = append(labels, g.str("b"))
		}
		s["labels"] = labels
	}
	if g.R.Intn(4) == 0 {
		var vars []interface{}
		for _, n := range g.R.Perm(3)[:g.R.Intn(3)+1] {
			vars = append(vars, g.envVar([]string{"A", "B", "C"}[n]))
		}
		s["vars"] = vars
	}
	return s
}

// envVar is an item of the list of type map below a step, named n.
func (g *Gen) envVar(n string) map[string]interface{} {
	v := map[string]interface{}{"name": n, "value": g.str("v")}
	if g.R.Intn(2) == 0 {
		v["secret"] = g.str("s")
	}
	return v
}

func (g *Gen) port() map[string]interface{} {
	p := map[string]interface{}{"name": g.str("p"), "port": g.unique()}
	if g.R.Intn(2) == 0 {
		p["hostPort"] = g.unique()
	}
	return p
}

func (g *Gen) limit() map[string]interface{} {
	l := map[string]interface{}{"min": g.unique()}
	if g.R.Intn(2) == 0 {
		l["max"] = g.unique()
	}
	return l
}

// Families are the kinds of write Write makes.
var Families = []string{
	"edit", "reorder", "insert", "remove", "move+edit", "swap+edit", "duplicate",
	"send-gated", "null-parent", "absent-parent", "type-change", "edit-nested", "mixed",
}

// Write returns a write made from the stored spec (not modified) by a mutation of family (a
// random one when family is ""), and the family.
func (g *Gen) Write(stored map[string]interface{}, family string) (map[string]interface{}, string) {
	spec := copyJSON(stored).(map[string]interface{})
	if family == "" {
		family = Families[g.R.Intn(len(Families))]
	}
	switch family {
	case "mixed":
		for i := g.R.Intn(3) + 2; i > 0; i-- {
			spec, _ = g.Write(spec, Families[g.R.Intn(len(Families)-1)])
		}
		return spec, family
	case "send-gated":
		g.sendGated(spec)
		return spec, family
	case "null-parent", "absent-parent":
		k := []string{"steps", "ports", "limits", "tags", "extra", "config", "backup"}[g.R.Intn(7)]
		if family == "null-parent" {
			spec[k] = nil
		} else {
			delete(spec, k)
		}
		return spec, family
	case "type-change":
		if g.R.Intn(2) == 0 {
			spec["config"] = g.str("plain")
		} else {
			spec["config"] = []interface{}{g.str("plain")}
		}
		return spec, family
	}
	// The rest act on a list: steps (without keys) mostly, ports (with keys) sometimes.
	listKey := "steps"
	if g.R.Intn(4) == 0 {
		listKey = "ports"
	}
	items, _ := spec[listKey].([]interface{})
	edit := func(it interface{}) interface{} {
		o, ok := it.(map[string]interface{})
		if !ok {
			return it
		}
		o = copyJSON(o).(map[string]interface{})
		if listKey == "ports" {
			o["port"] = g.unique()
		} else {
			o["image"] = g.str("i")
			if g.R.Intn(4) == 0 {
				// Sent without some of its values at fields that may be gated (as an apply of
				// a manifest without them does): the item then sends back part of what it
				// holds.
				for _, k := range []string{"retry", "note", "labels"} {
					if g.R.Intn(2) == 0 {
						delete(o, k)
					}
				}
			}
		}
		return o
	}
	fresh := func() interface{} {
		if listKey == "ports" {
			return g.port()
		}
		return g.step()
	}
	n := len(items)
	switch family {
	case "edit":
		if n > 0 {
			i := g.R.Intn(n)
			items[i] = edit(items[i])
		}
	case "reorder":
		g.R.Shuffle(n, func(i, j int) { items[i], items[j] = items[j], items[i] })
	case "insert":
		i := g.R.Intn(n + 1)
		items = append(items[:i], append([]interface{}{fresh()}, items[i:]...)...)
	case "remove":
		if n > 0 {
			i := g.R.Intn(n)
			items = append(items[:i], items[i+1:]...)
		}
	case "move+edit":
		if n > 1 {
			i, j := g.R.Intn(n), g.R.Intn(n)
			it := edit(items[i])
			items = append(items[:i], items[i+1:]...)
			items = append(items[:j], append([]interface{}{it}, items[j:]...)...)
		}
	case "swap+edit":
		if n > 1 {
			i, j := g.R.Intn(n), g.R.Intn(n)
			items[i], items[j] = edit(items[j]), edit(items[i])
		}
	case "duplicate":
		if n > 0 && listKey == "steps" {
			i := g.R.Intn(n)
			items = append(items[:i], append([]interface{}{copyJSON(items[i])}, items[i:]...)...)
		}
	case "edit-nested":
		for i, it := range items {
			o, ok := it.(map[string]interface{})
			if !ok || listKey != "steps" {
				continue
			}
			if vars, ok := o["vars"].([]interface{}); ok && len(vars) > 0 && g.R.Intn(2) == 0 {
				o = copyJSON(o).(map[string]interface{})
				o["vars"] = g.editVars(o["vars"].([]interface{}))
				items[i] = o
				break
			}
			if sub, ok := o["sub"].([]interface{}); ok && len(sub) > 0 {
				o = copyJSON(o).(map[string]interface{})
				sub = o["sub"].([]interface{})
				k := g.R.Intn(len(sub))
				switch g.R.Intn(3) {
				case 0:
					sub[k].(map[string]interface{})["v"] = g.unique()
				case 1:
					sub = append(sub[:k], sub[k+1:]...)
				default:
					g.R.Shuffle(len(sub), func(a, b int) { sub[a], sub[b] = sub[b], sub[a] })
				}
				o["sub"] = sub
				items[i] = o
				break
			}
		}
	}
	if items != nil || spec[listKey] != nil {
		spec[listKey] = orEmpty(items)
	}
	return spec, family
}

// editVars changes the list of type map below a step: a value edited, an item removed or
// added, or the items reordered.
func (g *Gen) editVars(vars []interface{}) []interface{} {
	k := g.R.Intn(len(vars))
	switch g.R.Intn(4) {
	case 0:
		if o, ok := vars[k].(map[string]interface{}); ok {
			o["value"] = g.str("v")
		}
	case 1:
		vars = append(vars[:k], vars[k+1:]...)
	case 2:
		have := map[interface{}]bool{}
		for _, v := range vars {
			if o, ok := v.(map[string]interface{}); ok {
				have[o["name"]] = true
			}
		}
		for _, n := range []string{"A", "B", "C"} {
			if !have[n] {
				vars = append(vars[:k], append([]interface{}{g.envVar(n)}, vars[k:]...)...)
				break
			}
		}
	default:
		g.R.Shuffle(len(vars), func(a, b int) { vars[a], vars[b] = vars[b], vars[a] })
	}
	return vars
}

// sendGated sets a value at one gated field, new or changed.
func (g *Gen) sendGated(spec map[string]interface{}) {
	switch g.R.Intn(6) {
	case 0:
		if steps, ok := spec["steps"].([]interface{}); ok && len(steps) > 0 {
			if o, ok := steps[g.R.Intn(len(steps))].(map[string]interface{}); ok {
				switch g.R.Intn(4) {
				case 0:
					o["note"] = g.str("n")
				case 1:
					labels, _ := o["labels"].([]interface{})
					o["labels"] = append(labels, g.str("b"))
				case 2:
					if vars, ok := o["vars"].([]interface{}); ok && len(vars) > 0 {
						if v, ok := vars[g.R.Intn(len(vars))].(map[string]interface{}); ok {
							v["secret"] = g.str("s")
							break
						}
					}
					o["retry"] = g.unique()
				default:
					o["retry"] = g.unique()
				}
			}
		}
	case 1:
		if ports, ok := spec["ports"].([]interface{}); ok && len(ports) > 0 {
			if o, ok := ports[g.R.Intn(len(ports))].(map[string]interface{}); ok {
				o["hostPort"] = g.unique()
			}
		}
	case 2:
		limits, _ := spec["limits"].(map[string]interface{})
		if limits == nil {
			limits = map[string]interface{}{}
		}
		limits[g.str("l")] = map[string]interface{}{"max": g.unique()}
		spec["limits"] = limits
	case 3:
		tags, _ := spec["tags"].([]interface{})
		spec["tags"] = append(tags, g.str("t"))
	case 4:
		cfg, _ := spec["config"].(map[string]interface{})
		if cfg == nil {
			cfg = map[string]interface{}{}
		}
		cfg["secret"] = g.str("s")
		spec["config"] = cfg
	default:
		b, _ := spec["backup"].(map[string]interface{})
		if b == nil {
			b = map[string]interface{}{"size": g.str("z")}
		}
		b["encryption"] = g.str("k")
		spec["backup"] = b
	}
}
