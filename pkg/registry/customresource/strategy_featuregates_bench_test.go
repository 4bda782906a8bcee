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
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/ptr"
)

// The strategy-level benchmarks of docs/development/performance.md. Each compares the setups in one run;
// `make bench` turns the results into ratios against the upstream setup (a):
//
//	(a) upstream behaviour: the CRD has no gates;
//	(b) 50 gates, all enabled (the fast path);
//	(c) 50 gates, half disabled, their fields absent from the object;
//	(d) 50 gates, half disabled, their fields present: values are dropped or kept;
//	(e) as (d), with the gates marked in the schemas of two versions (x-kubernetes-feature-gate,
//	    no fieldPaths) and the write sent in v2 while v1 is the storage version: gated in v2,
//	    then converted to v1 and gated there, against the stored object read in v1. The
//	    converter is in-process and changes only apiVersion (with a copy), so (e) shows the
//	    fork's work, not a webhook's round trip.
//
// The custom resource has 100 fields of mixed types (about 5 KB of JSON). The update
// changes one live field and, in (d), one gated field too.

const benchFields = 100

func benchField(i int) string { return fmt.Sprintf("field%03d", i) }

// benchSchema is the structural schema of a spec with n fields: strings, integers, objects
// and map lists, in turn.
func benchSchema(n int) *structuralschema.Structural {
	str := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
	integer := structuralschema.Structural{Generic: structuralschema.Generic{Type: "integer"}}
	obj := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"a": str, "b": integer, "c": str}}
	item := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"name": str, "value": str}}
	list := structuralschema.Structural{Generic: structuralschema.Generic{Type: "array"}, Extensions: structuralschema.Extensions{XListType: ptr.To("map"), XListMapKeys: []string{"name"}}, Items: &item}
	props := map[string]structuralschema.Structural{}
	for i := 0; i < n; i++ {
		props[benchField(i)] = []structuralschema.Structural{str, str, integer, obj, list}[i%5]
	}
	spec := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: props}
	return &structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"spec": spec}}
}

// benchObject is a custom resource with the fields of benchSchema, except those for which
// skip returns true.
func benchObject(n int, skip func(i int) bool) *unstructured.Unstructured {
	spec := map[string]interface{}{}
	for i := 0; i < n; i++ {
		if skip != nil && skip(i) {
			continue
		}
		switch i % 5 {
		case 0, 1:
			spec[benchField(i)] = fmt.Sprintf("a realistic string value number %03d", i)
		case 2:
			spec[benchField(i)] = int64(i)
		case 3:
			spec[benchField(i)] = map[string]interface{}{"a": "x", "b": int64(i), "c": "some text"}
		case 4:
			spec[benchField(i)] = []interface{}{
				map[string]interface{}{"name": "one", "value": "1"},
				map[string]interface{}{"name": "two", "value": "2"},
			}
		}
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "stable.example.com/v1", "kind": "Bench",
		"metadata": map[string]interface{}{"name": "bench", "namespace": "default", "generation": int64(1)},
		"spec":     spec,
	}}
}

// benchGates puts one gate on each of the first `gates` fields (n fields in all); gate i is
// disabled when disabled(i).
func benchGates(gates int, disabled func(i int) bool) []apiextensionsv1.CustomResourceDefinitionFeatureGate {
	var out []apiextensionsv1.CustomResourceDefinitionFeatureGate
	for i := 0; i < gates; i++ {
		g := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: fmt.Sprintf("Gate%d", i), PreRelease: "beta", FieldPaths: []string{"." + "spec." + benchField(i)}}
		if disabled != nil && disabled(i) {
			g.Enabled = ptr.To(false)
		}
		out = append(out, g)
	}
	return out
}

type benchSetup struct {
	name  string
	gates []apiextensionsv1.CustomResourceDefinitionFeatureGate
	// twoVersions marks the gates in the schemas of v1 (storage) and v2 instead of listing
	// fieldPaths, and the write is sent in v2.
	twoVersions bool
	// absent fields are not in the object; changed are the fields the update changes.
	absent  func(i int) bool
	changed []int
}

func evenDisabled(i int) bool { return i%2 == 0 }

// benchSetups are (a)–(d). The live field the update changes is field099 (never gated);
// in (d) it also changes field000, which is gated and disabled.
func benchSetups() []benchSetup {
	return []benchSetup{
		{name: "a-upstream-no-gates", changed: []int{99}},
		{name: "b-50-gates-all-enabled", gates: benchGates(50, nil), changed: []int{99}},
		{name: "c-50-gates-half-disabled-absent", gates: benchGates(50, evenDisabled), absent: func(i int) bool { return i < 50 && evenDisabled(i) }, changed: []int{99}},
		{name: "d-50-gates-half-disabled-present", gates: benchGates(50, evenDisabled), changed: []int{99, 0}},
		{name: "e-2-versions-marks-half-disabled-present", gates: benchGates(50, evenDisabled), twoVersions: true, changed: []int{99, 0}},
	}
}

