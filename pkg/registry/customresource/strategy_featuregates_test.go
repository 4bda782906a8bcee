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
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/warning"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (r *warningRecorder) AddWarning(_, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, text)
}

func fieldGateTestCRD(conversion apiextensionsv1.ConversionStrategyType, gates ...apiextensionsv1.CustomResourceDefinitionFeatureGate) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group:              "stable.example.com",
			Conversion:         &apiextensionsv1.CustomResourceConversion{Strategy: conversion},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: gates},
		},
	}
}

func fieldGateTestSchema() *structuralschema.Structural {
	integer := structuralschema.Structural{Generic: structuralschema.Generic{Type: "integer"}}
	return &structuralschema.Structural{
		Generic: structuralschema.Generic{Type: "object"},
		Properties: map[string]structuralschema.Structural{
			"spec": {Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
				"replicas": integer, "image": {Generic: structuralschema.Generic{Type: "string"}},
			}},
			"status": {Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"ready": integer}},
		},
	}
}

func cr(t *testing.T, apiVersion string, generation int64, content string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"apiVersion":%q,"kind":"CronTab","metadata":{"name":"a"},%s}`, apiVersion, content)), &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetGeneration(generation)
	return u
}

// jsonOf renders an object as generic JSON, so that int64 and float64 numbers compare equal.
func jsonOf(t *testing.T, u *unstructured.Unstructured) map[string]interface{} {
	t.Helper()
	data, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]interface{}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFieldGatesThroughStrategy(t *testing.T) {
	alpha := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "ReplicasFeatureGate", PreRelease: "alpha", FieldPaths: []string{".spec.replicas", ".status.ready"}}
	deprecated := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "OldImage", PreRelease: "deprecated", Default: ptr.To(true), FieldPaths: []string{".spec.image"}}
	deprecatedCustom := deprecated
	deprecatedCustom.FieldDeprecationWarning = ptr.To("spec.image is going away; use spec.containers")

	tests := []struct {
		name           string
		featureOff     bool
		gates          []apiextensionsv1.CustomResourceDefinitionFeatureGate
		withStatus     bool
		statusWrite    bool
		old            string // empty: create
		new            string
		want           string
		wantGeneration int64
		wantWarnings   []string
	}{
		{
			name: "create drops a disabled field, with a warning", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{alpha},
			new: `"spec":{"replicas":3,"image":"a"}`, want: `"spec":{"image":"a"}`, wantGeneration: 1,
			wantWarnings: []string{".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled"},
		},
		{
			name: "feature off: upstream behaviour even with gates", featureOff: true, gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{alpha},
			new: `"spec":{"replicas":3}`, want: `"spec":{"replicas":3}`, wantGeneration: 1,
		},
		{
			name: "update only of a gated-away field: kept, no generation bump, warning", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{alpha},
			old: `"spec":{"replicas":3,"image":"a"}`, new: `"spec":{"replicas":5,"image":"a"}`, want: `"spec":{"replicas":3,"image":"a"}`, wantGeneration: 4,
			wantWarnings: []string{".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"},
		},
		{
			name: "update of a gated and a live field: generation bumps, gated value kept", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{alpha},
			old: `"spec":{"replicas":3,"image":"a"}`, new: `"spec":{"replicas":5,"image":"b"}`, want: `"spec":{"replicas":3,"image":"b"}`, wantGeneration: 5,
			wantWarnings: []string{".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"},
		},
		{
			name: "update that does not touch the gated field: no warning", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{alpha},
			old: `"spec":{"replicas":3,"image":"a"}`, new: `"spec":{"replicas":3,"image":"b"}`, want: `"spec":{"replicas":3,"image":"b"}`, wantGeneration: 5,
		},
		{
			name: "deprecated field on create: default warning", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{deprecated},
			new: `"spec":{"image":"a"}`, want: `"spec":{"image":"a"}`, wantGeneration: 1,
			wantWarnings: []string{".spec.image is deprecated (feature gate OldImage)"},
		},
		{
			name: "deprecated field changed on update: custom warning", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{deprecatedCustom},
			old: `"spec":{"image":"a"}`, new: `"spec":{"image":"b"}`, want: `"spec":{"image":"b"}`, wantGeneration: 5,
			wantWarnings: []string{"spec.image is going away; use spec.containers"},
		},
		{
			name: "deprecated field unchanged on update: no warning", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{deprecatedCustom},
			old: `"spec":{"image":"a","replicas":1}`, new: `"spec":{"image":"a","replicas":2}`, want: `"spec":{"image":"a","replicas":2}`, wantGeneration: 5,
		},
		{
			name: "status subresource write: gated status field dropped", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{alpha}, withStatus: true, statusWrite: true,
			old: `"spec":{},"status":{}`, new: `"spec":{},"status":{"ready":1}`, want: `"spec":{},"status":{}`, wantGeneration: 4,
			wantWarnings: []string{".status.ready was dropped: feature gate ReplicasFeatureGate (alpha) is disabled"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, !tc.featureOff)
			kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}
			var status *apiextensions.CustomResourceSubresourceStatus
			if tc.withStatus {
				status = &apiextensions.CustomResourceSubresourceStatus{}
			}
			s := NewStrategy(nil, true, kind, nil, nil, fieldGateTestSchema(), status, nil, nil)
			s = s.WithFieldGates(NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter, tc.gates...), "v1", map[string]*structuralschema.Structural{"v1": fieldGateTestSchema()}, nil))
			rec := &warningRecorder{}
			ctx := warning.WithWarningRecorder(context.Background(), rec)

			obj := cr(t, "stable.example.com/v1", 4, tc.new)
			var warnings []string
			if tc.old == "" {
				s.PrepareForCreate(ctx, obj)
				warnings = s.WarningsOnCreate(ctx, obj)
			} else {
				old := cr(t, "stable.example.com/v1", 4, tc.old)
				oldCopy := old.DeepCopy()
				if tc.statusWrite {
					ss := NewStatusStrategy(s)
					ss.PrepareForUpdate(ctx, obj, old)
					warnings = ss.WarningsOnUpdate(ctx, obj, old)
				} else {
					s.PrepareForUpdate(ctx, obj, old)
					warnings = s.WarningsOnUpdate(ctx, obj, old)
				}
				if diff := cmp.Diff(oldCopy, old); diff != "" {
					t.Errorf("old object was mutated:\n%s", diff)
				}
			}
			want := cr(t, "stable.example.com/v1", tc.wantGeneration, tc.want)
			if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, obj)); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarnings, append(rec.warnings, warnings...)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// renamingConvertor converts between v2 (.spec.count) and the storage version v1
// (.spec.replicas), as a conversion webhook would.
type renamingConvertor struct{ runtime.ObjectConvertor }

func (renamingConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u := in.(*unstructured.Unstructured).DeepCopy()
	target, _ := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}, {Group: "stable.example.com", Version: "v2", Kind: "CronTab"}})
	from, to := "replicas", "count"
	if target.Version == "v1" {
		from, to = "count", "replicas"
	}
	if v, ok, _ := unstructured.NestedFieldCopy(u.Object, "spec", from); ok {
		unstructured.RemoveNestedField(u.Object, "spec", from)
		_ = unstructured.SetNestedField(u.Object, v, "spec", to)
	}
	u.SetAPIVersion(target.GroupVersion().String())
	return u, nil
}

func TestFieldGatesWithConversionWebhook(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	gate := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "ReplicasFeatureGate", PreRelease: "alpha", FieldPaths: []string{".spec.replicas"}}
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "CronTab"}
	s := NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).
		WithFieldGates(NewFieldGates(fieldGateTestCRD(apiextensionsv1.WebhookConverter, gate), "v1", map[string]*structuralschema.Structural{"v1": fieldGateTestSchema()}, renamingConvertor{}))
	rec := &warningRecorder{}
	ctx := warning.WithWarningRecorder(context.Background(), rec)

	// The gate names the storage version's .spec.replicas; a v2 client writes .spec.count.
	obj := cr(t, "stable.example.com/v2", 1, `"spec":{"count":3,"image":"a"}`)
	s.PrepareForCreate(ctx, obj)
	if diff := cmp.Diff(jsonOf(t, cr(t, "stable.example.com/v2", 1, `"spec":{"image":"a"}`)), jsonOf(t, obj)); diff != "" {
		t.Errorf("create (-want +got):\n%s", diff)
	}
	old := cr(t, "stable.example.com/v2", 2, `"spec":{"count":3,"image":"a"}`)
	obj = cr(t, "stable.example.com/v2", 2, `"spec":{"count":7,"image":"a"}`)
	s.PrepareForUpdate(ctx, obj, old)
	if diff := cmp.Diff(jsonOf(t, cr(t, "stable.example.com/v2", 2, `"spec":{"count":3,"image":"a"}`)), jsonOf(t, obj)); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	want := []string{
		".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled",
		".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept",
	}
	if diff := cmp.Diff(want, rec.warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// markedSchema is fieldGateTestSchema with its replicas field named field and marked with
// x-kubernetes-feature-gate: gate.
func markedSchema(field, gate string) *structuralschema.Structural {
	s := fieldGateTestSchema()
	spec := s.Properties["spec"]
	replicas := spec.Properties["replicas"]
	delete(spec.Properties, "replicas")
	replicas.XFeatureGate = &gate
	spec.Properties[field] = replicas
	s.Properties["spec"] = spec
	return s
}

// inventingConvertor is renamingConvertor, except that a conversion to v1 always sets
// .spec.replicas: a webhook that does not round-trip the gated field.
type inventingConvertor struct{ renamingConvertor }

func (c inventingConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	out, err := c.renamingConvertor.ConvertToVersion(in, gv)
	if err != nil {
		return nil, err
	}
	u := out.(*unstructured.Unstructured)
	if u.GetAPIVersion() == "stable.example.com/v1" {
		if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas"); !ok {
			_ = unstructured.SetNestedField(u.Object, int64(0), "spec", "replicas")
		}
	}
	return u, nil
}

// TestFieldGatesMarksInEachVersion: a gate marked in each version's schema, on a field that
// v1 (the storage version) calls replicas and v2 calls count, with no fieldPaths, gates a
// write in the version it was sent in, and its warnings name that version's path.
func TestFieldGatesMarksInEachVersion(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	schemas := map[string]*structuralschema.Structural{"v1": markedSchema("replicas", "CountGate"), "v2": markedSchema("count", "CountGate")}
	newStrategy := func(version string, enabled bool, convertor runtime.ObjectConvertor) customResourceStrategy {
		crd := fieldGateTestCRD(apiextensionsv1.WebhookConverter, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "CountGate", PreRelease: "alpha", Enabled: &enabled})
		crd.Name = "crontabs.stable.example.com"
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
		kind := schema.GroupVersionKind{Group: "stable.example.com", Version: version, Kind: "CronTab"}
		return NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).WithFieldGates(NewFieldGates(crd, "v1", schemas, convertor))
	}
	for _, tc := range []struct {
		name         string
		version      string
		enabled      bool
		old, sent    string
		want         string
		wantWarnings []string
	}{
		{name: "v2 create, gate off", version: "v2", sent: `{"count":3,"image":"a"}`, want: `{"image":"a"}`,
			wantWarnings: []string{".spec.count was dropped: feature gate CountGate (alpha) is disabled"}},
		{name: "v1 create, gate off", version: "v1", sent: `{"replicas":3,"image":"a"}`, want: `{"image":"a"}`,
			wantWarnings: []string{".spec.replicas was dropped: feature gate CountGate (alpha) is disabled"}},
		{name: "v2 update, gate off, stored value kept", version: "v2", old: `{"count":3,"image":"a"}`, sent: `{"count":7,"image":"b"}`, want: `{"count":3,"image":"b"}`,
			wantWarnings: []string{".spec.count was not updated: feature gate CountGate (alpha) is disabled; the stored value was kept"}},
		{name: "v2 update, gate off, removal not applied", version: "v2", old: `{"count":3,"image":"a"}`, sent: `{"image":"a"}`, want: `{"count":3,"image":"a"}`,
			wantWarnings: []string{".spec.count was not updated: feature gate CountGate (alpha) is disabled; the stored value was kept"}},
		{name: "v2 create, gate on", version: "v2", enabled: true, sent: `{"count":3,"image":"a"}`, want: `{"count":3,"image":"a"}`},
		{name: "v2 update, gate on", version: "v2", enabled: true, old: `{"count":3}`, sent: `{"count":7}`, want: `{"count":7}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStrategy(tc.version, tc.enabled, renamingConvertor{})
			rec := &warningRecorder{}
			ctx := warning.WithWarningRecorder(context.Background(), rec)
			apiVersion := "stable.example.com/" + tc.version
			obj := cr(t, apiVersion, 1, `"spec":`+tc.sent)
			if tc.old == "" {
				s.PrepareForCreate(ctx, obj)
			} else {
				// The stored object, as storage decodes it for this version's endpoint.
				s.PrepareForUpdate(ctx, obj, cr(t, apiVersion, 1, `"spec":`+tc.old))
			}
			if diff := cmp.Diff(jsonOf(t, cr(t, apiVersion, 1, `"spec":`+tc.want))["spec"], jsonOf(t, obj)["spec"]); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarnings, rec.warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a webhook that does not round-trip fails the write", func(t *testing.T) {
		s := newStrategy("v2", false, inventingConvertor{})
		w := &gatedWrite{}
		ctx := context.WithValue(context.Background(), gatedWriteKey{}, w)
		s.PrepareForCreate(ctx, cr(t, "stable.example.com/v2", 1, `"spec":{"image":"a"}`))
		want := "field feature gates: the conversion webhook of CustomResourceDefinition crontabs.stable.example.com (conversion webhook) does not round-trip gated fields: " +
			"converting this v2 object to the storage version v1 puts a value at .spec.replicas, which feature gate CountGate (alpha) disables there; nothing was persisted"
		if w.err == nil || w.err.Error() != want {
			t.Errorf("error = %v, want %q", w.err, want)
		}
		// With the gate on, the same webhook is fine.
		s = newStrategy("v2", true, inventingConvertor{})
		w = &gatedWrite{}
		ctx = context.WithValue(context.Background(), gatedWriteKey{}, w)
		s.PrepareForCreate(ctx, cr(t, "stable.example.com/v2", 1, `"spec":{"image":"a"}`))
		if w.err != nil {
			t.Errorf("gate on: unexpected error %v", w.err)
		}
	})
}

