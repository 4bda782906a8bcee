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
	"fmt"
	"strings"
	"unicode"
)

// MaxPathLength bounds the length in bytes of a field path.
const MaxPathLength = 256

// Step is one step of a field path: a named field, or the wildcard `[*]` that stands for
// every item of a list or every value of a map.
type Step struct {
	// Field is the property name; empty for a wildcard.
	Field string
	// Wildcard is true for `[*]`.
	Wildcard bool
}

// Path is a parsed field path such as `.spec.containers[*].image`.
type Path struct {
	steps []Step
	// str is the normalized form when known (a parsed path: the syntax has one spelling per
	// path, so it is the input), so that String does not build it on every call.
	str string
}

// ParsePath parses a field path. The syntax is one or more `.name` segments, each optionally
// followed by one or more `[*]`. A name is one or more printable characters other than
// white space, `.`, `[`, `]`, quotes and backslashes.
func ParsePath(s string) (Path, error) {
	if len(s) == 0 {
		return Path{}, fmt.Errorf("must not be empty")
	}
	if len(s) > MaxPathLength {
		return Path{}, fmt.Errorf("must be at most %d characters", MaxPathLength)
	}
	if s[0] != '.' {
		return Path{}, fmt.Errorf("must start with '.', as in .spec.replicas")
	}
	// One allocation for the steps: every step starts with '.' or '['.
	steps := make([]Step, 0, strings.Count(s, ".")+strings.Count(s, "["))
	i := 0
	for i < len(s) {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			name := s[i+1 : j]
			if name == "" {
				return Path{}, fmt.Errorf("empty field name at position %d", i+1)
			}
			for _, r := range name {
				if !validNameRune(r) {
					return Path{}, fmt.Errorf("invalid character %q in field name %q", r, name)
				}
			}
			steps = append(steps, Step{Field: name})
			i = j
		case '[':
			if !strings.HasPrefix(s[i:], "[*]") {
				return Path{}, fmt.Errorf("'[' at position %d must start the wildcard [*]", i)
			}
			steps = append(steps, Step{Wildcard: true})
			i += len("[*]")
		default:
			return Path{}, fmt.Errorf("unexpected character %q at position %d", s[i], i)
		}
	}
	return Path{steps: steps, str: s}, nil
}

func validNameRune(r rune) bool {
	switch r {
	case '.', '[', ']', '"', '\'', '\\', unicode.ReplacementChar:
		return false
	}
	return unicode.IsPrint(r) && !unicode.IsSpace(r)
}

// Steps returns the steps of the path. The caller must not modify them.
func (p Path) Steps() []Step { return p.steps }

// Len is the number of steps.
func (p Path) Len() int { return len(p.steps) }

// Root is the first field name, such as "spec", or "" for an empty path.
func (p Path) Root() string {
	if len(p.steps) == 0 {
		return ""
	}
	return p.steps[0].Field
}

// String returns the normalized form of the path. Two paths are the same path exactly
// when their normalized forms are equal.
func (p Path) String() string {
	if p.str != "" {
		return p.str
	}
	var b strings.Builder
	for _, st := range p.steps {
		if st.Wildcard {
			b.WriteString("[*]")
			continue
		}
		b.WriteByte('.')
		b.WriteString(st.Field)
	}
	return b.String()
}

// HasPrefix reports whether q is p or an ancestor of p: every object p addresses lies
// inside an object q addresses.
func (p Path) HasPrefix(q Path) bool {
	if len(q.steps) > len(p.steps) {
		return false
	}
	for i := range q.steps {
		if q.steps[i] != p.steps[i] {
			return false
		}
	}
	return true
}

// reservedRoots are the top-level fields that no gate may guard.
var reservedRoots = map[string]bool{"metadata": true, "apiVersion": true, "kind": true}

// IsReserved reports whether the path is, or is below, .metadata, .apiVersion or .kind.
func (p Path) IsReserved() bool {
	return reservedRoots[p.Root()]
}

// hasWildcard reports whether a step of the path is [*].
func (p Path) hasWildcard() bool {
	for _, st := range p.steps {
		if st.Wildcard {
			return true
		}
	}
	return false
}
