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
	"fmt"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/audit"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"
)

const fieldDropsMetric = "apiextensions_custom_feature_gate_field_drops_total"

func fieldDropsHeader() string {
	return `
# HELP apiextensions_custom_feature_gate_field_drops_total [ALPHA] Number of gated field paths whose value a custom resource write did not store because the path's feature gate (spec.customFeatureGates) is disabled: dropped, or kept at the stored value. Dry-run writes are not counted.
# TYPE apiextensions_custom_feature_gate_field_drops_total counter
`
}

func TestFieldGateDropsAndAudit(t *testing.T) {
	replicas := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "ReplicasFeatureGate", PreRelease: "alpha", FieldPaths: []string{".spec.replicas", ".status.ready"}}
	image := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "ImageFeatureGate", PreRelease: "beta", Enabled: ptr.To(false), FieldPaths: []string{".spec.image"}}
	enabledImage := image
	enabledImage.Enabled = ptr.To(true)

	tests := []struct {
		name        string
		featureOff  bool
		gates       []apiextensionsv1.CustomResourceDefinitionFeatureGate
		statusWrite bool
		dryRun      bool
		old         string // empty: create
		new         string
		// wantMetrics are the series of the counter, in the text format, without the header.
		wantMetrics string
		wantAudit   string // empty: no annotation
	}{
		{
			name: "create drops a field", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas},
			new: `"spec":{"replicas":3,"image":"a"}`,
			wantMetrics: `apiextensions_custom_feature_gate_field_drops_total{group="stable.example.com",name="ReplicasFeatureGate",operation="create",resource="crontabs"} 1
`,
			wantAudit: "dropped .spec.replicas (ReplicasFeatureGate)",
		},
		{
			name: "create drops two fields of two gates, in path order", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas, image},
			new: `"spec":{"replicas":3,"image":"a"}`,
			wantMetrics: `apiextensions_custom_feature_gate_field_drops_total{group="stable.example.com",name="ImageFeatureGate",operation="create",resource="crontabs"} 1
apiextensions_custom_feature_gate_field_drops_total{group="stable.example.com",name="ReplicasFeatureGate",operation="create",resource="crontabs"} 1
`,
			wantAudit: "dropped .spec.image (ImageFeatureGate); dropped .spec.replicas (ReplicasFeatureGate)",
		},
		{
			name: "update keeps the stored value of one path and drops another", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas, image},
			old: `"spec":{"replicas":3}`, new: `"spec":{"replicas":5,"image":"b"}`,
			wantMetrics: `apiextensions_custom_feature_gate_field_drops_total{group="stable.example.com",name="ImageFeatureGate",operation="update",resource="crontabs"} 1
apiextensions_custom_feature_gate_field_drops_total{group="stable.example.com",name="ReplicasFeatureGate",operation="update",resource="crontabs"} 1
`,
			wantAudit: "dropped .spec.image (ImageFeatureGate); kept .spec.replicas (ReplicasFeatureGate)",
		},
		{
			name: "one gate, two paths: counted per path", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas},
			new: `"spec":{"replicas":3},"status":{"ready":1}`,
			wantMetrics: `apiextensions_custom_feature_gate_field_drops_total{group="stable.example.com",name="ReplicasFeatureGate",operation="create",resource="crontabs"} 2
`,
			wantAudit: "dropped .spec.replicas (ReplicasFeatureGate); dropped .status.ready (ReplicasFeatureGate)",
		},
		{
			name: "status write counts as an update", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas}, statusWrite: true,
			old: `"spec":{},"status":{}`, new: `"spec":{},"status":{"ready":1}`,
			wantMetrics: `apiextensions_custom_feature_gate_field_drops_total{group="stable.example.com",name="ReplicasFeatureGate",operation="update",resource="crontabs"} 1
`,
			wantAudit: "dropped .status.ready (ReplicasFeatureGate)",
		},
		{
			name: "dry run: audited, not counted", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas}, dryRun: true,
			new:       `"spec":{"replicas":3}`,
			wantAudit: "dropped .spec.replicas (ReplicasFeatureGate)",
		},
		{
			name: "nothing gated away: no series, no annotation", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas, enabledImage},
			new: `"spec":{"image":"a"}`,
		},
		{
			name: "unchanged gated value on update: no series, no annotation", gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas},
			old: `"spec":{"replicas":3,"image":"a"}`, new: `"spec":{"replicas":3,"image":"b"}`,
		},
		{
			name: "feature off: nothing", featureOff: true, gates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{replicas},
			new: `"spec":{"replicas":3}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, !tc.featureOff)
			fieldGateDrops.Reset()
			t.Cleanup(fieldGateDrops.Reset)

			crd := fieldGateTestCRD(apiextensionsv1.NoneConverter, tc.gates...)
			crd.Spec.Names.Plural = "crontabs"
			kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}
			s := NewStrategy(nil, true, kind, nil, nil, fieldGateTestSchema(), &apiextensions.CustomResourceSubresourceStatus{}, nil, nil)
			s = s.WithFieldGates(NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": fieldGateTestSchema()}, nil))
			if !tc.statusWrite {
				// The main resource writes everything, so that .status paths count too.
				s.status = nil
			}
			ctx := audit.WithAuditContext(context.Background())
			// A dry run is known from the write's options: run it as the store's gated write.
			var w *gatedWrite
			if tc.dryRun {
				w = &gatedWrite{dryRun: true}
				ctx = context.WithValue(ctx, gatedWriteKey{}, w)
			}

			obj := cr(t, "stable.example.com/v1", 1, tc.new)
			switch {
			case tc.old == "":
				s.PrepareForCreate(ctx, obj)
			case tc.statusWrite:
				NewStatusStrategy(s).PrepareForUpdate(ctx, obj, cr(t, "stable.example.com/v1", 1, tc.old))
			default:
				s.PrepareForUpdate(ctx, obj, cr(t, "stable.example.com/v1", 1, tc.old))
			}
			if w != nil {
				w.finish(ctx)
			}

			want := ""
			if tc.wantMetrics != "" {
				want = fieldDropsHeader() + tc.wantMetrics
			}
			if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), fieldDropsMetric); err != nil {
				t.Error(err)
			}
			got, ok := audit.AuditContextFrom(ctx).GetEventAnnotation(FieldGatesAuditAnnotationKey)
			if tc.wantAudit == "" && ok {
				t.Errorf("unexpected audit annotation %q", got)
			}
			if tc.wantAudit != "" && got != tc.wantAudit {
				t.Errorf("audit annotation %q, want %q", got, tc.wantAudit)
			}
		})
	}
}

func TestDeleteFieldGateDrops(t *testing.T) {
	fieldGateDrops.Reset()
	t.Cleanup(fieldGateDrops.Reset)
	series := [][]string{
		{"a.example.com", "foos", "GateA", OperationCreate},
		{"a.example.com", "foos", "GateA", OperationUpdate},
		{"a.example.com", "foos", "GateB", OperationCreate},
		{"a.example.com", "bars", "GateA", OperationCreate},
		{"b.example.com", "foos", "GateA", OperationCreate},
	}
	for _, s := range series {
		fieldGateDrops.WithLabelValues(s...).Inc()
	}

	DeleteFieldGateDrops("a.example.com", "foos", "GateA")
	want := fieldDropsHeader() + `apiextensions_custom_feature_gate_field_drops_total{group="a.example.com",name="GateA",operation="create",resource="bars"} 1
apiextensions_custom_feature_gate_field_drops_total{group="a.example.com",name="GateB",operation="create",resource="foos"} 1
apiextensions_custom_feature_gate_field_drops_total{group="b.example.com",name="GateA",operation="create",resource="foos"} 1
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), fieldDropsMetric); err != nil {
		t.Errorf("after deleting one gate: %v", err)
	}

	DeleteFieldGateDrops("a.example.com", "foos", "")
	want = fieldDropsHeader() + `apiextensions_custom_feature_gate_field_drops_total{group="a.example.com",name="GateA",operation="create",resource="bars"} 1
apiextensions_custom_feature_gate_field_drops_total{group="b.example.com",name="GateA",operation="create",resource="foos"} 1
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), fieldDropsMetric); err != nil {
		t.Errorf("after deleting a CRD: %v", err)
	}
}

func TestFieldGatesAuditValueIsBounded(t *testing.T) {
	gate := &featuregates.Gate{Name: "LongFeatureGate", PreRelease: "alpha"}
	changesOf := func(n int) []featuregates.Change {
		var changes []featuregates.Change
		for i := 0; i < n; i++ {
			p, err := featuregates.ParsePath(fmt.Sprintf(".spec.%s%03d", strings.Repeat("f", 200), i))
			if err != nil {
				t.Fatal(err)
			}
			changes = append(changes, featuregates.Change{Kind: featuregates.Dropped, Path: &featuregates.GatedPath{Path: p, Gate: gate}})
		}
		return changes
	}
	entry := func(i int) string {
		return fmt.Sprintf("dropped .spec.%s%03d (LongFeatureGate)", strings.Repeat("f", 200), i)
	}

	tests := []struct {
		name string
		n    int
		want string
	}{
		{name: "one", n: 1, want: entry(0)},
		{name: "four fit", n: 4, want: strings.Join([]string{entry(0), entry(1), entry(2), entry(3)}, "; ")},
		{name: "five do not", n: 5, want: strings.Join([]string{entry(0), entry(1), entry(2), entry(3), "and 1 more"}, "; ")},
		{name: "many", n: 8192, want: strings.Join([]string{entry(0), entry(1), entry(2), entry(3), "and 8188 more"}, "; ")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fieldGatesAuditValue(changesOf(tc.n))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			if len(got) > maxFieldGatesAuditValueLength {
				t.Errorf("value is %d bytes, more than %d", len(got), maxFieldGatesAuditValueLength)
			}
		})
	}
}
