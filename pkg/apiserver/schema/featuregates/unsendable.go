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
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
)

// Unsendable is what the schema of a client's version lacks on the way to the disabled paths
// of an index (with conversion None, a version whose schema has less than the storage
// version's). A client of that version can neither see nor send what its schema lacks: a
// write in that version that leaves out such a list or map does not remove its items, it is
// kept as stored, items and all (see PrepareForUpdateIn), and CheckKeptIn refuses a result
// that lacks it or changed it; and the items of lists without keys are told apart as that
// version shows them.
type Unsendable struct {
	nodes map[*node]bool
	// items are, for the items of each list without keys on the way to a disabled path that
	// the version has, the version's schema of an item: the matcher and the last check tell
	// stored items apart as that version shows them (see shown), since its client reads and
	// sends them so.
	items map[*node]*structuralschema.Structural
}

// UnsendableIn returns the lists and maps of ix's disabled paths that schema, the structural
// schema of a client's version, lacks, and that version's schemas of the items of the lists
// without keys on the way to them; nil when ix disables nothing, when schema is nil (the
// version's shape is unknown), or when there is neither. A node below a property that
// preserves unknown fields is not lacking: a client can send it there. The result belongs to
// ix and to this revision of the schema.
func (ix *Index) UnsendableIn(schema *structuralschema.Structural) *Unsendable {
	if !ix.HasDisabled() || schema == nil {
		return nil
	}
	u := &Unsendable{nodes: map[*node]bool{}, items: map[*node]*structuralschema.Structural{}}
	u.walk(ix.disabled, schema, true)
	if len(u.nodes) == 0 && len(u.items) == 0 {
		return nil
	}
	return u
}

// walk visits n, whose schema in the client's version is s; present says whether the version
// has the node. A present node without a schema is below a property that preserves unknown
// fields, as is everything under it.
func (u *Unsendable) walk(n *node, s *structuralschema.Structural, present bool) {
	if n.target != nil {
		return
	}
	if !present && n.wildcard != nil {
		u.nodes[n] = true
	}
	for _, c := range n.children {
		var cs *structuralschema.Structural
		has := present && s == nil
		if present && s != nil {
			if p, ok := s.Properties[c.name]; ok {
				cs, has = &p, true
			} else if s.XPreserveUnknownFields {
				has = true
			}
		}
		u.walk(c.node, cs, has)
	}
	if w := n.wildcard; w != nil {
		var ws *structuralschema.Structural
		has := present && s == nil
		if present && s != nil {
			switch {
			case s.Items != nil:
				ws, has = s.Items, true
				if len(n.listMapKeys) == 0 && w.target == nil {
					u.items[w] = s.Items
				}
			case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
				ws, has = s.AdditionalProperties.Structural, true
			case s.AdditionalProperties != nil && s.AdditionalProperties.Bool, s.XPreserveUnknownFields:
				has = true
			}
		}
		u.walk(w, ws, has)
	}
}

// lacks reports whether the client's version lacks node n, a list or map.
func (u *Unsendable) lacks(n *node) bool {
	return u != nil && u.nodes[n]
}

// shown returns v, an item of a list without keys whose items are node n, as the client's
// version shows it: pruned by that version's schema of the item, so without the fields, lists
// and maps the version lacks. It is v itself where there is nothing to prune; v is not
// modified.
func (u *Unsendable) shown(n *node, v interface{}) interface{} {
	if u == nil {
		return v
	}
	s := u.items[n]
	if s == nil {
		return v
	}
	if _, ok := v.(map[string]interface{}); !ok {
		return v
	}
	c := runtime.DeepCopyJSONValue(v)
	structuralpruning.Prune(c, s, false)
	return c
}
