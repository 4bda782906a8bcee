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
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const benchNamespace = "bench"

// runResult is one measured run.
type runResult struct {
	round    int
	name     string // A or B
	feature  bool   // CRDFieldLevelVersioning
	writes   int
	elapsed  time.Duration
	p50, p99 time.Duration
	mean     time.Duration
	cpu      time.Duration // kube-apiserver user+system CPU during the measured writes
	warnings int64         // Warning headers received during the measured writes
}

func (r runResult) throughput() float64 { return float64(r.writes) / r.elapsed.Seconds() }

// clients of one control plane, with client-side rate limiting out of the way.
type clients struct {
	config   *rest.Config
	crds     clientset.Interface
	dynamic  dynamic.Interface
	warnings *featuregatetest.WarningRecorder
}

func newClients(kubeconfig string) (*clients, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	config.QPS, config.Burst = 1e6, 1e6
	config.Timeout = 2 * time.Minute
	w := &featuregatetest.WarningRecorder{CountOnly: true}
	config.WarningHandler = w
	crds, err := clientset.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return &clients{config: config, crds: crds, dynamic: dyn, warnings: w}, nil
}

func runE2E(ctx context.Context, o options) (string, error) {
	var md string
	if o.rounds > 0 {
		var err error
		if md, err = runAB(ctx, o); err != nil {
			return md, err
		}
	}
	if len(o.compareGates) == 0 {
		return md, nil
	}
	if md != "" {
		fmt.Println()
	}
	results, err := runCompare(ctx, o, o.stockVersion)
	if cmp := reportCompare(o, results); cmp != "" {
		if md != "" {
			md += "\n"
		}
		md += cmp
	}
	return md, err
}

// runAB runs the rounds of A (CRDFieldLevelVersioning on) and B (off).
func runAB(ctx context.Context, o options) (string, error) {
	s := shape{gates: o.gates, omitDisabled: !o.sendDisabled}
	fmt.Printf("e2e: %d round(s) of A (CRDFieldLevelVersioning=true) then B (=false); each run: a fresh etcd + kube-apiserver,\n", o.rounds)
	fmt.Printf("one CRD with %d gates (%d disabled) on .spec.f*, %d fields per object (~%d bytes of JSON),\n",
		s.gates, s.disabledGates(), len(s.gatedFields())+len(s.ungatedFields())+1, objectSize(s))
	fmt.Printf("%s idle after start-up, %d clients, %d warm-up writes, then %d measured writes (each object: 1 create + %d updates).\n",
		o.idle, o.clients, o.warmup, o.writes, o.updates)
	if s.omitDisabled {
		fmt.Printf("The clients omit the %d fields of disabled gates (-send-disabled=false): A and B store the same data.\n", s.disabledGates())
	} else {
		fmt.Printf("The clients send every field; A drops the %d fields of disabled gates (and warns), B stores them.\n", s.disabledGates())
	}
	fmt.Println()

	var results []runResult
	var runErr error
	for round := 1; round <= o.rounds && runErr == nil; round++ {
		for _, feature := range []bool{true, false} {
			name := "A"
			if !feature {
				name = "B"
			}
			fmt.Printf("round %d, run %s (CRDFieldLevelVersioning=%v): starting the control plane...\n", round, name, feature)
			r, err := runOne(ctx, o, s, round, name, feature)
			if err != nil {
				runErr = fmt.Errorf("round %d, run %s: %w", round, name, err)
				break
			}
			fmt.Printf("round %d, run %s: %d writes in %s: %.1f writes/s, p50 %s, p99 %s, kube-apiserver CPU %s\n",
				round, name, r.writes, r.elapsed.Round(time.Millisecond), r.throughput(), ms(r.p50), ms(r.p99), r.cpu)
			results = append(results, r)
		}
	}
	md := reportE2E(o, results)
	return md, runErr
}

