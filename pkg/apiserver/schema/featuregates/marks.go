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
	"sort"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MarkExtension is the schema extension with which a CRD author marks a node of one version's
// schema as guarded by a gate. Its value is the gate's name, in the CRD's schema and in the
// published OpenAPI alike; the published OpenAPI carries the gate's state under
// StateExtension.
const MarkExtension = "x-kubernetes-feature-gate"

// StateExtension is the published OpenAPI extension that carries the state of the gate that
// guards a property: {preRelease, enabled, component}. The API server writes it; a CRD
// author never does.
const StateExtension = "x-kubernetes-feature-gate-state"

// Mark is a node of a version's schema marked with x-kubernetes-feature-gate.
type Mark struct {
	// Path is the path of the node's value in that version's objects.
	Path Path
	// Gate is the gate the mark names.
	Gate string
	// schemaSteps lead from the schema's root to the node: "properties" and a name, "items",
	// or "additionalProperties".
	schemaSteps []string
}

// SchemaPath returns the mark's field path below root, the field path of the version's
// openAPIV3Schema, for errors that point at the mark, such as
// root.properties[spec].properties[port].x-kubernetes-feature-gate.
func (m Mark) SchemaPath(root *field.Path) *field.Path {
	p := root
	for i := 0; i < len(m.schemaSteps); i++ {
		if m.schemaSteps[i] == "properties" && i+1 < len(m.schemaSteps) {
			p = p.Child("properties").Key(m.schemaSteps[i+1])
			i++
			continue
		}
		p = p.Child(m.schemaSteps[i])
	}
	return p.Child(MarkExtension)
}

// Marks returns every node of s marked with x-kubernetes-feature-gate, parents before their
// children and properties in name order, so the result is the same for the same schema. The
// root's mark and marks at or below metadata, apiVersion and kind are returned too: CRD
// validation reports them, and Compile skips them. A node is reached through properties, and
// through items and additionalProperties as a [*] step; allOf, anyOf, oneOf and not hold no
// marks (a structural schema forbids them there).
func Marks(s *structuralschema.Structural) []Mark {
	if s == nil {
		return nil
	}
	var marks []Mark
	var walk func(s *structuralschema.Structural, steps []Step, schemaSteps []string)
	walk = func(s *structuralschema.Structural, steps []Step, schemaSteps []string) {
		if s.XFeatureGate != nil {
			marks = append(marks, Mark{
				Path:        Path{steps: append([]Step(nil), steps...)},
				Gate:        *s.XFeatureGate,
				schemaSteps: append([]string(nil), schemaSteps...),
			})
		}
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			prop := s.Properties[name]
			walk(&prop, append(steps, Step{Field: name}), append(schemaSteps, "properties", name))
		}
		if s.Items != nil {
			walk(s.Items, append(steps, Step{Wildcard: true}), append(schemaSteps, "items"))
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			walk(s.AdditionalProperties.Structural, append(steps, Step{Wildcard: true}), append(schemaSteps, "additionalProperties"))
		}
	}
	walk(s, nil, nil)
	return marks
}

// HasMarks reports whether any node of s is marked; it stops at the first mark.
func HasMarks(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.XFeatureGate != nil {
		return true
	}
	for _, prop := range s.Properties {
		if HasMarks(&prop) {
			return true
		}
	}
	if HasMarks(s.Items) {
		return true
	}
	return s.AdditionalProperties != nil && HasMarks(s.AdditionalProperties.Structural)
}