// storedGetter is the storage version's endpoint of a test: it returns the stored object.
type storedGetter struct{ obj *unstructured.Unstructured }

func (g storedGetter) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return g.obj.DeepCopy(), nil
}

// TestFieldGatesWebhookInventsOnUpdate: a webhook that invents a value at a disabled path on
// the way to the storage version (inventingConvertor sets replicas in v1) invents it in the
// new object and in the stored object converted for the request's version alike. Checked
// against the object as stored, every update through the other version fails instead of
// storing the invented value; the main resource's status and a status write's spec count
// too. Through the storage version, and with the gate on, the same writes pass.
func TestFieldGatesWebhookInventsOnUpdate(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	schemas := map[string]*structuralschema.Structural{"v1": markedSchema("replicas", "CountGate"), "v2": markedSchema("count", "CountGate")}
	// Stored in v1 without replicas; v2's endpoint decodes it through the webhook.
	stored := cr(t, "stable.example.com/v1", 1, `"spec":{"image":"a"}`)
	stored.SetResourceVersion("7")
	fieldGates := func(enabled bool) *FieldGates {
		crd := fieldGateTestCRD(apiextensionsv1.WebhookConverter, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "CountGate", PreRelease: "alpha", Enabled: &enabled})
		crd.Name = "crontabs.stable.example.com"
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
		g := NewFieldGates(crd, "v1", schemas, inventingConvertor{})
		g.stored = storedGetter{obj: stored}
		return g
	}
	old := func(version string) *unstructured.Unstructured {
		o := cr(t, "stable.example.com/"+version, 1, `"spec":{"image":"a"}`)
		o.SetResourceVersion("7")
		return o
	}
	const want = "converting this v2 object to the storage version v1 puts a value at .spec.replicas, which feature gate CountGate (alpha) disables there; nothing was persisted"
	for _, tc := range []struct {
		name    string
		version string
		enabled bool
		status  bool
		wantErr string
	}{
		{name: "a label patch through v2, gate off", version: "v2", wantErr: want},
		{name: "a status write through v2, gate off", version: "v2", status: true, wantErr: want},
		{name: "a label patch through v1, the storage version", version: "v1"},
		{name: "a label patch through v2, gate on", version: "v2", enabled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind := schema.GroupVersionKind{Group: "stable.example.com", Version: tc.version, Kind: "CronTab"}
			s := NewStrategy(nil, true, kind, nil, nil, nil, &apiextensions.CustomResourceSubresourceStatus{}, nil, nil).WithFieldGates(fieldGates(tc.enabled))
			w := &gatedWrite{}
			ctx := context.WithValue(context.Background(), gatedWriteKey{}, w)
			obj := old(tc.version)
			obj.SetLabels(map[string]string{"touched": "yes"})
			if tc.status {
				NewStatusStrategy(s).PrepareForUpdate(ctx, obj, old(tc.version))
			} else {
				s.PrepareForUpdate(ctx, obj, old(tc.version))
			}
			switch {
			case tc.wantErr == "" && w.err != nil:
				t.Errorf("unexpected error: %v", w.err)
			case tc.wantErr != "" && (w.err == nil || !strings.Contains(w.err.Error(), tc.wantErr)):
				t.Errorf("error = %v, want one containing %q", w.err, tc.wantErr)
			}
		})
	}
	// The storage layer's write of an attempt that started from an older object than the
	// stored one fails, and it retries with the stored object: the attempt is marked stale and
	// gated against the object it started from, in a dry run too (which writes nothing).
	for _, dryRun := range []bool{false, true} {
		t.Run(fmt.Sprintf("a stored object newer than the update's, dry run %t", dryRun), func(t *testing.T) {
			kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "CronTab"}
			s := NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).WithFieldGates(fieldGates(false))
			w := &gatedWrite{dryRun: dryRun}
			ctx := context.WithValue(context.Background(), gatedWriteKey{}, w)
			stale := old("v2")
			stale.SetResourceVersion("6")
			s.PrepareForUpdate(ctx, stale.DeepCopy(), stale)
			if w.err != nil || !w.stale {
				t.Errorf("error = %v, stale = %t; want no error, and the attempt marked stale", w.err, w.stale)
			}
		})
	}
}

