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

package policies

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

// movedRule is an x-kubernetes-validations rule that reads featureGates, taken out of the
// stock CRD to be checked by the validating policy.
type movedRule struct {
	steps []featuregates.Step
	rule  apiextensionsv1.ValidationRule
	// formats is set when the rule's node or a node below it has a format that gives its
	// value another CEL type in CRD validation than in a policy (a string there).
	formats bool
	// versions are the versions whose schema has the rule at that path: our server judges
	// a write by the schema of the version it is sent in.
	versions []string
}

// movedKeywords is a node's x-kubernetes-feature-gated-validations.
type movedKeywords struct {
	steps   []featuregates.Step
	node    *apiextensionsv1.JSONSchemaProps
	entries []apiextensionsv1.FeatureGatedValidation
	// versions are the versions whose schema has these entries at that path.
	versions []string
}

// stockCRD writes the CRD as a stock kube-apiserver accepts it into the result: without
// spec.customFeatureGates, marks and gated keywords, without the rules that read
// featureGates (kept for the validating policy), and without the defaults at or below a
// gated path (kept for the mutating policy). A gated node's description starts with the
// gate's name and stage, so kubectl explain still tells.
func (g *gen) stockCRD() error {
	crd := g.crd.DeepCopy()
	crd.Spec.CustomFeatureGates = nil
	if crd.Annotations == nil {
		crd.Annotations = map[string]string{}
	}
	crd.Annotations[GeneratedByAnnotation] = generator
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	stages := map[string]string{}
	for _, gate := range g.gates {
		stages[gate.Name] = string(gate.PreRelease)
	}
	shared := featuregates.SharesShape(crd)
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		s := &stripper{g: g, storage: v.Name == g.storage, gated: v.Name == g.storage || shared, stages: stages, version: v.Name}
		if err := s.walk(v.Schema.OpenAPIV3Schema, nil); err != nil {
			return err
		}
	}
	g.res.CRD = crd
	return nil
}

type stripper struct {
	g       *gen
	version string
	// storage: this is the storage version, whose rules, keywords and defaults the policies
	// carry; gated: the storage version's gated paths are this version's too.
	storage, gated bool
	stages         map[string]string
}

func (s *stripper) walk(n *apiextensionsv1.JSONSchemaProps, steps []featuregates.Step) error {
	here := pathString(steps)
	gateHere := ""
	if n.XFeatureGate != nil {
		gateHere = *n.XFeatureGate
		n.XFeatureGate = nil
	}
	if s.gated {
		for _, p := range s.g.paths {
			if p.path.String() == here {
				gateHere = p.gate
			}
		}
	}
	if gateHere != "" {
		note := fmt.Sprintf("Feature gate %s (%s): its state is in CustomResourceFeatureGates %s.", gateHere, s.stages[gateHere], s.g.crd.Name)
		if n.Description != "" {
			note += "\n" + n.Description
		}
		n.Description = note
	}
	if len(n.XFeatureGatedValidations) > 0 {
		if s.gated {
			s.g.addKeywords(movedKeywords{steps: copySteps(steps), node: n.DeepCopy(), entries: n.XFeatureGatedValidations}, s.version)
		} else {
			s.g.differ(here, "", fmt.Sprintf("gated keywords of version %s (not the storage version, with a conversion webhook) are not checked: the policies see the storage version", s.version))
		}
		n.XFeatureGatedValidations = nil
	}
	if len(n.XValidations) > 0 {
		var keep apiextensionsv1.ValidationRules
		for _, r := range n.XValidations {
			reads, err := readsFeatureGates(r)
			if err != nil {
				return fmt.Errorf("version %s, %s: x-kubernetes-validations rule %q: %w", s.version, orRoot(here), r.Rule, err)
			}
			if !reads {
				keep = append(keep, r)
				continue
			}
			if s.gated {
				s.g.addRule(movedRule{steps: copySteps(steps), rule: r, formats: hasTypedFormat(n)}, s.version)
			} else {
				s.g.differ(here, "", fmt.Sprintf("a rule of version %s that reads featureGates is not checked (conversion webhook; the policies see the storage version): %s", s.version, r.Rule))
			}
		}
		n.XValidations = keep
	}
	if n.Default != nil && s.gated {
		if chain := s.g.chainOf(steps, true); len(chain) > 0 {
			if s.storage {
				lit, err := jsonLiteral(n.Default.Raw)
				if err != nil {
					return fmt.Errorf("version %s, %s: default: %w", s.version, orRoot(here), err)
				}
				s.g.defaults = append(s.g.defaults, movedDefault{path: mustPath(steps), value: lit, chain: chain})
			}
			n.Default = nil
		}
	}
	names := make([]string, 0, len(n.Properties))
	for name := range n.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := n.Properties[name]
		if err := s.walk(&c, append(copySteps(steps), featuregates.Step{Field: name})); err != nil {
			return err
		}
		n.Properties[name] = c
	}
	if n.Items != nil && n.Items.Schema != nil {
		if err := s.walk(n.Items.Schema, append(copySteps(steps), featuregates.Step{Wildcard: true})); err != nil {
			return err
		}
	}
	if n.AdditionalProperties != nil && n.AdditionalProperties.Schema != nil {
		if err := s.walk(n.AdditionalProperties.Schema, append(copySteps(steps), featuregates.Step{Wildcard: true})); err != nil {
			return err
		}
	}
	return nil
}

