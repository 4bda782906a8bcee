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

// Package openshiftapi runs OpenShift's API test suites (the folder layout of openshift/api:
// <group>/<version>/tests/<crd>/<Gate>.yaml) on a stock kube-apiserver with each feature set's
// CRD, as OpenShift installs it, and on our kube-apiserver with the one merged CRD of each type
// (featuregate-gen openshift) whose gates are set to the feature set's states with
// `kubectl featuregates set`, and compares each case's verdict and stored object.
// `make test-openshift-api` builds both servers and runs it; OPENSHIFT_API_DIR names the folder.
package openshiftapi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func env(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set; run `make test-openshift-api`", name)
	}
	return v
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// merged is what featuregate-gen openshift wrote: one CRD per type and the gate states of
// each feature set.
type merged struct {
	crds   map[string]*apiextensionsv1.CustomResourceDefinition // by <group>/<version>/<crd name>
	states map[string]map[string]bool                           // by feature set
	errors string                                               // what it could not merge
}

// merge runs featuregate-gen openshift on the suites' group/version folders.
func merge(t *testing.T, binDir string, l *Layout) *merged {
	t.Helper()
	out := t.TempDir()
	dirs := map[string]bool{}
	for _, s := range l.Suites {
		dirs[s.Dir] = true
	}
	args := []string{"openshift", "--dir", l.Dir, "--out", out, "--groups", strings.Join(sortedKeys(dirs), ","), "--cluster-profile", l.Profile}
	cmd := exec.Command(filepath.Join(binDir, "featuregate-gen"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	m := &merged{crds: map[string]*apiextensionsv1.CustomResourceDefinition{}, states: map[string]map[string]bool{}}
	if err := cmd.Run(); err != nil {
		// Exit 1: some CRDs could not be merged; the others were written.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("featuregate-gen %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		m.errors = stderr.String()
		t.Logf("featuregate-gen could not merge every CRD:\n%s", m.errors)
	}
	for dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(out, dir, "*.yaml"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.UnmarshalStrict(data, crd); err != nil {
				t.Fatalf("merged CRD %s: %v", f, err)
			}
			m.crds[dir+"/"+crd.Name] = crd
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "featuresets", "*.yaml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sf struct {
			FeatureSet string          `json:"featureSet"`
			Gates      map[string]bool `json:"gates"`
		}
		if err := yaml.Unmarshal(data, &sf); err != nil || sf.FeatureSet == "" {
			t.Fatalf("feature-set states %s: %v", f, err)
		}
		m.states[sf.FeatureSet] = sf.Gates
	}
	if len(m.states) == 0 {
		t.Fatalf("featuregate-gen wrote no featuresets/*.yaml into %s", out)
	}
	// CustomNoUpgrade has no payload file: every gate on, as its CRD holds every field.
	all := map[string]bool{}
	for _, states := range m.states {
		for g := range states {
			all[g] = true
		}
	}
	m.states[customNoUpgrade] = all
	return m
}

// gates are the states to set on the merged CRD's gates for a feature set: every gate that
// the states file lists (combination gates are stable, and follow the gates they require).
func (m *merged) gates(dir, crdName, featureSet string) map[string]bool {
	crd := m.crds[dir+"/"+crdName]
	out := map[string]bool{}
	if crd == nil || crd.Spec.CustomFeatureGates == nil {
		return out
	}
	states := m.states[featureSet]
	for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
		if on, ok := states[g.Name]; ok {
			out[g.Name] = on
		}
	}
	return out
}

