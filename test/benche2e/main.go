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

// Command benche2e measures the cost of CRD field feature gates (KEP-2608) on a real
// control plane: this fork's kube-apiserver binary and a real etcd, started by
// test/localup on free loopback ports.
//
// -mode e2e (the default) compares write throughput and latency of custom resources whose
// CRD has -gates gates (half of them disabled) with the feature gate CRDFieldLevelVersioning
// on (run A) against the same server binary with the feature off (run B). Each round starts
// a fresh control plane for A, measures, stops it, then does the same for B. Then, for each
// gate count of -compare-gates, it measures the same workload on three backends: the stock
// kube-apiserver (-stock-apiserver) with the CRD's stock form (upstream, the baseline), ours
// with the gated CRD, and the stock kube-apiserver with featuregate-gen policies' output
// (stock+policies: stock CRD, parameter object, admission policies), and reads the policies'
// cost per write from the server's /metrics.
//
// -mode rss compares the kube-apiserver's resident memory after creating -crds CRDs with
// -gates gates each against -crds CRDs without gates, each in a fresh control plane.
//
//	go run ./test/benche2e -bin-dir _output/bin [-mode e2e|rss] [flags]
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
)

type options struct {
	binDir  string
	mode    string
	workDir string
	keep    bool
	out     string

	gates int

	// e2e
	clients int
	writes  int
	updates int
	warmup  int
	rounds  int
	goal    float64
	idle    time.Duration

	sendDisabled bool

	// e2e: the three-backend comparison
	stockAPIServer string
	compareGates   []int
	compareRounds  int
	compareWrites  int
	policyTimeout  time.Duration
	stockVersion   string // what the copied stock kube-apiserver --version printed
	cpuProfile     time.Duration
	slimParam      string
	paramConfigMap bool

	// rss
	crds           int
	creators       int
	settle         time.Duration
	samples        int
	sampleInterval time.Duration
	touch          bool
}