// runOne starts a fresh control plane with the feature on or off, warms up, measures and
// checks that gating was (A) or was not (B) in effect.
func runOne(ctx context.Context, o options, s shape, round int, name string, feature bool) (runResult, error) {
	r := runResult{round: round, name: name, feature: feature}
	dir := filepath.Join(o.workDir, fmt.Sprintf("e2e-round%d-%s", round, name))
	srv, err := startServer(ctx, o, dir, fmt.Sprintf("CRDFieldLevelVersioning=%v", feature))
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
	res, err := setupCRD(ctx, c, s, names)
	if err != nil {
		return r, err
	}
	// The stored CRD shows whether the feature was on: while it is off, the CRD strategy
	// drops spec.customFeatureGates on create.
	stored, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, names.crdName(), metav1.GetOptions{})
	if err != nil {
		return r, err
	}
	got := 0
	if stored.Spec.CustomFeatureGates != nil {
		got = len(stored.Spec.CustomFeatureGates.FeatureGates)
	}
	if want := map[bool]int{true: s.gates, false: 0}[feature]; got != want {
		return r, fmt.Errorf("the stored CRD has %d gates, want %d with CRDFieldLevelVersioning=%v", got, want, feature)
	}

	if err := measure(ctx, o, s, names, res, c, srv.pid, &r, nil); err != nil {
		return r, err
	}

	// Read one measured object back: with the feature on the disabled gates' fields must
	// be gone, with it off they must all be there (unless the clients never sent them).
	obj, err := res.Get(ctx, objectName("obj", 0), metav1.GetOptions{})
	if err != nil {
		return r, err
	}
	if err := s.checkGated(obj, feature || s.omitDisabled); err != nil {
		return r, fmt.Errorf("read-back check (CRDFieldLevelVersioning=%v): %w", feature, err)
	}
	if feature && !s.omitDisabled && r.warnings == 0 {
		return r, fmt.Errorf("no Warning header in %d writes that each sent fields of disabled gates", r.writes)
	}
	probeWarnings, err := probeWrites(ctx, c, res, s, names, feature)
	if err != nil {
		return r, fmt.Errorf("probe (CRDFieldLevelVersioning=%v): %w", feature, err)
	}
	if feature && probeWarnings < int64(2*s.disabledGates()) {
		return r, fmt.Errorf("the probe's create and update drew %d warnings, want at least %d (one per disabled path and write)", probeWarnings, 2*s.disabledGates())
	}
	what := fmt.Sprintf("all %d gated fields kept: gating was off", s.gates)
	if feature {
		what = fmt.Sprintf("the %d fields of disabled gates were dropped, the other %d gated fields kept", s.disabledGates(), s.gates-s.disabledGates())
	}
	fmt.Printf("round %d, run %s: read-back OK (%s; the probe's create+update drew %d warnings)\n", round, name, what, probeWarnings)
	return r, nil
}

// measure does the warm-up writes, then the measured writes, and fills in r's figures:
// count, wall time, latencies, and the CPU time of the kube-apiserver with pid. around, if
// not nil, is called just before (true) and just after (false) the measured writes, outside
// the CPU reading.
func measure(ctx context.Context, o options, s shape, names crdNames, res dynamic.ResourceInterface, c *clients, pid int, r *runResult, around func(starting bool) error) error {
	if o.warmup > 0 {
		if _, _, err := workload(ctx, res, s, names, "warm", o.warmup, o.updates, o.clients); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	if around != nil {
		if err := around(true); err != nil {
			return err
		}
	}
	before, err := readStat(pid)
	if err != nil {
		return err
	}
	warningsBefore := c.warnings.Count()
	lat, elapsed, err := workload(ctx, res, s, names, "obj", o.writes, o.updates, o.clients)
	if err != nil {
		return err
	}
	after, err := readStat(pid)
	if err != nil {
		return err
	}
	if around != nil {
		if err := around(false); err != nil {
			return err
		}
	}
	r.warnings = c.warnings.Count() - warningsBefore
	r.cpu = after.cpu - before.cpu
	r.writes, r.elapsed = len(lat), elapsed
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r.p50, r.p99 = percentile(lat, 50), percentile(lat, 99)
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	r.mean = sum / time.Duration(len(lat))
	return nil
}

// probeWrites creates an object named "probe" with every field (the disabled gates' too),
// updates it once with new values, reads it back and checks it: with gatingActive the
// disabled gates' fields must be gone, without it every field must be there. It returns
// the warnings the two writes drew.
func probeWrites(ctx context.Context, c *clients, res dynamic.ResourceInterface, s shape, names crdNames, gatingActive bool) (int64, error) {
	full := s
	full.omitDisabled = false
	warningsBefore := c.warnings.Count()
	probe, err := res.Create(ctx, full.object(names, benchNamespace, "probe", 0), metav1.CreateOptions{})
	if err != nil {
		return 0, fmt.Errorf("create the probe: %w", err)
	}
	update := full.object(names, benchNamespace, "probe", 1)
	update.SetResourceVersion(probe.GetResourceVersion())
	if _, err := res.Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		return 0, fmt.Errorf("update the probe: %w", err)
	}
	if probe, err = res.Get(ctx, "probe", metav1.GetOptions{}); err != nil {
		return 0, err
	}
	if err := full.checkGated(probe, gatingActive); err != nil {
		return 0, err
	}
	return c.warnings.Count() - warningsBefore, nil
}

