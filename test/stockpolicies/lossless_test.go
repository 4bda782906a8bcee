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
	"fmt"
	"strings"
	"testing"
)

// losslessObject is an object whose gated values are written while every gate is on, then
// attacked with every kind of write while every gate is off.
type losslessObject struct {
	crd *crdInfo
	// seed is applied (field manager "applier") while every gate is on; status, if set, is
	// then merged into the status subresource.
	seed, status string
	// gated are the paths of the gated values the seed stores.
	gated [][]string
	// writes run while every gate is off; each would remove or change every gated value if
	// the gates did not keep them.
	writes []step
}

var losslessObjects = []losslessObject{
	{crd: crontabCRD, seed: `{"spec":{"cronSpec":"c","image":"a","replicas":3}}`,
		gated: [][]string{{"spec", "replicas"}},
		writes: []step{
			{name: "update", verb: "update", body: `{"spec":{"cronSpec":"c","image":"b","replicas":9}}`},
			{name: "merge patch", verb: "merge", body: `{"spec":{"replicas":null,"image":"c"}}`},
			{name: "JSON patch", verb: "json", body: `[{"op":"remove","path":"/spec/replicas"}]`},
			{name: "apply", verb: "apply", body: `{"spec":{"cronSpec":"c","image":"d"}}`},
			{name: "merge patch spec null", verb: "merge", body: `{"spec":null}`},
		}},
	{crd: databaseCRD, seed: databaseFull,
		gated: [][]string{{"spec", "backup"}},
		writes: []step{
			{name: "update", verb: "update", body: `{"spec":{"engine":"mysql","backup":{"schedule":"x","encryption":{"keySecretName":"y"}}}}`},
			{name: "merge patch", verb: "merge", body: `{"spec":{"backup":null}}`},
			{name: "JSON patch", verb: "json", body: `[{"op":"remove","path":"/spec/backup"}]`},
			{name: "apply", verb: "apply", body: `{"spec":{"engine":"postgres","storageGiB":30}}`},
		}},
	{crd: gatewayCRD, seed: gatewayThree,
		gated: [][]string{{"spec", "listeners", "1", "tls"}, {"spec", "listeners", "2", "tls"}},
		writes: []step{
			{name: "update", verb: "update", body: `{"spec":{"listeners":[{"name":"http","port":81},{"name":"https","port":443,"tls":{"mode":"Passthrough"}},{"name":"admin","port":8443}]}}`},
			{name: "merge patch", verb: "merge", body: `{"spec":{"listeners":[{"name":"http","port":80},{"name":"https","port":443},{"name":"admin","port":8443}]}}`},
			{name: "JSON patch", verb: "json", body: `[{"op":"remove","path":"/spec/listeners/2/tls"},{"op":"remove","path":"/spec/listeners/1/tls"}]`},
			{name: "apply", verb: "apply", body: `{"spec":{"listeners":[{"name":"http","port":82},{"name":"https","port":443},{"name":"admin","port":8443}]}}`},
		}},
	{crd: reportCRD, seed: `{"spec":{"schedule":"a","utcOffset":"+02:00","legacyFormat":"csv"}}`,
		gated: [][]string{{"spec", "utcOffset"}, {"spec", "legacyFormat"}},
		writes: []step{
			{name: "update", verb: "update", body: `{"spec":{"schedule":"b","legacyFormat":"json"}}`},
			{name: "merge patch", verb: "merge", body: `{"spec":{"utcOffset":null,"legacyFormat":null}}`},
			{name: "JSON patch", verb: "json", body: `[{"op":"remove","path":"/spec/utcOffset"},{"op":"remove","path":"/spec/legacyFormat"}]`},
			{name: "apply", verb: "apply", body: `{"spec":{"schedule":"c"}}`},
		}},
	{crd: widgetCRD, seed: `{"spec":{"image":"a","replicas":2,"tier":"gold","steps":[{"name":"a","retry":1},{"name":"b","retry":2}]}}`, status: `{"status":{"ready":3,"phase":"Up"}}`,
		gated: [][]string{{"spec", "replicas"}, {"spec", "tier"}, {"spec", "steps", "0", "retry"}, {"spec", "steps", "1", "retry"}, {"status", "ready"}},
		writes: []step{
			{name: "update", verb: "update", body: `{"spec":{"image":"b","tier":"silver","steps":[{"name":"a"},{"name":"b","retry":5}]}}`},
			{name: "merge patch", verb: "merge", body: `{"spec":{"replicas":null,"tier":null,"steps":[{"name":"a"},{"name":"b"}]}}`},
			{name: "JSON patch", verb: "json", body: `[{"op":"remove","path":"/spec/steps/0/retry"},{"op":"remove","path":"/spec/tier"}]`},
			{name: "scale patch", verb: "merge", sub: "scale", body: `{"spec":{"replicas":7}}`},
			{name: "status patch", verb: "merge", sub: "status", body: `{"status":{"ready":null,"phase":"Down"}}`},
			{name: "status update", verb: "update", sub: "status", body: `{"status":{"phase":"Gone"}}`},
			{name: "apply", verb: "apply", body: `{"spec":{"image":"c","steps":[{"name":"a"},{"name":"b"}]}}`},
		}},
}