func main() {
	var o options
	flag.StringVar(&o.binDir, "bin-dir", "", "directory holding the etcd and kube-apiserver binaries (required; make binaries builds them in _output/bin)")
	flag.StringVar(&o.mode, "mode", "e2e", "e2e: write throughput and latency, feature on (A) vs off (B); rss: kube-apiserver memory with -crds gated vs ungated CRDs")
	flag.StringVar(&o.workDir, "work-dir", "", "directory for the control planes' PKI, etcd data and logs (default: a new temporary directory, removed at the end unless -keep)")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (logs, etcd data) at the end")
	flag.StringVar(&o.out, "out", "", "also write the results as a markdown file here")
	flag.IntVar(&o.gates, "gates", 50, "gates per CRD, each guarding one field .spec.fNN; half of them are disabled (0-128)")
	flag.IntVar(&o.clients, "clients", 8, "e2e: concurrent writers")
	flag.IntVar(&o.writes, "writes", 2000, "e2e: measured writes per run (creates plus updates)")
	flag.IntVar(&o.updates, "updates", 3, "e2e: updates per object after its create")
	flag.IntVar(&o.warmup, "warmup", 200, "e2e: unmeasured writes before each measured run")
	flag.IntVar(&o.rounds, "rounds", 3, "e2e: rounds; each round measures A then B (0: only the comparison)")
	flag.DurationVar(&o.idle, "idle", 10*time.Second, "e2e: wait this long after the server is ready (its start-up work: RBAC bootstrap, OpenAPI) before the CRD and the warm-up")
	compareGates := flag.String("compare-gates", "0,5,50", "e2e: gate counts of the comparison of upstream (stock kube-apiserver, stock CRD), ours and stock+policies, comma-separated; empty: no comparison")
	flag.StringVar(&o.stockAPIServer, "stock-apiserver", filepath.Join("_output", "stock", "kube-apiserver"), "e2e: the stock kube-apiserver binary of the comparison (make _output/stock/kube-apiserver builds it)")
	flag.IntVar(&o.compareRounds, "compare-rounds", 1, "e2e: rounds of the comparison; each round measures every gate count on the three backends")
	flag.IntVar(&o.compareWrites, "compare-writes", 500, "e2e: measured writes per run of the comparison (stock+policies with 50 gates writes several times slower than the others)")
	flag.DurationVar(&o.policyTimeout, "policy-timeout", 2*time.Minute, "e2e: how long stock+policies may take after the policies are applied until a write shows them in force")
	flag.DurationVar(&o.cpuProfile, "cpu-profile", 0, "e2e: in each run of the comparison, take a CPU profile of the kube-apiserver this long from the start of the measured writes (its /debug/pprof/profile) and save it in the work directory as compare-round<R>-gates<N>-<backend>.pprof; 0: none")
	flag.StringVar(&o.slimParam, "slim-param", "", "e2e, an experiment on stock+policies: after applying the parameter object, strip from it what the policies do not read, to measure what converting it for CEL costs the stock server on every write; managed-fields: clear its metadata.managedFields (breaks an admin's server-side-apply ownership of a gate's enabled); all: also drop every gate's fieldPaths (which the tools read); empty: the object as generated")
	flag.BoolVar(&o.paramConfigMap, "param-configmap", false, "e2e, an experiment on stock+policies: the policies read each gate's state from a ConfigMap in the bench namespace instead of the parameter object (a built-in kind, which the stock server reads for CEL lazily instead of converting it whole through JSON), to measure what that design would cost per write; the tools do not read such a ConfigMap")
	flag.BoolVar(&o.sendDisabled, "send-disabled", true, "e2e: the clients send the fields of disabled gates, which A drops (with warnings) and B stores; false: they omit them, so A and B store the same data and the ratio isolates the gating work")
	flag.Float64Var(&o.goal, "goal", 0.97, "e2e: the A/B throughput ratio the median should reach (reported, never fatal)")
	flag.IntVar(&o.crds, "crds", 1000, "rss: CRDs to create in each configuration")
	flag.IntVar(&o.creators, "creators", 8, "rss: concurrent CRD creators")
	flag.DurationVar(&o.settle, "settle", 30*time.Second, "rss: wait this long after the last CRD is established (and served) before sampling")
	flag.IntVar(&o.samples, "samples", 5, "rss: memory samples per configuration")
	flag.DurationVar(&o.sampleInterval, "sample-interval", 5*time.Second, "rss: time between samples")
	flag.BoolVar(&o.touch, "touch", true, "rss: list every CRD's custom resources once, so the server builds its serving state (storage, compiled gates) as it does for CRDs in use")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "benche2e: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	gates, err := parseInts(*compareGates)
	if err != nil {
		fmt.Fprintf(os.Stderr, "benche2e: -compare-gates: %v\n", err)
		os.Exit(2)
	}
	o.compareGates = gates
	if err := o.validate(); err != nil {
		fmt.Fprintf(os.Stderr, "benche2e: %v\n", err)
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(run(o))
}

func (o *options) validate() error {
	if o.binDir == "" {
		return errors.New("-bin-dir is required")
	}
	if o.slimParam != "" && o.slimParam != "managed-fields" && o.slimParam != "all" {
		return fmt.Errorf("-slim-param %q: want managed-fields, all or empty", o.slimParam)
	}
	if o.slimParam != "" && o.paramConfigMap {
		return errors.New("-slim-param and -param-configmap are two different experiments; give one")
	}
	abs, err := filepath.Abs(o.binDir)
	if err != nil {
		return err
	}
	o.binDir = abs
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(o.binDir, b)); err != nil {
			return fmt.Errorf("%s is not built (%v); run `make binaries` first", filepath.Join(o.binDir, b), err)
		}
	}
	compare := o.mode == "e2e" && len(o.compareGates) > 0
	switch {
	case o.mode != "e2e" && o.mode != "rss":
		return fmt.Errorf("-mode must be e2e or rss, not %q", o.mode)
	case o.gates < 0 || o.gates > 128:
		return fmt.Errorf("-gates must be between 0 and 128 (the API's limit), not %d", o.gates)
	case o.mode == "e2e" && o.rounds > 0 && o.gates < 2:
		return fmt.Errorf("-mode e2e needs at least 2 gates, so that one is disabled")
	case o.clients < 1 || o.writes < 1 || o.rounds < 0 || (o.rounds == 0 && !compare) || o.updates < 0 || o.warmup < 0:
		return errors.New("-clients, -writes and -rounds must be positive (-rounds may be 0 with -compare-gates), -updates and -warmup not negative")
	case compare && (o.compareRounds < 1 || o.compareWrites < 1):
		return errors.New("-compare-rounds and -compare-writes must be positive")
	case o.crds < 1 || o.creators < 1 || o.samples < 1:
		return errors.New("-crds, -creators and -samples must be positive")
	}
	for _, g := range o.compareGates {
		if g < 0 || g > 128 {
			return fmt.Errorf("-compare-gates: %d is not between 0 and 128 (the API's limit)", g)
		}
	}
	if compare {
		abs, err := filepath.Abs(o.stockAPIServer)
		if err != nil {
			return err
		}
		o.stockAPIServer = abs
		if _, err := os.Stat(o.stockAPIServer); err != nil {
			return fmt.Errorf("the stock kube-apiserver %s is not built (%v); run `make _output/stock/kube-apiserver`, pass -stock-apiserver, or -compare-gates '' to skip the comparison", o.stockAPIServer, err)
		}
	}
	return nil
}

