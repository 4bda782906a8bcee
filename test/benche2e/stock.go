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

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// The three backends of the comparison runs.
const (
	// backendUpstream is the stock kube-apiserver with the gated CRD's stock form and no
	// policies: what a cluster without gates pays, the baseline of the ratios.
	backendUpstream = "upstream"
	// backendOurs is our kube-apiserver, CRDFieldLevelVersioning on, with the gated CRD.
	backendOurs = "ours"
	// backendPolicies is the stock kube-apiserver with featuregate-gen policies' output: the
	// stock CRD, the parameter object and the admission policies.
	backendPolicies = "stock+policies"
)

var compareBackends = []string{backendUpstream, backendOurs, backendPolicies}

// backendOrder is the order of the backends in a round: round 1 runs upstream, ours,
// stock+policies, and every next round starts one further, so that no backend always
// runs first (or last) in a machine that drifts.
func backendOrder(round int) []string {
	n := len(compareBackends)
	out := make([]string, n)
	for i := range out {
		out[i] = compareBackends[(round-1+i)%n]
	}
	return out
}

// compareResult is one measured run of the comparison.
type compareResult struct {
	runResult
	gates   int
	backend string
	// policy says what the run had installed (stock+policies) or "-".
	policy string
	// adm is the change of the admission policy metrics over the measured writes.
	adm admissionMetrics
}

// stockForms are the CRDs and manifests of one gate count.
type stockForms struct {
	gated *apiextensionsv1.CustomResourceDefinition // ours
	stock *apiextensionsv1.CustomResourceDefinition // upstream (and stock+policies' CRD)
	// res is what policies.Generate made of gated; nil with 0 gates (nothing to enforce).
	res                                 *policies.Result
	paramCRD, crdManifest, policiesYAML []byte
}

func stockFormsFor(s shape, names crdNames) (stockForms, error) {
	f := stockForms{gated: s.crd(names)}
	// As a manifest read from a file has it; the generated manifests keep it.
	f.gated.TypeMeta = metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"}
	if s.gates == 0 {
		f.stock = f.gated
		return f, nil
	}
	res, err := policies.Generate(f.gated)
	if err != nil {
		return f, err
	}
	f.res, f.stock = res, res.CRD
	if f.paramCRD, err = policies.ParamCRDManifest(); err != nil {
		return f, err
	}
	if f.crdManifest, err = res.CRDManifest(); err != nil {
		return f, err
	}
	if f.policiesYAML, err = res.PoliciesManifest(); err != nil {
		return f, err
	}
	return f, nil
}

// describePolicies says what policies a Result holds, for the report.
func describePolicies(res *policies.Result) string {
	if res == nil {
		return "no policy (0 gates)"
	}
	parts := []string{"no MAP"}
	if res.Mutating != nil {
		parts[0] = fmt.Sprintf("MAP: %d mutations", len(res.Mutating.Spec.Mutations))
	}
	if res.Validating != nil {
		parts = append(parts, fmt.Sprintf("VAP (Deny): %d validations", len(res.Validating.Spec.Validations)))
	} else {
		parts = append(parts, "no VAP (Deny)")
	}
	if res.Warnings != nil {
		parts = append(parts, fmt.Sprintf("VAP (Warn): %d validations", len(res.Warnings.Spec.Validations)))
	}
	return strings.Join(parts, ", ")
}

