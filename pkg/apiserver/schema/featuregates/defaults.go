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
	"k8s.io/apimachinery/pkg/runtime"
)

// WithoutDisabledDefaults returns a schema with which defaulting never puts a value at an
// effectively disabled path: no default is left at such a path or below it, and the default
// of an ancestor loses its value at the path. s itself is never modified. When no default
// of s is affected (or no path is disabled), the result is s, so defaulting is exactly
// upstream's; otherwise it is a copy. Built once per CRD revision, never per request.
//
// A field step into a map's additionalProperties names one key, and the map's value schema
// is shared by every key, so a default below such a step cannot be taken from that key
// alone: CRD validation rejects a gated path with such a default (DefaultBelowNamedKey), and
// the walk leaves those schemas alone.
func (ix *Index) WithoutDisabledDefaults(s *structuralschema.Structural) *structuralschema.Structural {
	if !ix.HasDisabled() || s == nil {
		return s
	}
	out := s.DeepCopy()
	if !ix.disabled.stripDefaults(out) {
		return s
	}
	return out
}

// stripDefaults applies the disabled trie below n to the schema s, which the caller owns.
// It reports whether any default changed.
func (n *node) stripDefaults(s *structuralschema.Structural) bool {
	if n.target != nil {
		return clearDefaults(s)
	}
	changed := false
	if s.Default.Object != nil {
		if v, ok := n.pruneValue(s.Default.Object); ok {
			s.Default.Object = v
			changed = true
		}
	}
	for _, c := range n.children {
		prop, ok := s.Properties[c.name]
		if !ok {
			continue // a key of a map, or not in this schema: see WithoutDisabledDefaults
		}
		if c.node.stripDefaults(&prop) {
			s.Properties[c.name] = prop
			changed = true
		}
	}
	if n.wildcard != nil {
		switch {
		case s.Items != nil:
			changed = n.wildcard.stripDefaults(s.Items) || changed
		case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
			changed = n.wildcard.stripDefaults(s.AdditionalProperties.Structural) || changed
		}
	}
	return changed
}

// clearDefaults removes every default of s and below it. It reports whether there was one.
func clearDefaults(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	changed := s.Default.Object != nil
	s.Default.Object = nil
	for name, prop := range s.Properties {
		if clearDefaults(&prop) {
			s.Properties[name] = prop
			changed = true
		}
	}
	changed = clearDefaults(s.Items) || changed
	if s.AdditionalProperties != nil {
		changed = clearDefaults(s.AdditionalProperties.Structural) || changed
	}
	return changed
}

// pruneValue removes from v, a value at n (which is not itself a disabled path), every
// value at a disabled path below n. v is modified in place. It returns the value to keep
// and whether anything was removed.
func (n *node) pruneValue(v interface{}) (interface{}, bool) {
	changed := false
	if m, ok := v.(map[string]interface{}); ok {
		for _, c := range n.children {
			cv, has := m[c.name]
			if !has {
				continue
			}
			if c.node.target != nil {
				delete(m, c.name)
				changed = true
				continue
			}
			if nv, ok := c.node.pruneValue(cv); ok {
				m[c.name] = nv
				changed = true
			}
		}
	}
	if w := n.wildcard; w != nil {
		switch items := v.(type) {
		case []interface{}:
			if w.target != nil {
				if len(items) > 0 {
					return []interface{}{}, true
				}
				break
			}
			for i := range items {
				if nv, ok := w.pruneValue(items[i]); ok {
					items[i] = nv
					changed = true
				}
			}
		case map[string]interface{}:
			for k, x := range items {
				if w.target != nil {
					delete(items, k)
					changed = true
					continue
				}
				if nv, ok := w.pruneValue(x); ok {
					items[k] = nv
					changed = true
				}
			}
		}
	}
	return v, changed
}

