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
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// Resolve checks that every step of the path exists in the structural schema:
//   - a field step needs a property of that name, or additionalProperties (a map key);
//   - a wildcard step needs a list with items, or a map with additionalProperties;
//   - below a node with x-kubernetes-preserve-unknown-fields and no properties, any
//     path is accepted.
func Resolve(p Path, s *structuralschema.Structural) error {
	at := Path{}
	// hold keeps the current property: Properties holds values, and taking the address of a
	// fresh copy at every step would put each copy on the heap.
	var hold structuralschema.Structural
	for i, st := range p.steps {
		if s == nil {
			return fmt.Errorf("%s is not in the schema", p.String())
		}
		if s.XPreserveUnknownFields && len(s.Properties) == 0 && s.Items == nil && s.AdditionalProperties == nil {
			return nil
		}
		var next *structuralschema.Structural
		if st.Wildcard {
			switch {
			case s.Items != nil:
				next = s.Items
			case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
				next = s.AdditionalProperties.Structural
			default:
				return fmt.Errorf("[*] after %s needs a list or a map, but the schema there is %s", orRoot(at), describe(s))
			}
		} else {
			if prop, ok := s.Properties[st.Field]; ok {
				hold = prop
				next = &hold
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
				next = s.AdditionalProperties.Structural
			} else {
				return fmt.Errorf("field %q is not in the schema at %s", st.Field, orRoot(at))
			}
		}
		at.steps = p.steps[:i+1]
		s = next
	}
	return nil
}

func orRoot(p Path) string {
	if p.Len() == 0 {
		return "the root"
	}
	return p.String()
}

func describe(s *structuralschema.Structural) string {
	if s.Type == "" {
		return "untyped"
	}
	return "of type " + s.Type
}