// runCompare runs the comparison: for every gate count of -compare-gates and every round,
// the three backends, each in a fresh control plane with the same workload.
func runCompare(ctx context.Context, o options, stockVersion string) ([]compareResult, error) {
	o.writes = o.compareWrites
	fmt.Printf("compare: %d round(s) of %s for %s gate(s); stock kube-apiserver %s.\n",
		o.compareRounds, strings.Join(compareBackends, ", "), joinInts(o.compareGates), stockVersion)
	fmt.Printf("Each run: a fresh etcd + kube-apiserver, %s idle, %d clients, %d warm-up writes, %d measured writes; %s's policies must be in force (a dry-run create with the disabled gates' fields comes back without them) within %s.\n\n",
		o.idle, o.clients, o.warmup, o.writes, backendPolicies, o.policyTimeout)
	var results []compareResult
	for round := 1; round <= o.compareRounds; round++ {
		for _, gates := range o.compareGates {
			s := shape{gates: gates, omitDisabled: !o.sendDisabled}
			forms, err := stockFormsFor(s, namesFor(""))
			if err != nil {
				return results, fmt.Errorf("%d gates: policies.Generate: %w", gates, err)
			}
			for _, b := range backendOrder(round) {
				fmt.Printf("compare round %d, %d gates, %s: starting the control plane...\n", round, gates, b)
				r, err := compareOne(ctx, o, s, forms, round, b)
				if err != nil {
					return results, fmt.Errorf("compare round %d, %d gates, %s: %w", round, gates, b, err)
				}
				fmt.Printf("compare round %d, %d gates, %s: %d writes in %s: %.1f writes/s, p50 %s, p99 %s, kube-apiserver CPU %s; MAP plugin %s/write, VAP plugin %s/write\n",
					round, gates, b, r.writes, r.elapsed.Round(time.Millisecond), r.throughput(), ms(r.p50), ms(r.p99), r.cpu,
					perWrite(r.adm.mapPlugin.sum, r.writes), perWrite(r.adm.vapPlugin.sum, r.writes))
				results = append(results, r)
			}
		}
	}
	return results, nil
}

// compareOne starts a fresh control plane for backend, installs the gate count's CRD (and
// on stock+policies the parameter object and the policies), measures, and checks what the
// backend stored: ours and stock+policies must have dropped the disabled gates' fields,
// upstream must have stored them.
func compareOne(ctx context.Context, o options, s shape, forms stockForms, round int, backend string) (compareResult, error) {
	r := compareResult{runResult: runResult{round: round, name: backend, feature: backend == backendOurs}, gates: s.gates, backend: backend, policy: "-"}
	apiserver, featureGates := o.stockAPIServer, ""
	if backend == backendOurs {
		apiserver, featureGates = "", "CRDFieldLevelVersioning=true"
	}
	dir := filepath.Join(o.workDir, fmt.Sprintf("compare-round%d-gates%d-%s", round, s.gates, strings.ReplaceAll(backend, "+", "-")))
	srv, err := startServerWith(ctx, o, dir, apiserver, featureGates)
	if err != nil {
		return r, err
	}
	defer srv.cp.Stop()
	c, err := newClients(srv.cp.Kubeconfig)
	if err != nil {
		return r, err
	}
	if err := sleep(ctx, o.idle); err != nil {
		return r, err
	}

	names := namesFor("")
	var res dynamic.ResourceInterface
	switch {
	case backend == backendOurs:
		if res, err = setupThisCRD(ctx, c, forms.gated, names); err != nil {
			return r, err
		}
		stored, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, names.crdName(), metav1.GetOptions{})
		if err != nil {
			return r, err
		}
		got := 0
		if stored.Spec.CustomFeatureGates != nil {
			got = len(stored.Spec.CustomFeatureGates.FeatureGates)
		}
		if got != s.gates {
			return r, fmt.Errorf("the stored CRD has %d gates, want %d (is CRDFieldLevelVersioning on?)", got, s.gates)
		}
	case backend == backendUpstream || forms.res == nil:
		if res, err = setupThisCRD(ctx, c, forms.stock, names); err != nil {
			return r, err
		}
		if backend == backendPolicies {
			r.policy = describePolicies(nil)
		}
	default:
		r.policy = describePolicies(forms.res)
		start := time.Now()
		if err := createNamespace(ctx, c); err != nil {
			return r, err
		}
		if err := applyManifests(ctx, c, forms.paramCRD, forms.crdManifest); err != nil {
			return r, err
		}
		if err := waitEstablished(ctx, c, policies.ParamCRDName); err != nil {
			return r, err
		}
		if res, err = waitServed(ctx, c, names); err != nil {
			return r, err
		}
		manifest := forms.policiesYAML
		if o.paramConfigMap {
			if manifest, err = configMapPolicies(manifest, forms.res.Param); err != nil {
				return r, fmt.Errorf("-param-configmap: %w", err)
			}
			r.policy += ", states in a ConfigMap (-param-configmap)"
		}
		if err := applyManifests(ctx, c, manifest); err != nil {
			return r, err
		}
		if err := slimParam(ctx, c, o.slimParam, forms.res.Param.Name); err != nil {
			return r, err
		}
		waited, err := waitPoliciesActive(ctx, res, s, names, o.policyTimeout)
		if err != nil {
			return r, err
		}
		fmt.Printf("compare round %d, %d gates, %s: stock CRD, parameter object and policies (%s) applied; in force %s after the CRDs were applied (%s after the policies)\n",
			round, s.gates, backend, r.policy, time.Since(start).Round(time.Millisecond), waited.Round(time.Millisecond))
	}

	var before admissionMetrics
	profiled := closedErr()
	around := func(starting bool) error {
		m, err := scrapeAdmission(ctx, c)
		if err != nil {
			return err
		}
		if starting {
			before = m
			profiled = profileCPU(ctx, c, o.cpuProfile, dir+".pprof")
		} else {
			r.adm = m.minus(before)
		}
		return nil
	}
	if err := measure(ctx, o, s, names, res, c, srv.pid, &r.runResult, around); err != nil {
		return r, err
	}
	if err := <-profiled; err != nil {
		return r, err
	}

	gatingActive := backend != backendUpstream
	obj, err := res.Get(ctx, objectName("obj", 0), metav1.GetOptions{})
	if err != nil {
		return r, err
	}
	if err := s.checkGated(obj, gatingActive || s.omitDisabled); err != nil {
		return r, fmt.Errorf("read-back check: %w", err)
	}
	if backend == backendOurs && s.disabledGates() > 0 && !s.omitDisabled && r.warnings == 0 {
		return r, fmt.Errorf("no Warning header in %d writes that each sent fields of disabled gates", r.writes)
	}
	probeWarnings, err := probeWrites(ctx, c, res, s, names, gatingActive)
	if err != nil {
		return r, fmt.Errorf("probe: %w", err)
	}
	what := fmt.Sprintf("the %d fields of disabled gates were dropped, the other %d gated fields kept", s.disabledGates(), s.gates-s.disabledGates())
	switch {
	case s.gates == 0:
		what = "no gated field, every field stored"
	case !gatingActive:
		what = fmt.Sprintf("all %d gated fields stored", s.gates)
	}
	fmt.Printf("compare round %d, %d gates, %s: read-back OK (%s; the probe's create+update drew %d warnings)\n", round, s.gates, backend, what, probeWarnings)
	return r, nil
}

