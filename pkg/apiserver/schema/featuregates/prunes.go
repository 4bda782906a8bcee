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

// PrunesBelow reports whether decoding an object in a version whose schema is v may treat a
// value at path p, or below it, otherwise than decoding in the storage version, whose schema
// is storage: with conversion None every version decodes the one stored object, and pruning,
// the removal of nulls that are not nullable, and the coercion of embedded objects' metadata
// follow the schema of the version of the request (defaults at disabled paths are not applied
// in any version: Index.WithoutDisabledDefaults). It reports false only when both schemas
// reach p the same way (at each step: the type, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-embedded-resource, nullable, and a list's items or a map's values for [*]) and
// are the same below it in all that decoding reads (sameDecoding). Otherwise it reports true,
// and the caller reads the object as stored: that costs a read and loses nothing.
func PrunesBelow(p Path, storage, v *structuralschema.Structural) bool {
	for _, st := range p.steps {
		if storage == nil || v == nil {
			return true
		}
		if !sameNode(storage, v) {
			return true
		}
		storage, v = below(storage, st), below(v, st)
	}
	return !sameDecoding(storage, v)
}

// below is the schema of the value one step below a value of schema s; nil where s has none.
func below(s *structuralschema.Structural, st Step) *structuralschema.Structural {
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

// sameNode reports whether decoding treats a node of schema a as one of schema b, apart from
// what lies below it.
func sameNode(a, b *structuralschema.Structural) bool {
	return a.Type == b.Type && a.XPreserveUnknownFields == b.XPreserveUnknownFields && a.XEmbeddedResource == b.XEmbeddedResource &&
		a.XIntOrString == b.XIntOrString && a.Nullable == b.Nullable && (a.Items == nil) == (b.Items == nil) &&
		(a.AdditionalProperties == nil) == (b.AdditionalProperties == nil) &&
		(a.AdditionalProperties == nil || a.AdditionalProperties.Bool == b.AdditionalProperties.Bool)
}

// sameDecoding reports whether decoding treats a value of schema a, and everything below it,
// as one of schema b: the same nodes (sameNode), property by property, item and map value.
func sameDecoding(a, b *structuralschema.Structural) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case !sameNode(a, b) || len(a.Properties) != len(b.Properties):
		return false
	}
	for name, ap := range a.Properties {
		bp, ok := b.Properties[name]
		if !ok || !sameDecoding(&ap, &bp) {
			return false
		}
	}
	if !sameDecoding(a.Items, b.Items) {
		return false
	}
	if a.AdditionalProperties != nil && !sameDecoding(a.AdditionalProperties.Structural, b.AdditionalProperties.Structural) {
		return false
	}
	return true
}
