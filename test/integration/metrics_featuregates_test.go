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

package integration

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/integration/fixtures"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-base/metrics/legacyregistry"
)

// gatheredSeries renders the series of a metric for one CRD (group and resource) as
// "label1/label2=value", sorted, joined with commas.
func gatheredSeries(t *testing.T, metric, group, resource string, labels ...string) string {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			values := map[string]string{}
			for _, l := range m.GetLabel() {
				values[l.GetName()] = l.GetValue()
			}
			if values["group"] != group || values["resource"] != resource {
				continue
			}
			var key []string
			for _, l := range labels {
				key = append(key, values[l])
			}
			v := m.GetGauge().GetValue()
			if m.GetCounter() != nil {
				v = m.GetCounter().GetValue()
			}
			out = append(out, fmt.Sprintf("%s=%g", strings.Join(key, "/"), v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func waitForSeries(t *testing.T, metric, group, resource, want string, labels ...string) {
	t.Helper()
	var got string
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		got = gatheredSeries(t, metric, group, resource, labels...)
		return got == want, nil
	})
	if err != nil {
		t.Fatalf("%s of %s.%s: got %q, want %q", metric, resource, group, got, want)
	}
}

// The field gate metrics of one CRD through the in-process server: the gauge follows the
// CRD's gates, the drop counter counts every write path (create, update, status, scale) but
// not dry runs, and the CRD's series go away with it.
func TestFieldGateMetrics(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")
	const (
		group      = "stable.example.com"
		resource   = "metriccrontabs"
		gaugeName  = "apiextensions_custom_feature_gate_enabled"
		dropsName  = "apiextensions_custom_feature_gate_field_drops_total"
		replicasIn = `"spec":{"replicas":3,"image":"a"}`
	)
	crd := env.createCRD(t, featuregatetest.CronTabCRD(resource,
		featuregatetest.Gate("ReplicasGate", "alpha", ".spec.replicas"),
		featuregatetest.Gate("ImageGate", "beta", ".spec.image"),
		featuregatetest.Gate("ReadyGate", "alpha", ".status.ready"),
	))
	waitForSeries(t, gaugeName, group, resource, "ImageGate/beta=1,ReadyGate/alpha=0,ReplicasGate/alpha=0", "name", "stage")

	// Dry runs are not counted.
	if _, err := env.client(crd).Create(context.Background(), crObject(t, crd, "dry", replicasIn), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if got := gatheredSeries(t, dropsName, group, resource, "name", "operation"); got != "" {
		t.Fatalf("a dry run was counted: %s", got)
	}

	env.create(t, crd, "a", replicasIn)
	env.update(t, crd, "a", `"spec":{"replicas":4,"image":"a"}`)
	env.patch(t, crd, "a", types.MergePatchType, `{"status":{"ready":1}}`, "status")
	env.patch(t, crd, "a", types.MergePatchType, `{"spec":{"replicas":7}}`, "scale")
	env.patch(t, crd, "a", types.MergePatchType, `{"spec":{"image":"b"}}`) // nothing gated away
	if got, want := gatheredSeries(t, dropsName, group, resource, "name", "operation"), "ReadyGate/update=1,ReplicasGate/create=1,ReplicasGate/update=2"; got != want {
		t.Errorf("drop counter: got %q, want %q", got, want)
	}

	env.setGate(t, crd, 0, true, "replicas", replicasIn)
	waitForSeries(t, gaugeName, group, resource, "ImageGate/beta=1,ReadyGate/alpha=0,ReplicasGate/alpha=1", "name", "stage")

	// A removed gate loses its gauge series and its drop counter.
	if _, err := env.apiext.ApiextensionsV1().CustomResourceDefinitions().Patch(context.Background(), crd.Name, types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/spec/customFeatureGates/featureGates/2"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForSeries(t, gaugeName, group, resource, "ImageGate/beta=1,ReplicasGate/alpha=1", "name", "stage")
	waitForSeries(t, dropsName, group, resource, "ReplicasGate/create=1,ReplicasGate/update=2", "name", "operation")

	if err := fixtures.DeleteV1CustomResourceDefinition(crd, env.apiext); err != nil {
		t.Fatal(err)
	}
	waitForSeries(t, gaugeName, group, resource, "", "name", "stage")
	waitForSeries(t, dropsName, group, resource, "", "name", "operation")
}