// closedErr returns a channel that yields nil.
func closedErr() <-chan error {
	ch := make(chan error, 1)
	ch <- nil
	return ch
}

// profileCPU takes a CPU profile of the kube-apiserver for d (none if d is 0) in the
// background and writes it to path; the channel yields the outcome once it is done.
func profileCPU(ctx context.Context, c *clients, d time.Duration, path string) <-chan error {
	if d <= 0 {
		return closedErr()
	}
	ch := make(chan error, 1)
	go func() {
		secs := max(1, int(d.Round(time.Second)/time.Second))
		body, err := c.crds.Discovery().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", fmt.Sprint(secs)).Timeout(d + time.Minute).DoRaw(ctx)
		if err != nil {
			ch <- fmt.Errorf("GET /debug/pprof/profile: %w", err)
			return
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			ch <- err
			return
		}
		fmt.Printf("CPU profile of %ds: %s\n", secs, path)
		ch <- nil
	}()
	return ch
}

// scrapeAdmission reads the admission policy metrics from the server's /metrics.
func scrapeAdmission(ctx context.Context, c *clients) (admissionMetrics, error) {
	body, err := c.crds.Discovery().RESTClient().Get().AbsPath("/metrics").Timeout(time.Minute).DoRaw(ctx)
	if err != nil {
		return admissionMetrics{}, fmt.Errorf("GET /metrics: %w", err)
	}
	samples, err := parseMetrics(body)
	if err != nil {
		return admissionMetrics{}, err
	}
	return admissionFrom(samples), nil
}

