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
	"slices"
	"sort"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// GateSpec is one declared gate, as the API carries it.
type GateSpec struct {
	Name               string
	PreRelease         string
	Enabled            *bool
	Default            *bool
	DeprecationWarning *string
	FieldPaths         []string
	// Requires names the other gates that must be enabled for this one to be (GateStates).
	Requires []string
	// RequiresAnyOf names other gates of which at least one must be enabled for this one to
	// be (GateStates).
	RequiresAnyOf []string
}

// Gate is a compiled gate.
type Gate struct {
	Name       string
	PreRelease string
	// Enabled is the gate's state, by GateStates: its own state (Enabled) and the state of
	// every gate it requires.
	Enabled bool
	// Unmet names the required gates that keep an otherwise enabled gate disabled
	// (GateState.Unmet); nil for a gate without requires.
	Unmet []string
	// UnmetAnyOf is the gate's RequiresAnyOf when it is the reason an otherwise enabled gate
	// is disabled (GateState.UnmetAnyOf); nil otherwise.
	UnmetAnyOf []string
	// DeprecationWarning is the custom warning of a deprecated gate, or "".
	DeprecationWarning string
}

// GatedPath is one field path of a gate.
type GatedPath struct {
	Path Path
	Gate *Gate
	// EffectivelyEnabled is true when the path's gate and the gates of all its gated
	// ancestor paths are enabled.
	EffectivelyEnabled bool
	// order is the rank of the path among the index's paths in string order, so that the
	// changes of a write sort by comparing integers.
	order int
	// warnings caches the texts of Change.Warning, which depend only on the path: they are
	// built on first use, so a path that never draws a warning costs nothing.
	warnings *warningTexts
}

// Index is the compiled form of a CRD's gates: built once per CRD revision, then shared,
// read-only, by every request.
type Index struct {
	paths []GatedPath
	// disabled is a trie of the effectively disabled paths that have no effectively disabled
	// ancestor; nil when every path is enabled.
	disabled *node
	// deprecated are the effectively enabled paths of deprecated gates, and deprecatedKeys,
	// for each, the list-map keys of the lists its steps iterate (see listKeysAlong).
	deprecated     []*GatedPath
	deprecatedKeys [][][]string
	// keyless is true when a disabled path goes through a list without keys (see SentLists).
	keyless bool
	// targets is the number of nodes of disabled that are a disabled path: a write that sends
	// each once has as many changes.
	targets int
}

// fieldChild is the child of a node for one field name.
type fieldChild struct {
	name string
	node *node
}

// node is a trie node over path steps.
type node struct {
	// fields are the field children while the trie is built; freeze moves them to children.
	fields   map[string]*node
	children []fieldChild
	wildcard *node
	// target is set on the node of a disabled path: its whole value is gated.
	target *GatedPath
	// listMapKeys are the x-kubernetes-list-map-keys of the list a wildcard child iterates,
	// used to correlate new and old items; empty means correlation by index.
	listMapKeys []string
	// required are the required properties of the object at the node, when gating may have
	// to recreate it to hold a stored value (see applier.replaced).
	required []string
	// defaults is the schema of the object at the node, without the defaults of disabled
	// paths (WithoutDisabledDefaults), when it or a property below it has a default: an
	// object that gating recreates gets the defaults that decoding gives every object it
	// finds (see setDefaults).
	defaults *structuralschema.Structural
}

// Compile builds the index of a CRD's gates in its storage version: the gates' fieldPaths
// and the nodes of schema marked with x-kubernetes-feature-gate. It is CompileVersion with
// the fieldPaths, so it holds schema's own marks only: with conversion None, where every
// version's marks gate every version, the API server compiles with CompileVersions.
func Compile(specs []GateSpec, schema *structuralschema.Structural) *Index {
	return CompileVersion(specs, schema, true)
}

// CompileVersion builds the index of a CRD's gates for the objects of one version, whose
// structural schema is schema (it may be nil), from that version's own marks: the nodes
// marked there with x-kubernetes-feature-gate, plus the gates' fieldPaths when fieldPaths is
// true, which is right for the storage version and for every version of a CRD without a
// conversion webhook (see AppliesToVersion). It is the index of a version of a CRD with a
// conversion webhook; with conversion None, every version's marks gate every version, see
// CompileSharedShape and CompileVersions. The schema is also used to correlate list items.
// Paths that do not parse, reserved paths, the root's mark and marks that name an undeclared
// gate are skipped (CRD validation rejects them); a marked path that is also a field path
// keeps the field path's gate (validation requires the two to agree). It returns nil when
// there are no gated paths.
func CompileVersion(specs []GateSpec, schema *structuralschema.Structural, fieldPaths bool) *Index {
	return compile(specs, schema, fieldPaths, Marks(schema))
}

