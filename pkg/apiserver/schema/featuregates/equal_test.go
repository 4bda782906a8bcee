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
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

// jsonEqual must agree with apiequality.Semantic.DeepEqual on every JSON value.
func TestJSONEqualAgreesWithSemanticDeepEqual(t *testing.T) {
	docs := []string{`null`, `1`, `1.5`, `"1"`, `true`, `false`, `[]`, `{}`, `[1,2]`, `[2,1]`, `[1,[2]]`, `[1,[3]]`,
		`{"a":1}`, `{"a":1.0}`, `{"a":"1"}`, `{"a":null}`, `{"b":1}`, `{"a":1,"b":[{"c":{}}]}`, `{"a":1,"b":[{"c":[]}]}`, `{"a":1,"b":[{"c":{"d":0}}]}`}
	var values []interface{}
	for _, d := range docs {
		var v interface{}
		if err := json.Unmarshal([]byte(d), &v); err != nil {
			t.Fatal(err)
		}
		values = append(values, runtime.DeepCopyJSONValue(v))
	}
	values = append(values, []interface{}(nil), map[string]interface{}(nil), int64(1), int64(2), map[string]interface{}{"a": int64(1)}, int(1), []string{"x"})
	for i, a := range values {
		for j, b := range values {
			if got, want := jsonEqual(a, b), apiequality.Semantic.DeepEqual(a, b); got != want {
				t.Errorf("jsonEqual(%#v, %#v) = %t, Semantic.DeepEqual says %t (%d, %d)", a, b, got, want, i, j)
			}
		}
	}
}