// addKeywords records the gated keywords of a node of version v: the entry of another
// version with the same path and entries gets v added.
func (g *gen) addKeywords(k movedKeywords, v string) {
	key := pathString(k.steps) + "\x00" + mustJSON(k.entries)
	for i := range g.keywords {
		if pathString(g.keywords[i].steps)+"\x00"+mustJSON(g.keywords[i].entries) == key {
			g.keywords[i].versions = append(g.keywords[i].versions, v)
			return
		}
	}
	k.versions = []string{v}
	g.keywords = append(g.keywords, k)
}

// addRule records a rule that reads featureGates of version v, as addKeywords does.
func (g *gen) addRule(r movedRule, v string) {
	key := pathString(r.steps) + "\x00" + mustJSON(r.rule)
	for i := range g.rules {
		if pathString(g.rules[i].steps)+"\x00"+mustJSON(g.rules[i].rule) == key {
			g.rules[i].versions = append(g.rules[i].versions, v)
			return
		}
	}
	r.versions = []string{v}
	g.rules = append(g.rules, r)
}

// inVersions returns guard widened to pass requests sent in a served version other than
// versions (the request's own version, before matchPolicy Equivalent converts it): a check
// of the keywords or rules of some versions only judges what is written through them.
func (g *gen) inVersions(guard string, versions []string) string {
	has := map[string]bool{}
	for _, v := range versions {
		has[v] = true
	}
	var lits []string
	all := true
	for _, v := range g.crd.Spec.Versions {
		if !v.Served {
			continue
		}
		if has[v.Name] {
			lits = append(lits, celString(v.Name))
		} else {
			all = false
		}
	}
	if all {
		return guard
	}
	return fmt.Sprintf("(%s || !(request.requestKind.version in [%s]))", guard, strings.Join(lits, ", "))
}

func mustJSON(v interface{}) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("JSON of %T: %v", v, err))
	}
	return string(b)
}

func copySteps(s []featuregates.Step) []featuregates.Step {
	return append([]featuregates.Step(nil), s...)
}

func pathString(steps []featuregates.Step) string {
	var b strings.Builder
	for _, st := range steps {
		if st.Wildcard {
			b.WriteString("[*]")
			continue
		}
		b.WriteString(".")
		b.WriteString(st.Field)
	}
	return b.String()
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// mustPath parses the path of steps, which the schema walk built from valid names.
func mustPath(steps []featuregates.Step) featuregates.Path {
	p, err := featuregates.ParsePath(pathString(steps))
	if err != nil {
		panic(fmt.Sprintf("path %q from a schema walk: %v", pathString(steps), err))
	}
	return p
}

// hasTypedFormat reports whether n or a node below it has a string format that CRD
// validation's CEL reads as another type (duration, timestamp, bytes).
func hasTypedFormat(n *apiextensionsv1.JSONSchemaProps) bool {
	if n == nil {
		return false
	}
	switch n.Format {
	case "duration", "date-time", "datetime", "date", "byte":
		return true
	}
	for _, c := range n.Properties {
		if hasTypedFormat(&c) {
			return true
		}
	}
	if n.Items != nil && hasTypedFormat(n.Items.Schema) {
		return true
	}
	return n.AdditionalProperties != nil && hasTypedFormat(n.AdditionalProperties.Schema)
}
