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

package customresource

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
)

// The no-data-loss properties of field gating, checked through the real strategy on random
// CRD schemas, gate sets, gate states and object pairs. CI runs a fixed seed; explore with
//
//	go test ./pkg/registry/customresource -run TestFieldGatesProperties -fieldgates.seed=$RANDOM -fieldgates.iterations=100000
var (
	propertySeed       = flag.Int64("fieldgates.seed", 2608, "seed of the field-gate property test")
	propertyIterations = flag.Int("fieldgates.iterations", 3000, "iterations of the field-gate property test")
)

func TestFieldGatesProperties(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	rng := rand.New(rand.NewSource(*propertySeed))
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Random"}
	var disabledChecked, preserved int
	for i := 0; i < *propertyIterations; i++ {
		g := &propertyGen{rng: rng}
		spec := g.schema(0)
		root := &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"spec": *spec}}
		gates := g.gates(root)
		crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, gates...)
		fieldGates := NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": root}, nil)
		gated := NewStrategy(nil, true, kind, nil, nil, root, nil, nil, nil).WithFieldGates(fieldGates)
		upstream := NewStrategy(nil, true, kind, nil, nil, root, nil, nil, nil)

		old := g.instance(root)
		old.SetGeneration(int64(1 + rng.Intn(5)))
		newObj := old.DeepCopy()
		newObj.Object["spec"] = g.mutate(old.Object["spec"], spec)
		oldCopy := old.DeepCopy()
		upstreamObj := newObj.DeepCopy()

		gated.PrepareForUpdate(context.Background(), newObj, old)
		upstream.PrepareForUpdate(context.Background(), upstreamObj, old)

		where := func() string {
			return fmt.Sprintf("iteration %d (seed %d)\ngates: %+v\nold: %v\nnew: %v", i, *propertySeed, gates, oldCopy.Object["spec"], newObj.Object["spec"])
		}
		// The old object is never mutated.
		if !equality.Semantic.DeepEqual(old.Object, oldCopy.Object) {
			t.Fatalf("the old object was mutated\n%s", where())
		}
		index := featuregates.Compile(gateSpecs(gates), root)
		var disabled []featuregates.Path
		for _, p := range index.Paths() {
			if !p.EffectivelyEnabled {
				disabled = append(disabled, p.Path)
			}
		}
		// A stored value at a disabled path is never removed or changed; a new one is dropped.
		for _, p := range disabled {
			oldVals, newVals := collectAt(old.Object, p.Steps()), collectAt(newObj.Object, p.Steps())
			for key, nv := range newVals {
				ov, inOld := oldVals[key]
				switch {
				case inOld && ov.has:
					disabledChecked++
					preserved++
					if !nv.has || !equality.Semantic.DeepEqual(nv.v, ov.v) {
						t.Fatalf("stored value at %s%s was changed to %v (has=%t), want %v\n%s", p, key, nv.v, nv.has, ov.v, where())
					}
				case nv.has:
					t.Fatalf("new value at disabled %s%s was kept: %v\n%s", p, key, nv.v, where())
				default:
					disabledChecked++
				}
			}
		}
		// Enabled paths behave exactly as upstream: with the disabled paths removed from
		// both, the results are equal (the generation aside). Gating recreates the parents
		// of a stored value that the client removed (the value wins over the removal), so
		// objects left empty by the pruning are ignored on both sides.
		gotPruned, wantPruned := newObj.DeepCopy(), upstreamObj.DeepCopy()
		for _, p := range disabled {
			removeAt(gotPruned.Object, p.Steps())
			removeAt(wantPruned.Object, p.Steps())
		}
		dropEmptyObjects(gotPruned.Object["spec"])
		dropEmptyObjects(wantPruned.Object["spec"])
		unstructured.RemoveNestedField(gotPruned.Object, "metadata", "generation")
		unstructured.RemoveNestedField(wantPruned.Object, "metadata", "generation")
		if !equality.Semantic.DeepEqual(gotPruned.Object, wantPruned.Object) {
			t.Fatalf("enabled paths differ from upstream:\ngot  %v\nwant %v\n%s", gotPruned.Object["spec"], wantPruned.Object["spec"], where())
		}
		// The generation moves iff the persisted content (all but metadata) changed.
		changed := !equality.Semantic.DeepEqual(withoutMetadata(newObj), withoutMetadata(old))
		if bumped := newObj.GetGeneration() == old.GetGeneration()+1; bumped != changed || (!changed && newObj.GetGeneration() != old.GetGeneration()) {
			t.Fatalf("generation %d -> %d, but content changed=%t\n%s", old.GetGeneration(), newObj.GetGeneration(), changed, where())
		}
	}
	if disabledChecked == 0 || preserved == 0 {
		t.Fatalf("the generator exercised no disabled path with a stored value (checked %d, preserved %d)", disabledChecked, preserved)
	}
	t.Logf("%d iterations, %d disabled-path values checked, %d stored values preserved", *propertyIterations, disabledChecked, preserved)
}