// TestFieldGatesMarksDefaults: defaults follow the marks of their own version. With the gate
// off, the marked field of each version has no default; a version that does not mark the
// field keeps its default (the storage version's gates catch its value after conversion).
func TestFieldGatesMarksDefaults(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	withDefault := func(s *structuralschema.Structural, field string) *structuralschema.Structural {
		spec := s.Properties["spec"]
		prop := spec.Properties[field]
		prop.Default.Object = int64(1)
		spec.Properties[field] = prop
		s.Properties["spec"] = spec
		return s
	}
	unmarked := fieldGateTestSchema()
	unmarkedSpec := unmarked.Properties["spec"]
	unmarkedSpec.Properties["count"] = unmarkedSpec.Properties["replicas"]
	delete(unmarkedSpec.Properties, "replicas")
	unmarked.Properties["spec"] = unmarkedSpec
	schemas := map[string]*structuralschema.Structural{
		"v1":      withDefault(markedSchema("replicas", "CountGate"), "replicas"),
		"v2":      withDefault(markedSchema("count", "CountGate"), "count"),
		"v3beta1": withDefault(unmarked, "count"),
	}
	defaultOf := func(schemas map[string]*structuralschema.Structural, version, field string) interface{} {
		return schemas[version].Properties["spec"].Properties[field].Default.Object
	}
	for _, enabled := range []bool{false, true} {
		crd := fieldGateTestCRD(apiextensionsv1.WebhookConverter, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "CountGate", PreRelease: "alpha", Enabled: &enabled})
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}, {Name: "v3beta1"}}
		got := NewFieldGates(crd, "v1", schemas, renamingConvertor{}).WithoutDisabledDefaults(schemas)
		want := map[string]interface{}{"v1": int64(1), "v2": int64(1), "v3beta1": int64(1)}
		if !enabled {
			want["v1"], want["v2"] = nil, nil
		}
		for version, field := range map[string]string{"v1": "replicas", "v2": "count", "v3beta1": "count"} {
			if d := defaultOf(got, version, field); d != want[version] {
				t.Errorf("CountGate enabled=%t: default of %s in %s = %v, want %v", enabled, field, version, d, want[version])
			}
			if d := defaultOf(schemas, version, field); d != int64(1) {
				t.Errorf("the CRD's own schema of %s lost its default: %v", version, d)
			}
		}
	}
}

