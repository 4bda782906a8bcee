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

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// keepGatedOwnership makes metadata.managedFields of a write follow what gating did to its
// values: a write changes neither the value nor the owners of a field that is not live. The
// field manager computes the new managedFields from the request, before the strategy, so
// without this an applier that sent a value the gates dropped would own a field it did not
// set (and a client whose change was not applied would take it from its owner). For every
// managedFields entry of newObj, ownership at a path that is not live in the entry's version
// is set back to that of the same manager in old (none on a create): the entry loses what the
// write gave it there and gets back what the write took away; an entry left empty is
// removed, and an entry of old that the write removed comes back with what it owned there.
// Entries the write did not change are left alone, and an entry whose fields cannot be
// decoded is kept as it is. A write that clears managedFields (an empty list) stays cleared.
//
// Ownership depends only on the paths that are not live, not on what gating did to the
// values, so it is settled before the strategy runs: by REST.Create (old nil) and, through
// ownershipKeepingObjectInfo, by the gated updates of the main resource and the status and
// scale subresources (etcd_featuregates.go), on each attempt of an update.
func (g *FieldGates) keepGatedOwnership(newObj *unstructured.Unstructured, old runtime.Object) {
	if g == nil || !g.acts || !g.hasDisabled() || ownershipUnchanged(newObj, old) {
		return
	}
	entries := newObj.GetManagedFields()
	if len(entries) == 0 {
		return
	}
	var oldEntries []metav1.ManagedFieldsEntry
	if o, ok := old.(*unstructured.Unstructured); ok && o != nil {
		oldEntries = o.GetManagedFields()
	}
	tries := map[string]*ownershipTrie{}
	notLive := func(apiVersion string) *ownershipTrie {
		t, ok := tries[apiVersion]
		if !ok {
			t = g.notLiveTrie(apiVersion)
			tries[apiVersion] = t
		}
		return t
	}
	if out, changed := keepOwnership(entries, oldEntries, notLive, g.sameShape); changed {
		newObj.SetManagedFields(out)
	}
}

// ownershipUnchanged reports whether the write left managedFields as they were in old, but
// for the times: the same entries with the same fields. Then there is nothing to set back. It
// reads the unstructured content as it is: most updates (a re-apply, a controller's status
// update) change no ownership, and should not pay for decoding it.
func ownershipUnchanged(newObj *unstructured.Unstructured, old runtime.Object) bool {
	oldObj, ok := old.(*unstructured.Unstructured)
	if !ok || oldObj == nil {
		return false
	}
	newList, _, _ := unstructured.NestedFieldNoCopy(newObj.Object, "metadata", "managedFields")
	oldList, _, _ := unstructured.NestedFieldNoCopy(oldObj.Object, "metadata", "managedFields")
	newEntries, ok1 := newList.([]interface{})
	oldEntries, ok2 := oldList.([]interface{})
	if !ok1 || !ok2 || len(newEntries) != len(oldEntries) {
		return false
	}
	oldFields := make(map[[4]string]interface{}, len(oldEntries))
	for _, item := range oldEntries {
		key, fields, ok := rawEntry(item)
		if !ok {
			return false
		}
		oldFields[key] = fields
	}
	for _, item := range newEntries {
		key, fields, ok := rawEntry(item)
		if !ok {
			return false
		}
		oldFields, found := oldFields[key]
		if !found || !equality.Semantic.DeepEqual(oldFields, fields) {
			return false
		}
	}
	return true
}

// rawEntry returns the manager, operation, API version and subresource of an unstructured
// managedFields entry, and its fieldsV1; false when it is not an object of strings there.
func rawEntry(item interface{}) ([4]string, interface{}, bool) {
	e, ok := item.(map[string]interface{})
	if !ok {
		return [4]string{}, nil, false
	}
	var key [4]string
	for i, name := range []string{"manager", "operation", "apiVersion", "subresource"} {
		if v, found := e[name]; found {
			if key[i], ok = v.(string); !ok {
				return [4]string{}, nil, false
			}
		}
	}
	return key, e["fieldsV1"], true
}

// hasDisabled reports whether some version has a path that is not live.
func (g *FieldGates) hasDisabled() bool {
	for _, index := range g.indexes {
		if index.HasDisabled() {
			return true
		}
	}
	return false
}

// sameShape reports whether managed field sets of the API versions a and b name the same
// fields with the same paths: when they are the same version, or when versions differ only
// in apiVersion (conversion None).
func (g *FieldGates) sameShape(a, b string) bool {
	return a == b || g.convertor == nil
}

// notLiveTrie returns the paths that are not live in the objects of apiVersion, as prepare
// gates them: the version's own index, and with conversion None, where every version has the
// storage version's shape, the storage version's too. It is nil when there is none, or when
// apiVersion is not a version of the CRD.
func (g *FieldGates) notLiveTrie(apiVersion string) *ownershipTrie {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Group != g.storageVersion.Group {
		return nil
	}
	var t *ownershipTrie
	add := func(index *featuregates.Index) {
		for _, p := range index.Paths() {
			if !p.EffectivelyEnabled {
				if t == nil {
					t = &ownershipTrie{}
				}
				t.insert(p.Path.Steps())
			}
		}
	}
	add(g.indexes[gv.Version])
	if g.convertor == nil && gv.Version != g.storageVersion.Version {
		add(g.storage)
	}
	return t
}

