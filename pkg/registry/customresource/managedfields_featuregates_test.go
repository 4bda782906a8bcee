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
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// ownershipTestSchema has .spec.replicas, .spec.image, .spec.ports (a map list keyed by
// name, with port and appProtocol), .spec.limits (a map of strings) and .status.ready.
func ownershipTestSchema() *structuralschema.Structural {
	str := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
	integer := structuralschema.Structural{Generic: structuralschema.Generic{Type: "integer"}}
	object := func(props map[string]structuralschema.Structural) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: props}
	}
	ports := structuralschema.Structural{
		Generic:    structuralschema.Generic{Type: "array"},
		Extensions: structuralschema.Extensions{XListType: ptr.To("map"), XListMapKeys: []string{"name"}},
		Items:      ptr.To(object(map[string]structuralschema.Structural{"name": str, "port": integer, "appProtocol": str})),
	}
	limits := structuralschema.Structural{
		Generic:              structuralschema.Generic{Type: "object"},
		AdditionalProperties: &structuralschema.StructuralOrBool{Bool: true, Structural: &str},
	}
	root := object(map[string]structuralschema.Structural{
		"spec":   object(map[string]structuralschema.Structural{"replicas": integer, "image": str, "ports": ports, "limits": limits}),
		"status": object(map[string]structuralschema.Structural{"ready": integer}),
	})
	return &root
}