// DefaultBelowNamedKey reports whether defaulting could put a value at the gated path p
// (or below it) through a map key: p steps into a map by one named key (a field step into
// additionalProperties, not `[*]`), and the map's value schema, which every key shares, has
// a default at the rest of p or below it, or a default whose value holds a value there.
// WithoutDisabledDefaults cannot take such a default away from one key only, so CRD
// validation rejects a gate with such a path. mapPath is the path of that map and key the
// named key. p is expected to resolve in s (Resolve); steps that do not are not followed.
// Defaults above the map are not such defaults: WithoutDisabledDefaults prunes their values
// by key.
func DefaultBelowNamedKey(p Path, s *structuralschema.Structural) (mapPath Path, key string, found bool) {
	for i, st := range p.steps {
		if s == nil {
			return Path{}, "", false
		}
		if st.Wildcard {
			s = elementSchema(s)
			continue
		}
		if prop, ok := s.Properties[st.Field]; ok {
			s = &prop
			continue
		}
		if s.AdditionalProperties == nil || s.AdditionalProperties.Structural == nil {
			return Path{}, "", false
		}
		if defaultReaches(p.steps[i+1:], s.AdditionalProperties.Structural) {
			return Path{steps: p.steps[:i]}, st.Field, true
		}
		s = s.AdditionalProperties.Structural
	}
	return Path{}, "", false
}

// elementSchema is the schema of the items of a list or the values of a map, or nil.
func elementSchema(s *structuralschema.Structural) *structuralschema.Structural {
	switch {
	case s.Items != nil:
		return s.Items
	case s.AdditionalProperties != nil:
		return s.AdditionalProperties.Structural
	}
	return nil
}

// defaultReaches reports whether a default of s, or of a schema below it, sets a value at
// steps (relative to s) or below it.
func defaultReaches(steps []Step, s *structuralschema.Structural) bool {
	for ; s != nil; steps = steps[1:] {
		if len(steps) == 0 {
			return hasDefault(s)
		}
		if s.Default.Object != nil && valueAt(s.Default.Object, steps) {
			return true
		}
		st := steps[0]
		switch {
		case st.Wildcard:
			s = elementSchema(s)
		case s.Properties != nil:
			prop, ok := s.Properties[st.Field]
			if !ok {
				return false
			}
			s = &prop
		case s.AdditionalProperties != nil:
			s = s.AdditionalProperties.Structural
		default:
			return false
		}
	}
	return false
}

// hasDefault reports whether s or a schema below it has a default.
func hasDefault(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.Default.Object != nil {
		return true
	}
	for name := range s.Properties {
		prop := s.Properties[name]
		if hasDefault(&prop) {
			return true
		}
	}
	if hasDefault(s.Items) {
		return true
	}
	return s.AdditionalProperties != nil && hasDefault(s.AdditionalProperties.Structural)
}

// valueAt reports whether the JSON value v holds a value at steps: `[*]` matches any item
// of a list or value of a map.
func valueAt(v interface{}, steps []Step) bool {
	if len(steps) == 0 {
		return true
	}
	st := steps[0]
	switch x := v.(type) {
	case map[string]interface{}:
		if !st.Wildcard {
			c, ok := x[st.Field]
			return ok && valueAt(c, steps[1:])
		}
		for _, c := range x {
			if valueAt(c, steps[1:]) {
				return true
			}
		}
	case []interface{}:
		if !st.Wildcard {
			return false
		}
		for _, c := range x {
			if valueAt(c, steps[1:]) {
				return true
			}
		}
	}
	return false
}

// applyDefaults gives the JSON value x the defaults of schema s, as decoding does (the
// API server's structural defaulting): a property, an item or a map value that is missing,
// or null where its schema is not nullable, gets a copy of its schema's default, at every
// level. Only what x lacks is set, so a value x holds is never changed. Gating uses it on an
// object it recreates (see node.defaults), with a schema without the defaults of disabled
// paths. (The defaulting package itself imports CEL, whose tests import this package.)
func applyDefaults(x interface{}, s *structuralschema.Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]interface{}:
		for k, prop := range s.Properties {
			if v, found := x[k]; prop.Default.Object != nil && (!found || (v == nil && !prop.Nullable)) {
				x[k] = runtime.DeepCopyJSONValue(prop.Default.Object)
			}
		}
		for k, v := range x {
			if prop, found := s.Properties[k]; found {
				applyDefaults(v, &prop)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
				values := s.AdditionalProperties.Structural
				if v == nil && !values.Nullable && values.Default.Object != nil {
					x[k] = runtime.DeepCopyJSONValue(values.Default.Object)
				}
				applyDefaults(x[k], values)
			}
		}
	case []interface{}:
		for i := range x {
			if x[i] == nil && s.Items != nil && !s.Items.Nullable && s.Items.Default.Object != nil {
				x[i] = runtime.DeepCopyJSONValue(s.Items.Default.Object)
			}
			applyDefaults(x[i], s.Items)
		}
	}
}
