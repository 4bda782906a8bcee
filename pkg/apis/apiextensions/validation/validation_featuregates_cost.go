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
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// gatedRuleCost decides, for the CRD's custom feature gates, which x-kubernetes-validations
// rules CEL cost estimation counts. A rule is off in a gate state when it lies on a field
// that is not live (its x-kubernetes-feature-gate mark, a mark of an ancestor, or a
// fieldPaths entry of a disabled gate covers it) or when it is guarded, a disjunction with
// an operand that reads only the gates and holds (cel.GuardHolds), as a rule that exists
// only in some gate states is written: !featureGates.X || (<rule>). An off rule never runs
// on a create (the field is dropped, or the guard short-circuits the rule), so it is
// neither counted nor limited while its gates keep it off; a gate change that turns it on
// is a CRD update, which estimates it then, and is refused like a CRD whose rule costs too
// much. Values kept at a disabled field on update are still bound by the runtime cost
// limits, as every rule is.
type gatedRuleCost struct {
	spec *apiextensions.CustomResourceDefinitionSpec
	// now are the gate states of spec; before those of the CRD before an update (nil on
	// create, or when the old CRD had no gates).
	now, before map[string]bool
	// nowOff and beforeOff are the fieldPaths of the gates that are disabled in now and
	// before.
	nowOff, beforeOff []string
	oldSpec           *apiextensions.CustomResourceDefinitionSpec
}

// withCustomFeatureGatesCost sets opts.gatedRuleCost for spec, the CRD as written, and
// oldSpec, the CRD before an update (nil on create). It does nothing for a CRD without
// gates, whose rules are all counted as upstream counts them.
func withCustomFeatureGatesCost(opts *validationOptions, spec, oldSpec *apiextensions.CustomResourceDefinitionSpec) {
	if spec.CustomFeatureGates == nil || len(spec.CustomFeatureGates.FeatureGates) == 0 {
		return
	}
	c := &gatedRuleCost{spec: spec, now: featuregates.States(featuregates.SpecsFromInternal(spec.CustomFeatureGates)), oldSpec: oldSpec}
	c.nowOff = disabledPaths(spec, c.now)
	if oldSpec != nil && oldSpec.CustomFeatureGates != nil {
		c.before = featuregates.States(featuregates.SpecsFromInternal(oldSpec.CustomFeatureGates))
		c.beforeOff = disabledPaths(oldSpec, c.before)
	}
	opts.gatedRuleCost = c
}

// disabledPaths returns the fieldPaths of the gates of spec that are disabled in states.
func disabledPaths(spec *apiextensions.CustomResourceDefinitionSpec, states map[string]bool) []string {
	var paths []string
	for _, g := range spec.CustomFeatureGates.FeatureGates {
		if !states[g.Name] {
			paths = append(paths, g.FieldPaths...)
		}
	}
	return paths
}

// check returns whether the cost of the rule (or its messageExpression) at rulePath, in the
// node at nodePath, is counted in the CRD's total (observe) and held to the per-expression
// limit (enforce), where enforce is upstream's answer (false for a version whose schema an
// update did not change). A rule that the gate states keep off is neither; one that was off
// before an update and is on now is always enforced, since no estimate has held it before.
// Without gates (c nil) upstream's answer stands.
func (c *gatedRuleCost) check(nodePath *field.Path, rule string, enforce bool) (observe, enforceLimit bool) {
	if c == nil {
		return true, enforce
	}
	if off(c.spec, c.now, c.nowOff, nodePath, rule) {
		return false, false
	}
	if c.before != nil && off(c.oldSpec, c.before, c.beforeOff, nodePath, rule) {
		return true, true
	}
	return true, enforce
}

// off reports whether the rule at nodePath of spec is off in states: guarded by a guard that
// holds, or on a field that is not live (offPaths: the fieldPaths of the disabled gates).
func off(spec *apiextensions.CustomResourceDefinitionSpec, states map[string]bool, offPaths []string, nodePath *field.Path, rule string) bool {
	if cel.GuardHolds(rule, states) {
		return true
	}
	return fieldOff(spec, states, offPaths, nodePath.String())
}

// fieldOff reports whether the schema node at path (a validation path such as
// spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].items) lies on or
// below a field that a disabled gate guards: a mark of a node on the way, or a fieldPaths
// entry of a disabled gate that is a prefix of the node's data path (fieldPaths name the
// storage version's fields, and every version's when the versions share one shape). A path
// it cannot follow (allOf, anyOf, a property name with brackets) is not off, so its rules
// are counted.
func fieldOff(spec *apiextensions.CustomResourceDefinitionSpec, states map[string]bool, offPaths []string, path string) bool {
	var node *apiextensions.JSONSchemaProps
	var rest string
	byPaths := true
	switch {
	case strings.HasPrefix(path, "spec.validation.openAPIV3Schema"):
		if spec.Validation == nil {
			return false
		}
		node, rest = spec.Validation.OpenAPIV3Schema, strings.TrimPrefix(path, "spec.validation.openAPIV3Schema")
	case strings.HasPrefix(path, "spec.versions["):
		end := strings.Index(path, "]")
		i, err := strconv.Atoi(path[len("spec.versions["):end])
		const schemaPrefix = ".schema.openAPIV3Schema"
		if err != nil || i < 0 || i >= len(spec.Versions) || !strings.HasPrefix(path[end+1:], schemaPrefix) {
			return false
		}
		v := spec.Versions[i]
		if v.Schema == nil {
			return false
		}
		node, rest = v.Schema.OpenAPIV3Schema, path[end+1+len(schemaPrefix):]
		byPaths = v.Storage || spec.Conversion == nil || spec.Conversion.Strategy != apiextensions.WebhookConverter
	default:
		return false
	}
	markOff := func(n *apiextensions.JSONSchemaProps) bool {
		return n != nil && n.XFeatureGate != nil && !states[*n.XFeatureGate]
	}
	var data strings.Builder
	offByPath := func() bool {
		if !byPaths {
			return false
		}
		d := data.String()
		for _, p := range offPaths {
			if d == p || strings.HasPrefix(d, p+".") || strings.HasPrefix(d, p+"[") {
				return true
			}
		}
		return false
	}
	for node != nil {
		if markOff(node) || offByPath() {
			return true
		}
		switch {
		case rest == "":
			return false
		case strings.HasPrefix(rest, ".properties["):
			end := strings.Index(rest, "]")
			name := rest[len(".properties["):end]
			p, ok := node.Properties[name]
			if !ok {
				return false
			}
			node, rest = &p, rest[end+1:]
			data.WriteString("." + name)
		case strings.HasPrefix(rest, ".items"):
			if node.Items == nil || node.Items.Schema == nil {
				return false
			}
			node, rest = node.Items.Schema, strings.TrimPrefix(rest, ".items")
			data.WriteString("[*]")
		case strings.HasPrefix(rest, ".additionalProperties"):
			if node.AdditionalProperties == nil || node.AdditionalProperties.Schema == nil {
				return false
			}
			node, rest = node.AdditionalProperties.Schema, strings.TrimPrefix(rest, ".additionalProperties")
			data.WriteString("[*]")
		default:
			return false
		}
	}
	return false
}
