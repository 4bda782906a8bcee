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

package validation

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CustomFeatureGateDefaultWarnings returns warnings for the CRD author: a gated field path
// of a gate that can be disabled (alpha, beta or deprecated) where the storage version's
// structural schema has a `default` at the path or below it.
//
// Structural defaulting runs before gating. While the gate is disabled, a create therefore
// has the default filled in and then dropped (with a warning the client did not ask for),
// reads default it again and show it, and the first update stores it. Stable gates are
// always enabled, so their paths are not reported.
//
// It does not depend on the CRDFieldLevelVersioning feature gate; the caller decides.
func CustomFeatureGateDefaultWarnings(spec *apiextensions.CustomResourceDefinitionSpec) []string {
	if spec == nil || spec.CustomFeatureGates == nil {
		return nil
	}
	gates := spec.CustomFeatureGates.FeatureGates
	if len(gates) > MaxCustomFeatureGates {
		// Rejected by validation; its size must not set the cost.
		return nil
	}
	candidates := false
	for i := range gates {
		if canDisableCustomFeatureGate(&gates[i]) && len(gates[i].FieldPaths) > 0 {
			candidates = true
			break
		}
	}
	if !candidates {
		return nil
	}
	schema, _ := storageStructuralSchema(spec)
	if schema == nil {
		return nil
	}
	defaults := buildDefaultsTree(schema)
	if defaults == nil {
		// No default anywhere in the storage schema: the common case.
		return nil
	}

	base := field.NewPath("spec", "customFeatureGates", "featureGates")
	seen := map[string]bool{}
	var warnings []string
	for i := range gates {
		gate := &gates[i]
		if !canDisableCustomFeatureGate(gate) || len(gate.FieldPaths) > MaxCustomFeatureGateFieldPaths {
			continue
		}
		for j, raw := range gate.FieldPaths {
			p, err := featuregates.ParsePath(raw)
			if err != nil || p.IsReserved() {
				continue
			}
			key := p.String()
			if seen[key] {
				continue
			}
			node := resolveDefaults(p, schema, defaults)
			if node == nil {
				continue
			}
			seen[key] = true
			where := ""
			if !node.own {
				where = " at " + key + node.firstDefault()
			}
			warnings = append(warnings, fmt.Sprintf(
				"%s: %s has a schema default%s; while feature gate %s is disabled, the default is filled in and then dropped on writes (with a warning), and reads still show it. Add the default when the gate goes stable.",
				base.Index(i).Child("fieldPaths").Index(j), key, where, gate.Name))
		}
	}
	return warnings
}

// canDisableCustomFeatureGate reports whether the gate's fields can be disabled: an alpha,
// beta or deprecated gate. A stable gate is always enabled (featuregates.Enabled).
func canDisableCustomFeatureGate(gate *apiextensions.CustomResourceDefinitionFeatureGate) bool {
	switch gate.PreRelease {
	case apiextensions.CustomFeatureGateAlpha, apiextensions.CustomFeatureGateBeta, apiextensions.CustomFeatureGateDeprecated:
		return true
	}
	return false
}

// defaultsTree mirrors the parts of a structural schema that hold a default: a node exists
// only if its schema node or a node below it has a default. It is built once per call, in
// time linear in the schema, so that many paths into the same subtree (for example named
// keys of one map) do not walk that subtree again and again.
type defaultsTree struct {
	// own is true if the schema node itself has a default.
	own        bool
	properties map[string]*defaultsTree
	items      *defaultsTree
	additional *defaultsTree

	// first and firstDone memoize firstDefault.
	first     string
	firstDone bool
}

// buildDefaultsTree returns the defaults tree of s, or nil if s has no default at or below
// it. A structural schema is a finite tree (no references), so the recursion ends; its
// depth is the schema's.
func buildDefaultsTree(s *structuralschema.Structural) *defaultsTree {
	if s == nil {
		return nil
	}
	var t defaultsTree
	t.own = s.Default.Object != nil
	for name := range s.Properties {
		prop := s.Properties[name]
		if child := buildDefaultsTree(&prop); child != nil {
			if t.properties == nil {
				t.properties = map[string]*defaultsTree{}
			}
			t.properties[name] = child
		}
	}
	t.items = buildDefaultsTree(s.Items)
	if s.AdditionalProperties != nil {
		t.additional = buildDefaultsTree(s.AdditionalProperties.Structural)
	}
	if !t.own && t.properties == nil && t.items == nil && t.additional == nil {
		return nil
	}
	return &t
}

// resolveDefaults walks the path in the schema as featuregates.Resolve does (a named
// property, else additionalProperties for a map key; items or additionalProperties for
// [*]), and in the defaults tree alongside. It returns the defaults tree of the node at the
// path, or nil when the path does not resolve to a schema node, or there is no default at
// or below it. Below a node with x-kubernetes-preserve-unknown-fields and no structure,
// Resolve accepts any path, but there is no schema node there and so no default.
func resolveDefaults(p featuregates.Path, s *structuralschema.Structural, t *defaultsTree) *defaultsTree {
	for _, st := range p.Steps() {
		if s == nil || t == nil {
			return nil
		}
		if st.Wildcard {
			switch {
			case s.Items != nil:
				s, t = s.Items, t.items
			case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
				s, t = s.AdditionalProperties.Structural, t.additional
			default:
				return nil
			}
			continue
		}
		if prop, ok := s.Properties[st.Field]; ok {
			s, t = &prop, t.properties[st.Field]
		} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			s, t = s.AdditionalProperties.Structural, t.additional
		} else {
			return nil
		}
	}
	if s == nil {
		return nil
	}
	return t
}

// firstDefault returns the path, relative to t, of the first default at or below t, in
// the field path syntax: the property with the smallest name first, then items and
// additionalProperties as [*]. It returns "" when t itself has a default. The answer is
// kept on each node, so that many paths into one subtree find it once.
func (t *defaultsTree) firstDefault() string {
	if t.own || t.firstDone {
		return t.first
	}
	switch {
	case len(t.properties) > 0:
		name, first := "", true
		for n := range t.properties {
			if first || n < name {
				name, first = n, false
			}
		}
		t.first = "." + name + t.properties[name].firstDefault()
	case t.items != nil:
		t.first = "[*]" + t.items.firstDefault()
	default:
		t.first = "[*]" + t.additional.firstDefault()
	}
	t.firstDone = true
	return t.first
}