// TestFieldGatesConversionNoneTwoVersions: with conversion None, a write in another version
// than the storage version is gated by the fieldPaths, which hold in every version, and by
// the storage version's marks, which gate every version that has the path, also one that
// does not mark it.
func TestFieldGatesConversionNoneTwoVersions(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	for _, tc := range []struct {
		name    string
		gate    apiextensionsv1.CustomResourceDefinitionFeatureGate
		schemas map[string]*structuralschema.Structural
	}{
		{name: "fieldPaths, no marks", gate: apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "CountGate", PreRelease: "alpha", FieldPaths: []string{".spec.replicas"}},
			schemas: map[string]*structuralschema.Structural{"v1": fieldGateTestSchema(), "v2": fieldGateTestSchema()}},
		{name: "a mark in the storage version only", gate: apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "CountGate", PreRelease: "alpha"},
			schemas: map[string]*structuralschema.Structural{"v1": markedSchema("replicas", "CountGate"), "v2": fieldGateTestSchema()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, tc.gate)
			crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
			kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "CronTab"}
			s := NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).WithFieldGates(NewFieldGates(crd, "v1", tc.schemas, nil))
			rec := &warningRecorder{}
			obj := cr(t, "stable.example.com/v2", 1, `"spec":{"replicas":3,"image":"a"}`)
			s.PrepareForCreate(warning.WithWarningRecorder(context.Background(), rec), obj)
			if diff := cmp.Diff(map[string]interface{}{"image": "a"}, jsonOf(t, obj)["spec"]); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{".spec.replicas was dropped: feature gate CountGate (alpha) is disabled"}, rec.warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFieldGatesConversionNoneMarksOfOtherVersions: with conversion None, a mark in one