// TestStoredValuesAreNotLost: values stored while their gates were on survive every kind of
// write while the gates are off, and are there when the gates are on again, read through the
// API and straight from etcd. On stock+policies this is the proof that the policies lose
// nothing; ours runs the same as the reference.
func TestStoredValuesAreNotLost(t *testing.T) {
	installed(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ns := "lossless"
			if err := b.ensureNamespace(ns); err != nil {
				t.Fatal(err)
			}
			for _, lo := range losslessObjects {
				t.Run(lo.crd.resource, func(t *testing.T) {
					c := &matrixCase{name: "lossless " + lo.crd.resource, crd: lo.crd}
					r := &caseRun{t: t, b: b, c: c, ns: ns}
					all := func(on bool) map[string]bool {
						m := map[string]bool{}
						for _, g := range lo.crd.gates {
							m[g.name] = on
						}
						return m
					}
					r.run(gates(all(true)))
					r.run(step{name: "seed", verb: "apply", body: lo.seed})
					if lo.status != "" {
						r.run(step{name: "seed status", verb: "merge", sub: "status", body: lo.status})
					}
					seeded, err := b.get(lo.crd, ns, "obj")
					if err != nil || seeded == nil {
						t.Fatalf("the seed was not stored: %v", err)
					}
					want := map[string]string{}
					for _, p := range lo.gated {
						v, found := lookup(seeded, p...)
						if !found {
							t.Fatalf("the seed has no value at %s although every gate is on: %s", strings.Join(p, "."), compact(seeded))
						}
						want[strings.Join(p, ".")] = compact(v)
					}

					r.run(gates(all(false)))
					check := func(when string) {
						t.Helper()
						api, err := b.get(lo.crd, ns, "obj")
						if err != nil {
							t.Fatal(err)
						}
						stored, err := b.etcdObject(lo.crd, ns, "obj")
						if err != nil {
							t.Fatal(err)
						}
						for _, p := range lo.gated {
							key := strings.Join(p, ".")
							for source, obj := range map[string]map[string]interface{}{"the API": api, "etcd": stored} {
								v, found := lookup(obj, p...)
								if got := compact(v); !found || got != want[key] {
									t.Errorf("%s: %s, %s: %s = %s, want %s (the value stored while the gate was on)", b.name, when, source, key, got, want[key])
								}
							}
						}
					}
					// A write may be refused (stock refuses a scale write to a disabled
					// replicas path): that loses nothing, and the matrix compares it.
					var writes []string
					for _, w := range lo.writes {
						r.run(w)
						note := w.name
						if o := r.obs[len(r.obs)-1]; o.code >= 300 {
							note += fmt.Sprintf(" (refused: %d)", o.code)
						}
						writes = append(writes, note)
						check(fmt.Sprintf("gates off, after the %s", w.name))
					}
					r.run(gates(all(true)))
					check("gates on again")
					verdict := "every value kept, in the API and in etcd"
					if t.Failed() {
						verdict = "**values lost** (see the test log)"
					}
					losslessLines = append(losslessLines, fmt.Sprintf("%s, %s (%s; writes: %s): %s", b.name, lo.crd.name, strings.Join(paths(lo.gated), ", "), strings.Join(writes, ", "), verdict))
					if t.Failed() {
						for _, o := range r.obs {
							t.Logf("%s: %s: HTTP %d %s, stored %s", b.name, o.step, o.code, o.message, content(o.stored))
						}
					}
				})
			}
		})
	}
}

func paths(ps [][]string) []string {
	var out []string
	for _, p := range ps {
		out = append(out, "."+strings.Join(p, "."))
	}
	return out
}