// parseInts reads a comma-separated list of integers; an empty string is an empty list.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func run(o options) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	removeWorkDir := false
	if o.workDir == "" {
		dir, err := os.MkdirTemp("", "benche2e-")
		if err != nil {
			fmt.Fprintf(os.Stderr, "benche2e: %v\n", err)
			return 1
		}
		o.workDir = dir
		removeWorkDir = !o.keep
		defer func() {
			if removeWorkDir {
				_ = os.RemoveAll(dir)
			}
		}()
	} else if err := os.MkdirAll(o.workDir, 0o700); err != nil {
		fmt.Fprintf(os.Stderr, "benche2e: %v\n", err)
		return 1
	}
	if abs, err := filepath.Abs(o.workDir); err == nil {
		o.workDir = abs
	}

	start := time.Now()
	fmt.Printf("benche2e -mode %s: %s\n", o.mode, machine())
	// Every run uses a private copy of the binaries, so that a rebuild of -bin-dir while
	// the benchmark runs cannot change the server between A and B.
	version, err := snapshotBinaries(ctx, o.binDir, filepath.Join(o.workDir, "bin"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "benche2e: %v\n", err)
		return 1
	}
	fmt.Printf("binaries copied from %s (kube-apiserver %s), work dir %s\n", o.binDir, version, o.workDir)
	o.binDir = filepath.Join(o.workDir, "bin")
	if o.mode == "e2e" && len(o.compareGates) > 0 {
		stock := filepath.Join(o.binDir, "stock-kube-apiserver")
		v, err := snapshotFile(ctx, o.stockAPIServer, stock)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benche2e: %v\n", err)
			return 1
		}
		fmt.Printf("stock kube-apiserver copied from %s (%s)\n", o.stockAPIServer, v)
		o.stockAPIServer, o.stockVersion = stock, v
	}
	fmt.Println()
	var md string
	switch o.mode {
	case "e2e":
		md, err = runE2E(ctx, o)
	case "rss":
		md, err = runRSS(ctx, o)
	}
	fmt.Printf("\nTotal wall time: %s\n", time.Since(start).Round(time.Second))
	if md != "" && o.out != "" {
		header := fmt.Sprintf("# benche2e -mode %s\n\n- date: %s\n- machine: %s\n- command: `%s`\n- wall time: %s\n\n",
			o.mode, start.UTC().Format(time.RFC3339), machine(), strings.Join(append([]string{"go run ./test/benche2e"}, os.Args[1:]...), " "), time.Since(start).Round(time.Second))
		if werr := os.WriteFile(o.out, []byte(header+md), 0o644); werr != nil {
			fmt.Fprintf(os.Stderr, "benche2e: cannot write %s: %v\n", o.out, werr)
			return 1
		}
		fmt.Printf("Wrote %s\n", o.out)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benche2e: %v\n", err)
		// Keep the logs of a failed run.
		removeWorkDir = false
		fmt.Fprintf(os.Stderr, "the control planes' logs are under %s\n", o.workDir)
		return 1
	}
	return 0
}

// snapshotBinaries copies etcd and kube-apiserver from src to dst, retrying while a
// file changes under the copy, and returns what `kube-apiserver --version` prints.
func snapshotBinaries(ctx context.Context, src, dst string) (string, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	if err := copyStableRetrying(ctx, filepath.Join(src, "etcd"), filepath.Join(dst, "etcd")); err != nil {
		return "", err
	}
	return snapshotFile(ctx, filepath.Join(src, "kube-apiserver"), filepath.Join(dst, "kube-apiserver"))
}

