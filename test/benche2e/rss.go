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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// memSample is one look at the kube-apiserver's memory.
type memSample struct {
	vmRSS, rollupRss int64 // bytes: /proc/<pid>/status VmRSS, /proc/<pid>/smaps_rollup Rss
	// heapInuse and heapAlloc come from the server's runtime.MemStats right after a
	// forced GC (/debug/pprof/heap?gc=1); -1 when the endpoint did not answer.
	heapInuse, heapAlloc int64
}

// rssResult is one configuration of rss mode.
type rssResult struct {
	label       string
	gates       int
	crds        int
	baseline    memSample // before the first CRD
	samples     []memSample
	createTime  time.Duration
	establishTo time.Duration // from the first create until all CRDs were established
	touchTime   time.Duration
	profile     string // heap profile after the last sample
}

func runRSS(ctx context.Context, o options) (string, error) {
	configs := []shape{{gates: 0}, {gates: o.gates}}
	fmt.Printf("rss: kube-apiserver memory (CRDFieldLevelVersioning=true) with %d CRDs without gates vs %d CRDs with %d gates each;\n", o.crds, o.crds, o.gates)
	fmt.Printf("each configuration in a fresh control plane; %d creators; settle %s, then %d samples every %s.\n\n",
		o.creators, o.settle, o.samples, o.sampleInterval)
	var results []rssResult
	var runErr error
	for _, s := range configs {
		r, err := rssOne(ctx, o, s)
		if err != nil {
			runErr = fmt.Errorf("%d CRDs with %d gates: %w", o.crds, s.gates, err)
			break
		}
		results = append(results, r)
	}
	return reportRSS(o, results), runErr
}

func rssOne(ctx context.Context, o options, s shape) (rssResult, error) {
	r := rssResult{label: fmt.Sprintf("%d gates", s.gates), gates: s.gates, crds: o.crds}
	dir := filepath.Join(o.workDir, fmt.Sprintf("rss-%dgates", s.gates))
	fmt.Printf("[%s] starting a fresh control plane...\n", r.label)
	srv, err := startServer(ctx, o, dir, "CRDFieldLevelVersioning=true")
	if err != nil {
		return r, err
	}
	defer srv.cp.Stop()
	c, err := newClients(srv.cp.Kubeconfig)
	if err != nil {
		return r, err
	}
	if err := sleep(ctx, 10*time.Second); err != nil {
		return r, err
	}
	if r.baseline, err = sampleMemory(ctx, c, srv.pid); err != nil {
		return r, err
	}
	fmt.Printf("[%s] kube-apiserver pid %d, baseline RSS %s, heap in use %s\n", r.label, srv.pid, mib(r.baseline.vmRSS), mib(r.baseline.heapInuse))

	// Create the CRDs with several concurrent creators.
	start := time.Now()
	var created atomic.Int64
	if err := parallel(ctx, o.crds, o.creators, func(i int) error {
		crd := s.crd(namesFor(fmt.Sprintf("%05d", i)))
		if _, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
		created.Add(1)
		return nil
	}, func() string { return fmt.Sprintf("[%s] created %d/%d CRDs", r.label, created.Load(), o.crds) }); err != nil {
		return r, err
	}
	r.createTime = time.Since(start)
	fmt.Printf("[%s] created %d CRDs in %s\n", r.label, o.crds, r.createTime.Round(time.Millisecond))

	// Wait until all are established.
	lastPrint := time.Now()
	err = poll(ctx, 30*time.Minute, func() (bool, error) {
		list, err := c.crds.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := 0
		for i := range list.Items {
			if established(&list.Items[i]) {
				n++
			}
		}
		if time.Since(lastPrint) > 10*time.Second {
			fmt.Printf("[%s] established %d/%d\n", r.label, n, o.crds)
			lastPrint = time.Now()
		}
		if n >= o.crds {
			return true, nil
		}
		// Do not hammer the server with 1000-item lists.
		return false, sleep(ctx, 2*time.Second)
	})
	if err != nil {
		return r, fmt.Errorf("waiting for the CRDs to be established: %w", err)
	}
	r.establishTo = time.Since(start)
	fmt.Printf("[%s] all %d CRDs established %s after the first create\n", r.label, o.crds, r.establishTo.Round(time.Millisecond))

	// A CRD's serving state (storage, watch cache, compiled gates) is built on the first
	// request for its resources; list each once so it exists, as for CRDs in use.
	if o.touch {
		start := time.Now()
		var touched atomic.Int64
		if err := parallel(ctx, o.crds, o.creators, func(i int) error {
			names := namesFor(fmt.Sprintf("%05d", i))
			res := c.dynamic.Resource(schema.GroupVersionResource{Group: benchGroup, Version: "v1", Resource: names.plural})
			err := poll(ctx, 2*time.Minute, func() (bool, error) {
				_, err := res.List(ctx, metav1.ListOptions{Limit: 1})
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				return err == nil, err
			})
			if err != nil {
				return fmt.Errorf("list %s: %w", names.crdName(), err)
			}
			touched.Add(1)
			return nil
		}, func() string {
			return fmt.Sprintf("[%s] listed the resources of %d/%d CRDs", r.label, touched.Load(), o.crds)
		}); err != nil {
			return r, err
		}
		r.touchTime = time.Since(start)
		fmt.Printf("[%s] listed the resources of all %d CRDs in %s\n", r.label, o.crds, r.touchTime.Round(time.Millisecond))
	}

	fmt.Printf("[%s] settling for %s...\n", r.label, o.settle)
	if err := sleep(ctx, o.settle); err != nil {
		return r, err
	}
	for i := 0; i < o.samples; i++ {
		if i > 0 {
			if err := sleep(ctx, o.sampleInterval); err != nil {
				return r, err
			}
		}
		m, err := sampleMemory(ctx, c, srv.pid)
		if err != nil {
			return r, err
		}
		fmt.Printf("[%s] sample %d/%d: VmRSS %s, smaps_rollup Rss %s, heap in use after GC %s, heap alloc %s\n",
			r.label, i+1, o.samples, mib(m.vmRSS), mib(m.rollupRss), mib(m.heapInuse), mib(m.heapAlloc))
		r.samples = append(r.samples, m)
	}
	// A heap profile for `go tool pprof -diff_base`, kept with -keep.
	profile, err := c.crds.Discovery().RESTClient().Get().AbsPath("/debug/pprof/heap").Param("gc", "1").Timeout(time.Minute).DoRaw(ctx)
	if err == nil {
		r.profile = filepath.Join(dir, "heap.pprof")
		if err := os.WriteFile(r.profile, profile, 0o644); err != nil {
			return r, err
		}
	}
	return r, nil
}

