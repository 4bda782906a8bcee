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

package stockpolicies

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
)

// The HTTPRoute CRD of the Gateway API v1.4.0 set of examples/gateway-api (its two channels
// merged into gated CRDs), and the gates of the two experimental fields that
// featuregatetest.LosslessRoute uses.
var (
	gatewayAPIRoutes = &crdInfo{name: "httproutes.gateway.networking.k8s.io",
		group: "gateway.networking.k8s.io", version: "v1", resource: "httproutes", kind: "HTTPRoute"}
	gatewayAPIRouteGates = []string{"HTTPRouteRulesRetry", "HTTPRouteRulesSessionPersistence"}
)

// TestGatewayAPILosslessDisableOnBothBackends is test/e2e's TestGatewayAPILosslessDisable
// (the scenario of cilium/cilium#39843) on both backends: ours with the gated Gateway API set
// as it is, the stock kube-apiserver with featuregate-gen policies' output for it. A route
// uses retry and sessionPersistence while their gates are on; `kubectl featuregates` turns
// the gates off; the route is written by client-side apply with and without the fields,
// server-side apply by another manager and a status write; the gates go on again. On each
// backend, etcd holds the same two values after every write, and the route reads them back
// at the end.
func TestGatewayAPILosslessDisableOnBothBackends(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "examples", "gateway-api", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in examples/gateway-api/crds: %v", err)
	}
	generated := t.TempDir()
	out, err := exec.Command(filepath.Join(binDir, "featuregate-gen"), "policies", "--crds", strings.Join(files, ","), "--out", generated).CombinedOutput()
	if err != nil {
		t.Fatalf("%s --crds <examples/gateway-api/crds> --out %s: %v\n%s", generatorCommand, generated, err, out)
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if b.name == backendOurs {
				args := []string{"apply", "--server-side", "--field-manager=gateway-api"}
				for _, f := range files {
					args = append(args, "-f", f)
				}
				mustRun(t, b, "", args...)
			} else {
				mustRun(t, b, "", "apply", "--server-side", "--field-manager=gateway-api", "-f", filepath.Join(generated, "crds"))
			}
			mustRun(t, b, "", "wait", "--for=condition=Established", "--timeout=60s", "crd/"+gatewayAPIRoutes.name)
			if b.name != backendOurs {
				mustRun(t, b, "", "apply", "--server-side", "--field-manager=gateway-api", "-f", filepath.Join(generated, "policies"))
			}

			setRouteGates(t, b, true)
			// On stock, writes of a new kind get a 503 until its schema is in /openapi/v3.
			deadline := time.Now().Add(60 * time.Second)
			for {
				r, err := b.mustKubectl(featuregatetest.LosslessRoute("a.example.com", 3, true), "apply", "-f", "-")
				if err == nil {
					break
				}
				if !strings.Contains(r.stderr, "ServiceUnavailable") || time.Now().After(deadline) {
					t.Fatal(err)
				}
				time.Sleep(250 * time.Millisecond)
			}
			want := routeValues(t, b, "a.example.com")
			if len(want) != 2 {
				t.Fatalf("with the gates on, etcd has %v; want retry and sessionPersistence", want)
			}

			setRouteGates(t, b, false)
			for _, w := range []struct {
				step, host string
				args       []string
				stdin      string
			}{
				{"client-side apply with changed fields", "b.example.com", []string{"apply", "-f", "-"}, featuregatetest.LosslessRoute("b.example.com", 7, true)},
				{"client-side apply without the fields (a standard-channel manifest)", "c.example.com", []string{"apply", "-f", "-"}, featuregatetest.LosslessRoute("c.example.com", 0, false)},
				{"server-side apply by another manager", "d.example.com", []string{"apply", "--server-side", "--force-conflicts", "--field-manager=other", "-f", "-"}, featuregatetest.LosslessRoute("d.example.com", 0, false)},
				{"status write", "d.example.com", []string{"patch", "httproute", "lossless", "-n", "default", "--subresource=status", "--type=merge", "-p", `{"status":{"parents":[]}}`}, ""},
			} {
				mustRun(t, b, w.stdin, w.args...)
				if got := routeValues(t, b, w.host); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: etcd has %v, want %v", w.step, got, want)
				}
			}

			setRouteGates(t, b, true)
			r := mustRun(t, b, "", "get", "httproute", "lossless", "-n", "default", "-o", "json")
			var obj map[string]interface{}
			if err := json.Unmarshal([]byte(r.stdout), &obj); err != nil {
				t.Fatal(err)
			}
			if got := routeSpecValues(obj); !reflect.DeepEqual(got, want) {
				t.Errorf("with the gates on again, the route reads %v, want %v", got, want)
			}
			mustRun(t, b, "", "delete", "httproute", "lossless", "-n", "default")

			// A route at its largest lists (16 rules × 16 backendRefs × 16 filters, about 470
			// KB) with the gates off: create, a label-only update, and an update that renames
			// every filter are each accepted and stored as sent (no gated field is in them).
			// Each write walks every filter for the disabled cors and externalAuth gates.
			setRouteGates(t, b, false)
			big := largeRoute(16, 16, 16, "")
			mustRun(t, b, big, "create", "-f", "-")
			mustRun(t, b, "", "label", "httproute", "large", "-n", "default", "touched=yes")
			renamed := largeRoute(16, 16, 16, "-renamed")
			r = mustRun(t, b, "", "get", "httproute", "large", "-n", "default", "-o", "jsonpath={.metadata.resourceVersion}")
			mustRun(t, b, strings.Replace(renamed, `"name":"large"`, `"name":"large","resourceVersion":"`+r.stdout+`"`, 1), "replace", "-f", "-")
			stored, err := b.etcdObject(gatewayAPIRoutes, "default", "large")
			if err != nil {
				t.Fatal(err)
			}
			var sent map[string]interface{}
			if err := json.Unmarshal([]byte(renamed), &sent); err != nil {
				t.Fatal(err)
			}
			got, _ := lookup(stored, "spec", "rules")
			if rules, _ := got.([]interface{}); len(rules) != 16 || !reflect.DeepEqual(filterNames(rules), filterNames(sent["spec"].(map[string]interface{})["rules"])) {
				t.Errorf("%s: etcd does not hold the renamed large route's filters", b.name)
			}
			mustRun(t, b, "", "delete", "httproute", "large", "-n", "default")
		})
	}
}

