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
	"strings"
	"testing"
)

// FuzzParsePath checks that the parser never panics, that it honours its bound, and that
// the normalized form of an accepted path parses back to itself.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{".spec.replicas", ".spec.containers[*].image", ".a[*][*]", "spec", ".", "..", ".a[", ".a[*", ".a[0]", ".ü", ".a\x00", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		if len(s) > MaxPathLength {
			t.Fatalf("accepted a path of %d bytes", len(s))
		}
		if p.Len() == 0 || p.Steps()[0].Wildcard {
			t.Fatalf("accepted %q without a leading field", s)
		}
		if built := (Path{steps: p.steps}).String(); built != p.String() {
			t.Fatalf("the remembered form %q of %q differs from the one built from its steps, %q", p.String(), s, built)
		}
		again, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("normalized form %q of %q does not parse: %v", p.String(), s, err)
		}
		if again.String() != p.String() || !again.HasPrefix(p) || !p.HasPrefix(again) {
			t.Fatalf("normalized form of %q is not stable: %q then %q", s, p.String(), again.String())
		}
		if strings.ContainsAny(s, " \t\r\n\"\\") {
			t.Fatalf("accepted %q, which has white space, a quote or a backslash", s)
		}
	})
}