func withoutMetadata(u *unstructured.Unstructured) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range u.Object {
		if k != "metadata" {
			out[k] = v
		}
	}
	return out
}

func gateSpecs(gates []apiextensionsv1.CustomResourceDefinitionFeatureGate) []featuregates.GateSpec {
	var specs []featuregates.GateSpec
	for _, g := range gates {
		specs = append(specs, featuregates.GateSpec{Name: g.Name, PreRelease: string(g.PreRelease), Enabled: g.Enabled, Default: g.Default, FieldPaths: g.FieldPaths})
	}
	return specs
}

// slot is the value found at a path for one correlation key.
type slot struct {
	has bool
	v   interface{}
}

// collectAt returns, for each place the path can reach in obj (list-map items by key, map
// values by key, other list items by index), whether a value is there. A place whose
// parent does not exist is absent from the result.
func collectAt(obj interface{}, steps []featuregates.Step) map[string]slot {
	out := map[string]slot{}
	var walk func(v interface{}, steps []featuregates.Step, key string)
	walk = func(v interface{}, steps []featuregates.Step, key string) {
		step := steps[0]
		last := len(steps) == 1
		if !step.Wildcard {
			m, ok := v.(map[string]interface{})
			if !ok {
				return
			}
			child, has := m[step.Field]
			if last {
				out[key+"."+step.Field] = slot{has: has, v: child}
			} else if has {
				walk(child, steps[1:], key+"."+step.Field)
			}
			return
		}
		visit := func(k string, item interface{}) {
			if last {
				out[key+k] = slot{has: true, v: item}
			} else {
				walk(item, steps[1:], key+k)
			}
		}
		switch c := v.(type) {
		case []interface{}:
			for i, item := range c {
				k := fmt.Sprintf("[%d]", i)
				if m, ok := item.(map[string]interface{}); ok {
					if name, ok := m["name"].(string); ok {
						k = "[name=" + name + "]"
					}
				}
				visit(k, item)
			}
		case map[string]interface{}:
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				visit("["+k+"]", c[k])
			}
		}
	}
	walk(obj, steps, "")
	return out
}

// removeAt deletes every value the path reaches (a wildcard leaf removes the items).
func removeAt(obj interface{}, steps []featuregates.Step) interface{} {
	step := steps[0]
	last := len(steps) == 1
	if !step.Wildcard {
		if m, ok := obj.(map[string]interface{}); ok {
			if last {
				delete(m, step.Field)
			} else if child, has := m[step.Field]; has {
				m[step.Field] = removeAt(child, steps[1:])
			}
		}
		return obj
	}
	switch c := obj.(type) {
	case []interface{}:
		if last {
			return []interface{}{}
		}
		for i := range c {
			c[i] = removeAt(c[i], steps[1:])
		}
	case map[string]interface{}:
		for k, v := range c {
			if last {
				delete(c, k)
			} else {
				c[k] = removeAt(v, steps[1:])
			}
		}
	}
	return obj
}

