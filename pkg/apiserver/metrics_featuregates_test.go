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

package apiserver

import (
	"context"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/audit"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"
)

const (
	gateEnabledMetric = "apiextensions_custom_feature_gate_enabled"
	fieldDropsMetric  = "apiextensions_custom_feature_gate_field_drops_total"
	gateEnabledHeader = `
# HELP apiextensions_custom_feature_gate_enabled [ALPHA] Whether a feature gate declared in a CustomResourceDefinition's spec.customFeatureGates is enabled (1) or disabled (0), by gate name and stage.
# TYPE apiextensions_custom_feature_gate_enabled gauge
`
)

type gate = apiextensionsv1.CustomResourceDefinitionFeatureGate

func metricsTestCRD(group, plural string, gates ...gate) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural},
		},
	}
	if gates != nil {
		crd.Spec.CustomFeatureGates = &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: gates}
	}
	return crd
}

// event is one informer event: an add or update of crd, or its delete.
type event struct {
	crd    *apiextensionsv1.CustomResourceDefinition
	delete bool
	// tombstone delivers the delete as a DeletedFinalStateUnknown.
	tombstone bool
}

func TestFeatureGateMetrics(t *testing.T) {
	alpha := gate{Name: "AlphaGate", PreRelease: "alpha", FieldPaths: []string{".spec.a"}}
	alphaOn := gate{Name: "AlphaGate", PreRelease: "alpha", Enabled: ptr.To(true), FieldPaths: []string{".spec.a"}}
	alphaToBeta := gate{Name: "AlphaGate", PreRelease: "beta", FieldPaths: []string{".spec.a"}}
	betaOff := gate{Name: "BetaGate", PreRelease: "beta", Default: ptr.To(false), FieldPaths: []string{".spec.b"}}
	stable := gate{Name: "StableGate", PreRelease: "stable", FieldPaths: []string{".spec.c"}}
	deprecated := gate{Name: "OldGate", PreRelease: "deprecated", Default: ptr.To(true), FieldPaths: []string{".spec.d"}}

	tests := []struct {
		name       string
		featureOff bool
		events     []event
		// drops are counter series (group, resource, name) set before the events.
		drops [][]string
		want  string // gauge series, without the header
		// wantDrops are the counter series left after the events, as group/resource/name.
		wantDrops []string
	}{
		{
			name:   "one series per gate, 1 when enabled",
			events: []event{{crd: metricsTestCRD("a.example.com", "foos", alpha, betaOff, stable, deprecated)}},
			want: `apiextensions_custom_feature_gate_enabled{group="a.example.com",name="AlphaGate",resource="foos",stage="alpha"} 0
apiextensions_custom_feature_gate_enabled{group="a.example.com",name="BetaGate",resource="foos",stage="beta"} 0
apiextensions_custom_feature_gate_enabled{group="a.example.com",name="OldGate",resource="foos",stage="deprecated"} 1
apiextensions_custom_feature_gate_enabled{group="a.example.com",name="StableGate",resource="foos",stage="stable"} 1
`,
		},
		{
			name: "a stable gate that requires a disabled gate reports 0, until that gate is enabled",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha, gate{Name: "Both", PreRelease: "stable", Requires: []string{"AlphaGate"}, FieldPaths: []string{".spec.e"}})},
				{crd: metricsTestCRD("b.example.com", "bars", alphaOn, gate{Name: "Both", PreRelease: "stable", Requires: []string{"AlphaGate"}, FieldPaths: []string{".spec.e"}})},
			},
			want: `apiextensions_custom_feature_gate_enabled{group="a.example.com",name="AlphaGate",resource="foos",stage="alpha"} 0
apiextensions_custom_feature_gate_enabled{group="a.example.com",name="Both",resource="foos",stage="stable"} 0
apiextensions_custom_feature_gate_enabled{group="b.example.com",name="AlphaGate",resource="bars",stage="alpha"} 1
apiextensions_custom_feature_gate_enabled{group="b.example.com",name="Both",resource="bars",stage="stable"} 1
`,
		},
		{
			name:   "a CRD without gates has no series",
			events: []event{{crd: metricsTestCRD("a.example.com", "foos")}},
		},
		{
			name:       "feature off: no series",
			featureOff: true,
			events:     []event{{crd: metricsTestCRD("a.example.com", "foos", alpha)}},
		},
		{
			name: "flipping a gate changes the value",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha)},
				{crd: metricsTestCRD("a.example.com", "foos", alphaOn)},
			},
			drops: [][]string{{"a.example.com", "foos", "AlphaGate"}},
			want: `apiextensions_custom_feature_gate_enabled{group="a.example.com",name="AlphaGate",resource="foos",stage="alpha"} 1
`,
			wantDrops: []string{"a.example.com/foos/AlphaGate"},
		},
		{
			name: "a stage change replaces the series; the drop counter stays",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha)},
				{crd: metricsTestCRD("a.example.com", "foos", alphaToBeta)},
			},
			drops: [][]string{{"a.example.com", "foos", "AlphaGate"}},
			want: `apiextensions_custom_feature_gate_enabled{group="a.example.com",name="AlphaGate",resource="foos",stage="beta"} 1
`,
			wantDrops: []string{"a.example.com/foos/AlphaGate"},
		},
		{
			name: "a removed gate loses its series and its drop counter",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha, betaOff)},
				{crd: metricsTestCRD("a.example.com", "foos", betaOff)},
			},
			drops: [][]string{{"a.example.com", "foos", "AlphaGate"}, {"a.example.com", "foos", "BetaGate"}},
			want: `apiextensions_custom_feature_gate_enabled{group="a.example.com",name="BetaGate",resource="foos",stage="beta"} 0
`,
			wantDrops: []string{"a.example.com/foos/BetaGate"},
		},
		{
			name: "removing spec.customFeatureGates removes every series",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha, betaOff)},
				{crd: metricsTestCRD("a.example.com", "foos")},
			},
			drops: [][]string{{"a.example.com", "foos", "AlphaGate"}},
		},
		{
			name: "a deleted CRD loses every series, other CRDs keep theirs",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha)},
				{crd: metricsTestCRD("a.example.com", "bars", alpha)},
				{crd: metricsTestCRD("a.example.com", "foos", alpha), delete: true},
			},
			drops: [][]string{{"a.example.com", "foos", "AlphaGate"}, {"a.example.com", "foos", "GoneGate"}, {"a.example.com", "bars", "AlphaGate"}},
			want: `apiextensions_custom_feature_gate_enabled{group="a.example.com",name="AlphaGate",resource="bars",stage="alpha"} 0
`,
			wantDrops: []string{"a.example.com/bars/AlphaGate"},
		},
		{
			name: "a delete seen as a tombstone",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha)},
				{crd: metricsTestCRD("a.example.com", "foos", alpha), delete: true, tombstone: true},
			},
			drops: [][]string{{"a.example.com", "foos", "AlphaGate"}},
		},
		{
			name: "deleted and created again",
			events: []event{
				{crd: metricsTestCRD("a.example.com", "foos", alpha, betaOff)},
				{crd: metricsTestCRD("a.example.com", "foos", alpha), delete: true},
				{crd: metricsTestCRD("a.example.com", "foos", alphaOn)},
			},
			want: `apiextensions_custom_feature_gate_enabled{group="a.example.com",name="AlphaGate",resource="foos",stage="alpha"} 1
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, !tc.featureOff)
			customFeatureGateEnabled.Reset()
			t.Cleanup(customFeatureGateEnabled.Reset)
			customresource.DeleteFieldGateDrops("a.example.com", "foos", "")
			customresource.DeleteFieldGateDrops("a.example.com", "bars", "")
			t.Cleanup(func() {
				customresource.DeleteFieldGateDrops("a.example.com", "foos", "")
				customresource.DeleteFieldGateDrops("a.example.com", "bars", "")
			})

			h := newFeatureGateMetricsHandler()
			for i, e := range tc.events {
				if i == 1 {
					// Writes between the first event and the others.
					for _, d := range tc.drops {
						countDrop(t, d[0], d[1], d[2])
					}
				}
				switch {
				case e.tombstone:
					h.OnDelete(cache.DeletedFinalStateUnknown{Key: e.crd.Name, Obj: e.crd})
				case e.delete:
					h.OnDelete(e.crd)
				default:
					h.OnUpdate(nil, e.crd)
				}
			}

			want := ""
			if tc.want != "" {
				want = gateEnabledHeader + tc.want
			}
			if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), gateEnabledMetric); err != nil {
				t.Error(err)
			}
			if got := dropSeries(t); strings.Join(got, ",") != strings.Join(tc.wantDrops, ",") {
				t.Errorf("drop counter series %v, want %v", got, tc.wantDrops)
			}
		})
	}
}

// countDrop makes a drop counter series exist, through a real write: a create whose only
// field is gated away by gate.
func countDrop(t *testing.T, group, resource, gateName string) {
	t.Helper()
	crd := metricsTestCRD(group, resource, gate{Name: gateName, PreRelease: "alpha", FieldPaths: []string{".spec.x"}})
	dropThroughStrategy(t, crd)
}

// dropSeries lists the drop counter series, as group/resource/name, sorted.
func dropSeries(t *testing.T) []string {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range families {
		if f.GetName() != fieldDropsMetric {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, labels["group"]+"/"+labels["resource"]+"/"+labels["name"])
		}
	}
	return out
}

// dropThroughStrategy runs a create of {"spec":{"x":1}} through the strategy of crd; the
// gate of .spec.x is disabled.
func dropThroughStrategy(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: "v1", Kind: "Foo"}
	s := customresource.NewStrategy(nil, true, kind, nil, nil, nil, nil, nil, nil).
		WithFieldGates(customresource.NewFieldGates(crd, "v1", nil, nil))
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": crd.Spec.Group + "/v1", "kind": "Foo",
		"metadata": map[string]interface{}{"name": "a"},
		"spec":     map[string]interface{}{"x": int64(1)},
	}}
	s.PrepareForCreate(audit.WithAuditContext(context.Background()), obj)
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "x"); found {
		t.Fatalf("the gate did not drop .spec.x")
	}
}
