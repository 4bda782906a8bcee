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

// PrunesBelow reports whether decoding an object in a version whose schema is v can prune a
// value at path p, or below it, that decoding in the storage version, whose schema is
// storage, keeps: v lacks the path, or lacks a property, the items, the map values or the
// unknown fields that storage keeps below it. With conversion None every version decodes the
// one stored object, so such a version's pruning removes stored values from the object an
// update starts from. Where it cannot tell, it reports true: the caller then reads the
// object as stored, which costs a read and loses nothing.
func PrunesBelow(p Path, storage, v *structuralschema.Structural) bool {
	for _, st := range p.steps {
		if keepsAll(v) {
			return false // v keeps whatever is below: nothing is pruned here
		}
		if keepsAll(storage) {
			return true // storage keeps whatever is below, v does not
		}
		storage, v = below(storage, st), below(v, st)
		if v == nil {
			return storage != nil
		}
		if storage == nil {
			return false
		}
	}
	return prunesMore(storage, v, 0)
}

// keepsAll reports whether pruning keeps every value below a node of schema s: it preserves
// unknown fields and says nothing more.
func keepsAll(s *structuralschema.Structural) bool {
	return s != nil && s.XPreserveUnknownFields && len(s.Properties) == 0 && s.Items == nil && s.AdditionalProperties == nil
}

// below is the schema of the value one step below a value of schema s; nil where s has none.
func below(s *structuralschema.Structural, st Step) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	if !st.Wildcard {
		if prop, ok := s.Properties[st.Field]; ok {
			return &prop
		}
	}
	switch {
	case st.Wildcard && s.Items != nil:
		return s.Items
	case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
		return s.AdditionalProperties.Structural
	}
	return nil
}

// prunesMore reports whether pruning by v can remove a value below a node that pruning by s
// keeps. depth bounds the walk of a malformed schema; past it, the answer is true.
func prunesMore(s, v *structuralschema.Structural, depth int) bool {
	switch {
	case s == nil || keepsAll(v):
		return false
	case v == nil || depth > 64:
		return true
	case s.XPreserveUnknownFields && !v.XPreserveUnknownFields:
		return true
	}
	for name, sp := range s.Properties {
		vp := below(v, Step{Field: name})
		if vp == nil && v.XPreserveUnknownFields {
			continue // an unknown field v keeps as it is
		}
		if prunesMore(&sp, vp, depth+1) {
			return true
		}
	}
	if s.Items != nil && prunesMore(s.Items, v.Items, depth+1) {
		return true
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		var va *structuralschema.Structural
		if v.AdditionalProperties != nil {
			va = v.AdditionalProperties.Structural
		}
		if va == nil && v.XPreserveUnknownFields {
			return false
		}
		if prunesMore(s.AdditionalProperties.Structural, va, depth+1) {
			return true
		}
	}
	return false
}
