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
)

// Unsendable is the set of lists and maps on the way to a disabled path of an index that the
// schema of a client's version lacks (with conversion None, a version whose schema has less
// than the storage version's). A client of that version can neither see nor send them, so a
// write in that version that leaves one out does not remove its items: the list or map is
// kept as stored, items and all (see PrepareForUpdateIn), and CheckKeptIn refuses a result
// that lacks it or changed it.
type Unsendable struct {
	nodes map[*node]bool
}

// UnsendableIn returns the lists and maps of ix's disabled paths that schema, the structural
// schema of a client's version, lacks; nil when there is none (or schema is nil, when the
// version's shape is unknown). A node below a property that preserves unknown fields is not
// lacking: a client can send it there. The result belongs to ix and to this revision of the
// schema.
func (ix *Index) UnsendableIn(schema *structuralschema.Structural) *Unsendable {
	if !ix.HasDisabled() || schema == nil {
		return nil
	}
	u := &Unsendable{nodes: map[*node]bool{}}
	u.walk(ix.disabled, schema, true)
	if len(u.nodes) == 0 {
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
