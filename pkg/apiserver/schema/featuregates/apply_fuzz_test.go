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
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// fuzzSchema has one of each shape a gated path can cross: objects, a map list, an atomic
// list, a map, and a preserve-unknown-fields object.
func fuzzSchema() *structuralschema.Structural {
	obj := func(props map[string]structuralschema.Structural) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: props}
	}
	leaf := func(t string) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: t}}
	}
	item := obj(map[string]structuralschema.Structural{"name": leaf("string"), "v": leaf("integer"), "w": leaf("string")})
	root := obj(map[string]structuralschema.Structural{
		"spec": obj(map[string]structuralschema.Structural{
			"a":  leaf("integer"),
			"o":  obj(map[string]structuralschema.Structural{"x": leaf("string"), "y": obj(map[string]structuralschema.Structural{"z": leaf("integer")})}),
			"l":  {Generic: structuralschema.Generic{Type: "array"}, Extensions: structuralschema.Extensions{XListType: ptr.To("map"), XListMapKeys: []string{"name"}}, Items: &item},
			"al": {Generic: structuralschema.Generic{Type: "array"}, Items: &item},
			"m":  {Generic: structuralschema.Generic{Type: "object"}, AdditionalProperties: &structuralschema.StructuralOrBool{Bool: true, Structural: &item}},
			"p":  {Generic: structuralschema.Generic{Type: "object"}, Extensions: structuralschema.Extensions{XPreserveUnknownFields: true}},
		}),
		"status": obj(map[string]structuralschema.Structural{"ready": leaf("integer")}),
	})
	return &root
}

var fuzzPaths = []string{".spec.a", ".spec.o", ".spec.o.y.z", ".spec.l[*].v", ".spec.l", ".spec.al[*].w", ".spec.m[*].v", ".spec.m", ".spec.p.any.deep", ".status.ready"}

// FuzzApplyGates feeds arbitrary old and new objects (any JSON, not only schema-valid ones)
// and any combination of disabled paths to the drop/preserve application. It must never
// panic, never modify the old object, give JSON-serializable output, be idempotent, and
// leave no value at a disabled field path on create.
func FuzzApplyGates(f *testing.F) {
	f.Add(uint16(0x3ff), []byte(`{"spec":{"a":1,"o":{"y":{"z":2}},"l":[{"name":"n","v":1}],"m":{"k":{"v":1}}},"status":{"ready":1}}`), []byte(`{"spec":{"a":2,"l":[{"name":"m","v":3},{"name":"n","v":4}]}}`))
	f.Add(uint16(0x008), []byte(`{"spec":{"l":[{"name":"a","v":1},{"name":"a","v":2}]}}`), []byte(`{"spec":{"l":[{"name":"a","v":5}]}}`))
	f.Add(uint16(0x100), []byte(`{"spec":{"p":{"any":{"deep":[1,2]}}}}`), []byte(`{"spec":{"p":{"any":"flat"}}}`))
	f.Add(uint16(0x0ff), []byte(`{"spec":"not an object"}`), []byte(`{"spec":{"o":[],"l":{"name":1},"al":null,"m":[1]}}`))
	f.Fuzz(func(t *testing.T, mask uint16, oldJSON, newJSON []byte) {
		var specs []GateSpec
		for i, p := range fuzzPaths {
			stage := Beta
			if mask&(1<<i) != 0 {
				stage = Alpha
			}
			specs = append(specs, GateSpec{Name: fmt.Sprintf("G%d", i), PreRelease: stage, FieldPaths: []string{p}})
		}
		ix := Compile(specs, fuzzSchema())
		var oldObj, newObj map[string]interface{}
		if json.Unmarshal(oldJSON, &oldObj) != nil || json.Unmarshal(newJSON, &newObj) != nil {
			return
		}
		oldObj = runtime.DeepCopyJSON(oldObj)
		newObj = runtime.DeepCopyJSON(newObj)
		oldCopy := runtime.DeepCopyJSON(oldObj)

		created := runtime.DeepCopyJSON(newObj)
		ix.PrepareForCreate(created, ScopeAll)
		for _, gp := range ix.Paths() {
			if gp.EffectivelyEnabled {
				continue
			}
			if v, found := fieldAt(created, gp.Path.Steps()); found {
				t.Fatalf("create kept %v at disabled %s", v, gp.Path)
			}
		}

		_, err := ix.PrepareForUpdate(newObj, oldObj, ScopeAll)
		if !reflect.DeepEqual(oldObj, oldCopy) {
			t.Fatalf("the old object was modified")
		}
		if err != nil {
			return // an ambiguous list: the write is rejected, newObj is not persisted
		}
		if _, err := json.Marshal(newObj); err != nil {
			t.Fatalf("the result does not serialize: %v", err)
		}
		again := runtime.DeepCopyJSON(newObj)
		if _, err := ix.PrepareForUpdate(again, oldObj, ScopeAll); err != nil {
			t.Fatalf("the gated object is rejected on a second pass: %v", err)
		}
		if !reflect.DeepEqual(again, newObj) {
			t.Fatalf("not idempotent:\nonce  %v\ntwice %v", newObj, again)
		}
	})
}

// fieldAt follows a path of field steps only; a wildcard path is not checked.
func fieldAt(obj map[string]interface{}, steps []Step) (interface{}, bool) {
	var cur interface{} = obj
	for _, s := range steps {
		if s.Wildcard {
			return nil, false
		}
		m, ok := cur.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if cur, ok = m[s.Field]; !ok {
			return nil, false
		}
	}
	return cur, true
}
