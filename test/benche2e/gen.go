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

package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The generated objects have about this many fields under .spec: the gated fields f00..,
// then ungated fields u00.. up to this total, then the integer .spec.counter.
const targetFields = 100

// Value lengths: with 50 gated and 50 ungated fields an object is about 5 KB of JSON.
const (
	gatedValueLen   = 40
	ungatedValueLen = 50
	// The last ungatedIntFields of the ungated fields are integers, the rest strings.
	ungatedIntFields = 10
)

const benchGroup = "bench.example.com"

// shape says which fields the benchmark's CRD and objects have.
type shape struct {
	gates int // gated fields .spec.fNN, one gate each
	// omitDisabled leaves the fields of disabled gates out of the objects.
	omitDisabled bool
}

func (s shape) gatedFields() []string {
	return fieldNames("f", s.gates)
}

func (s shape) ungatedFields() []string {
	n := targetFields - s.gates
	if n < ungatedIntFields {
		n = ungatedIntFields
	}
	return fieldNames("u", n)
}

func fieldNames(prefix string, n int) []string {
	width := len(fmt.Sprint(n - 1))
	if width < 2 {
		width = 2
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%0*d", prefix, width, i)
	}
	return out
}

// gateDisabled says whether gate i is disabled. Half of the gates are disabled, in four
// flavours that exercise the different enablement rules:
//
//	i%4 == 0: alpha, nothing set              -> disabled
//	i%4 == 1: beta, nothing set               -> enabled
//	i%4 == 2: beta, enabled: false (an admin) -> disabled
//	i%4 == 3: alpha, enabled: true (an admin) -> enabled
func gateDisabled(i int) bool { return i%2 == 0 }

func gateName(i int) string { return fmt.Sprintf("BenchGate%03d", i) }

// featureGates returns the gates of the CRD: gate i guards .spec.<gatedFields()[i]>.
func (s shape) featureGates() *apiextensionsv1.CustomResourceDefinitionFeatureGates {
	if s.gates == 0 {
		return nil
	}
	t, f := true, false
	component := "benche2e"
	fields := s.gatedFields()
	gates := make([]apiextensionsv1.CustomResourceDefinitionFeatureGate, len(fields))
	for i, name := range fields {
		g := apiextensionsv1.CustomResourceDefinitionFeatureGate{
			Name:       gateName(i),
			FieldPaths: []string{".spec." + name},
		}
		switch i % 4 {
		case 0:
			g.PreRelease = apiextensionsv1.CustomFeatureGateAlpha
		case 1:
			g.PreRelease = apiextensionsv1.CustomFeatureGateBeta
		case 2:
			g.PreRelease = apiextensionsv1.CustomFeatureGateBeta
			g.Enabled = &f
		case 3:
			g.PreRelease = apiextensionsv1.CustomFeatureGateAlpha
			g.Enabled = &t
		}
		gates[i] = g
	}
	return &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: gates, Component: &component}
}

// crdNames are the names of one benchmark CRD; suffix tells the CRDs of rss mode apart.
type crdNames struct {
	plural, singular, kind, listKind string
}

func namesFor(suffix string) crdNames {
	return crdNames{
		plural:   "benchitems" + suffix,
		singular: "benchitem" + suffix,
		kind:     "BenchItem" + suffix,
		listKind: "BenchItem" + suffix + "List",
	}
}

func (n crdNames) crdName() string { return n.plural + "." + benchGroup }

// crd returns a namespaced CRD with one served and stored version v1, a structural schema
// that lists every field of the objects, and s.gates gates (none when s.gates is 0).
func (s shape) crd(n crdNames) *apiextensionsv1.CustomResourceDefinition {
	props := map[string]apiextensionsv1.JSONSchemaProps{
		"counter": {Type: "integer"},
	}
	for _, f := range s.gatedFields() {
		props[f] = apiextensionsv1.JSONSchemaProps{Type: "string"}
	}
	ungated := s.ungatedFields()
	for i, f := range ungated {
		typ := "string"
		if i >= len(ungated)-ungatedIntFields {
			typ = "integer"
		}
		props[f] = apiextensionsv1.JSONSchemaProps{Type: typ}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: n.crdName()},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: benchGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: n.plural, Singular: n.singular, Kind: n.kind, ListKind: n.listKind,
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"spec": {Type: "object", Properties: props},
						},
					},
				},
			}},
			CustomFeatureGates: s.featureGates(),
		},
	}
}

// object returns a custom resource with every field of the schema set. Every value
// depends on name and seq, so an update with a new seq changes every field.
func (s shape) object(n crdNames, namespace, name string, seq int) *unstructured.Unstructured {
	spec := map[string]interface{}{"counter": int64(seq)}
	for i, f := range s.gatedFields() {
		if s.omitDisabled && gateDisabled(i) {
			continue
		}
		spec[f] = value(name, f, seq, gatedValueLen)
	}
	ungated := s.ungatedFields()
	for i, f := range ungated {
		if i >= len(ungated)-ungatedIntFields {
			spec[f] = int64(seq*1000 + i)
			continue
		}
		spec[f] = value(name, f, seq, ungatedValueLen)
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": benchGroup + "/v1",
		"kind":       n.kind,
		"metadata":   map[string]interface{}{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
}

// value is a string of exactly length characters that starts with name, field and seq.
func value(name, field string, seq, length int) string {
	v := fmt.Sprintf("%s-%s-%d-", name, field, seq)
	if len(v) >= length {
		return v[:length]
	}
	return v + strings.Repeat("x", length-len(v))
}

// checkGated says what is wrong with a stored object: with gating active, the fields of
// disabled gates must be absent and every other field present; with gating inactive,
// every field must be present.
func (s shape) checkGated(obj *unstructured.Unstructured, gatingActive bool) error {
	spec, ok := obj.Object["spec"].(map[string]interface{})
	if !ok {
		return fmt.Errorf("%s has no .spec", obj.GetName())
	}
	var problems []string
	for i, f := range s.gatedFields() {
		_, has := spec[f]
		want := !(gatingActive && gateDisabled(i))
		if has != want {
			state := "enabled"
			if gateDisabled(i) {
				state = "disabled"
			}
			problems = append(problems, fmt.Sprintf(".spec.%s (gate %s, %s): present=%v, want %v", f, gateName(i), state, has, want))
		}
	}
	for _, f := range append(s.ungatedFields(), "counter") {
		if _, has := spec[f]; !has {
			problems = append(problems, fmt.Sprintf(".spec.%s (not gated) is missing", f))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", obj.GetName(), strings.Join(problems, "; "))
	}
	return nil
}

// disabledGates counts the disabled gates of s.
func (s shape) disabledGates() int {
	n := 0
	for i := 0; i < s.gates; i++ {
		if gateDisabled(i) {
			n++
		}
	}
	return n
}

// plan splits a fixed number of writes into objects: each object is created and then
// updated `updates` times; the last object takes whatever is left. The counts add up to
// writes exactly.
func plan(writes, updates int) []int {
	if writes <= 0 {
		return nil
	}
	per := 1 + updates
	if per < 1 {
		per = 1
	}
	out := make([]int, 0, writes/per+1)
	for left := writes; left > 0; left -= per {
		out = append(out, min(per, left))
	}
	return out
}

// percentile is the nearest-rank percentile (0 < p <= 100) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}

// median of xs (the mean of the middle two for an even count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