func gateKey(gates map[string]bool) string {
	var on []string
	for _, g := range sortedKeys(gates) {
		if gates[g] {
			on = append(on, g)
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}

// outcome is every result of one side, by unit ID and case key.
type outcome map[string]map[string]*Result

func TestOpenShiftAPIDifferential(t *testing.T) {
	binDir := env(t, "E2E_BIN_DIR")
	stockAPIServer := env(t, "OPENSHIFT_API_STOCK_APISERVER")
	dir := env(t, "OPENSHIFT_API_DIR")
	out := env(t, "OPENSHIFT_API_OUT")
	// OPENSHIFT_API_OURS=stock runs the stock server with the feature sets' CRDs on both
	// sides: the runner's self-check, which must find no difference.
	selfCheck := os.Getenv("OPENSHIFT_API_OURS") == "stock"
	parallel := 6
	start := time.Now()

	l, err := LoadLayout(dir, strings.FieldsFunc(os.Getenv("OPENSHIFT_API_GROUPS"), func(r rune) bool { return r == ',' || r == ' ' }), envOr("OPENSHIFT_API_PROFILE", "SelfManagedHA"))
	if err != nil {
		t.Fatal(err)
	}
	var m *merged
	var key func(dir, crdName, fs string) string
	if !selfCheck {
		m = merge(t, binDir, l)
		key = func(dir, crdName, fs string) string { return gateKey(m.gates(dir, crdName, fs)) }
	}
	units, skips, err := l.Plan(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if m != nil {
			u.Gates = m.gates(u.Dir, u.CRDName, u.FeatureSets[0])
		}
	}
	t.Logf("%d suites, %d units to run (%s)", len(l.Suites), len(units), time.Since(start).Round(time.Millisecond))

	ctx := context.Background()
	var stock, ours *server
	var wg sync.WaitGroup
	var errs [2]error
	wg.Add(2)
	go func() {
		defer wg.Done()
		stock, errs[0] = startServer(ctx, "stock", binDir, stockAPIServer, false, t.TempDir())
	}()
	go func() {
		defer wg.Done()
		ours, errs[1] = startServer(ctx, "ours", binDir, stockAPIServer, !selfCheck, t.TempDir())
		if ours != nil && selfCheck {
			ours.name = "stock (self-check)"
		}
	}()
	wg.Wait()
	for _, s := range []*server{stock, ours} {
		if s != nil {
			defer s.cp.Stop()
		}
	}
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("starting the servers: %v; %v", errs[0], errs[1])
	}
	t.Logf("servers up (%s)", time.Since(start).Round(time.Millisecond))

	var stockOut, oursOut outcome
	var setupErrs [2]map[string]string
	wg.Add(2)
	go func() {
		defer wg.Done()
		stockOut, setupErrs[0] = runSide(ctx, t, stock, units, nil, parallel)
	}()
	go func() {
		defer wg.Done()
		oursOut, setupErrs[1] = runSide(ctx, t, ours, units, m, parallel)
	}()
	wg.Wait()
	// A unit that neither side can set up (stock refuses the feature set's CRD, ours the gate
	// change to its states: OpenShift's rules over the CEL cost budget) runs no case on
	// either side; that is the same answer. A unit only one side cannot set up is an error.
	var refusedBoth []string
	for _, id := range sortedKeys(setupErrs[0]) {
		if o, ok := setupErrs[1][id]; ok {
			refusedBoth = append(refusedBoth, id)
			t.Logf("refused on both sides: %s\n  stock: %s\n  ours: %s", id, setupErrs[0][id], o)
			continue
		}
		t.Errorf("stock: %s: %s", id, setupErrs[0][id])
	}
	for _, id := range sortedKeys(setupErrs[1]) {
		if _, ok := setupErrs[0][id]; !ok {
			t.Errorf("ours: %s: %s", id, setupErrs[1][id])
		}
	}
	elapsed := time.Since(start)

	rep := compareAll(l, units, stockOut, oursOut, m)
	rep.refusedBoth = refusedBoth
	for _, d := range rep.differing {
		t.Errorf("differs: %s", d)
	}
	text := rep.markdown(l, skips, elapsed, selfCheck)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "table.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "cases.txt"), []byte(rep.details()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text)
}

// runSide installs each unit's CRD on the server and runs its cases. Units of different CRDs
// run in parallel (three at a time); the units of one CRD one after the other, on one CRD
// that is switched between them. m is nil for the stock side.
func runSide(ctx context.Context, t *testing.T, s *server, units []*Unit, m *merged, parallel int) (outcome, map[string]string) {
	byCRD := map[string][]*Unit{}
	var names []string
	for _, u := range units {
		if _, ok := byCRD[u.CRDName]; !ok {
			names = append(names, u.CRDName)
		}
		byCRD[u.CRDName] = append(byCRD[u.CRDName], u)
	}
	res := outcome{}
	errs := map[string]string{}
	var mu sync.Mutex
	sem := make(chan struct{}, 3)
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func(us []*Unit) {
			defer wg.Done()
			defer func() { <-sem }()
			installed := ""
			for _, u := range us {
				crd, err := s.prepare(ctx, u, m, &installed)
				var r map[string]*Result
				if err != nil {
					mu.Lock()
					errs[u.ID] = err.Error()
					mu.Unlock()
					r = notRun(u, err)
				} else {
					r = s.runUnit(ctx, u, crd, parallel)
				}
				mu.Lock()
				res[u.ID] = r
				mu.Unlock()
			}
			if installed != "" {
				_ = s.crds.Delete(ctx, us[0].CRDName, metav1.DeleteOptions{})
			}
		}(byCRD[name])
	}
	wg.Wait()
	return res, errs
}

