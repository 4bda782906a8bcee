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

package kubectlplugin

import (
	"encoding/json"
	"math"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/runtime"
)

// kube-apiserver applies a CRD's schema defaults to every custom resource it reads from
// etcd, before it answers a GET, LIST or WATCH (upstream's unstructuredDefaulter in the
// storage codec, with the fork's gate-aware schemas: featuregates.Index.WithoutDisabledDefaults),
// and no request reads an object without them. So a LIST shows a value at a field whose
// default applies even in an object whose stored bytes have none there. The functions below
// tell such values apart: a value is taken as defaulted when defaulting alone, run on the
// object without it, puts exactly that value there. A value that a client wrote equal to
// what defaulting would put there cannot be told apart from it, and is taken as defaulted.

// storedValueAt reports whether obj, an object as the server returned it after defaulting
// it with the schema s, holds a value at p, or below it, that defaulting with s does not
// account for: HasValue(obj, p), less the values that defaulting alone would have put there
// in an object without them. `[*]` holds such a value when any item of a list or value of a
// map holds one. With s nil it is featuregates.HasValue. It never modifies obj.
func storedValueAt(obj interface{}, p featuregates.Path, s *structuralschema.Structural) bool {
	if s == nil {
		return featuregates.HasValue(obj, p)
	}
	return storedAt(obj, s, p.Steps())
}

// storedAt is storedValueAt for the value v of a node with schema s (nil below the schema)
// and the rest of the path, steps.
func storedAt(v interface{}, s *structuralschema.Structural, steps []featuregates.Step) bool {
	if len(steps) == 0 {
		return true
	}
	st := steps[0]
	switch x := v.(type) {
	case map[string]interface{}:
		if !st.Wildcard {
			if _, ok := x[st.Field]; !ok {
				return false
			}
			return storedIn(x, st.Field, s, steps[1:])
		}
		for k := range x {
			if storedIn(x, k, s, steps[1:]) {
				return true
			}
		}
	case []interface{}:
		if !st.Wildcard {
			return false
		}
		var items *structuralschema.Structural
		if s != nil {
			items = s.Items
		}
		for _, item := range x {
			if storedAt(item, items, steps[1:]) {
				return true
			}
		}
	}
	return false
}

// storedIn is storedAt for the value of key k of x, an object or map with schema s, and the
// rest of the path below it: false when defaulting put the whole value of k there, and so
// every value below it.
func storedIn(x map[string]interface{}, k string, s *structuralschema.Structural, rest []featuregates.Step) bool {
	if s == nil {
		return storedAt(x[k], nil, rest)
	}
	prop, isProp := s.Properties[k]
	if isProp {
		if prop.Default.Object != nil && jsonEqual(defaultValue(&prop), x[k]) {
			return false
		}
		return storedAt(x[k], &prop, rest)
	}
	// Defaulting never adds a key to a map: a map value was written, though defaults may
	// have filled in fields below it.
	if s.AdditionalProperties != nil {
		return storedAt(x[k], s.AdditionalProperties.Structural, rest)
	}
	return storedAt(x[k], nil, rest)
}

// defaultValue is what defaulting puts at a property with schema s that an object lacks:
// s's default, with the defaults of the schemas below s applied to it
// (structuraldefaulting.Default, as the server does). s.Default.Object must not be nil.
func defaultValue(s *structuralschema.Structural) interface{} {
	v := runtime.DeepCopyJSONValue(s.Default.Object)
	structuraldefaulting.Default(v, s)
	return v
}

// jsonEqual reports whether two JSON values, as decoded into interface{} by any of the
// decoders the server and client-go use, are the same JSON value: numbers compare by value
// whether they are int64, float64 or json.Number.
func jsonEqual(a, b interface{}) bool {
	switch x := a.(type) {
	case map[string]interface{}:
		y, ok := b.(map[string]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []interface{}:
		y, ok := b.([]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return numbersEqual(a, b)
}

// numbersEqual reports whether a and b are JSON numbers of the same value.
func numbersEqual(a, b interface{}) bool {
	ai, aInt, aok := number(a)
	bi, bInt, bok := number(b)
	if !aok || !bok {
		return false
	}
	if aInt != nil && bInt != nil {
		return *aInt == *bInt
	}
	return ai == bi
}

// number returns the value of a JSON number as a float64 and, when it is an integer that
// an int64 holds exactly, as an int64 too; ok is false for anything else.
func number(v interface{}) (f float64, i *int64, ok bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), &n, true
	case int:
		n64 := int64(n)
		return float64(n), &n64, true
	case int32:
		n64 := int64(n)
		return float64(n), &n64, true
	case float64:
		if n >= -(1<<63) && n < (1<<63) && n == math.Trunc(n) {
			n64 := int64(n)
			return n, &n64, true
		}
		return n, nil, true
	case json.Number:
		if n64, err := n.Int64(); err == nil {
			return float64(n64), &n64, true
		}
		if f, err := n.Float64(); err == nil {
			return f, nil, true
		}
	}
	return 0, nil, false
}
