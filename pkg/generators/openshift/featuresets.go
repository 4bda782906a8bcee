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

package openshift

import (
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// fieldKeyword is the Quirk keyword of a field that the merge took from the feature sets'
// CRDs: the whole field, not one of its keywords.
const fieldKeyword = "field"

// notAdopted are the keywords of a schema node, by their field name in JSONSchemaProps, that
// are never taken from the feature sets' CRDs: the documentation (the first file's is kept),
// the subschemas that walk merges on their own, and the marks that only the merge writes.
var notAdopted = sets.New(
	"Description", "Title", "Example", "ExternalDocs",
	"Properties", "Items", "AdditionalProperties",
	"XFeatureGate", "XFeatureGatedValidations",
)

// adoptFeatureSetSchema makes out, the merged node at path, say what every feature set's CRD
// says alike where OpenShift's per-gate files agree on something else. OpenShift writes the
// feature sets' CRDs apart from the per-gate files, and a keyword that no gate changes can be
// in one and not the other (an anyOf of formats, a format, a rule's fieldPath, ...): those
// CRDs are what OpenShift installs, so the merge keeps their form, ungated.
//
// A keyword is taken when all of these hold:
//   - every feature set that must have the node has it (fsNodes), and there is one: a feature
//     set must have the node when it has on all gates of a per-gate file that has it, as no
//     gate removes a field;
//   - each of them has one value for the keyword, unset included (a keyword that they all
//     lack, such as rangeallocations' format: byte, is taken out);
//   - every per-gate file that has the node (nodes) has one value for the keyword, unset
//     included, and out still has it: no gate changes the keyword, and the merge kept it;
//   - the two values differ.
//
// A field (property) is taken whole when every such feature set has it at the node, alike,
// and neither out nor any per-gate file has it. Anything else is left as the per-gate files
// give it. Each per-gate file gets a Quirk for what is taken.
func (m *merger) adoptFeatureSetSchema(out *apiextensionsv1.JSONSchemaProps, path string, nodes []at, fsNodes []at) {
	if len(fsNodes) == 0 || !m.allFeatureSetsWithNode(nodes, fsNodes) {
		return
	}
	var from []string
	seen := sets.New[string]()
	for _, n := range fsNodes {
		if !seen.Has(n.v.file) {
			seen.Insert(n.v.file)
			from = append(from, n.v.file)
		}
	}
	quirk := func(path, keyword string) {
		for _, n := range nodes {
			m.quirks = append(m.quirks, Quirk{CRD: m.crd, File: n.v.file, Version: m.version, Path: nodePath(path), Keyword: keyword, FeatureSets: from})
		}
	}
	if names := adoptKeywords(out, nodes, fsNodes); len(names) > 0 {
		src := reflect.ValueOf(fsNodes[0].s.DeepCopy()).Elem()
		for _, name := range names {
			reflect.ValueOf(out).Elem().FieldByName(name).Set(src.FieldByName(name))
			quirk(path, name)
		}
	}
	for _, name := range adoptFields(out, nodes, fsNodes) {
		if out.Properties == nil {
			out.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
		}
		p := fsNodes[0].s.Properties[name]
		out.Properties[name] = *p.DeepCopy()
		quirk(path+"."+name, fieldKeyword)
	}
}

// allFeatureSetsWithNode reports whether fsNodes are the node in exactly the feature sets'
// CRDs that must have it: those with a schema for the version being merged that have on all
// gates of one of the per-gate files that have the node (nodes).
func (m *merger) allFeatureSetsWithNode(nodes, fsNodes []at) bool {
	got := sets.New[*variant]()
	for _, n := range fsNodes {
		got.Insert(n.v)
	}
	want := sets.New[*variant]()
	for _, fv := range m.featureSets {
		hasVersion := false
		for _, v := range fv.crd.Spec.Versions {
			hasVersion = hasVersion || (v.Name == m.version && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil)
		}
		for _, n := range nodes {
			if hasVersion && fv.gates.IsSuperset(n.v.gates) {
				want.Insert(fv)
				break
			}
		}
	}
	return len(fsNodes) == got.Len() && got.Equal(want)
}

// adoptKeywords lists, in the order of JSONSchemaProps, the keywords (field names) that every
// node of fsNodes has with one value, that every node of nodes and out have with another one
// value (unset included on both sides), and that are not notAdopted.
func adoptKeywords(out *apiextensionsv1.JSONSchemaProps, nodes, fsNodes []at) []string {
	var names []string
	t := reflect.TypeOf(*out)
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Name
		if notAdopted.Has(name) {
			continue
		}
		keyword := func(s *apiextensionsv1.JSONSchemaProps) reflect.Value { return reflect.ValueOf(s).Elem().Field(i) }
		want := keyword(fsNodes[0].s)
		if !allSame(fsNodes, want, keyword) {
			continue
		}
		have := keyword(nodes[0].s)
		if !allSame(nodes, have, keyword) || !sameKeyword(keyword(out), have) || sameKeyword(want, have) {
			continue
		}
		names = append(names, name)
	}
	return names
}

// adoptFields lists, sorted, the fields that every node of fsNodes has, alike, and that
// neither out nor any node of nodes has.
func adoptFields(out *apiextensionsv1.JSONSchemaProps, nodes, fsNodes []at) []string {
	var names []string
	for _, name := range sets.List(sets.KeySet(fsNodes[0].s.Properties)) {
		if _, ok := out.Properties[name]; ok {
			continue
		}
		want := fsNodes[0].s.Properties[name]
		ok := true
		for _, n := range fsNodes[1:] {
			p, has := n.s.Properties[name]
			ok = ok && has && reflect.DeepEqual(p, want)
		}
		for _, n := range nodes {
			_, has := n.s.Properties[name]
			ok = ok && !has
		}
		if ok {
			names = append(names, name)
		}
	}
	return names
}

// allSame reports whether keyword has the value want in every node of nodes.
func allSame(nodes []at, want reflect.Value, keyword func(*apiextensionsv1.JSONSchemaProps) reflect.Value) bool {
	for _, n := range nodes {
		if !sameKeyword(keyword(n.s), want) {
			return false
		}
	}
	return true
}

// sameKeyword reports whether two values of a keyword are the same: both unset, or equal.
func sameKeyword(a, b reflect.Value) bool {
	if isUnset(a) || isUnset(b) {
		return isUnset(a) && isUnset(b)
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// isUnset reports whether a keyword's value is its zero value or an empty list or map, which
// the CRD's JSON omits alike.
func isUnset(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	default:
		return v.IsZero()
	}
}