// dropEmptyObjects removes, depth first, every object member whose value is an empty object.
func dropEmptyObjects(v interface{}) {
	switch c := v.(type) {
	case map[string]interface{}:
		for k, child := range c {
			dropEmptyObjects(child)
			if m, ok := child.(map[string]interface{}); ok && len(m) == 0 {
				delete(c, k)
			}
		}
	case []interface{}:
		for _, item := range c {
			dropEmptyObjects(item)
		}
	}
}

// propertyGen builds random schemas, gates and objects.
type propertyGen struct {
	rng *rand.Rand
}

var propertyFieldNames = []string{"a", "b", "c", "d"}

func (g *propertyGen) schema(depth int) *structuralschema.Structural {
	r := g.rng.Intn(10)
	switch {
	case depth >= 3 || (depth > 0 && r < 3):
		if g.rng.Intn(2) == 0 {
			return &structuralschema.Structural{Generic: structuralschema.Generic{Type: "integer"}}
		}
		return &structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
	case r < 5 && depth > 0:
		items := g.objectSchema(depth + 1)
		items.Properties["name"] = structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
		return &structuralschema.Structural{
			Generic:    structuralschema.Generic{Type: "array"},
			Extensions: structuralschema.Extensions{XListType: ptr.To("map"), XListMapKeys: []string{"name"}},
			Items:      items,
		}
	case r < 7 && depth > 0:
		return &structuralschema.Structural{
			Generic:              structuralschema.Generic{Type: "object"},
			AdditionalProperties: &structuralschema.StructuralOrBool{Structural: g.schema(depth + 1), Bool: true},
		}
	default:
		return g.objectSchema(depth + 1)
	}
}

func (g *propertyGen) objectSchema(depth int) *structuralschema.Structural {
	s := &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{}}
	for _, name := range propertyFieldNames[:1+g.rng.Intn(len(propertyFieldNames))] {
		s.Properties[name] = *g.schema(depth)
	}
	return s
}

// paths lists every path a gate could name in s, below prefix.
func paths(s *structuralschema.Structural, prefix string) []string {
	var out []string
	switch {
	case s.Type == "array" && s.Items != nil:
		for name, p := range s.Items.Properties {
			if name == "name" {
				continue
			}
			p := p
			child := prefix + "[*]." + name
			out = append(append(out, child), paths(&p, child)...)
		}
	case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
		child := prefix + "[*]"
		out = append(append(out, child), paths(s.AdditionalProperties.Structural, child)...)
	default:
		for name, p := range s.Properties {
			p := p
			child := prefix + "." + name
			out = append(append(out, child), paths(&p, child)...)
		}
	}
	sort.Strings(out)
	return out
}

func (g *propertyGen) gates(root *structuralschema.Structural) []apiextensionsv1.CustomResourceDefinitionFeatureGate {
	candidates := paths(root, "")
	g.rng.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	n := 1 + g.rng.Intn(4)
	if n > len(candidates) {
		n = len(candidates)
	}
	gates := make([]apiextensionsv1.CustomResourceDefinitionFeatureGate, 1+g.rng.Intn(3))
	for i := range gates {
		gates[i] = g.gate(fmt.Sprintf("Gate%d", i))
	}
	for _, p := range candidates[:n] {
		k := g.rng.Intn(len(gates))
		gates[k].FieldPaths = append(gates[k].FieldPaths, p)
	}
	var out []apiextensionsv1.CustomResourceDefinitionFeatureGate
	for _, gate := range gates {
		if len(gate.FieldPaths) > 0 {
			out = append(out, gate)
		}
	}
	return out
}

