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
	"reflect"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// jsonEqual reports whether two JSON values (as decoded into unstructured objects) are
// equal, with the semantics of apiequality.Semantic.DeepEqual (an empty and a nil list or
// map are equal) but without reflection for the JSON types, which is what every gated path
// compares on a write. An object or a list is equal to itself without a look inside: gating
// keeps a stored value by putting the stored object or list itself in the result.
func jsonEqual(a, b interface{}) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case map[string]interface{}:
		y, ok := b.(map[string]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() {
			return true
		}
		for k, xv := range x {
			yv, found := y[k]
			if !found {
				return false
			}
			// Most values of an object are strings: compared here, without a call.
			if xs, ok := xv.(string); ok {
				if ys, ok := yv.(string); !ok || xs != ys {
					return false
				}
				continue
			}
			if !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []interface{}:
		y, ok := b.([]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && &x[0] == &y[0] {
			return true
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	}
	return apiequality.Semantic.DeepEqual(a, b)
}

// composite reports whether v is an object or a list.
func composite(v interface{}) bool {
	switch v.(type) {
	case map[string]interface{}, []interface{}:
		return true
	}
	return false
}