// version gates the path in every version that has it, wherever the storage version is: the
// write in every version, and the defaults of a version that does not mark the path.
func TestFieldGatesConversionNoneMarksOfOtherVersions(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	// v1 has a default for replicas and no mark; v2 marks replicas.
	unmarked := fieldGateTestSchema()
	spec := unmarked.Properties["spec"]
	replicas := spec.Properties["replicas"]
	replicas.Default.Object = int64(1)
	spec.Properties["replicas"] = replicas
	unmarked.Properties["spec"] = spec
	schemas := map[string]*structuralschema.Structural{"v1": unmarked, "v2": markedSchema("replicas", "ReplicasGate")}
	for _, storage := range []string{"v2", "v1"} {
		crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "ReplicasGate", PreRelease: "alpha"})
		crd.Name = "crontabs.stable.example.com"
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: storage == "v1"}, {Name: "v2", Storage: storage == "v2"}}
		g := NewFieldGates(crd, storage, schemas, nil)
		t.Run("storage "+storage+", defaults", func(t *testing.T) {
			defaulted := g.WithoutDisabledDefaults(schemas)
			if d := defaulted["v1"].Properties["spec"].Properties["replicas"].Default.Object; d != nil {
				t.Errorf("v1's default for .spec.replicas = %v, want none while ReplicasGate is disabled", d)
			}
			if d := schemas["v1"].Properties["spec"].Properties["replicas"].Default.Object; d != int64(1) {
				t.Errorf("the CRD's own schema of v1 lost its default: %v", d)
			}
		})
		for _, tc := range []struct {
			name, version, content string
			wantSpec               map[string]interface{}
			wantWarnings           []string
		}{
			{name: "v1 create without replicas", version: "v1", content: `"spec":{"image":"a"}`, wantSpec: map[string]interface{}{"image": "a"}},
			{name: "v1 create with replicas", version: "v1", content: `"spec":{"replicas":3,"image":"a"}`, wantSpec: map[string]interface{}{"image": "a"},
				wantWarnings: []string{".spec.replicas was dropped: feature gate ReplicasGate (alpha) is disabled"}},
			{name: "v2 create with replicas", version: "v2", content: `"spec":{"replicas":3,"image":"a"}`, wantSpec: map[string]interface{}{"image": "a"},
				wantWarnings: []string{".spec.replicas was dropped: feature gate ReplicasGate (alpha) is disabled"}},
		} {
			t.Run("storage "+storage+", "+tc.name, func(t *testing.T) {
				kind := schema.GroupVersionKind{Group: "stable.example.com", Version: tc.version, Kind: "CronTab"}
				s := NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).WithFieldGates(g)
				rec := &warningRecorder{}
				obj := cr(t, "stable.example.com/"+tc.version, 1, tc.content)
				s.PrepareForCreate(warning.WithWarningRecorder(context.Background(), rec), obj)
				if diff := cmp.Diff(tc.wantSpec, jsonOf(t, obj)["spec"]); diff != "" {
					t.Errorf("spec (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantWarnings, rec.warnings); diff != "" {
					t.Errorf("warnings (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("storage "+storage+", one gating step", func(t *testing.T) {
			// Both versions have the path, so both gate like the storage version.
			if diff := cmp.Diff(map[string]bool{"v1": true, "v2": true}, g.storageAlike); diff != "" {
				t.Errorf("storageAlike (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFieldGatesSharedStoredValues: gating keeps a stored object or list by putting the
// stored one itself in the result, not a copy (featuregates.Index.PrepareForUpdate). Through
// both steps of prepare (conversion None, the write in a version whose schema lacks a path
// disabled in the storage version, so the stored object is read again in the storage
// version), neither the update's old object nor the stored object read for it is modified,
// and the result holds every stored value.
func TestFieldGatesSharedStoredValues(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	object := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
		"a": {Generic: structuralschema.Generic{Type: "integer"}},
		"b": {Generic: structuralschema.Generic{Type: "string"}},
	}}
	v1 := fieldGateTestSchema() // the storage version: replicas and config
	spec := v1.Properties["spec"]
	spec.Properties["config"] = object
	v1.Properties["spec"] = spec
	v2 := fieldGateTestSchema() // no replicas
	spec = v2.Properties["spec"]
	delete(spec.Properties, "replicas")
	spec.Properties["config"] = object
	v2.Properties["spec"] = spec

	crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, apiextensionsv1.CustomResourceDefinitionFeatureGate{
		Name: "Gated", PreRelease: "alpha", FieldPaths: []string{".spec.replicas", ".spec.config"}})
	crd.Name = "crontabs.stable.example.com"
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
	g := NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": v1, "v2": v2}, nil)
	if !g.pruned["v2"] {
		t.Fatalf("v2 lacks .spec.replicas: a write in v2 must be gated in v1 too")
	}
	stored := cr(t, "stable.example.com/v1", 1, `"spec":{"replicas":3,"image":"a","config":{"a":1,"b":"x"}}`)
	stored.SetResourceVersion("7")
	g.stored = storedObject{stored}
	storedCopy := stored.DeepCopy()

	for _, tc := range []struct{ name, content string }{
		{name: "config sent back unchanged", content: `"spec":{"image":"b","config":{"a":1,"b":"x"}}`},
		{name: "config changed", content: `"spec":{"image":"b","config":{"a":2}}`},
		{name: "config left out", content: `"spec":{"image":"b"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := cr(t, "stable.example.com/v2", 1, `"spec":{"image":"a","config":{"a":1,"b":"x"}}`)
			old.SetResourceVersion("7")
			oldCopy := old.DeepCopy()
			kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "CronTab"}
			s := NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).WithFieldGates(g)
			obj := cr(t, "stable.example.com/v2", 1, tc.content)
			obj.SetResourceVersion("7")
			s.PrepareForUpdate(context.Background(), obj, old)
			want := map[string]interface{}{"replicas": float64(3), "image": "b", "config": map[string]interface{}{"a": float64(1), "b": "x"}}
			if diff := cmp.Diff(want, jsonOf(t, obj)["spec"]); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(oldCopy.Object, old.Object); diff != "" {
				t.Errorf("the update's old object was modified (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(storedCopy.Object, stored.Object); diff != "" {
				t.Errorf("the stored object was modified (-before +after):\n%s", diff)
			}
		})
	}
}

// TestFieldGatesPrunedVersionOtherScope: with conversion None, decoding in a version whose
// schema lacks a path disabled in the storage version prunes the stored value there from the
// object an update starts from, also in the part of the object the write does not change: a
// status write carries the stored spec, a main write the stored status. Both come back as
// stored, without a warning (the version cannot show them), and the generation moves only
// when a live field changed.
func TestFieldGatesPrunedVersionOtherScope(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	object := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
		"k": {Generic: structuralschema.Generic{Type: "string"}},
	}}
	v1 := fieldGateTestSchema() // the storage version: spec.extra and status.only
	spec, status := v1.Properties["spec"], v1.Properties["status"]
	spec.Properties["extra"], status.Properties["only"] = object, object
	v1.Properties["spec"], v1.Properties["status"] = spec, status
	v2 := fieldGateTestSchema() // neither

	crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, apiextensionsv1.CustomResourceDefinitionFeatureGate{
		Name: "Extra", PreRelease: "alpha", FieldPaths: []string{".spec.extra", ".status.only"}})
	crd.Name = "crontabs.stable.example.com"
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
	g := NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": v1, "v2": v2}, nil)
	const storedJSON = `"spec":{"image":"a","extra":{"k":"s"}},"status":{"ready":1,"only":{"k":"t"}}`
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "CronTab"}
	main := NewStrategy(nil, true, kind, nil, nil, nil, &apiextensions.CustomResourceSubresourceStatus{}, nil, nil).WithFieldGates(g)
	for _, tc := range []struct {
		name string
		// prepare is the strategy's PrepareForUpdate of the main resource or of /status.
		prepare func(ctx context.Context, obj, old runtime.Object)
		// old is the stored object as decoded in v2 (pruned); sent the write.
		old, sent, want string
		generation      int64
	}{
		{name: "status write", prepare: NewStatusStrategy(main).PrepareForUpdate,
			old:        `"spec":{"image":"a"},"status":{"ready":1}`,
			sent:       `"spec":{"image":"a"},"status":{"ready":2}`,
			want:       `{"spec":{"image":"a","extra":{"k":"s"}},"status":{"ready":2,"only":{"k":"t"}}}`,
			generation: 1},
		{name: "main write", prepare: main.PrepareForUpdate,
			old:        `"spec":{"image":"a"},"status":{"ready":1}`,
			sent:       `"spec":{"image":"b"},"status":{"ready":1}`,
			want:       `{"spec":{"image":"b","extra":{"k":"s"}},"status":{"ready":1,"only":{"k":"t"}}}`,
			generation: 2},
		{name: "main write that changes nothing live", prepare: main.PrepareForUpdate,
			old:        `"spec":{"image":"a"},"status":{"ready":1}`,
			sent:       `"spec":{"image":"a"},"status":{"ready":1}`,
			want:       `{"spec":{"image":"a","extra":{"k":"s"}},"status":{"ready":1,"only":{"k":"t"}}}`,
			generation: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := cr(t, "stable.example.com/v1", 1, storedJSON)
			stored.SetResourceVersion("7")
			g.stored = storedObject{stored}
			old := cr(t, "stable.example.com/v2", 1, tc.old)
			old.SetResourceVersion("7")
			obj := cr(t, "stable.example.com/v2", 1, tc.sent)
			obj.SetResourceVersion("7")
			rec := &warningRecorder{}
			ctx := warning.WithWarningRecorder(context.Background(), rec)
			w := &gatedWrite{} // as the server's REST.Update makes
			tc.prepare(context.WithValue(ctx, gatedWriteKey{}, w), obj, old)
			w.finish(ctx)
			var want map[string]interface{}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			got := jsonOf(t, obj)
			if diff := cmp.Diff(want, map[string]interface{}{"spec": got["spec"], "status": got["status"]}); diff != "" {
				t.Errorf("spec and status (-want +got):\n%s", diff)
			}
			if len(rec.warnings) != 0 {
				t.Errorf("warnings %q, want none", rec.warnings)
			}
			if got := obj.GetGeneration(); got != tc.generation {
				t.Errorf("generation %d, want %d", got, tc.generation)
			}
		})
	}
}

// TestFieldGatesAsDecodedIn checks the view of a stored object that a pruned version's
// admission and deletion checks get: what reading the object through that version gives.
func TestFieldGatesAsDecodedIn(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	object := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
		"k": {Generic: structuralschema.Generic{Type: "string"}},
	}}
	embedded := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"},
		Extensions: structuralschema.Extensions{XEmbeddedResource: true, XPreserveUnknownFields: true}}
	untyped := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"},
		Extensions: structuralschema.Extensions{XPreserveUnknownFields: true}}
	v1 := fieldGateTestSchema() // the storage version: spec.extra, spec.template untyped
	v1.Properties["spec"].Properties["extra"] = object
	v1.Properties["spec"].Properties["template"] = untyped
	v2 := fieldGateTestSchema() // no spec.extra; spec.template an embedded resource
	v2.Properties["spec"].Properties["template"] = embedded

	crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, apiextensionsv1.CustomResourceDefinitionFeatureGate{
		Name: "Extra", PreRelease: "alpha", FieldPaths: []string{".spec.extra"}})
	crd.Name = "crontabs.stable.example.com"
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
	g := NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": v1, "v2": v2}, nil)
	if g == nil {
		t.Fatal("NewFieldGates returned nil for a CRD with a disabled gate")
	}
	for _, tc := range []struct {
		name, version, stored string
		want                  string // the spec as decoded in version
	}{
		{name: "the storage version", version: "v1",
			stored: `{"image":"a","extra":{"k":"s"}}`,
			want:   `{"image":"a","extra":{"k":"s"}}`},
		{name: "a path the version lacks is pruned", version: "v2",
			stored: `{"image":"a","extra":{"k":"s"}}`,
			want:   `{"image":"a"}`},
		{name: "an embedded resource's metadata is coerced", version: "v2",
			stored: `{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","bogus":1,"labels":{"a":"b"}},"x":1}}`,
			want:   `{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"x":1}}`},
		{name: "malformed embedded metadata is dropped", version: "v2",
			stored: `{"template":{"kind":"Pod","metadata":{"name":"p","labels":5}}}`,
			want:   `{"template":{"kind":"Pod","metadata":{"name":"p"}}}`},
		{name: "the storage version does not coerce what it does not embed", version: "v1",
			stored: `{"template":{"kind":"Pod","metadata":{"name":"p","bogus":1}}}`,
			want:   `{"template":{"kind":"Pod","metadata":{"name":"p","bogus":1}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := cr(t, "stable.example.com/v1", 1, `"spec":`+tc.stored)
			before := stored.DeepCopy()
			got, err := g.asDecodedIn(stored, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			u := got.(*unstructured.Unstructured)
			if want := "stable.example.com/" + tc.version; u.GetAPIVersion() != want {
				t.Errorf("apiVersion %q, want %q", u.GetAPIVersion(), want)
			}
			var want interface{}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, jsonOf(t, u)["spec"]); diff != "" {
				t.Errorf("spec as decoded in %s (-want +got):\n%s", tc.version, diff)
			}
			if diff := cmp.Diff(before.Object, stored.Object); diff != "" {
				t.Errorf("the stored object was modified (-before +after):\n%s", diff)
			}
		})
	}
	for _, obj := range []runtime.Object{nil, &metav1.Status{Status: metav1.StatusSuccess}} {
		if got, err := g.asDecodedIn(obj, "v2"); err != nil || got != obj {
			t.Errorf("asDecodedIn(%T) = %v, %v; want it unchanged", obj, got, err)
		}
	}
}

// identityConvertor converts between v1 and v2 by changing the apiVersion only, as a
// conversion webhook of two versions of the same shape would.
type identityConvertor struct{ runtime.ObjectConvertor }

func (identityConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u := in.(*unstructured.Unstructured).DeepCopy()
	target, _ := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}, {Group: "stable.example.com", Version: "v2", Kind: "CronTab"}})
	u.SetAPIVersion(target.GroupVersion().String())
	return u, nil
}

// TestFieldGatesWebhookVersionDefault: with a conversion webhook, a gate on
// .spec.steps[*].retry (marked in each version's schema, or named by fieldPaths, which gate
// the storage version only), and a default for the items' mode that only v2 gives, both steps
// of gating tell the items apart as v2 decodes them: the items a v2 write sends got the
// default, the object it started from (the webhook's conversion of the stored one) did not.
// A removal of one of two items that look alike in v2 is refused, whichever the client
// meant; items sent back as read keep their values; a new item never gets a stored value.
func TestFieldGatesWebhookVersionDefault(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	stepsSchema := func(defaultMode interface{}, marked bool) *structuralschema.Structural {
		str := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
		mode := str
		mode.Default.Object = defaultMode
		retry := structuralschema.Structural{Generic: structuralschema.Generic{Type: "integer"}}
		if marked {
			gate := "Retry"
			retry.XFeatureGate = &gate
		}
		item := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"name": str, "mode": mode, "retry": retry}}
		return &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
			"spec": {Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
				"steps": {Generic: structuralschema.Generic{Type: "array"}, Items: &item}}}}}
	}
	// The stored items as the v2 endpoint decodes them: converted, not defaulted in v2.
	const stored = `"spec":{"steps":[{"name":"s","retry":1},{"name":"s","mode":"x","retry":2}]}`
	for _, marked := range []bool{true, false} {
		gate := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "Retry", PreRelease: "alpha", Enabled: ptr.To(false)}
		if !marked {
			gate.FieldPaths = []string{".spec.steps[*].retry"}
		}
		crd := fieldGateTestCRD(apiextensionsv1.WebhookConverter, gate)
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
		schemas := map[string]*structuralschema.Structural{"v1": stepsSchema(nil, marked), "v2": stepsSchema("x", marked)}
		kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "CronTab"}
		s := NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).WithFieldGates(NewFieldGates(crd, "v1", schemas, identityConvertor{}))
		for _, tc := range []struct {
			name, sent string
			want       string // "" when the write must be refused at spec.steps
		}{
			{name: "one of two look-alikes removed", sent: `"spec":{"steps":[{"name":"s","mode":"x"}]}`},
			{name: "the other look-alike removed", sent: `"spec":{"steps":[{"name":"s","mode":"x","retry":2}]}`},
			{name: "sent back as read", sent: `"spec":{"steps":[{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2}]}`,
				want: `"spec":{"steps":[{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2}]}`},
			{name: "an item added before them", sent: `"spec":{"steps":[{"name":"t","mode":"x"},{"name":"s","mode":"x"},{"name":"s","mode":"x"}]}`,
				want: `"spec":{"steps":[{"name":"t","mode":"x"},{"name":"s","mode":"x","retry":1},{"name":"s","mode":"x","retry":2}]}`},
		} {
			t.Run(fmt.Sprintf("marked=%t/%s", marked, tc.name), func(t *testing.T) {
				w := &gatedWrite{}
				ctx := context.WithValue(warning.WithWarningRecorder(context.Background(), &warningRecorder{}), gatedWriteKey{}, w)
				obj := cr(t, "stable.example.com/v2", 1, tc.sent)
				s.PrepareForUpdate(ctx, obj, cr(t, "stable.example.com/v2", 1, stored))
				errs := s.fieldGates.refused(ctx)
				if tc.want == "" {
					if len(errs) != 1 || errs[0].Field != "spec.steps" {
						t.Fatalf("refusal %v, want one at spec.steps (error %v, object %v)", errs, w.err, obj.Object["spec"])
					}
					return
				}
				if w.err != nil {
					t.Fatalf("refused: %v", w.err)
				}
				if diff := cmp.Diff(jsonOf(t, cr(t, "stable.example.com/v2", 1, tc.want))["spec"], jsonOf(t, obj)["spec"]); diff != "" {
					t.Errorf("spec (-want +got):\n%s", diff)
				}
			})
		}
	}
}
