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

package e2e

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

const httpRoutesCRD = "httproutes.gateway.networking.k8s.io"

// experimentalValues reads the experimental fields of the route straight from etcd.
func experimentalValues(t *testing.T, host string) map[string]interface{} {
	t.Helper()
	spec, ok := storedSpec(t, etcdClient(t), "gateway.networking.k8s.io", "httproutes", "lossless")
	if !ok {
		t.Fatal("the route is not in etcd")
	}
	if hosts, _ := spec["hostnames"].([]interface{}); len(hosts) != 1 || hosts[0] != host {
		t.Fatalf("etcd has hostnames %v, want [%s]: the write did not take", spec["hostnames"], host)
	}
	return featuregatetest.LosslessRouteValues(spec)
}

// setRouteGates turns the two gates on or off and waits until the server honours it.
func setRouteGates(t *testing.T, on bool) {
	t.Helper()
	verb := map[bool]string{true: "enable", false: "disable"}[on]
	for _, gate := range []string{"HTTPRouteRulesRetry", "HTTPRouteRulesSessionPersistence"} {
		mustFeaturegates(t, verb, httpRoutesCRD, gate)
	}
	// A dry run of a new value draws a gate's warning exactly while the gates are off.
	probe := featuregatetest.LosslessRoute("probe.example.com", 9, true)
	featuregatetest.WaitFor(t, 30*time.Second, "the route gates to be "+verb+"d", func() bool {
		r := mustKubectl(t, probe, "apply", "--dry-run=server", "-f", "-")
		return !strings.Contains(r.stderr, "feature gate HTTPRouteRulesRetry") == on
	})
}

// TestGatewayAPILosslessDisable is the scenario of cilium/cilium#39843 on Gateway API v1.4.0's
// CRDs merged by `featuregate-gen channels` (examples/gateway-api/crds): a route uses
// experimental fields while their gates are on; the gates go off; the route is updated by
// client-side apply (with and without the fields), server-side apply and a status write; the
// gates go on again. The values in etcd never change. The same sequence the way channels work
// today, on a stock kube-apiserver, loses them: test/gatewayapi's
// TestGatewayAPIChannelSwitchOnStock.
func TestGatewayAPILosslessDisable(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples", "gateway-api", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in examples/gateway-api/crds: %v", err)
	}
	for _, f := range files {
		mustKubectl(t, "", "apply", "--server-side", "--field-manager=gateway-api", "-f", f)
	}
	mustKubectl(t, "", "wait", "--for=condition=Established", "--timeout=60s", "crd/"+httpRoutesCRD)

	setRouteGates(t, true)
	mustKubectl(t, featuregatetest.LosslessRoute("a.example.com", 3, true), "apply", "-f", "-")
	want := experimentalValues(t, "a.example.com")
	if len(want) != 2 {
		t.Fatalf("with the gates on, etcd has %v; want retry and sessionPersistence", want)
	}

	setRouteGates(t, false)
	check := func(step, host string, r result, wantWarning string) {
		t.Helper()
		if got := experimentalValues(t, host); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: etcd has %v, want %v", step, got, want)
		}
		ws := strings.Join(featuregatetest.KubectlWarnings(r.stderr), "\n")
		if wantWarning == "" && ws != "" || !strings.Contains(ws, wantWarning) {
			t.Errorf("%s: warnings %q, want %q", step, ws, wantWarning)
		}
	}
	check("client-side apply with the fields",
		"b.example.com", mustKubectl(t, featuregatetest.LosslessRoute("b.example.com", 3, true), "apply", "-f", "-"), "")
	check("client-side apply without the fields (a standard-channel manifest)",
		"c.example.com", mustKubectl(t, featuregatetest.LosslessRoute("c.example.com", 0, false), "apply", "-f", "-"),
		"feature gate HTTPRouteRulesRetry (alpha) is disabled")
	check("server-side apply by another manager",
		"d.example.com", mustKubectl(t, featuregatetest.LosslessRoute("d.example.com", 0, false), "apply", "--server-side", "--force-conflicts", "--field-manager=other", "-f", "-"),
		"feature gate HTTPRouteRulesSessionPersistence (alpha) is disabled")
	check("status write",
		"d.example.com", mustKubectl(t, "", "patch", "httproute", "lossless", "--subresource=status", "--type=merge", "-p", `{"status":{"parents":[]}}`), "")

	setRouteGates(t, true)
	got := getJSON(t, "httproute", "lossless")
	rules, _ := field(got, "spec", "rules")
	rule := rules.([]interface{})[0].(map[string]interface{})
	if !reflect.DeepEqual(map[string]interface{}{"retry": rule["retry"], "sessionPersistence": rule["sessionPersistence"]}, want) {
		t.Errorf("with the gates on again, the route reads %v, want %v", rule, want)
	}

	mustKubectl(t, "", "delete", "httproute", "lossless")
}