// CompileSharedShape builds the index of one version of a CRD whose versions share one shape
// (conversion None, see SharesShape), whose structural schema is schema (it may be nil): the
// gates' fieldPaths, and the marks of every version's schema in versions (which holds schema's
// own marks too, in the CRD's order) at the paths that schema has (Resolve; all of them when
// schema is nil). So a path is gated, by the same gate, in every version whose schema has it,
// whichever version marks it and whichever is the storage version. Where versions mark one
// path with different gates (CRD validation rejects that), the gate of a field path wins,
// then the first version's mark. The rest is CompileVersion's.
func CompileSharedShape(specs []GateSpec, schema *structuralschema.Structural, versions []*structuralschema.Structural) *Index {
	return compile(specs, schema, true, sharedMarks(schema, versions, versionMarks(versions)))
}

// versionMarks returns the marks of each schema of versions.
func versionMarks(versions []*structuralschema.Structural) [][]Mark {
	marks := make([][]Mark, len(versions))
	for i, v := range versions {
		marks[i] = Marks(v)
	}
	return marks
}

// sharedMarks returns the marks of every schema in versions (marks[i] are those of
// versions[i]), in order, at the paths that schema has (every one when schema is nil).
// compile keeps the first valid mark of a path.
func sharedMarks(schema *structuralschema.Structural, versions []*structuralschema.Structural, marks [][]Mark) []Mark {
	var out []Mark
	has := map[string]bool{}
	for i, v := range versions {
		for _, m := range marks[i] {
			if v != schema && schema != nil {
				key := m.Path.String()
				ok, known := has[key]
				if !known {
					ok = Resolve(m.Path, schema) == nil
					has[key] = ok
				}
				if !ok {
					continue
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// VersionSchema is the structural schema of one version of a CRD; Schema is nil when the
// version has none.
type VersionSchema struct {
	Version string
	Schema  *structuralschema.Structural
}

// CompileVersions builds the index of every version of a CRD revision, by version name, from
// the versions' structural schemas in the CRD's order. With a shared shape (conversion None,
// see SharesShape) each version's index is CompileSharedShape's, with every version's marks;
// otherwise (a conversion webhook) CompileVersion's, with the version's own marks and the
// gates' fieldPaths in the storage version only. A version without gated paths has no entry.
// The API server (the custom-resource strategy and its defaulting), pkg/apihelpers, the
// OpenAPI builder and kubectl featuregates compile a version's index this way, so they agree
// on every version; with a shared shape the result does not depend on storageVersion.
func CompileVersions(specs []GateSpec, versions []VersionSchema, storageVersion string, sharedShape bool) map[string]*Index {
	indexes := map[string]*Index{}
	var all []*structuralschema.Structural
	var marks [][]Mark
	if sharedShape {
		all = make([]*structuralschema.Structural, len(versions))
		for i, v := range versions {
			all[i] = v.Schema
		}
		marks = versionMarks(all) // once per revision, not once per version
	}
	for _, v := range versions {
		var ix *Index
		if sharedShape {
			ix = compile(specs, v.Schema, true, sharedMarks(v.Schema, all, marks))
		} else {
			ix = CompileVersion(specs, v.Schema, v.Version == storageVersion)
		}
		if ix != nil {
			indexes[v.Version] = ix
		}
	}
	return indexes
}

// compile is CompileVersion with the marks given.
func compile(specs []GateSpec, schema *structuralschema.Structural, fieldPaths bool, marks []Mark) *Index {
	gates := make([]Gate, len(specs))
	byName := make(map[string]*Gate, len(specs))
	var paths []GatedPath
	seen := map[string]bool{}
	var states map[string]GateState
	if anyRequires(specs) {
		states = GateStates(specs)
	}
	for i, s := range specs {
		gates[i] = Gate{Name: s.Name, PreRelease: s.PreRelease, Enabled: Enabled(s.PreRelease, s.Enabled, s.Default)}
		if st, ok := states[s.Name]; ok {
			gates[i].Enabled, gates[i].Unmet, gates[i].UnmetAnyOf = st.Enabled, st.Unmet, st.UnmetAnyOf
		}
		if s.DeprecationWarning != nil && s.PreRelease == Deprecated {
			gates[i].DeprecationWarning = *s.DeprecationWarning
		}
		if _, dup := byName[s.Name]; !dup {
			byName[s.Name] = &gates[i]
		}
		if !fieldPaths {
			continue
		}
		for _, raw := range s.FieldPaths {
			p, err := ParsePath(raw)
			if err != nil || p.IsReserved() {
				continue
			}
			seen[p.String()] = true
			paths = append(paths, GatedPath{Path: p, Gate: &gates[i], warnings: &warningTexts{}})
		}
	}
	for _, m := range marks {
		g, ok := byName[m.Gate]
		if !ok || m.Path.Len() == 0 || m.Path.IsReserved() || seen[m.Path.String()] {
			continue
		}
		seen[m.Path.String()] = true
		paths = append(paths, GatedPath{Path: m.Path, Gate: g, warnings: &warningTexts{}})
	}
	if len(paths) == 0 {
		return nil
	}
	// Sorting by step count puts every ancestor before its descendants.
	sort.SliceStable(paths, func(i, j int) bool { return paths[i].Path.Len() < paths[j].Path.Len() })
	ix := &Index{paths: paths}
	byString := make([]*GatedPath, len(paths))
	for i := range paths {
		byString[i] = &paths[i]
	}
	sort.Slice(byString, func(i, j int) bool { return byString[i].Path.String() < byString[j].Path.String() })
	for rank, p := range byString {
		p.order = rank + 1
	}
	// A path is effectively enabled when its gate is enabled and every gated ancestor path is
	// effectively enabled. Ancestors come first, so looking up each proper prefix of a path
	// among the paths seen so far is enough: O(paths x depth). A disabled ancestor with a [*]
	// step also covers a named step at its place (`.spec.limits[*]` covers
	// `.spec.limits.cpu.max`, see covers): those few are checked one by one.
	byPath := make(map[string]*GatedPath, len(paths))
	var disabledWildcards []*GatedPath
	for i := range paths {
		p := &paths[i]
		p.EffectivelyEnabled = p.Gate.Enabled
		for k := 1; k < p.Path.Len() && p.EffectivelyEnabled; k++ {
			if q, ok := byPath[Path{steps: p.Path.steps[:k]}.String()]; ok && !q.EffectivelyEnabled {
				p.EffectivelyEnabled = false
			}
		}
		for _, q := range disabledWildcards {
			if !p.EffectivelyEnabled {
				break
			}
			if q.Path.Len() < p.Path.Len() && covers(q.Path, p.Path) {
				p.EffectivelyEnabled = false
			}
		}
		byPath[p.Path.String()] = p
		if !p.EffectivelyEnabled && p.Path.hasWildcard() {
			disabledWildcards = append(disabledWildcards, p)
		}
	}
	for i := range paths {
		p := &paths[i]
		switch {
		case !p.EffectivelyEnabled:
			ix.addDisabled(p, schema)
		case p.Gate.PreRelease == Deprecated:
			ix.deprecated = append(ix.deprecated, p)
			ix.deprecatedKeys = append(ix.deprecatedKeys, listKeysAlong(p.Path, schema))
		}
	}
	ix.disabled.freeze()
	ix.keyless = ix.disabled.throughKeyless()
	ix.disabled.setDefaults(ix.WithoutDisabledDefaults(schema))
	return ix
}

// setDefaults records, on every node below n (n included) that gating may recreate, the
// schema s of its object when s has a default in it or below it (see node.defaults). s is a
// gate-aware schema (WithoutDisabledDefaults), so the defaults recorded never put a value at
// a disabled path. The nodes of disabled paths hold stored values as they are and get none.
func (n *node) setDefaults(s *structuralschema.Structural) {
	if n == nil || s == nil || n.target != nil {
		return
	}
	if s.Type == "object" && hasDefault(s) {
		n.defaults = s
	}
	for _, c := range n.children {
		if prop, ok := s.Properties[c.name]; ok {
			c.node.setDefaults(&prop)
		} else if s.AdditionalProperties != nil {
			// A named key of a map: its value's schema is the map's, shared by every key,
			// whose defaults hold no gated path (DefaultBelowNamedKey).
			c.node.setDefaults(s.AdditionalProperties.Structural)
		}
	}
	switch {
	case s.Items != nil:
		n.wildcard.setDefaults(s.Items)
	case s.AdditionalProperties != nil:
		n.wildcard.setDefaults(s.AdditionalProperties.Structural)
	}
}

// throughKeyless reports whether a path below n goes through a list without keys: a [*]
// that is not itself the gated path, with no list-map keys (maps of additionalProperties
// count too; SentLists tells them apart by the value).
func (n *node) throughKeyless() bool {
	if n == nil || n.target != nil {
		return false
	}
	if n.wildcard != nil && n.wildcard.target == nil && len(n.listMapKeys) == 0 {
		return true
	}
	for _, c := range n.children {
		if c.node.throughKeyless() {
			return true
		}
	}
	return n.wildcard.throughKeyless()
}

// freeze turns the field children of every node into a slice sorted by name: the request
// path only iterates over them, and a slice is faster to iterate than a map, and in order.
func (n *node) freeze() {
	if n == nil {
		return
	}
	for name, child := range n.fields {
		n.children = append(n.children, fieldChild{name: name, node: child})
		child.freeze()
	}
	sort.Slice(n.children, func(i, j int) bool { return n.children[i].name < n.children[j].name })
	n.fields = nil
	n.wildcard.freeze()
}

// addDisabled inserts a disabled path into the trie, unless a disabled ancestor covers it.
func (ix *Index) addDisabled(p *GatedPath, schema *structuralschema.Structural) {
	if ix.disabled == nil {
		ix.disabled = &node{}
	}
	n := ix.disabled
	for _, st := range p.Path.steps {
		if n.target != nil {
			return // an ancestor's whole value is gated already
		}
		if st.Wildcard {
			schema, n.listMapKeys = schemaBelow(schema, st)
			if n.wildcard == nil {
				n.wildcard = &node{}
			}
			n = n.wildcard
			continue
		}
		if schema != nil && schema.ValueValidation != nil && len(schema.ValueValidation.Required) > 0 && n != ix.disabled {
			n.required = schema.ValueValidation.Required
		}
		schema, _ = schemaBelow(schema, st)
		if n.fields == nil {
			n.fields = map[string]*node{}
		}
		child, ok := n.fields[st.Field]
		if !ok {
			child = &node{}
			n.fields[st.Field] = child
		}
		n = child
	}
	if n.target == nil {
		n.target = p
		ix.targets++
		// The whole value is gated: deeper disabled paths are covered.
		n.fields, n.wildcard = nil, nil
	}
}

// before orders gated paths by their normalized form: by rank within one index, by string
// otherwise.
func (p *GatedPath) before(q *GatedPath) bool {
	if p.order != 0 && q.order != 0 {
		return p.order < q.order
	}
	return p.Path.String() < q.Path.String()
}

// Paths returns every gated path, ancestors first. The caller must not modify them.
func (ix *Index) Paths() []GatedPath {
	if ix == nil {
		return nil
	}
	return ix.paths
}

// HasDisabled reports whether any path is effectively disabled. When it is false, writes
// take upstream's path: nothing is copied or converted.
func (ix *Index) HasDisabled() bool { return ix != nil && ix.disabled != nil }

// HasDeprecated reports whether any effectively enabled path belongs to a deprecated gate.
func (ix *Index) HasDeprecated() bool { return ix != nil && len(ix.deprecated) > 0 }

// SameGating reports whether ix and o gate every write alike: the same effectively disabled
// paths, by the same gates in the same state, correlating list items the same way, and the
// same effectively enabled paths of deprecated gates. Either may be nil (it gates nothing).
// With a shared shape (CompileSharedShape), a version whose index gates like the storage
// version's needs no second gating step in the storage version.
func (ix *Index) SameGating(o *Index) bool {
	var a, b *node
	var da, db []*GatedPath
	if ix != nil {
		a, da = ix.disabled, ix.deprecated
	}
	if o != nil {
		b, db = o.disabled, o.deprecated
	}
	if len(da) != len(db) || !a.same(b) {
		return false
	}
	for i := range da {
		if !da[i].same(db[i]) {
			return false
		}
	}
	return true
}

// same reports whether two frozen tries are equal (see SameGating).
func (n *node) same(o *node) bool {
	if n == nil || o == nil {
		return n == o
	}
	if (n.target == nil) != (o.target == nil) || (n.target != nil && !n.target.same(o.target)) {
		return false
	}
	if len(n.children) != len(o.children) || len(n.listMapKeys) != len(o.listMapKeys) || !slices.Equal(n.required, o.required) {
		return false
	}
	for i := range n.listMapKeys {
		if n.listMapKeys[i] != o.listMapKeys[i] {
			return false
		}
	}
	for i := range n.children {
		if n.children[i].name != o.children[i].name || !n.children[i].node.same(o.children[i].node) {
			return false
		}
	}
	return n.wildcard.same(o.wildcard)
}

// same reports whether two gated paths have the same path, gate and state.
func (p *GatedPath) same(q *GatedPath) bool {
	return p.Path.String() == q.Path.String() && p.EffectivelyEnabled == q.EffectivelyEnabled && p.Gate.same(q.Gate)
}

// same reports whether two compiled gates are equal, field by field.
func (g *Gate) same(o *Gate) bool {
	return g.Name == o.Name && g.PreRelease == o.PreRelease && g.Enabled == o.Enabled &&
		g.DeprecationWarning == o.DeprecationWarning && slices.Equal(g.Unmet, o.Unmet) && slices.Equal(g.UnmetAnyOf, o.UnmetAnyOf)
}