// TestKeepGatedOwnership: the managedFields of a write keep, at each path that is not live,
// the ownership of the stored object (none on a create), and nothing else changes.
func TestKeepGatedOwnership(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	gates := NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter,
		apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Replicas", PreRelease: "alpha", FieldPaths: []string{".spec.replicas", ".status.ready"}},
		apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "AppProtocol", PreRelease: "alpha", FieldPaths: []string{".spec.ports[*].appProtocol"}},
		apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Limits", PreRelease: "alpha", FieldPaths: []string{".spec.limits[*]"}},
		apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Image", PreRelease: "beta", FieldPaths: []string{".spec.image"}},
	), "v1", map[string]*structuralschema.Structural{"v1": ownershipTestSchema()}, nil)

	const v1 = "stable.example.com/v1"
	apply := metav1.ManagedFieldsOperationApply
	update := metav1.ManagedFieldsOperationUpdate
	type entry struct {
		manager     string
		operation   metav1.ManagedFieldsOperationType
		apiVersion  string
		subresource string
		fields      string
	}
	tests := []struct {
		name       string
		old        []entry // nil: a create
		new, want  []entry
		wantSameAs bool // want is new, unchanged
	}{
		{
			name: "create: a dropped field, a dropped field of a list item and a map's dropped values are not owned",
			new:  []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:replicas":{},"f:limits":{".":{},"f:cpu":{}},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:appProtocol":{},"f:name":{},"f:port":{}}}}}`}},
			want: []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:limits":{".":{}},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}}}}`}},
		},
		{
			name: "create: a manager that owned only dropped fields has no entry",
			new: []entry{
				{"author", apply, v1, "", `{"f:spec":{"f:image":{}}}`},
				{"poster", update, v1, "", `{"f:spec":{"f:replicas":{}}}`},
			},
			want: []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{}}}`}},
		},
		{
			name:       "create: nothing gated is owned",
			new:        []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}}}}`}},
			wantSameAs: true,
		},
		{
			name: "update: a forced apply does not take a kept field from its owner",
			old:  []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:replicas":{}}}`}},
			new: []entry{
				{"author", apply, v1, "", `{"f:spec":{"f:image":{}}}`},
				{"other", apply, v1, "", `{"f:spec":{"f:replicas":{}}}`},
			},
			want: []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:replicas":{}}}`}},
		},
		{
			name: "update: an apply that left a kept field out still owns it",
			old:  []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:replicas":{}}}`}},
			new:  []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{}}}}}`}},
			want: []entry{{"author", apply, v1, "", `{"f:spec":{"f:image":{},"f:replicas":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{}}}}}`}},
		},
		{
			name: "update: an owner whose entry the write removed gets it back, and the updater none",
			old: []entry{
				{"author", apply, v1, "", `{"f:spec":{"f:image":{}}}`},
				{"scaler", update, v1, "", `{"f:spec":{"f:replicas":{}}}`},
			},
			new: []entry{
				{"author", apply, v1, "", `{"f:spec":{"f:image":{}}}`},
				{"patcher", update, v1, "", `{"f:spec":{"f:replicas":{}}}`},
			},
			want: []entry{
				{"author", apply, v1, "", `{"f:spec":{"f:image":{}}}`},
				{"scaler", update, v1, "", `{"f:spec":{"f:replicas":{}}}`},
			},
		},
		{
			name: "update: an updater keeps what it owned at a kept path, and what it owned elsewhere",
			old:  []entry{{"patcher", update, v1, "", `{"f:spec":{"f:replicas":{}}}`}},
			new:  []entry{{"patcher", update, v1, "", `{"f:spec":{"f:image":{}}}`}},
			want: []entry{{"patcher", update, v1, "", `{"f:spec":{"f:image":{},"f:replicas":{}}}`}},
		},
		{
			name: "update: an entry the write did not change is left as it is, even if it owns a gated field",
			old: []entry{
				{"author", apply, v1, "", `{"f:spec":{"f:replicas":{}}}`},
				{"status-writer", update, v1, "status", `{"f:status":{"f:ready":{}}}`},
			},
			new: []entry{
				{"author", apply, v1, "", `{"f:spec":{"f:replicas":{}}}`},
				{"status-writer", update, v1, "status", `{"f:status":{"f:ready":{}}}`},
				{"labeler", update, v1, "", `{"f:metadata":{"f:labels":{"f:team":{}}}}`},
			},
			wantSameAs: true,
		},
		{
			name:       "update that changed no ownership (the times aside): left as it is",
			old:        []entry{{"author", apply, v1, "", `{"f:spec":{"f:replicas":{}}}`}, {"other", update, v1, "", `{"f:spec":{"f:image":{}}}`}},
			new:        []entry{{"other", update, v1, "", `{"f:spec":{"f:image":{}}}`}, {"author", apply, v1, "", `{"f:spec":{"f:replicas":{}}}`}},
			wantSameAs: true,
		},
		{
			name: "update of the status subresource: the same for status paths",
			old:  []entry{{"status-writer", update, v1, "status", `{"f:status":{"f:ready":{}}}`}},
			new: []entry{
				{"status-writer", update, v1, "status", `{"f:status":{".":{}}}`},
				{"prober", update, v1, "status", `{"f:status":{"f:ready":{}}}`},
			},
			want: []entry{{"status-writer", update, v1, "status", `{"f:status":{".":{},"f:ready":{}}}`}},
		},
		{
			name:       "fields that cannot be decoded, and entries of another group, are left alone",
			new:        []entry{{"broken", update, v1, "", `{"f:spec":{"f:replicas":5}}`}, {"other-group", update, "other.example.com/v1", "", `{"f:spec":{"f:replicas":{}}}`}},
			wantSameAs: true,
		},
	}
	toEntries := func(t *testing.T, in []entry) []metav1.ManagedFieldsEntry {
		var out []metav1.ManagedFieldsEntry
		for _, e := range in {
			out = append(out, metav1.ManagedFieldsEntry{Manager: e.manager, Operation: e.operation, APIVersion: e.apiVersion, Subresource: e.subresource,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(e.fields)}, Time: ptr.To(metav1.Unix(1, 0))})
		}
		return out
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := cr(t, v1, 1, `"spec":{}`)
			obj.SetManagedFields(toEntries(t, tc.new))
			var old runtime.Object
			if tc.old != nil {
				o := cr(t, v1, 1, `"spec":{}`)
				o.SetManagedFields(toEntries(t, tc.old))
				old = o
			}
			gates.keepGatedOwnership(obj, old)

			want := tc.want
			if tc.wantSameAs {
				want = tc.new
			}
			if diff := cmp.Diff(canonical(t, toEntries(t, want)), canonical(t, obj.GetManagedFields())); diff != "" {
				t.Errorf("managedFields (-want +got):\n%s", diff)
			}
		})
	}
}

// canonical renders managedFields entries with their fields in the field manager's encoding.
func canonical(t *testing.T, entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	t.Helper()
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	for _, e := range entries {
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err == nil {
			raw, err := set.ToJSON()
			if err != nil {
				t.Fatal(err)
			}
			e.FieldsV1 = &metav1.FieldsV1{Raw: raw}
		}
		out = append(out, e)
	}
	return out
}

// TestKeepGatedOwnershipNothingGated: without a disabled path, or without gates, the
// managedFields of a write are not touched.
func TestKeepGatedOwnershipNothingGated(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	enabled := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Replicas", PreRelease: "beta", FieldPaths: []string{".spec.replicas"}}
	deprecated := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Image", PreRelease: "deprecated", Default: ptr.To(true), FieldPaths: []string{".spec.image"}}
	for name, g := range map[string]*FieldGates{
		"no gates":          nil,
		"every path live":   NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter, enabled), "v1", map[string]*structuralschema.Structural{"v1": ownershipTestSchema()}, nil),
		"a deprecated gate": NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter, enabled, deprecated), "v1", map[string]*structuralschema.Structural{"v1": ownershipTestSchema()}, nil),
	} {
		t.Run(name, func(t *testing.T) {
			obj := cr(t, "stable.example.com/v1", 1, `"spec":{}`)
			entries := []metav1.ManagedFieldsEntry{{Manager: "author", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "stable.example.com/v1",
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}}}
			obj.SetManagedFields(entries)
			before := obj.DeepCopy()
			g.keepGatedOwnership(obj, nil)
			if diff := cmp.Diff(before, obj); diff != "" {
				t.Errorf("object changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestSplitOwnershipLossless: splitting a managed field set by gated paths and joining the
// parts gives the set back, whatever the paths cover.
func TestSplitOwnershipLossless(t *testing.T) {
	raw := `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},"f:image":{},"f:replicas":{},"f:limits":{".":{},"f:cpu":{},"f:memory":{}},` +
		`"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:appProtocol":{},"f:name":{},"f:port":{}},"k:{\"name\":\"https\"}":{".":{},"f:name":{}}},"f:tags":{"v:\"x\"":{}}},"f:status":{"f:ready":{}}}`
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader([]byte(raw))); err != nil {
		t.Fatal(err)
	}
	for name, t2 := range map[string]*ownershipTrie{
		"none":                     nil,
		".spec":                    trieOf(t, ".spec"),
		".spec.ports[*].name":      trieOf(t, ".spec.ports[*].name"),
		".spec.limits[*], .status": trieOf(t, ".spec.limits[*]", ".status"),
		".spec.tags[*]":            trieOf(t, ".spec.tags[*]"),
		".spec.limits.cpu":         trieOf(t, ".spec.limits.cpu"),
	} {
		t.Run(name, func(t *testing.T) {
			live, notLive := splitOwnership(set, t2)
			if !live.Union(notLive).Equals(set) {
				t.Errorf("live %s + not live %s != %s", live, notLive, set)
			}
			if !live.Intersection(notLive).Empty() {
				t.Errorf("live and not live overlap: %s", live.Intersection(notLive))
			}
		})
	}
	if _, notLive := splitOwnership(set, trieOf(t, ".spec.limits.cpu")); !notLive.Equals(fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "limits", "cpu"))) {
		t.Errorf(".spec.limits.cpu covers %s", notLive)
	}
}

func trieOf(t *testing.T, paths ...string) *ownershipTrie {
	t.Helper()
	trie := &ownershipTrie{}
	for _, raw := range paths {
		p, err := featuregates.ParsePath(raw)
		if err != nil {
			t.Fatal(err)
		}
		trie.insert(p.Steps())
	}
	return trie
}

// unusedConvertor stands for a conversion webhook that keepGatedOwnership never calls.
type unusedConvertor struct{ runtime.ObjectConvertor }

// TestKeepGatedOwnershipPerVersion: with a conversion webhook, an entry's ownership follows
// the paths that are not live in its own version, and the stored ownership of a manager in
// another version is not compared.
func TestKeepGatedOwnershipPerVersion(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	str := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
	versionSchema := func(port string, marked bool) *structuralschema.Structural {
		p := str
		if marked {
			p.XFeatureGate = ptr.To("PortGate")
		}
		return &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
			"spec": {Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{port: p, "host": str}},
		}}
	}
	crd := fieldGateTestCRD(apiextensionsv1.WebhookConverter,
		apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "PortGate", PreRelease: "alpha", FieldPaths: []string{".spec.port"}})
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1"}, {Name: "v2", Storage: true}}
	gates := NewFieldGates(crd, "v2", map[string]*structuralschema.Structural{"v1": versionSchema("hostPort", true), "v2": versionSchema("port", false)}, unusedConvertor{})

	entry := func(manager, apiVersion, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: apiVersion,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	obj := cr(t, "stable.example.com/v1", 1, `"spec":{}`)
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{
		entry("v1-author", "stable.example.com/v1", `{"f:spec":{"f:host":{},"f:hostPort":{},"f:port":{}}}`),
		entry("v2-author", "stable.example.com/v2", `{"f:spec":{"f:host":{},"f:hostPort":{},"f:port":{}}}`),
	})
	old := cr(t, "stable.example.com/v2", 1, `"spec":{}`)
	old.SetManagedFields([]metav1.ManagedFieldsEntry{entry("v1-author", "stable.example.com/v2", `{"f:spec":{"f:port":{}}}`)})
	gates.keepGatedOwnership(obj, old)

	want := []metav1.ManagedFieldsEntry{
		entry("v1-author", "stable.example.com/v1", `{"f:spec":{"f:host":{},"f:port":{}}}`),
		entry("v2-author", "stable.example.com/v2", `{"f:spec":{"f:host":{},"f:hostPort":{}}}`),
	}
	if diff := cmp.Diff(canonical(t, want), canonical(t, obj.GetManagedFields())); diff != "" {
		t.Errorf("managedFields (-want +got):\n%s", diff)
	}
}

// BenchmarkKeepGatedOwnership is the cost keepGatedOwnership adds to an apply of a CRD with a
// disabled gate: the applier's entry changed and owned a dropped field, another entry did not
// change.
func BenchmarkKeepGatedOwnership(b *testing.B) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	gates := NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter,
		apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Replicas", PreRelease: "alpha", FieldPaths: []string{".spec.replicas"}},
		apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "AppProtocol", PreRelease: "alpha", FieldPaths: []string{".spec.ports[*].appProtocol"}},
	), "v1", map[string]*structuralschema.Structural{"v1": ownershipTestSchema()}, nil)
	entry := func(manager string, op metav1.ManagedFieldsOperationType, subresource, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "stable.example.com/v1", Subresource: subresource,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}, Time: ptr.To(metav1.Unix(1, 0))}
	}
	status := entry("controller", metav1.ManagedFieldsOperationUpdate, "status", `{"f:status":{".":{},"f:ready":{}}}`)
	old := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "stable.example.com/v1", "kind": "CronTab"}}
	old.SetManagedFields([]metav1.ManagedFieldsEntry{
		entry("author", metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:image":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}}}}`), status})
	newEntries := []metav1.ManagedFieldsEntry{
		entry("author", metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:image":{},"f:replicas":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:appProtocol":{},"f:name":{},"f:port":{}},"k:{\"name\":\"https\"}":{".":{},"f:name":{},"f:port":{}}}}}`), status}
	b.Run("ownership changed", func(b *testing.B) {
		objs := make([]*unstructured.Unstructured, b.N)
		for i := range objs {
			objs[i] = &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "stable.example.com/v1", "kind": "CronTab"}}
			objs[i].SetManagedFields(newEntries)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			gates.keepGatedOwnership(objs[i], old)
		}
	})
	b.Run("ownership unchanged", func(b *testing.B) {
		obj := old.DeepCopy()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			gates.keepGatedOwnership(obj, old)
		}
	})
}

// TestOwnershipUnchanged: the shortcut of keepGatedOwnership compares entries by manager,
// operation, API version, subresource and fields, and does not trust malformed ones.
func TestOwnershipUnchanged(t *testing.T) {
	entry := func(manager interface{}, fields string) interface{} {
		var f interface{}
		if err := json.Unmarshal([]byte(fields), &f); err != nil {
			t.Fatal(err)
		}
		return map[string]interface{}{"manager": manager, "operation": "Apply", "apiVersion": "stable.example.com/v1", "time": "2026-01-01T00:00:00Z", "fieldsV1": f}
	}
	obj := func(entries ...interface{}) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{"metadata": map[string]interface{}{"managedFields": entries}}}
	}
	a, b := entry("a", `{"f:spec":{"f:replicas":{}}}`), entry("b", `{"f:spec":{"f:image":{}}}`)
	later := entry("a", `{"f:spec":{"f:replicas":{}}}`)
	later.(map[string]interface{})["time"] = "2026-02-01T00:00:00Z"
	for _, tc := range []struct {
		name     string
		new, old *unstructured.Unstructured
		want     bool
	}{
		{"same entries in another order", obj(b, a), obj(a, b), true},
		{"another time only", obj(later), obj(a), true},
		{"other fields", obj(entry("a", `{"f:spec":{"f:image":{}}}`)), obj(a), false},
		{"an entry more", obj(a, b), obj(a), false},
		{"an entry less", obj(a), obj(a, b), false},
		{"another manager", obj(entry("c", `{"f:spec":{"f:replicas":{}}}`)), obj(a), false},
		{"a create", obj(a), nil, false},
		{"a manager that is not a string", obj(entry(map[string]interface{}{}, `{}`)), obj(entry(map[string]interface{}{}, `{}`)), false},
		{"an entry that is not an object", obj("a"), obj("a"), false},
		{"no managedFields", obj(), &unstructured.Unstructured{Object: map[string]interface{}{}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var old runtime.Object
			if tc.old != nil {
				old = tc.old
			}
			if got := ownershipUnchanged(tc.new, old); got != tc.want {
				t.Errorf("ownershipUnchanged = %v, want %v", got, tc.want)
			}
		})
	}
}