// decodeManifests splits YAML streams into objects; documents with only comments are
// skipped.
func decodeManifests(manifests ...[]byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, m := range manifests {
		d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(m), 4096)
		for {
			var obj map[string]interface{}
			if err := d.Decode(&obj); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, err
			}
			if len(obj) == 0 {
				continue
			}
			u := &unstructured.Unstructured{Object: obj}
			if u.GetKind() == "" || u.GetName() == "" {
				return nil, fmt.Errorf("a manifest object without kind or name: %v", obj)
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// applyManifests applies every object of the YAML streams, in order, with server-side
// apply (field manager benche2e). A kind that discovery does not know yet (a CRD's, just
// established) is retried for up to a minute.
func applyManifests(ctx context.Context, c *clients, manifests ...[]byte) error {
	objs, err := decodeManifests(manifests...)
	if err != nil {
		return err
	}
	var mapper meta.RESTMapper
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		var mapping *meta.RESTMapping
		err := poll(ctx, time.Minute, func() (bool, error) {
			if mapper != nil {
				if m, merr := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); merr == nil {
					mapping = m
					return true, nil
				}
			}
			groups, derr := restmapper.GetAPIGroupResources(c.crds.Discovery())
			if derr != nil {
				// Discovery fails in part while a new group is being added; try again.
				return false, nil
			}
			mapper = restmapper.NewDiscoveryRESTMapper(groups)
			m, merr := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			mapping = m
			return merr == nil, nil
		})
		if err != nil {
			return fmt.Errorf("no resource for %s: %w", gvk, err)
		}
		ri := dynamic.ResourceInterface(c.dynamic.Resource(mapping.Resource))
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = c.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace())
		}
		if _, err := ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "benche2e", Force: true}); err != nil {
			return fmt.Errorf("server-side apply of %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
	}
	return nil
}

// waitEstablished waits until the CRD called name is established.
func waitEstablished(ctx context.Context, c *clients, name string) error {
	err := poll(ctx, time.Minute, func() (bool, error) {
		crd, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return established(crd), nil
	})
	if err != nil {
		return fmt.Errorf("the CRD %s was not established: %w", name, err)
	}
	return nil
}