// prepare installs the unit's CRD: on stock (m nil) the feature set's CRD; on ours the merged
// CRD, once per folder, with the unit's gate states set by kubectl featuregates.
func (s *server) prepare(ctx context.Context, u *Unit, m *merged, installed *string) (*apiextensionsv1.CustomResourceDefinition, error) {
	if m == nil {
		crd, err := onlyVersion(u.StockFile.CRD, u.Version)
		if err != nil {
			return nil, err
		}
		*installed = u.StockFile.Path
		return crd, s.install(ctx, crd)
	}
	src := m.crds[u.Dir+"/"+u.CRDName]
	if src == nil {
		return nil, fmt.Errorf("featuregate-gen wrote no merged CRD %s for %s", u.CRDName, u.Dir)
	}
	crd, err := onlyVersion(src, u.Version)
	if err != nil {
		return nil, err
	}
	if *installed != u.Dir {
		// The author's CRD sets no enabled: the admin (kubectl featuregates) owns it.
		if crd.Spec.CustomFeatureGates != nil {
			for i := range crd.Spec.CustomFeatureGates.FeatureGates {
				crd.Spec.CustomFeatureGates.FeatureGates[i].Enabled = nil
			}
		}
		if err := s.install(ctx, crd); err != nil {
			return nil, err
		}
		*installed = u.Dir
	}
	return crd, s.setGates(ctx, u.CRDName, u.Gates)
}

func notRun(u *Unit, err error) map[string]*Result {
	out := map[string]*Result{}
	for _, s := range u.Suites {
		for i, c := range s.Tests.OnCreate {
			out[caseRun{suite: s, index: i, c: c}.key()] = &Result{Why: "not run: " + err.Error(), Step: "setup"}
		}
		for i, c := range s.Tests.OnUpdate {
			out[caseRun{suite: s, update: true, index: i, c: c}.key()] = &Result{Why: "not run: " + err.Error(), Step: "setup"}
		}
	}
	return out
}

// groupRow is one line of the table.
type groupRow struct {
	suites, cases, runs, stockPass, oursPass, differing, intended int
	featureSets                                                   map[string]bool
}

type report struct {
	groups    map[string]*groupRow
	differing []string
	intended  []string
	// refusedBoth are the units that neither side could set up.
	refusedBoth []string
	lines       []string
}

// Intended differences: what ours does differently from stock on purpose. Each is matched
// on a single warning of ours and has its reason.
var intendedWarnings = []struct {
	re     *regexp.Regexp
	reason string
}{
	{regexp.MustCompile(`^\S+ was dropped: feature gate \S+ \(\w+\) is disabled`),
		"ours drops a value of a disabled gate with a warning that names the field and the gate; stock's feature-set CRD has no such field and prunes the value (its warning, if any, calls the field unknown)"},
	{regexp.MustCompile(`^\S+ was not updated: feature gate \S+ \(\w+\) is disabled(: requires [^;]+)?; the stored value was kept`),
		"ours keeps a stored value of a disabled gate and says so; stock prunes it"},
	{regexp.MustCompile(`^unknown field "[^"]+"$`),
		"stock calls a field of a gate that is off in the feature set unknown (its CRD does not have it); ours knows the field and names its gate instead"},
}