// parallel runs f(0..n-1) on workers goroutines, stops at the first error, and prints
// progress() every 10 seconds.
func parallel(ctx context.Context, n, workers int, f func(i int) error, progress func() string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int, n)
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Println(progress())
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if ctx.Err() != nil {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// sampleMemory reads the RSS from /proc, then forces a GC in the server through its
// profiling endpoint and reads the heap figures of runtime.MemStats that it prints.
func sampleMemory(ctx context.Context, c *clients, pid int) (memSample, error) {
	m := memSample{heapInuse: -1, heapAlloc: -1}
	status, err := readKB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS")
	if err != nil {
		return m, err
	}
	rollup, err := readKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Rss")
	if err != nil {
		return m, err
	}
	m.vmRSS, m.rollupRss = status["VmRSS"]*1024, rollup["Rss"]*1024
	body, err := c.crds.Discovery().RESTClient().Get().AbsPath("/debug/pprof/heap").
		Param("gc", "1").Param("debug", "1").Timeout(time.Minute).DoRaw(ctx)
	if err != nil {
		fmt.Printf("(no heap figures: /debug/pprof/heap: %v)\n", err)
		return m, nil
	}
	stats := parseMemStats(body)
	if v, ok := stats["HeapInuse"]; ok {
		m.heapInuse = v
	}
	if v, ok := stats["HeapAlloc"]; ok {
		m.heapAlloc = v
	}
	return m, nil
}

// parseMemStats reads the "# Name = value" lines that a debug=1 heap profile ends with.
func parseMemStats(profile []byte) map[string]int64 {
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(profile))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "# ")
		if !ok {
			continue
		}
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		out[k] = n
	}
	return out
}

