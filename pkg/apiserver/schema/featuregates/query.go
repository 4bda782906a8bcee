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

// DisabledBy returns the effectively disabled gated path that removes the values at p from
// a write, or nil when p is live. p is disabled when a disabled gated path addresses p or
// one of its ancestors. When several do, the outermost is returned.
//
// A gated wildcard step covers a named step of p at the same place, since `[*]` over a map
// stands for every key: `.spec.limits[*]` covers `.spec.limits.cpu`. The reverse does not
// hold: when only `.spec.limits.cpu` is gated, `.spec.limits[*]`, which asks about every
// value, is live.
func (ix *Index) DisabledBy(p Path) *GatedPath {
	if ix == nil {
		return nil
	}
	// ix.paths is sorted ancestors first, so the first match is the outermost.
	for i := range ix.paths {
		q := &ix.paths[i]
		if !q.EffectivelyEnabled && covers(q.Path, p) {
			return q
		}
	}
	return nil
}

// covers reports whether every value that p addresses lies inside a value that q addresses.
func covers(q, p Path) bool {
	if q.Len() > p.Len() {
		return false
	}
	for i, st := range q.steps {
		if st == p.steps[i] || (st.Wildcard && !p.steps[i].Wildcard) {
			continue
		}
		return false
	}
	return true
}

// HasValue reports whether the JSON value obj holds a value at p: a field step selects the
// property of an object, or the key of a map, with that name; `[*]` holds a value when any
// item of a list, or any value of a map, holds one at the rest of the path. A field that is
// present holds a value, whatever it is (null, an empty object or list): while its gate is
// disabled, a write can no longer change it.
func HasValue(obj interface{}, p Path) bool {
	return valueAt(obj, p.steps)
}
