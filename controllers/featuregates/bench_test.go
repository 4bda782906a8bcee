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

package featuregates_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/controllers/featuregates"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The benchmarks compare the tracker's reads with the baseline a controller pays anyway:
// a Get from an informer's lister (BenchmarkInformerLookup), in the same run and on the
// same tracker. Run them with
//
//	KUBEBUILDER_ASSETS=... go test -run '^$' -bench . -benchmem ./featuregates

var (
	benchOnce    sync.Once
	benchTracker *featuregates.Tracker
)

// benchSetup creates the benchmark CRD and starts its tracker once for the whole run; both
// live until the test environment stops.
func benchSetup(b *testing.B) *featuregates.Tracker {
	benchOnce.Do(func() {
		crd := newCRD("benches")
		crd.Spec.CustomFeatureGates.FeatureGates[0].Enabled = ptrTo(true)
		if _, err := crdCS.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
			b.Fatalf("creating CRD %s: %v", crd.Name, err)
		}
		tr, err := featuregates.NewTracker(cfg, crd.Name)
		if err != nil {
			b.Fatal(err)
		}
		go func() { _ = tr.Start(context.Background()) }()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if !tr.WaitForCacheSync(ctx) || tr.CRD() == nil {
			b.Fatalf("the tracker of %s did not sync", crd.Name)
		}
		benchTracker = tr
	})
	if benchTracker == nil {
		b.Fatal("the benchmark tracker could not be set up")
	}
	return benchTracker
}

var sink bool

func BenchmarkInformerLookup(b *testing.B) {
	tr := benchSetup(b)
	lister := tr.Lister()
	name := tr.CRDName()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		crd, err := lister.Get(name)
		if err != nil {
			b.Fatal(err)
		}
		sink = crd.Spec.CustomFeatureGates != nil
	}
}

func BenchmarkEnabled(b *testing.B) {
	tr := benchSetup(b)
	if !tr.Enabled("ReplicasGate") {
		b.Fatal("Enabled(ReplicasGate) = false, want true")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink = tr.Enabled("ReplicasGate")
	}
}

func BenchmarkFieldEnabled(b *testing.B) {
	tr := benchSetup(b)
	if on, err := tr.FieldEnabled("v1", ".spec.extra.size"); err != nil || !on {
		b.Fatalf("FieldEnabled(v1, .spec.extra.size) = %v, %v; want true", on, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		on, err := tr.FieldEnabled("v1", ".spec.extra.size")
		if err != nil {
			b.Fatal(err)
		}
		sink = on
	}
}

// BenchmarkIsFieldEnabledUncached is the work the tracker saves: apihelpers.IsFieldEnabled
// on the informer's CRD at every call.
func BenchmarkIsFieldEnabledUncached(b *testing.B) {
	tr := benchSetup(b)
	lister := tr.Lister()
	name := tr.CRDName()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		crd, err := lister.Get(name)
		if err != nil {
			b.Fatal(err)
		}
		on, err := apihelpers.IsFieldEnabled(crd, "v1", ".spec.extra.size")
		if err != nil {
			b.Fatal(err)
		}
		sink = on
	}
}