func mib(b int64) string {
	if b < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

type memStat struct{ min, median int64 }

func stat(samples []memSample, get func(memSample) int64) memStat {
	var xs []int64
	for _, s := range samples {
		if v := get(s); v >= 0 {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return memStat{-1, -1}
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	med := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		med = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return memStat{min: xs[0], median: med}
}

func reportRSS(o options, results []rssResult) string {
	if len(results) == 0 {
		return ""
	}
	var md strings.Builder
	fmt.Fprintf(&md, "%d CRDs per configuration, CRDFieldLevelVersioning=true, fresh control plane each; settle %s, %d samples every %s; resources listed once per CRD: %v.\n\n",
		o.crds, o.settle, o.samples, o.sampleInterval, o.touch)
	header := []string{"config", "CRD JSON", "CRDs", "create time", "all established after", "list time", "baseline RSS", "VmRSS min", "VmRSS median", "smaps Rss median", "heap in use after GC (median)", "live heap after GC (median)"}
	var rows [][]string
	for _, r := range results {
		rows = append(rows, []string{
			r.label, fmt.Sprintf("%d B", crdSize(shape{gates: r.gates})), fmt.Sprint(r.crds), r.createTime.Round(time.Millisecond).String(), r.establishTo.Round(time.Millisecond).String(),
			r.touchTime.Round(time.Millisecond).String(), mib(r.baseline.vmRSS),
			mib(stat(r.samples, func(m memSample) int64 { return m.vmRSS }).min),
			mib(stat(r.samples, func(m memSample) int64 { return m.vmRSS }).median),
			mib(stat(r.samples, func(m memSample) int64 { return m.rollupRss }).median),
			mib(stat(r.samples, func(m memSample) int64 { return m.heapInuse }).median),
			mib(stat(r.samples, func(m memSample) int64 { return m.heapAlloc }).median),
		})
	}
	fmt.Println()
	printTable(header, rows)
	writeMarkdownTable(&md, header, rows)
	if len(results) < 2 {
		return md.String()
	}
	plain, gated := results[0], results[1]
	paths := int64(gated.crds) * int64(gated.gates)
	var lines []string
	for _, m := range []struct {
		name string
		get  func(memSample) int64
	}{
		{"VmRSS median", func(m memSample) int64 { return m.vmRSS }},
		{"VmRSS min", nil},
		{"heap in use after GC (median)", func(m memSample) int64 { return m.heapInuse }},
		{"live heap after GC (median)", func(m memSample) int64 { return m.heapAlloc }},
	} {
		var a, b int64
		if m.get == nil {
			a = stat(gated.samples, func(m memSample) int64 { return m.vmRSS }).min
			b = stat(plain.samples, func(m memSample) int64 { return m.vmRSS }).min
		} else {
			a, b = stat(gated.samples, m.get).median, stat(plain.samples, m.get).median
		}
		if a < 0 || b < 0 {
			continue
		}
		d := a - b
		line := fmt.Sprintf("%s: %d gates %s, no gates %s, difference %s = %.1f KiB per CRD", m.name, gated.gates, mib(a), mib(b), signedMiB(d), float64(d)/1024/float64(gated.crds))
		if paths > 0 {
			line += fmt.Sprintf(" = %.0f bytes per gated path", float64(d)/float64(paths))
		}
		lines = append(lines, line)
	}
	if plain.profile != "" && gated.profile != "" {
		lines = append(lines, fmt.Sprintf("heap profiles (kept with -keep): go tool pprof -sample_index=inuse_space -diff_base %s %s", plain.profile, gated.profile))
	}
	summary := "Difference (" + fmt.Sprint(gated.gates) + " gates per CRD minus none; " + fmt.Sprint(paths) + " gated paths in all):\n- " + strings.Join(lines, "\n- ") + "\n"
	fmt.Println()
	fmt.Print(summary)
	md.WriteString("\n" + summary)
	return md.String()
}

func signedMiB(b int64) string {
	return fmt.Sprintf("%+.1f MiB", float64(b)/(1<<20))
}

// crdSize is the JSON size of one generated CRD as sent (without status or managedFields).
func crdSize(s shape) int {
	data, err := json.Marshal(s.crd(namesFor("00000")))
	if err != nil {
		return 0
	}
	return len(data)
}