// waitPoliciesActive creates (dry run) an object with every field until the answer has
// the disabled gates' fields dropped and the others kept, for up to timeout. Errors are
// expected meanwhile (the stock server answers 503 until the CRD's schema is published,
// and the binding denies while its parameter object is not yet seen). It returns how long
// it waited.
func waitPoliciesActive(ctx context.Context, res dynamic.ResourceInterface, s shape, names crdNames, timeout time.Duration) (time.Duration, error) {
	full := s
	full.omitDisabled = false
	start := time.Now()
	last := "no answer yet"
	err := poll(ctx, timeout, func() (bool, error) {
		got, err := res.Create(ctx, full.object(names, benchNamespace, "policy-probe", 0), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if err := full.checkGated(got, true); err != nil {
			last = "the policies are not in force yet: " + err.Error()
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return time.Since(start), fmt.Errorf("the policies were not in force within %s (%v); last answer: %s", timeout, err, last)
	}
	return time.Since(start), nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// compareRatios are a run's figures divided by those of upstream in the same round with
// the same gate count: throughput (higher is better), p50, p99 and CPU per write (lower is
// better). NaN when there is no such upstream run.
type compareRatios struct{ throughput, p50, p99, cpu float64 }

func (r runResult) cpuPerWrite() time.Duration {
	if r.writes == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.writes)
}

// ratiosVsUpstream returns the ratios of every result, in the same order.
func ratiosVsUpstream(results []compareResult) []compareRatios {
	type key struct{ round, gates int }
	base := map[key]compareResult{}
	for _, r := range results {
		if r.backend == backendUpstream {
			base[key{r.round, r.gates}] = r
		}
	}
	div := func(a, b float64) float64 {
		if b == 0 {
			return math.NaN()
		}
		return a / b
	}
	out := make([]compareRatios, len(results))
	for i, r := range results {
		u, ok := base[key{r.round, r.gates}]
		if !ok {
			out[i] = compareRatios{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
			continue
		}
		out[i] = compareRatios{
			throughput: div(r.throughput(), u.throughput()),
			p50:        div(float64(r.p50), float64(u.p50)),
			p99:        div(float64(r.p99), float64(u.p99)),
			cpu:        div(float64(r.cpuPerWrite()), float64(u.cpuPerWrite())),
		}
	}
	return out
}

func ratio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", x)
}

// compareTables returns the comparison's two tables: performance with the ratios against
// upstream, and the admission policies' cost per write from /metrics.
func compareTables(results []compareResult) (perfHeader []string, perf [][]string, costHeader []string, cost [][]string) {
	perfHeader = []string{"gates", "round", "backend", "writes/s", "p50", "p99", "apiserver CPU/write", "warnings/write",
		"writes/s ÷ upstream", "p50 ÷ upstream", "p99 ÷ upstream", "CPU/write ÷ upstream"}
	costHeader = []string{"gates", "round", "backend", "policies", "MAP plugin/write", "VAP plugin/write",
		"MAP mutations/write", "MAP mutation time/write", "VAP checks observed/write", "VAP check time/write"}
	ratios := ratiosVsUpstream(results)
	for i, r := range results {
		rt := ratios[i]
		warnings := "n/a"
		if r.writes > 0 {
			warnings = fmt.Sprintf("%.1f", float64(r.warnings)/float64(r.writes))
		}
		perf = append(perf, []string{
			fmt.Sprint(r.gates), fmt.Sprint(r.round), r.backend, fmt.Sprintf("%.1f", r.throughput()), ms(r.p50), ms(r.p99),
			ms(r.cpuPerWrite()), warnings, ratio(rt.throughput), ratio(rt.p50), ratio(rt.p99), ratio(rt.cpu),
		})
		cost = append(cost, []string{
			fmt.Sprint(r.gates), fmt.Sprint(r.round), r.backend, r.policy,
			perWrite(r.adm.mapPlugin.sum, r.writes), perWrite(r.adm.vapPlugin.sum, r.writes),
			countPerWrite(r.adm.mapCheck.count, r.writes), perWrite(r.adm.mapCheck.sum, r.writes),
			countPerWrite(r.adm.vapCheck.count, r.writes), perWrite(r.adm.vapCheck.sum, r.writes),
		})
	}
	return perfHeader, perf, costHeader, cost
}

// medianRatios returns, per gate count and backend (in the order of results), the median
// of each ratio over the rounds.
func medianRatios(results []compareResult) (header []string, rows [][]string) {
	header = []string{"gates", "backend", "rounds", "median writes/s", "median writes/s ÷ upstream", "median p50 ÷ upstream", "median p99 ÷ upstream", "median CPU/write ÷ upstream"}
	type key struct {
		gates   int
		backend string
	}
	var order []key
	type acc struct{ thr, rt, p50, p99, cpu []float64 }
	by := map[key]*acc{}
	ratios := ratiosVsUpstream(results)
	for i, r := range results {
		k := key{r.gates, r.backend}
		a, ok := by[k]
		if !ok {
			a = &acc{}
			by[k] = a
			order = append(order, k)
		}
		a.thr = append(a.thr, r.throughput())
		if rt := ratios[i]; !math.IsNaN(rt.throughput) {
			a.rt, a.p50, a.p99, a.cpu = append(a.rt, rt.throughput), append(a.p50, rt.p50), append(a.p99, rt.p99), append(a.cpu, rt.cpu)
		}
	}
	med := func(xs []float64) string {
		if len(xs) == 0 {
			return "n/a"
		}
		return ratio(median(xs))
	}
	for _, k := range order {
		a := by[k]
		rows = append(rows, []string{fmt.Sprint(k.gates), k.backend, fmt.Sprint(len(a.thr)), fmt.Sprintf("%.1f", median(a.thr)),
			med(a.rt), med(a.p50), med(a.p99), med(a.cpu)})
	}
	return header, rows
}

// reportCompare prints the comparison's tables and returns them as markdown.
func reportCompare(o options, results []compareResult) string {
	if len(results) == 0 {
		return ""
	}
	var md strings.Builder
	md.WriteString("## upstream vs ours vs stock+policies\n\n")
	fmt.Fprintf(&md, "Backends: **%s** (the stock kube-apiserver, %s, with the gated CRD's stock form and no policy: the baseline), **%s** (our kube-apiserver, CRDFieldLevelVersioning on, the gated CRD) and **%s** (the stock kube-apiserver with featuregate-gen policies' output: stock CRD, CustomResourceFeatureGates parameter object, admission policies, applied server-side and in force before the warm-up). "+
		"Half the gates disabled; clients send the disabled gates' fields: %v; objects of %s bytes of JSON; %d clients, %d measured writes per run (1 create + %d updates per object), %d warm-up writes, %d round(s), a fresh control plane per run, backends in rotating order.\n\n",
		backendUpstream, o.stockVersion, backendOurs, backendPolicies, o.sendDisabled, objectSizes(o), o.clients, o.compareWrites, o.updates, o.warmup, o.compareRounds)
	switch {
	case o.paramConfigMap:
		md.WriteString("**Experiment (`-param-configmap`)**: on stock+policies the parameter object is a ConfigMap with each gate's state, which the policies were rewritten to read; no tool reads such a ConfigMap.\n\n")
	case o.slimParam != "":
		fmt.Fprintf(&md, "**Experiment (`-slim-param %s`)**: on stock+policies the parameter object was stripped after it was applied.\n\n", o.slimParam)
	}
	perfHeader, perf, costHeader, cost := compareTables(results)
	fmt.Println()
	printTable(perfHeader, perf)
	writeMarkdownTable(&md, perfHeader, perf)
	fmt.Println()
	printTable(costHeader, cost)
	md.WriteString("\nAdmission policy cost per measured write, from the change of the kube-apiserver's /metrics over the measured writes:\n\n")
	writeMarkdownTable(&md, costHeader, cost)
	if o.compareRounds > 1 {
		h, rows := medianRatios(results)
		fmt.Println()
		printTable(h, rows)
		md.WriteString("\n")
		writeMarkdownTable(&md, h, rows)
	}
	notes := fmt.Sprintf("\n- MAP plugin/write and VAP plugin/write: `%s{name=\"%s\"|\"%s\"}` (the plugin's whole admission call, every policy of the kind included), summed over all requests of the run, per measured write.\n"+
		"- MAP mutations/write and MAP mutation time/write: `%s` (one observation per mutation that ran).\n"+
		"- VAP checks observed: `%s` observes only validations that deny, warn, audit or fail to evaluate; a validation that passes is not observed (k8s.io/apiserver v0.37.1, policy/validating/dispatcher.go), so it stays 0 while every write is admitted. No metric gives the CEL cost (cost units) of admission policies; `apiserver_cel_evaluation_duration_seconds` covers CRD validation rules only.\n"+
		"- With 0 gates, %s has no policy to install (policies.Generate refuses a CRD without gates): that run is the stock kube-apiserver with the plain CRD, a second measurement of %s.\n",
		metricAdmissionController, pluginMAP, pluginVAP, metricMAPCheck, metricVAPCheck, backendPolicies, backendUpstream)
	md.WriteString(notes)
	fmt.Print(notes)
	return md.String()
}

// objectSizes lists the JSON size of the objects of each gate count of the comparison.
func objectSizes(o options) string {
	var parts []string
	for _, g := range o.compareGates {
		parts = append(parts, fmt.Sprintf("%d (%d gates)", objectSize(shape{gates: g, omitDisabled: !o.sendDisabled}), g))
	}
	return strings.Join(parts, ", ")
}

// slimParam strips the parameter object named name as -slim-param says: "managed-fields"
// clears its metadata.managedFields (an update that sends one empty entry), "all" also drops
// every gate's fieldPaths. Neither is a supported setup: they measure what the object's
// conversion for CEL costs the stock server per write.
func slimParam(ctx context.Context, c *clients, how, name string) error {
	if how == "" {
		return nil
	}
	ri := c.dynamic.Resource(schema.GroupVersionResource{Group: policies.ParamGroup, Version: policies.ParamVersion, Resource: policies.ParamResource})
	obj, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("parameter object %s: %w", name, err)
	}
	if how == "all" {
		gates, _, _ := unstructured.NestedSlice(obj.Object, "spec", "featureGates")
		for _, g := range gates {
			if m, ok := g.(map[string]interface{}); ok {
				delete(m, "fieldPaths")
			}
		}
		if err := unstructured.SetNestedSlice(obj.Object, gates, "spec", "featureGates"); err != nil {
			return err
		}
	}
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{{}})
	got, err := ri.Update(ctx, obj, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("parameter object %s: stripping it (-slim-param %s): %w", name, how, err)
	}
	if n := len(got.GetManagedFields()); n != 0 {
		return fmt.Errorf("parameter object %s still has %d managedFields entries after -slim-param %s", name, n, how)
	}
	raw, err := got.MarshalJSON()
	if err != nil {
		return err
	}
	fmt.Printf("parameter object %s stripped (-slim-param %s): %d bytes of JSON\n", name, how, len(raw))
	return nil
}