func intendedWarning(w string) (string, bool) {
	for _, iw := range intendedWarnings {
		if iw.re.MatchString(w) {
			return iw.reason, true
		}
	}
	return "", false
}

// compareResults lists the differences between stock's and ours' result of one case, and the
// intended ones apart.
func compareResults(st, ou *Result) (differing, intended []string) {
	if st.Pass != ou.Pass {
		differing = append(differing, fmt.Sprintf("verdict: stock %s, ours %s", verdict(st), verdict(ou)))
	} else if st.Step != ou.Step || st.Matched != ou.Matched || (st.Err == "") != (ou.Err == "") {
		differing = append(differing, fmt.Sprintf("outcome: stock %s at %s (error %q), ours %s at %s (error %q)", verdict(st), st.Step, st.Err, verdict(ou), ou.Step, ou.Err))
	}
	if st.Stored != ou.Stored {
		differing = append(differing, fmt.Sprintf("stored object: stock %s, ours %s", st.Stored, ou.Stored))
	}
	for _, w := range symmetricDiff(st.Warnings, ou.Warnings) {
		if reason, ok := intendedWarning(w.text); ok {
			intended = append(intended, fmt.Sprintf("%s warns %q: %s", w.side, w.text, reason))
			continue
		}
		differing = append(differing, fmt.Sprintf("warning only %s: %q", w.side, w.text))
	}
	return differing, intended
}

type sidedWarning struct{ side, text string }

func symmetricDiff(stock, ours []string) []sidedWarning {
	count := map[string]int{}
	for _, w := range stock {
		count[w]++
	}
	for _, w := range ours {
		count[w]--
	}
	var out []sidedWarning
	for _, w := range sortedKeys(count) {
		switch {
		case count[w] > 0:
			out = append(out, sidedWarning{"stock", w})
		case count[w] < 0:
			out = append(out, sidedWarning{"ours", w})
		}
	}
	return out
}

func verdict(r *Result) string {
	if r.Pass {
		return "pass"
	}
	return "fail (" + r.Why + ")"
}

func compareAll(l *Layout, units []*Unit, stock, ours outcome, m *merged) *report {
	rep := &report{groups: map[string]*groupRow{}}
	row := func(g string) *groupRow {
		if rep.groups[g] == nil {
			rep.groups[g] = &groupRow{featureSets: map[string]bool{}}
		}
		return rep.groups[g]
	}
	for _, s := range l.Suites {
		r := row(s.Group)
		r.suites++
		r.cases += caseCount(s)
	}
	for _, u := range units {
		group := strings.Split(u.Dir, "/")[0]
		r := row(group)
		for _, fs := range u.FeatureSets {
			r.featureSets[fs] = true
		}
		for _, s := range u.Suites {
			var keys []string
			for i, c := range s.Tests.OnCreate {
				keys = append(keys, caseRun{suite: s, index: i, c: c}.key())
			}
			for i, c := range s.Tests.OnUpdate {
				keys = append(keys, caseRun{suite: s, update: true, index: i, c: c}.key())
			}
			for _, k := range keys {
				st, ou := stock[u.ID][k], ours[u.ID][k]
				if st == nil || ou == nil {
					rep.differing = append(rep.differing, fmt.Sprintf("[%s] %s: no result (stock %v, ours %v)", strings.Join(u.FeatureSets, ","), k, st != nil, ou != nil))
					continue
				}
				r.runs++
				if st.Pass {
					r.stockPass++
				}
				if ou.Pass {
					r.oursPass++
				}
				d, i := compareResults(st, ou)
				where := fmt.Sprintf("[%s] %s", strings.Join(u.FeatureSets, ","), k)
				if len(d) > 0 {
					r.differing++
					rep.differing = append(rep.differing, where+": "+strings.Join(d, "; "))
				}
				if len(i) > 0 {
					r.intended++
					for _, x := range i {
						rep.intended = append(rep.intended, where+": "+x)
					}
				}
				rep.lines = append(rep.lines, fmt.Sprintf("%s\tstock %s\tours %s", where, verdict(st), verdict(ou)))
			}
		}
	}
	return rep
}