// gate is a valid gate in a random state.
func (g *propertyGen) gate(name string) apiextensionsv1.CustomResourceDefinitionFeatureGate {
	gate := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: name}
	maybe := func() *bool {
		switch g.rng.Intn(3) {
		case 0:
			return nil
		case 1:
			return ptr.To(true)
		}
		return ptr.To(false)
	}
	switch g.rng.Intn(4) {
	case 0:
		gate.PreRelease = "alpha"
		gate.Enabled = maybe()
		if g.rng.Intn(2) == 0 {
			gate.Default = ptr.To(false)
		}
	case 1:
		gate.PreRelease = "beta"
		gate.Enabled, gate.Default = maybe(), maybe()
	case 2:
		gate.PreRelease = "stable"
		if g.rng.Intn(2) == 0 {
			gate.Enabled = ptr.To(true)
		}
	default:
		gate.PreRelease = "deprecated"
		gate.Enabled, gate.Default = maybe(), ptr.To(g.rng.Intn(2) == 0)
	}
	return gate
}

func (g *propertyGen) instance(root *structuralschema.Structural) *unstructured.Unstructured {
	spec := root.Properties["spec"]
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "stable.example.com/v1",
		"kind":       "Random",
		"metadata":   map[string]interface{}{"name": "r", "namespace": "default"},
		"spec":       g.value(&spec),
	}}
}

func (g *propertyGen) value(s *structuralschema.Structural) interface{} {
	switch {
	case s.Type == "integer":
		return int64(g.rng.Intn(3))
	case s.Type == "string":
		return []string{"x", "y", "z"}[g.rng.Intn(3)]
	case s.Type == "array":
		var items []interface{}
		for _, name := range []string{"n1", "n2", "n3"} {
			if g.rng.Intn(2) == 0 {
				item := g.value(s.Items).(map[string]interface{})
				item["name"] = name
				items = append(items, item)
			}
		}
		g.rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		return items
	case s.AdditionalProperties != nil:
		m := map[string]interface{}{}
		for _, k := range []string{"k1", "k2", "k3"} {
			if g.rng.Intn(2) == 0 {
				m[k] = g.value(s.AdditionalProperties.Structural)
			}
		}
		return m
	default:
		m := map[string]interface{}{}
		for name, p := range s.Properties {
			if name != "name" && g.rng.Intn(10) < 7 {
				p := p
				m[name] = g.value(&p)
			}
		}
		return m
	}
}

// mutate returns a changed deep copy of v: values replaced, removed, added, list items
// reordered, added and dropped, or nothing changed.
func (g *propertyGen) mutate(v interface{}, s *structuralschema.Structural) interface{} {
	v = runtime.DeepCopyJSONValue(v)
	switch g.rng.Intn(8) {
	case 0:
		return v
	case 1:
		return g.value(s)
	}
	switch c := v.(type) {
	case []interface{}:
		for i := range c {
			name := c[i].(map[string]interface{})["name"]
			c[i] = g.mutate(c[i], s.Items)
			c[i].(map[string]interface{})["name"] = name
		}
		if len(c) > 0 && g.rng.Intn(4) == 0 {
			c = c[1:]
		}
		g.rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		return c
	case map[string]interface{}:
		if s.AdditionalProperties != nil {
			for k, child := range c {
				if g.rng.Intn(4) == 0 {
					delete(c, k)
				} else {
					c[k] = g.mutate(child, s.AdditionalProperties.Structural)
				}
			}
			if g.rng.Intn(3) == 0 {
				c["k"+fmt.Sprint(1+g.rng.Intn(3))] = g.value(s.AdditionalProperties.Structural)
			}
			return c
		}
		for name, p := range s.Properties {
			if name == "name" {
				continue
			}
			p := p
			child, has := c[name]
			switch r := g.rng.Intn(5); {
			case r == 0:
				delete(c, name)
			case r == 1 || !has:
				if g.rng.Intn(2) == 0 {
					c[name] = g.value(&p)
				}
			default:
				c[name] = g.mutate(child, &p)
			}
		}
		return c
	}
	return g.value(s)
}
