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
	"math"
	"sort"
	"strconv"
	"strings"
)

// celString returns s as a CEL string literal. Go's quoting uses only escapes that CEL reads
// the same way (\a \b \f \n \r \t \v \\ \" \xHH \uHHHH \UHHHHHHHH).
func celString(s string) string { return strconv.Quote(s) }

// celLiteral returns a JSON value (as encoding/json decodes it, numbers as json.Number or
// float64) as a CEL literal of the type an unstructured object holds: integers as int,
// other numbers as double.
func celLiteral(v interface{}) (string, error) {
	switch v := v.(type) {
	case nil:
		return "null", nil
	case bool:
		return strconv.FormatBool(v), nil
	case string:
		return celString(v), nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		f, err := v.Float64()
		if err != nil {
			return "", err
		}
		return celDouble(f)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return strconv.FormatInt(int64(v), 10), nil
		}
		return celDouble(v)
	case int64:
		return strconv.FormatInt(v, 10), nil
	case []interface{}:
		parts := make([]string, len(v))
		for i, e := range v {
			s, err := celLiteral(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case map[string]interface{}:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			s, err := celLiteral(v[k])
			if err != nil {
				return "", err
			}
			parts[i] = celString(k) + ": " + s
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	}
	return "", fmt.Errorf("value %v of type %T has no CEL literal", v, v)
}

func celDouble(f float64) (string, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("number %v has no CEL literal", f)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s, nil
}

// jsonLiteral decodes raw JSON and returns it as a CEL literal.
func jsonLiteral(raw []byte) (string, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	return celLiteral(v)
}

// pointerToken escapes a field name for a JSON pointer (RFC 6901).
func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// field returns the CEL selection of a property of the map expression m: m.name where name is
// an identifier that is not reserved, m["name"] otherwise. The objects are dynamic
// (unstructured), so index syntax reaches every property.
func field(m, name string) string {
	if isIdent(name) {
		return m + "." + name
	}
	return m + "[" + celString(name) + "]"
}

// optField is field for optional chaining: m.?name or m[?"name"].
func optField(m, name string) string {
	if isIdent(name) {
		return m + ".?" + name
	}
	return m + "[?" + celString(name) + "]"
}

// celReserved are CEL's reserved words, which cannot follow a dot.
var celReserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true, "false": true,
	"for": true, "function": true, "if": true, "import": true, "in": true, "let": true,
	"loop": true, "package": true, "namespace": true, "null": true, "return": true,
	"true": true, "var": true, "void": true, "while": true,
}

func isIdent(s string) bool {
	if s == "" || celReserved[s] {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}
