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
	"reflect"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
)

// Unsendable is what a client of one version cannot send back as stored, on the way to the
// disabled paths of an index. A version's schema may lack lists and maps the storage version
// has (with conversion None, a version whose schema has less): a write in that version that
// leaves out such a list or map does not remove its items, it is kept as stored, items and
// all (see PrepareForUpdateIn), and CheckKeptIn refuses a result that lacks it or changed it.
// And decoding in a version prunes and defaults by its own schema: the items of lists without
// keys are told apart as that version decodes them (see shown).
type Unsendable struct {
	nodes map[*node]bool
	// items are, for the items of each list without keys on the way to a disabled path that
	// the version has, the version's schema of an item, where decoding by it can change a
	// stored item: the matcher and the last check tell items apart as that version decodes
	// them (see shown), since its client reads and sends them so.
	items map[*node]*structuralschema.Structural
}

// UnsendableIn returns what a client of the version whose structural schema is schema (as it
// defaults: without the defaults at disabled paths) cannot send as stored, on the way to ix's
// disabled paths: the lists and maps the schema lacks, and the schemas of the items of lists
// without keys whose decoding in that version can change a stored item. like is the storage
// version's schema when the version shares its shape (conversion None), and nil otherwise:
// an item schema is then kept where it differs from like's at the same place, or, without
// like, where it has a default (pruning by it changes nothing an update compares, which was
// decoded in that version). UnsendableIn returns nil when ix disables nothing, when schema is
// nil (the version's shape is unknown), or when there is nothing the client cannot send. A
// node below a property that preserves unknown fields is not lacking: a client can send it
// there. The result belongs to ix and to these revisions of the schemas.
func (ix *Index) UnsendableIn(schema, like *structuralschema.Structural) *Unsendable {
	if !ix.HasDisabled() || schema == nil {
		return nil
	}
	u := &Unsendable{nodes: map[*node]bool{}, items: map[*node]*structuralschema.Structural{}}
	u.walk(ix.disabled, schema, like, true, like != nil)
	if len(u.nodes) == 0 && len(u.items) == 0 {
		return nil
	}
	return u
}

// walk visits n, whose schema in the client's version is s, and in the storage version l;
// present says whether the version has the node, shared whether it is compared with the
// storage version's schema. A present node without a schema is below a property that
// preserves unknown fields, as is everything under it.
func (u *Unsendable) walk(n *node, s, l *structuralschema.Structural, present, shared bool) {
	if n.target != nil {
		return
	}
	if !present && n.wildcard != nil {
		u.nodes[n] = true
	}
	for _, c := range n.children {
		var cs, cl *structuralschema.Structural
		has := present && s == nil
		if present && s != nil {
			if p, ok := s.Properties[c.name]; ok {
				cs, has = &p, true
			} else if s.XPreserveUnknownFields {
				has = true
			}
		}
		if l != nil {
			if p, ok := l.Properties[c.name]; ok {
				cl = &p
			}
		}
		u.walk(c.node, cs, cl, has, shared)
	}
	if w := n.wildcard; w != nil {
		var ws, wl *structuralschema.Structural
		has := present && s == nil
		if present && s != nil {
			switch {
			case s.Items != nil:
				ws, has = s.Items, true
				if len(n.listMapKeys) == 0 && w.target == nil && decodingChanges(s.Items, l, shared) {
					u.items[w] = s.Items
				}
			case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
				ws, has = s.AdditionalProperties.Structural, true
			case s.AdditionalProperties != nil && s.AdditionalProperties.Bool, s.XPreserveUnknownFields:
				has = true
			}
		}
		if l != nil {
			switch {
			case l.Items != nil:
				wl = l.Items
			case l.AdditionalProperties != nil:
				wl = l.AdditionalProperties.Structural
			}
		}
		u.walk(w, ws, wl, has, shared)
	}
}

// decodingChanges reports whether decoding an item by items, the client's version's schema of
// the items of a list whose schema in the storage version is l, can change a stored item, as
// UnsendableIn says.
func decodingChanges(items, l *structuralschema.Structural, shared bool) bool {
	if shared {
		return l == nil || l.Items == nil || !reflect.DeepEqual(items, l.Items)
	}
	return hasDefault(items)
}

// lacks reports whether the client's version lacks node n, a list or map.
func (u *Unsendable) lacks(n *node) bool {
	return u != nil && u.nodes[n]
}

// shown returns v, an item of a list without keys whose items are node n, as the client's
// version decodes it: pruned by that version's schema of the item, so without the fields,
// lists and maps the version lacks, then defaulted by it, as decoding does. It is v itself
// where the version decodes items as stored; v is not modified.
func (u *Unsendable) shown(n *node, v interface{}) interface{} { return u.decoded(n, v, true) }

// withoutLacked is v, an item of the list at n's parent, without the properties that the
// client's version's schema lacks (pruned as decoding in that version prunes them, without
// its defaults): the item as a write in that version starts from it, but for the values at
// disabled paths, which the write keeps (see gatedPart). v itself when u has no schema for n.
func (u *Unsendable) withoutLacked(n *node, v interface{}) interface{} {
	return u.decoded(n, v, false)
}

// decoded is a copy of v pruned by u's schema for n, with that schema's defaults when
// defaults is set; v itself when u has no schema for n or v is not an object.
func (u *Unsendable) decoded(n *node, v interface{}, defaults bool) interface{} {
	if u == nil || u.items[n] == nil {
		return v
	}
	if _, ok := v.(map[string]interface{}); !ok {
		return v
	}
	c := runtime.DeepCopyJSONValue(v)
	structuralpruning.Prune(c, u.items[n], false)
	if defaults {
		applyDefaults(c, u.items[n])
	}
	return c
}

// DefaultsListItems reports whether decoding by s, a version's structural schema, gives
// defaults inside the items of a list without keys (x-kubernetes-list-type other than map):
// then items a client of that version sends, decoded, can differ from the stored ones that
// it read only by those defaults.
func DefaultsListItems(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.Items != nil {
		if (s.XListType == nil || *s.XListType != "map") && hasDefault(s.Items) {
			return true
		}
		if DefaultsListItems(s.Items) {
			return true
		}
	}
	for name := range s.Properties {
		p := s.Properties[name]
		if DefaultsListItems(&p) {
			return true
		}
	}
	return s.AdditionalProperties != nil && DefaultsListItems(s.AdditionalProperties.Structural)
}

// SameDisabledValues reports whether a and b, objects of ix's version, hold the same values at
// ix's disabled paths, in the same places: the same items of each list that holds one, by
// position, and the same keys. Neither is modified.
func (ix *Index) SameDisabledValues(a, b map[string]interface{}) bool {
	if !ix.HasDisabled() {
		return true
	}
	return jsonEqual(gatedPart(ix.disabled, a), gatedPart(ix.disabled, b))
}