// largeRoute is an HTTPRoute named large with rules rules, each with backends backendRefs
// of filters ExtensionRef filters, whose filter names end in suffix, as JSON.
func largeRoute(rules, backends, filters int, suffix string) string {
	rs := make([]interface{}, rules)
	for r := range rs {
		bs := make([]interface{}, backends)
		for b := range bs {
			fs := make([]interface{}, filters)
			for f := range fs {
				fs[f] = map[string]interface{}{"type": "ExtensionRef", "extensionRef": map[string]interface{}{
					"group": "example.com", "kind": "Filter", "name": fmt.Sprintf("f-%02d-%02d-%02d%s", r, b, f, suffix)}}
			}
			bs[b] = map[string]interface{}{"name": fmt.Sprintf("backend-%02d-%02d", r, b), "port": 8080, "filters": fs}
		}
		rs[r] = map[string]interface{}{"backendRefs": bs}
	}
	js, _ := json.Marshal(map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]interface{}{"name": "large", "namespace": "default"},
		"spec":     map[string]interface{}{"parentRefs": []interface{}{map[string]interface{}{"name": "gw"}}, "rules": rs},
	})
	return string(js)
}

// filterNames lists the names of the backendRefs' filters of rules, in order.
func filterNames(rules interface{}) []string {
	var names []string
	rs, _ := rules.([]interface{})
	for _, r := range rs {
		bs, _ := r.(map[string]interface{})["backendRefs"].([]interface{})
		for _, b := range bs {
			fs, _ := b.(map[string]interface{})["filters"].([]interface{})
			for _, f := range fs {
				name, _ := lookup(f, "extensionRef", "name")
				names = append(names, fmt.Sprint(name))
			}
		}
	}
	return names
}

func mustRun(t *testing.T, b *backend, stdin string, args ...string) kubectlResult {
	t.Helper()
	r, err := b.mustKubectl(stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// routeValues reads the route from etcd, checks that the last write took (its hostname is
// host), and returns its experimental values.
func routeValues(t *testing.T, b *backend, host string) map[string]interface{} {
	t.Helper()
	obj, err := b.etcdObject(gatewayAPIRoutes, "default", "lossless")
	if err != nil {
		t.Fatal(err)
	}
	if hosts, _ := lookup(obj, "spec", "hostnames"); !reflect.DeepEqual(hosts, []interface{}{host}) {
		t.Fatalf("%s: etcd has hostnames %v, want [%s]: the write did not take", b.name, hosts, host)
	}
	return routeSpecValues(obj)
}

// routeSpecValues is the route's retry and sessionPersistence, read from its spec.
func routeSpecValues(route map[string]interface{}) map[string]interface{} {
	spec, _ := route["spec"].(map[string]interface{})
	return featuregatetest.LosslessRouteValues(spec)
}

// setRouteGates turns the route's two gates on or off by name with `kubectl featuregates`
// (the CRD on ours, the parameter object on stock) and waits until a dry-run apply of a route
// with both fields keeps them exactly while the gates are on.
func setRouteGates(t *testing.T, b *backend, on bool) {
	t.Helper()
	verb := map[bool]string{true: "enable", false: "disable"}[on]
	for _, gate := range gatewayAPIRouteGates {
		if r := b.featuregates(verb, gatewayAPIRoutes.name, gate, "--force-conflicts"); r.err != nil {
			t.Fatalf("%s: kubectl featuregates %s %s %s: %v\nstdout: %s\nstderr: %s", b.name, verb, gatewayAPIRoutes.name, gate, r.err, r.stdout, r.stderr)
		}
	}
	// Another name than the route's: a dry-run apply to the stored route would keep its values.
	probe := strings.Replace(featuregatetest.LosslessRoute("probe.example.com", 9, true), "name: lossless,", "name: lossless-probe,", 1)
	deadline := time.Now().Add(gateChangeTimeout)
	for {
		r := b.kubectl(probe, "apply", "--dry-run=server", "-o", "json", "-f", "-")
		var obj map[string]interface{}
		if r.err == nil && json.Unmarshal([]byte(r.stdout), &obj) == nil && len(routeSpecValues(obj)) == map[bool]int{true: 2, false: 0}[on] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the route's gates were not %sd within %s; last dry-run apply: %v\nstdout: %s\nstderr: %s", b.name, verb, gateChangeTimeout, r.err, r.stdout, r.stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