// keepOwnership is keepGatedOwnership on managedFields entries: notLive returns the paths
// that are not live in an API version (nil: none), and sameShape whether the sets of two
// API versions are comparable. It returns the new entries, and whether they differ from
// entries.
func keepOwnership(entries, oldEntries []metav1.ManagedFieldsEntry, notLive func(apiVersion string) *ownershipTrie, sameShape func(a, b string) bool) ([]metav1.ManagedFieldsEntry, bool) {
	oldByManager := make(map[managerKey]*metav1.ManagedFieldsEntry, len(oldEntries))
	for i := range oldEntries {
		oldByManager[keyOf(&oldEntries[i])] = &oldEntries[i]
	}
	matched := make(map[managerKey]bool, len(entries))
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	changed := false
	for i := range entries {
		e := entries[i]
		key := keyOf(&e)
		matched[key] = true
		t := notLive(e.APIVersion)
		o := oldByManager[key]
		if t == nil || (o != nil && o.APIVersion == e.APIVersion && sameFields(e.FieldsV1, o.FieldsV1)) {
			out = append(out, e)
			continue
		}
		set, ok := decodeFields(e.FieldsV1)
		if !ok {
			out = append(out, e)
			continue
		}
		live, _ := splitOwnership(set, t)
		if o != nil && sameShape(o.APIVersion, e.APIVersion) {
			if oldSet, ok := decodeFields(o.FieldsV1); ok {
				_, kept := splitOwnership(oldSet, t)
				live = live.Union(kept)
			}
		}
		if live.Equals(set) {
			out = append(out, e)
			continue
		}
		changed = true
		if live.Empty() {
			continue // a manager that owns nothing has no entry
		}
		raw, err := live.ToJSON()
		if err != nil {
			out = append(out, entries[i])
			continue
		}
		e.FieldsV1 = &metav1.FieldsV1{Raw: raw}
		out = append(out, e)
	}
	for i := range oldEntries {
		o := oldEntries[i]
		if matched[keyOf(&o)] {
			continue
		}
		t := notLive(o.APIVersion)
		if t == nil {
			continue
		}
		oldSet, ok := decodeFields(o.FieldsV1)
		if !ok {
			continue
		}
		_, kept := splitOwnership(oldSet, t)
		if kept.Empty() {
			continue
		}
		raw, err := kept.ToJSON()
		if err != nil {
			continue
		}
		o.FieldsV1 = &metav1.FieldsV1{Raw: raw}
		out = append(out, o)
		changed = true
	}
	return out, changed
}

// managerKey identifies a manager in managedFields as the field manager does
// (BuildManagerIdentifier): an applier by its name and subresource, and an updater also by
// its API version.
type managerKey struct {
	manager, subresource, apiVersion string
	operation                        metav1.ManagedFieldsOperationType
}

func keyOf(e *metav1.ManagedFieldsEntry) managerKey {
	k := managerKey{manager: e.Manager, subresource: e.Subresource, operation: e.Operation}
	if e.Operation != metav1.ManagedFieldsOperationApply {
		k.apiVersion = e.APIVersion
	}
	return k
}

func sameFields(a, b *metav1.FieldsV1) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.Raw, b.Raw)
}

// decodeFields decodes the fields of an entry; false when they cannot be decoded.
func decodeFields(f *metav1.FieldsV1) (*fieldpath.Set, bool) {
	set := &fieldpath.Set{}
	if f == nil {
		return set, true
	}
	if err := set.FromJSON(bytes.NewReader(f.Raw)); err != nil {
		return nil, false
	}
	return set, true
}

// splitOwnership splits a managed field set into the paths t does not cover and those it
// covers.
func splitOwnership(set *fieldpath.Set, t *ownershipTrie) (live, notLive *fieldpath.Set) {
	live, notLive = fieldpath.NewSet(), fieldpath.NewSet()
	set.Iterate(func(p fieldpath.Path) {
		if t.covers(p) {
			notLive.Insert(p)
		} else {
			live.Insert(p)
		}
	})
	return live, notLive
}

// ownershipTrie holds gated paths by their steps. It covers a managed field path that starts
// with one of them: a field step matches the field (or map key) of that name, and [*] any
// list item or map value.
type ownershipTrie struct {
	fields   map[string]*ownershipTrie
	wildcard *ownershipTrie
	// gated is set at the end of a path: everything from here down is covered.
	gated bool
}

func (t *ownershipTrie) insert(steps []featuregates.Step) {
	for _, st := range steps {
		if t.gated {
			return // an ancestor is covered already
		}
		if st.Wildcard {
			if t.wildcard == nil {
				t.wildcard = &ownershipTrie{}
			}
			t = t.wildcard
			continue
		}
		if t.fields == nil {
			t.fields = map[string]*ownershipTrie{}
		}
		child, ok := t.fields[st.Field]
		if !ok {
			child = &ownershipTrie{}
			t.fields[st.Field] = child
		}
		t = child
	}
	t.gated = true
}

func (t *ownershipTrie) covers(p fieldpath.Path) bool {
	for len(p) > 0 && t != nil && !t.gated {
		pe := p[0]
		p = p[1:]
		if pe.FieldName != nil {
			if child := t.fields[*pe.FieldName]; child != nil && child.covers(p) {
				return true
			}
		}
		t = t.wildcard
	}
	return t != nil && t.gated
}