func benchStrategy(b *testing.B, gates []apiextensionsv1.CustomResourceDefinitionFeatureGate, n int) customResourceStrategy {
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Bench"}
	s := NewStrategy(nil, true, kind, nil, nil, benchSchema(n), nil, nil, nil)
	if len(gates) == 0 {
		return s
	}
	g := NewFieldGates(fieldGateTestCRD(apiextensionsv1.NoneConverter, gates...), "v1", map[string]*structuralschema.Structural{"v1": benchSchema(n)}, nil)
	if g == nil {
		b.Fatal("no field gates compiled")
	}
	return s.WithFieldGates(g)
}

// benchStrategyTwoVersions is benchStrategy for setup (e): the strategy of v2, with the
// gates' fields marked in the schemas of v1 (the storage version) and v2, and no fieldPaths.
func benchStrategyTwoVersions(b *testing.B, gates []apiextensionsv1.CustomResourceDefinitionFeatureGate, n int) customResourceStrategy {
	marked := func() *structuralschema.Structural {
		s := benchSchema(n)
		spec := s.Properties["spec"]
		for _, g := range gates {
			name := strings.TrimPrefix(g.FieldPaths[0], ".spec.")
			prop := spec.Properties[name]
			prop.XFeatureGate = ptr.To(g.Name)
			spec.Properties[name] = prop
		}
		s.Properties["spec"] = spec
		return s
	}
	declared := make([]apiextensionsv1.CustomResourceDefinitionFeatureGate, len(gates))
	for i, g := range gates {
		g.FieldPaths = nil
		declared[i] = g
	}
	crd := fieldGateTestCRD(apiextensionsv1.WebhookConverter, declared...)
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2"}}
	g := NewFieldGates(crd, "v1", map[string]*structuralschema.Structural{"v1": marked(), "v2": marked()}, apiVersionConvertor{spent: &benchConversions})
	if g == nil {
		b.Fatal("no field gates compiled")
	}
	kind := schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "Bench"}
	return NewStrategy(nil, true, kind, nil, nil, marked(), nil, nil, nil).WithFieldGates(g)
}

// storedObject stands in for the storage version's endpoint: Get returns the stored object,
// in the storage version (gating never modifies it). The read itself, an etcd read in the
// server, is not measured here (docs/development/performance.md).
type storedObject struct{ obj *unstructured.Unstructured }

func (s storedObject) Get(context.Context, string, *metav1.GetOptions) (runtime.Object, error) {
	return s.obj, nil
}

// apiVersionConvertor converts a copy by setting apiVersion: upstream's converter for
// conversion None behind the safe converter's copy, which is what the handler gives field
// gating. It stands in for a webhook that renames nothing, without the round trip, so the
// two-version setup (e) measures the fork's work plus the copy each conversion makes
// (BenchmarkFieldGatesConvert measures that copy alone).
//
// If spent is set, each conversion adds the time it took to it, so that a benchmark can report
// the conversions of its own operations alongside their time (benchConversions).
type apiVersionConvertor struct {
	runtime.ObjectConvertor
	spent *time.Duration
}

func (c apiVersionConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	var start time.Time
	if c.spent != nil {
		start = time.Now()
	}
	u := in.(*unstructured.Unstructured).DeepCopy()
	target, _ := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	u.SetAPIVersion(target.GroupVersion().String())
	if c.spent != nil {
		*c.spent += time.Since(start)
	}
	return u, nil
}

// benchConversions is the time setup (e)'s stand-in converter spends converting, summed over a
// benchmark's operations; the benchmark reports it per operation as conversion-ns/op. Those
// are the very conversions the timed operations asked for, so the hook's own work is its time
// less this metric, not less a conversion measured apart (whose object, allocations and
// garbage collection differ from the hook's).
var benchConversions time.Duration

func change(u *unstructured.Unstructured, fields []int) {
	spec := u.Object["spec"].(map[string]interface{})
	for _, i := range fields {
		spec[benchField(i)] = "changed by the update"
	}
}

// onCopies runs op b.N times, each time on a fresh copy of src (the prepare hooks modify
// the object). The copies are made in batches with the timer stopped, so that neither the
// copying nor a heap of b.N objects (and the GC work it causes) is measured. A batch is
// small enough to stay in the CPU's cache, as the object of a write is in the server, where
// the strategy runs right after the request was decoded: with 256 copies (about 8 MB) most
// of them had left the cache before their turn, and the setups that read the object paid
// for cache misses that a write does not have (docs/development/performance.md).
func onCopies(b *testing.B, src *unstructured.Unstructured, op func(obj *unstructured.Unstructured)) {
	const batch = 16
	objs := make([]*unstructured.Unstructured, batch)
	fill := func() {
		for i := range objs {
			objs[i] = src.DeepCopy()
		}
	}
	fill()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%batch == 0 {
			b.StopTimer()
			fill()
			b.StartTimer()
		}
		op(objs[i%batch])
	}
}

