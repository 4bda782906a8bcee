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
	"fmt"
	"math/rand"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// TestFieldGatesDefaultsProperty extends the no-data-loss property with schema defaults at
// random places of random schemas. It runs the server's pipeline: the stored object is
// defaulted when read, the request object when decoded, both with the schemas the handler
// builds (FieldGates.WithoutDisabledDefaults), then the strategy gates the write. With any
// gate state, the object to persist has no value at an effectively disabled path unless that
// very value was stored before, and a create has none at all.
func TestFieldGatesDefaultsProperty(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	rng := rand.New(rand.NewSource(*propertySeed))
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Random"}
	ctx := context.Background()
	var defaultsKept int // values an ungated defaulting would have put at a disabled path
	for i := 0; i < *propertyIterations; i++ {
		g := &propertyGen{rng: rng}
		spec := g.schema(0)
		g.addDefaults(spec)
		root := &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"spec": *spec}}
		gates := g.gates(root)
		crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, gates...)
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}}
		fieldGates := NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": root}, nil)
		gatedSchema := fieldGates.WithoutDisabledDefaults(map[string]*structuralschema.Structural{"v1": root})["v1"]
		strategy := NewStrategy(nil, true, kind, nil, nil, root, nil, nil, nil).WithFieldGates(fieldGates)

		index := featuregates.Compile(gateSpecs(gates), root)
		if !index.HasDisabled() && gatedSchema != root {
			t.Fatalf("iteration %d: no disabled gate, but the defaulting schema is not upstream's", i)
		}
		var disabled []featuregates.Path
		for _, p := range index.Paths() {
			if !p.EffectivelyEnabled {
				disabled = append(disabled, p.Path)
			}
		}

		stored := g.instance(root) // as it is in etcd
		old := stored.DeepCopy()
		structuraldefaulting.Default(old.Object, gatedSchema) // read from etcd
		newObj := old.DeepCopy()
		newObj.Object["spec"] = g.mutate(stored.Object["spec"], spec)
		if g.rng.Intn(4) == 0 {
			delete(newObj.Object, "spec") // a request that leaves the whole spec to defaulting
		}
		ungated := newObj.DeepCopy()
		structuraldefaulting.Default(newObj.Object, gatedSchema) // the request, decoded
		structuraldefaulting.Default(ungated.Object, root)
		created := newObj.DeepCopy()
		strategy.PrepareForUpdate(ctx, newObj, old)
		strategy.PrepareForCreate(ctx, created)

		where := func() string {
			return fmt.Sprintf("iteration %d (seed %d)\ngates: %+v\nstored: %v\nresult: %v", i, *propertySeed, gates, stored.Object["spec"], newObj.Object["spec"])
		}
		for _, p := range disabled {
			storedVals := collectAt(stored.Object, p.Steps())
			for key, nv := range collectAt(newObj.Object, p.Steps()) {
				if !nv.has {
					continue
				}
				sv, ok := storedVals[key]
				if !ok || !sv.has || !equality.Semantic.DeepEqual(nv.v, sv.v) {
					t.Fatalf("update: value %v at disabled %s%s was not stored before (stored: %v)\n%s", nv.v, p, key, sv.v, where())
				}
			}
			for key, nv := range collectAt(created.Object, p.Steps()) {
				if nv.has {
					t.Fatalf("create: value %v at disabled %s%s\n%s", nv.v, p, key, where())
				}
			}
			for key, uv := range collectAt(ungated.Object, p.Steps()) {
				if sv := storedVals[key]; uv.has && !sv.has {
					defaultsKept++
				}
			}
		}
	}
	if defaultsKept == 0 {
		t.Fatalf("the generator never put a default at a disabled path")
	}
	t.Logf("%d iterations; %d values that ungated defaulting would have added at disabled paths", *propertyIterations, defaultsKept)
}

// addDefaults gives random nodes of s a default: a random valid value of the node.
func (g *propertyGen) addDefaults(s *structuralschema.Structural) {
	if g.rng.Intn(3) == 0 {
		s.Default.Object = g.value(s)
	}
	for name, p := range s.Properties {
		if name == "name" {
			continue // list-map keys: a default key would merge items
		}
		g.addDefaults(&p)
		s.Properties[name] = p
	}
	if s.Items != nil {
		g.addDefaults(s.Items)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		g.addDefaults(s.AdditionalProperties.Structural)
	}
}