func (rep *report) markdown(l *Layout, skips []Skip, elapsed time.Duration, selfCheck bool) string {
	var b strings.Builder
	ours := "ours (merged CRD, gates set by kubectl featuregates)"
	if selfCheck {
		ours = "stock again (self-check)"
	}
	fmt.Fprintf(&b, "OpenShift API test suites from %s, cluster profile %s, %s; stock kube-apiserver v1.37.1 with each feature set's CRD vs %s; %s.\n\n",
		l.Dir, l.Profile, time.Now().UTC().Format("2006-01-02"), ours, elapsed.Round(time.Second))
	fmt.Fprintln(&b, "| group | suites | cases | feature sets | case runs | passed on stock | passed on ours | differing | intended |")
	fmt.Fprintln(&b, "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
	tot := &groupRow{featureSets: map[string]bool{}}
	for _, g := range sortedKeys(rep.groups) {
		r := rep.groups[g]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", g, r.suites, r.cases, len(r.featureSets), r.runs, r.stockPass, r.oursPass, r.differing, r.intended)
		tot.suites += r.suites
		tot.cases += r.cases
		tot.runs += r.runs
		tot.stockPass += r.stockPass
		tot.oursPass += r.oursPass
		tot.differing += r.differing
		tot.intended += r.intended
		for fs := range r.featureSets {
			tot.featureSets[fs] = true
		}
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d | %d | %d | %d | %d |\n", tot.suites, tot.cases, len(tot.featureSets), tot.runs, tot.stockPass, tot.oursPass, tot.differing, tot.intended)
	fmt.Fprintf(&b, "\nA case runs once per feature set whose gate states the suite needs; feature sets that give the same stock CRD and the same gate states on ours share a run. Feature sets: %s.\n", strings.Join(sortedKeys(tot.featureSets), ", "))
	var ignored []string
	for _, s := range l.Suites {
		if len(s.Ignored) > 0 {
			ignored = append(ignored, fmt.Sprintf("%s (%s)", s.Path, strings.Join(s.Ignored, ", ")))
		}
	}
	if len(ignored) > 0 {
		fmt.Fprintf(&b, "\nKeys that the format does not have, ignored (the suite runs as if they were absent): %s.\n", strings.Join(ignored, "; "))
	}
	if len(rep.refusedBoth) > 0 {
		fmt.Fprintln(&b, "\nRefused on both sides (stock refuses the feature set's CRD, ours the change of the merged CRD's gates to its states; no case of these runs on either side, and both count them as failed):")
		for _, id := range rep.refusedBoth {
			fmt.Fprintf(&b, "- %s\n", id)
		}
	}
	if len(rep.intended) > 0 {
		fmt.Fprintln(&b, "\nIntended differences (allow-list in test/openshiftapi, each with its reason):")
		seen := map[string]int{}
		for _, x := range rep.intended {
			_, reason, _ := strings.Cut(x, ": ")
			_, why, _ := strings.Cut(reason, "\": ")
			seen[why]++
		}
		for _, why := range sortedKeys(seen) {
			fmt.Fprintf(&b, "- %d case runs: %s\n", seen[why], why)
		}
	}
	if len(rep.differing) > 0 {
		fmt.Fprintf(&b, "\n%d differing case runs:\n", len(rep.differing))
		for _, d := range rep.differing {
			fmt.Fprintf(&b, "- %s\n", d)
		}
	}
	_ = skips
	return b.String()
}

func (rep *report) details() string {
	lines := append([]string(nil), rep.lines...)
	sort.Strings(lines)
	lines = append(lines, "", "intended:")
	lines = append(lines, rep.intended...)
	return strings.Join(lines, "\n") + "\n"
}