// snapshotFile copies the kube-apiserver binary src to dst, as snapshotBinaries does, and
// returns what `dst --version` prints.
func snapshotFile(ctx context.Context, src, dst string) (string, error) {
	if err := copyStableRetrying(ctx, src, dst); err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, dst, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("the copy of %s does not run (%v): %s", src, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// copyStableRetrying calls copyStable for up to 5 minutes while src keeps changing.
func copyStableRetrying(ctx context.Context, src, dst string) error {
	var err error
	for attempt := 0; attempt < 30; attempt++ {
		if err = copyStable(src, dst); err == nil {
			return nil
		}
		fmt.Printf("(waiting for %s to stop changing: %v)\n", src, err)
		if serr := sleep(ctx, 10*time.Second); serr != nil {
			return serr
		}
	}
	return err
}

// copyStable copies src to dst and fails if src was modified in the last few seconds or
// during the copy.
func copyStable(src, dst string) error {
	before, err := os.Stat(src)
	if err != nil {
		return err
	}
	if age := time.Since(before.ModTime()); age < 5*time.Second {
		return fmt.Errorf("modified %s ago", age.Round(time.Millisecond))
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	after, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		return errors.New("changed during the copy")
	}
	return nil
}

// server is one running control plane and the kube-apiserver's pid.
type server struct {
	cp  *localup.ControlPlane
	pid int
}

// startServer starts a fresh etcd (data in dir) and kube-apiserver on free ports, with the
// PKI shared by all runs.
func startServer(ctx context.Context, o options, dir, featureGates string) (*server, error) {
	return startServerWith(ctx, o, dir, "", featureGates)
}

// startServerWith is startServer with the kube-apiserver binary apiserver ("": ours, in
// o.binDir).
func startServerWith(ctx context.Context, o options, dir, apiserver, featureGates string) (*server, error) {
	ports, err := featuregatetest.FreePorts(3)
	if err != nil {
		return nil, err
	}
	cp, err := localup.Start(ctx, localup.Options{
		Dir:    dir,
		BinDir: o.binDir,
		PKIDir: filepath.Join(o.workDir, "pki"),
		// Only loopback ports that were free a moment ago; never make run's or a test's.
		EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2],
		KubeAPIServer: apiserver,
		FeatureGates:  featureGates,
		ReadyTimeout:  3 * time.Minute,
	})
	if err != nil {
		return nil, err
	}
	bin := apiserver
	if bin == "" {
		bin = filepath.Join(o.binDir, "kube-apiserver")
	}
	pid, err := findAPIServerPID(bin, ports[2])
	if err != nil {
		cp.Stop()
		return nil, err
	}
	return &server{cp: cp, pid: pid}, nil
}

// findAPIServerPID finds the kube-apiserver that this process started on port: a child
// of ours running bin with --secure-port=port. (localup does not expose the pid.)
func findAPIServerPID(bin string, port int) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	portArg := []byte("--secure-port=" + strconv.Itoa(port))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := readStat(pid)
		if err != nil || stat.ppid != os.Getpid() {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		// A binary rebuilt while it runs shows as "<path> (deleted)".
		if err != nil || strings.TrimSuffix(exe, " (deleted)") != bin {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		for _, arg := range bytes.Split(cmdline, []byte{0}) {
			if bytes.Equal(arg, portArg) {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no child process runs %s with %s", bin, portArg)
}

type procStat struct {
	ppid int
	// cpu is user plus system time.
	cpu time.Duration
}

// clockTicks is USER_HZ, which is 100 on every Linux architecture Go supports.
const clockTicks = 100

func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name (field 2) is in parentheses and may contain spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("cannot parse /proc/%d/stat", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("cannot parse /proc/%d/stat", pid)
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.ParseInt(f[11], 10, 64)
	stime, err3 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return procStat{}, fmt.Errorf("cannot parse /proc/%d/stat: %w", pid, err)
	}
	return procStat{ppid: ppid, cpu: time.Duration(utime+stime) * time.Second / clockTicks}, nil
}

// readKB returns the "key: N kB" values of a /proc file such as status or smaps_rollup.
func readKB(path string, keys ...string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || !want[k] {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, k, err)
		}
		out[k] = n
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("%s has no %s", path, k)
		}
	}
	return out, nil
}

// machine describes the host: CPUs, CPU model, memory, Go version.
func machine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := "unknown memory"
	if m, err := readKB("/proc/meminfo", "MemTotal"); err == nil {
		mem = fmt.Sprintf("%.1f GiB RAM", float64(m["MemTotal"])/(1<<20))
	}
	load := ""
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			load = fmt.Sprintf(", load %s %s %s", f[0], f[1], f[2])
		}
	}
	return fmt.Sprintf("%d CPUs (%s), %s, %s %s/%s%s", runtime.NumCPU(), model, mem, runtime.Version(), runtime.GOOS, runtime.GOARCH, load)
}