func BenchmarkFieldGatesStrategy(b *testing.B) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	size, _ := json.Marshal(benchObject(benchFields, nil).Object)
	ctx := context.Background()
	for _, setup := range benchSetups() {
		s := benchStrategy(b, setup.gates, benchFields)
		old := benchObject(benchFields, setup.absent)
		if setup.twoVersions {
			s = benchStrategyTwoVersions(b, setup.gates, benchFields)
			// The server reads the stored object from the storage version's endpoint
			// (ReadStoredWith), in v1, rather than convert the update's old object back.
			s.fieldGates.stored = storedObject{old.DeepCopy()}
			old.SetAPIVersion("stable.example.com/v2")
		}
		updated := old.DeepCopy()
		change(updated, setup.changed)

		b.Run("PrepareForCreate/"+setup.name, func(b *testing.B) {
			b.ReportMetric(float64(len(size)), "object-bytes")
			onCopies(b, updated, func(obj *unstructured.Unstructured) { s.PrepareForCreate(ctx, obj) })
		})
		b.Run("PrepareForUpdate/"+setup.name, func(b *testing.B) {
			onCopies(b, updated, func(obj *unstructured.Unstructured) { s.PrepareForUpdate(ctx, obj, old) })
		})
		// Hook is the fork's own work in an update, alone: what the patched PrepareForUpdate
		// and WarningsOnUpdate call. Without the rest of the strategy around it, the fast path
		// of (b) shows as what it is: a nil check and a flag.
		b.Run("Hook/"+setup.name, func(b *testing.B) {
			benchConversions = 0
			onCopies(b, updated, func(obj *unstructured.Unstructured) {
				s.fieldGates.prepare(ctx, obj, old, s.mainScope())
				_ = s.fieldGates.deprecationWarnings(ctx, obj, old, s.mainScope())
			})
			if setup.twoVersions {
				b.ReportMetric(float64(benchConversions)/float64(b.N), "conversion-ns/op")
			}
		})
		b.Run("WarningsOnUpdate/"+setup.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = s.WarningsOnUpdate(ctx, updated, old)
			}
		})
	}
}

// BenchmarkFieldGatesConvert is one conversion of setup (e)'s object by its stand-in
// converter: the copy the handler's safe converter makes. An update in (e) asks for one (the
// request object to the storage version; the stored object is read in it), so (e)'s own work
// is its time less one of these (docs/development/performance.md).
func BenchmarkFieldGatesConvert(b *testing.B) {
	obj := benchObject(benchFields, nil)
	obj.SetAPIVersion("stable.example.com/v2")
	gv := schema.GroupVersion{Group: "stable.example.com", Version: "v1"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := (apiVersionConvertor{}).ConvertToVersion(obj, gv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFieldGatesScaling shows the cost growing linearly with the number of gated paths:
// n fields, n gates, half disabled and present, the update changing a live field and a gated
// one; the upstream line of each size is its baseline.
func BenchmarkFieldGatesScaling(b *testing.B) {
	featuregatetesting.SetFeatureGateDuringTest(b, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	ctx := context.Background()
	for _, n := range []int{10, 100, 1000} {
		for _, gated := range []bool{false, true} {
			var gates []apiextensionsv1.CustomResourceDefinitionFeatureGate
			name := fmt.Sprintf("paths=%d/upstream", n)
			if gated {
				gates, name = benchGates(n-1, evenDisabled), fmt.Sprintf("paths=%d/half-disabled", n)
			}
			s := benchStrategy(b, gates, n)
			old := benchObject(n, nil)
			updated := old.DeepCopy()
			change(updated, []int{n - 1, 0})
			b.Run(name, func(b *testing.B) {
				onCopies(b, updated, func(obj *unstructured.Unstructured) { s.PrepareForUpdate(ctx, obj, old) })
			})
		}
	}
}

// BenchmarkFieldGatesIndexMemory reports what compiling the index of a CRD costs (B/op) and
// the bytes the compiled index keeps per gated path (half of them disabled), for 1000 paths.
func BenchmarkFieldGatesIndexMemory(b *testing.B) {
	const n = 1000
	gates := benchGates(n, evenDisabled)
	var specs []featuregates.GateSpec
	for _, g := range gates {
		specs = append(specs, featuregates.GateSpec{Name: g.Name, PreRelease: string(g.PreRelease), Enabled: g.Enabled, FieldPaths: g.FieldPaths})
	}
	schema := benchSchema(n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if featuregates.Compile(specs, schema) == nil {
			b.Fatal("nothing compiled")
		}
	}
	b.StopTimer()
	// What the index keeps (not what compiling it allocates): the live heap with ten indexes
	// held, minus the live heap without them.
	const held = 10
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	keep := make([]*featuregates.Index, held)
	for i := range keep {
		keep[i] = featuregates.Compile(specs, schema)
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	goruntime.KeepAlive(keep)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/held/n, "retained-bytes/path")
}
