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
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
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
			s = s.WithFieldGates(NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter, tc.gates...), "v1", fieldGateTestSchema(), nil))
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
		WithFieldGates(NewFieldGates(fieldGateTestCRD(apiextensionsv1.WebhookConverter, gate), "v1", fieldGateTestSchema(), renamingConvertor{}))
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
