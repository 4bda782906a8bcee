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

package featuregatetest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

func TestWarningRecorder(t *testing.T) {
	w := &WarningRecorder{}
	if got := w.Take(); got != nil {
		t.Fatalf("a new recorder took %q", got)
	}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); w.HandleWarningHeader(299, "-", "w"+strconv.Itoa(i)) }()
	}
	wg.Wait()
	if got := w.Take(); len(got) != 10 {
		t.Errorf("took %d warnings, want 10", len(got))
	}
	w.HandleWarningHeader(299, "-", "last")
	if got := w.Take(); !reflect.DeepEqual(got, []string{"last"}) {
		t.Errorf("took %q after a Take, want [last]", got)
	}
	if got := w.Count(); got != 11 {
		t.Errorf("Count = %d, want 11 (Take does not reset it)", got)
	}

	counter := &WarningRecorder{CountOnly: true}
	counter.HandleWarningHeader(299, "-", "a")
	counter.HandleWarningHeader(299, "-", "b")
	if got, n := counter.Take(), counter.Count(); got != nil || n != 2 {
		t.Errorf("CountOnly: took %q and counted %d, want nothing and 2", got, n)
	}
}

func TestFreePorts(t *testing.T) {
	ports, err := FreePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: not distinct positive ports", ports)
		}
		seen[p] = true
		// Returned ports are closed again: each can be listened on.
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d is still taken: %v", p, err)
		}
		_ = l.Close()
	}
}

// TestCronTabCRD checks that the shared CRD, with a gate on every kind of field it has, is
// a CRD the server accepts.
func TestCronTabCRD(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	crd := CronTabCRD("crontabs",
		Gate("A", "alpha", ".spec.replicas", ".status.ready"),
		Gate("B", "beta", ".spec.advanced.level", ".spec.ports[*].appProtocol"),
		Gate("C", "beta", ".spec.limits[*]", ".spec.extra.anything"),
	)
	if crd.Name != "crontabs.stable.example.com" || crd.Spec.Names.Singular != "crontab" {
		t.Errorf("names: %s, %s", crd.Name, crd.Spec.Names.Singular)
	}
	internal := &apiextensionsinternal.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		t.Fatal(err)
	}
	internal.Status.StoredVersions = []string{"v1"}
	if errs := validation.ValidateCustomResourceDefinition(context.Background(), internal); len(errs) != 0 {
		t.Errorf("the shared CronTab CRD does not validate: %v", errs.ToAggregate())
	}
	if got := CronTabCRD("crontabs").Spec.CustomFeatureGates; got != nil {
		t.Errorf("without gates, spec.customFeatureGates = %+v, want none", got)
	}
}

func TestKubectlWarnings(t *testing.T) {
	stderr := "Warning: .spec.replicas was dropped: feature gate G (alpha) is disabled\nError from server: no\nWarning: second\n"
	got := KubectlWarnings(stderr)
	if len(got) != 2 || got[0] != ".spec.replicas was dropped: feature gate G (alpha) is disabled" || got[1] != "second" {
		t.Errorf("got %q", got)
	}
	if got := KubectlWarnings("no warning here\n"); got != nil {
		t.Errorf("got %q, want none", got)
	}
}

func TestWaitFor(t *testing.T) {
	n := 0
	WaitFor(t, 10*time.Second, "the third poll", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("polled %d times, want 3", n)
	}
}

func TestModuleDir(t *testing.T) {
	dir := ModuleDir(t, "sigs.k8s.io/gateway-api@v1.4.0")
	if _, err := os.Stat(filepath.Join(dir, "config", "crd", "standard")); err != nil {
		t.Errorf("%s has no config/crd/standard: %v", dir, err)
	}
}