// setupCRD creates the namespace and the CRD and waits until the CRD's resource is served.
func setupCRD(ctx context.Context, c *clients, s shape, names crdNames) (dynamic.ResourceInterface, error) {
	return setupThisCRD(ctx, c, s.crd(names), names)
}

// setupThisCRD creates the namespace and crd (a CRD for names) and waits until the CRD's
// resource is served.
func setupThisCRD(ctx context.Context, c *clients, crd *apiextensionsv1.CustomResourceDefinition, names crdNames) (dynamic.ResourceInterface, error) {
	if err := createNamespace(ctx, c); err != nil {
		return nil, err
	}
	if _, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("cannot create the CRD: %w", err)
	}
	return waitServed(ctx, c, names)
}

func createNamespace(ctx context.Context, c *clients) error {
	ns := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": benchNamespace},
	}}
	if _, err := c.dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("cannot create namespace %s: %w", benchNamespace, err)
	}
	return nil
}

// waitServed waits until the CRD of names is established and its resource can be listed.
func waitServed(ctx context.Context, c *clients, names crdNames) (dynamic.ResourceInterface, error) {
	res := c.dynamic.Resource(schema.GroupVersionResource{Group: benchGroup, Version: "v1", Resource: names.plural}).Namespace(benchNamespace)
	err := poll(ctx, time.Minute, func() (bool, error) {
		crd, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, names.crdName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !established(crd) {
			return false, nil
		}
		_, err = res.List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the CRD %s was not established and served: %w", names.crdName(), err)
	}
	return res, nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, cond := range crd.Status.Conditions {
		if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// poll calls cond every 200ms until it is true, it fails, or timeout passes.
func poll(ctx context.Context, timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func objectName(prefix string, i int) string { return fmt.Sprintf("%s-%05d", prefix, i) }

// workload does exactly `writes` writes with `workers` concurrent clients: objects are
// created, then updated `updates` times each (each update sends every field, with new
// values, on the resourceVersion of the previous answer). It returns the latency of every
// write and the wall time of the whole. Any failed write is an error.
func workload(ctx context.Context, res dynamic.ResourceInterface, s shape, names crdNames, prefix string, writes, updates, workers int) ([]time.Duration, time.Duration, error) {
	objects := plan(writes, updates)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int, len(objects))
	for i := range objects {
		jobs <- i
	}
	close(jobs)

	var (
		mu       sync.Mutex
		all      = make([]time.Duration, 0, writes)
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, writes/workers+1+updates)
			defer func() {
				mu.Lock()
				all = append(all, lat...)
				mu.Unlock()
			}()
			for i := range jobs {
				if ctx.Err() != nil {
					return
				}
				name := objectName(prefix, i)
				t := time.Now()
				got, err := res.Create(ctx, s.object(names, benchNamespace, name, 0), metav1.CreateOptions{})
				if err != nil {
					fail(fmt.Errorf("create %s: %w", name, err))
					return
				}
				lat = append(lat, time.Since(t))
				for u := 1; u < objects[i]; u++ {
					obj := s.object(names, benchNamespace, name, u)
					obj.SetResourceVersion(got.GetResourceVersion())
					t := time.Now()
					got, err = res.Update(ctx, obj, metav1.UpdateOptions{})
					if err != nil {
						fail(fmt.Errorf("update %d of %s: %w", u, name, err))
						return
					}
					lat = append(lat, time.Since(t))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return nil, 0, firstErr
	}
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	if len(all) != writes {
		return nil, 0, fmt.Errorf("did %d writes, want %d", len(all), writes)
	}
	return all, elapsed, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

// reportE2E prints the results table and the A/B ratios, and returns them as markdown.
func reportE2E(o options, results []runResult) string {
	if len(results) == 0 {
		return ""
	}
	var md strings.Builder
	md.WriteString("## Ours: CRDFieldLevelVersioning on (A) vs off (B)\n\n")
	fmt.Fprintf(&md, "%d gates (%d disabled), objects of %d bytes, clients send the disabled gates' fields: %v; %d clients, %d measured writes per run (1 create + %d updates per object), %d warm-up writes, %d round(s).\n\n",
		o.gates, shape{gates: o.gates}.disabledGates(), objectSize(shape{gates: o.gates, omitDisabled: !o.sendDisabled}), o.sendDisabled, o.clients, o.writes, o.updates, o.warmup, o.rounds)
	header := []string{"round", "run", "CRDFieldLevelVersioning", "writes", "wall time", "writes/s", "p50", "p99", "mean", "apiserver CPU/write", "warnings/write"}
	var rows [][]string
	for _, r := range results {
		rows = append(rows, []string{
			fmt.Sprint(r.round), r.name, fmt.Sprint(r.feature), fmt.Sprint(r.writes), r.elapsed.Round(time.Millisecond).String(),
			fmt.Sprintf("%.1f", r.throughput()), ms(r.p50), ms(r.p99), ms(r.mean),
			ms(r.cpu / time.Duration(r.writes)), fmt.Sprintf("%.1f", float64(r.warnings)/float64(r.writes)),
		})
	}
	fmt.Println()
	printTable(header, rows)
	writeMarkdownTable(&md, header, rows)

	// Ratios per round (A/B for throughput; A/B for latency, where lower is better).
	var ratios, p50s, cpus []float64
	header2 := []string{"round", "A writes/s", "B writes/s", "throughput A/B", "p50 A/B", "p99 A/B", "CPU/write A/B"}
	var rows2 [][]string
	byRound := map[int]map[string]runResult{}
	for _, r := range results {
		if byRound[r.round] == nil {
			byRound[r.round] = map[string]runResult{}
		}
		byRound[r.round][r.name] = r
	}
	for round := 1; round <= o.rounds; round++ {
		a, okA := byRound[round]["A"]
		b, okB := byRound[round]["B"]
		if !okA || !okB {
			continue
		}
		ratio := a.throughput() / b.throughput()
		p50 := float64(a.p50) / float64(b.p50)
		p99 := float64(a.p99) / float64(b.p99)
		cpu := float64(a.cpu) / float64(b.cpu)
		ratios, p50s, cpus = append(ratios, ratio), append(p50s, p50), append(cpus, cpu)
		rows2 = append(rows2, []string{fmt.Sprint(round), fmt.Sprintf("%.1f", a.throughput()), fmt.Sprintf("%.1f", b.throughput()),
			fmt.Sprintf("%.3f", ratio), fmt.Sprintf("%.3f", p50), fmt.Sprintf("%.3f", p99), fmt.Sprintf("%.3f", cpu)})
	}
	if len(ratios) == 0 {
		return md.String()
	}
	fmt.Println()
	printTable(header2, rows2)
	md.WriteString("\n")
	writeMarkdownTable(&md, header2, rows2)

	var thrA, thrB []float64
	for _, r := range results {
		if _, ok := byRound[r.round]["B"]; !ok {
			continue
		}
		if r.feature {
			thrA = append(thrA, r.throughput())
		} else {
			thrB = append(thrB, r.throughput())
		}
	}
	med := median(ratios)
	verdict := "MET"
	if med < o.goal {
		verdict = "NOT MET"
	}
	summary := fmt.Sprintf("Median A/B throughput ratio over %d round(s): %.3f (per round: %s); median throughput A %.1f writes/s, B %.1f writes/s (ratio of medians %.3f).\n"+
		"Median A/B p50 latency ratio %.3f, median A/B kube-apiserver CPU per write ratio %.3f.\n"+
		"Goal A/B >= %.2f on throughput: %s.\n",
		len(ratios), med, joinFloats(ratios), median(thrA), median(thrB), median(thrA)/median(thrB), median(p50s), median(cpus), o.goal, verdict)
	fmt.Println()
	fmt.Print(summary)
	md.WriteString("\n" + summary)
	return md.String()
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(s, ", ")
}

func printTable(header []string, rows [][]string) {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				fmt.Print("  ")
			}
			fmt.Printf("%-*s", widths[i], c)
		}
		fmt.Println()
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
}

func writeMarkdownTable(md *strings.Builder, header []string, rows [][]string) {
	md.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		md.WriteString(" --- |")
	}
	md.WriteString("\n")
	for _, r := range rows {
		md.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}

// objectSize is the JSON size of a generated object.
func objectSize(s shape) int {
	data, err := s.object(namesFor(""), benchNamespace, objectName("obj", 0), 0).MarshalJSON()
	if err != nil {
		return 0
	}
	return len(data)
}
