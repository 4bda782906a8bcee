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

// Package gatewayapi compares Gateway API's own examples, invalid examples and CEL test suite
// on a stock kube-apiserver with each channel's CRDs against our kube-apiserver with the gated
// CRD set of examples/gateway-api (gates off for the standard channel, on for the
// experimental one). `make test-gateway-api` builds both servers and runs it.
package gatewayapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/channels"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// committedVersion is the Gateway API release of examples/gateway-api/crds.
const committedVersion = "v1.4.0"

// gatewayAPIVersion is the release to test: committedVersion, or GATEWAY_API_VERSION
// (make test-gateway-api GATEWAY_API_VERSION=v1.3.0), whose channels are then merged by the
// generator in the test, as `make gateway-api-crds` would.
func gatewayAPIVersion() string {
	if v := os.Getenv("GATEWAY_API_VERSION"); v != "" {
		return v
	}
	return committedVersion
}

// setup is one server with one CRD set.
type setup struct {
	name string
	// stock runs the stock kube-apiserver with crdDir's CRDs; otherwise ours, with the gated
	// set and every gate set to gatesOn.
	stock   bool
	crdDir  string
	gatesOn bool
	// policies runs the stock kube-apiserver with the gated set turned into stock CRDs and
	// admission policies (featuregate-gen policies), every gate set to gatesOn in the
	// parameter objects.
	policies bool
}

// outcome is what a setup did with Gateway API's inputs.
type outcome struct {
	// examples: file -> "ok" or the error; stored: kind/namespace/name -> spec and metadata
	// the user wrote; warnings: file -> the server's warnings.
	examples map[string]string
	warnings map[string][]string
	stored   map[string]string
	// invalid: file -> "" when accepted, else the error.
	invalid map[string]string
	// cel: test name -> "pass" or "fail".
	cel map[string]string
}

func env(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set; run `make test-gateway-api`", name)
	}
	return v
}

func TestGatewayAPIStockVersusGated(t *testing.T) {
	binDir := env(t, "E2E_BIN_DIR")
	stockAPIServer := env(t, "GATEWAY_API_STOCK_APISERVER")
	out := env(t, "GATEWAY_API_OUT")
	version := gatewayAPIVersion()
	gw := featuregatetest.ModuleDir(t, "sigs.k8s.io/gateway-api@"+version)
	repoRoot, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gated := filepath.Join(repoRoot, "examples", "gateway-api", "crds")
	if version != committedVersion {
		gated = mergeChannels(t, filepath.Join(gw, "config", "crd"))
	}

	var report bytes.Buffer
	fmt.Fprintf(&report, "Gateway API %s, %s\n\n", version, time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintln(&report, "| channel | server | examples accepted | invalid examples rejected | CEL tests passed |")
	fmt.Fprintln(&report, "| --- | --- | ---: | ---: | ---: |")
	var intended []string
	for _, channel := range []string{"standard", "experimental"} {
		gates := map[string]string{"standard": "off", "experimental": "on"}[channel]
		stockName, oursName := "stock, "+channel+" CRDs", "ours, gated CRDs, gates "+gates
		policiesName := "stock + policies, gated CRDs, gates " + gates
		stock := run(t, binDir, stockAPIServer, gw, channel, setup{name: stockName, stock: true, crdDir: filepath.Join(gw, "config", "crd", channel)})
		ours := run(t, binDir, stockAPIServer, gw, channel, setup{name: oursName, crdDir: gated, gatesOn: gates == "on"})
		withPolicies := run(t, binDir, stockAPIServer, gw, channel, setup{name: policiesName, stock: true, policies: true, crdDir: gated, gatesOn: gates == "on"})
		for _, r := range []struct {
			name string
			o    *outcome
		}{{stockName, stock}, {oursName, ours}, {policiesName, withPolicies}} {
			fmt.Fprintf(&report, "| %s | %s | %d/%d | %d/%d | %d/%d |\n", channel, r.name,
				count(r.o.examples, func(v string) bool { return v == "ok" }), len(r.o.examples),
				count(r.o.invalid, func(v string) bool { return v != "" }), len(r.o.invalid),
				count(r.o.cel, func(v string) bool { return v == "pass" }), len(r.o.cel))
		}
		intended = append(intended, compare(t, channel, stock, ours)...)
		intended = append(intended, compare(t, channel+" (stock + policies)", stock, withPolicies)...)
	}
	if len(intended) > 0 {
		fmt.Fprintln(&report, "\nDifferences that are the ones this project means to make:")
		for _, d := range intended {
			fmt.Fprintln(&report, "- "+d)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "table.md"), report.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", report.String())
}

func count(m map[string]string, ok func(string) bool) int {
	n := 0
	for _, v := range m {
		if ok(v) {
			n++
		}
	}
	return n
}

// compare fails the test on every difference between stock and ours, and returns the
// differences that are intended: a value at a gated-off field that ours drops with a warning
// where stock's standard schema prunes it silently.
func compare(t *testing.T, channel string, stock, ours *outcome) []string {
	t.Helper()
	var intended []string
	for _, f := range sortedKeys(stock.examples) {
		if stock.examples[f] != ours.examples[f] {
			t.Errorf("%s example %s: stock %q, ours %q", channel, f, stock.examples[f], ours.examples[f])
		}
		for _, w := range ours.warnings[f] {
			if strings.Contains(w, "was dropped: feature gate") {
				intended = append(intended, fmt.Sprintf("%s example %s: ours warns %q; stock prunes the value silently", channel, f, w))
				continue
			}
			if !contains(stock.warnings[f], w) {
				t.Errorf("%s example %s: ours warns %q, stock does not", channel, f, w)
			}
		}
	}
	for _, k := range sortedKeys(stock.stored) {
		if stock.stored[k] != ours.stored[k] {
			t.Errorf("%s: %s is stored differently:\nstock: %s\nours:  %s", channel, k, stock.stored[k], ours.stored[k])
		}
	}
	for _, k := range sortedKeys(ours.stored) {
		if _, ok := stock.stored[k]; !ok {
			t.Errorf("%s: %s is stored on ours only", channel, k)
		}
	}
	for _, f := range sortedKeys(stock.invalid) {
		if (stock.invalid[f] == "") != (ours.invalid[f] == "") {
			t.Errorf("%s invalid example %s: stock rejected: %v (%s), ours rejected: %v (%s)", channel, f, stock.invalid[f] != "", stock.invalid[f], ours.invalid[f] != "", ours.invalid[f])
		}
	}
	for _, name := range sortedKeys(stock.cel) {
		if stock.cel[name] != ours.cel[name] {
			t.Errorf("%s CEL test %s: stock %s, ours %s", channel, name, stock.cel[name], ours.cel[name])
		}
	}
	for _, name := range sortedKeys(ours.cel) {
		if _, ok := stock.cel[name]; !ok {
			t.Errorf("%s CEL test %s ran on ours only", channel, name)
		}
	}
	return intended
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// run starts a fresh control plane for s, installs its CRDs and runs Gateway API's inputs of
// the channel against it.
func run(t *testing.T, binDir, stockAPIServer, gw, channel string, s setup) *outcome {
	t.Helper()
	t.Logf("%s: starting", s.name)
	ports, err := featuregatetest.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	o := localup.Options{Dir: t.TempDir(), BinDir: binDir, EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2]}
	if s.stock {
		o.KubeAPIServer = stockAPIServer
	} else {
		o.FeatureGates = "CRDFieldLevelVersioning=true"
	}
	cp, err := localup.Start(context.Background(), o)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	defer cp.Stop()
	k := kubectl{bin: filepath.Join(binDir, "kubectl"), kubeconfig: cp.Kubeconfig}

	crdDir := s.crdDir
	var policyFiles []string
	if s.policies {
		crdDir, policyFiles = generatePolicies(t, s.crdDir, s.gatesOn)
	}
	crds, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("%s: no CRDs in %s", s.name, crdDir)
	}
	for _, f := range crds {
		manifest, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(manifest, &meta); err != nil || meta.Kind != "CustomResourceDefinition" {
			continue // kustomization.yaml
		}
		if s.gatesOn && !s.policies {
			manifest = enableAllGates(t, manifest)
		}
		if r := k.run(string(manifest), "apply", "--server-side", "-f", "-"); r.err != nil {
			t.Fatalf("%s: installing %s: %v\n%s", s.name, filepath.Base(f), r.err, r.stderr)
		}
	}
	if r := k.run("", "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"); r.err != nil {
		t.Fatalf("%s: CRDs not established: %v\n%s", s.name, r.err, r.stderr)
	}
	// The API discovery of the new kinds reaches kubectl's cache.
	featuregatetest.WaitFor(t, time.Minute, s.name+": HTTPRoutes served", func() bool { return k.run("", "get", "httproutes", "-A").err == nil })
	if s.policies {
		installPolicies(t, k, s, policyFiles)
	}

	res := &outcome{examples: map[string]string{}, warnings: map[string][]string{}, stored: map[string]string{}, invalid: map[string]string{}, cel: map[string]string{}}
	examples := filepath.Join(gw, "examples", channel)
	for _, f := range yamlFiles(t, examples) {
		rel, _ := filepath.Rel(examples, f)
		r := k.run("", "apply", "-f", f)
		res.examples[rel] = "ok"
		if r.err != nil {
			res.examples[rel] = strings.TrimSpace(r.stderr)
		}
		res.warnings[rel] = featuregatetest.KubectlWarnings(r.stderr)
	}
	res.stored = stored(t, k)

	invalid := filepath.Join(gw, "hack", "invalid-examples", channel)
	for _, f := range yamlFiles(t, invalid) {
		rel, _ := filepath.Rel(invalid, f)
		r := k.run("", "apply", "-f", f)
		res.invalid[rel] = ""
		if r.err != nil {
			res.invalid[rel] = strings.TrimSpace(r.stderr)
		}
	}

	res.cel = celSuite(t, gw, channel, cp.Kubeconfig)
	t.Logf("%s: %d examples, %d invalid examples, %d CEL tests", s.name, len(res.examples), len(res.invalid), len(res.cel))
	return res
}

// generatePolicies turns the gated CRD set in dir into what a stock kube-apiserver takes, as
// `featuregate-gen policies` writes it: a directory of CRDs (the parameter kind's, each gated
// CRD's stock form, the others as they are) and the policy manifests, with every gate of
// the parameter objects set to on.
func generatePolicies(t *testing.T, dir string, on bool) (string, []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crdDir, polDir := t.TempDir(), t.TempDir()
	paramCRD, err := policies.ParamCRDManifest()
	if err != nil {
		t.Fatal(err)
	}
	write := func(path string, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(crdDir, "00-"+policies.ParamCRDName+".yaml"), paramCRD)
	var policyFiles []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crds, _, err := crdmerge.ReadCRDs(f, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, crd := range crds {
			if crd.Spec.CustomFeatureGates == nil {
				write(filepath.Join(crdDir, crd.Name+".yaml"), data)
				continue
			}
			if on {
				for i := range crd.Spec.CustomFeatureGates.FeatureGates {
					crd.Spec.CustomFeatureGates.FeatureGates[i].Enabled = ptr.To(true)
				}
			}
			res, err := policies.Generate(crd)
			if err != nil {
				t.Fatal(err)
			}
			c, err := res.CRDManifest()
			if err != nil {
				t.Fatal(err)
			}
			p, err := res.PoliciesManifest()
			if err != nil {
				t.Fatal(err)
			}
			write(filepath.Join(crdDir, crd.Name+".yaml"), c)
			pf := filepath.Join(polDir, crd.Name+".yaml")
			write(pf, p)
			policyFiles = append(policyFiles, pf)
		}
	}
	return crdDir, policyFiles
}

// installPolicies applies the parameter objects and policies and waits until they act on
// HTTPRoutes: a dry-run route sets a rule field that only the experimental channel has
// (experimentalRuleField: retry, or timeouts before v1.2.0), which the policies drop with the
// gates off and keep with them on; where the release has it (v1.2.0 on), the route also has
// two rules of one name, which HTTPRouteRules' rule refuses with the gates on.
func installPolicies(t *testing.T, k kubectl, s setup, files []string) {
	t.Helper()
	for _, f := range files {
		if r := k.run("", "apply", "--server-side", "-f", f); r.err != nil {
			t.Fatalf("%s: installing %s: %v\n%s", s.name, filepath.Base(f), r.err, r.stderr)
		}
	}
	gw := featuregatetest.ModuleDir(t, "sigs.k8s.io/gateway-api@"+gatewayAPIVersion())
	crd := func(channel string) string {
		return filepath.Join(gw, "config", "crd", channel, "gateway.networking.k8s.io_httproutes.yaml")
	}
	f := experimentalRuleField(t, crd("experimental"), crd("standard"))
	exp, err := os.ReadFile(crd("experimental"))
	if err != nil {
		t.Fatal(err)
	}
	uniqueNames := strings.Contains(string(exp), "Rule name must be unique")
	probe := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: policy-probe, namespace: default}\nspec:\n  rules:\n"
	if uniqueNames {
		probe += "  - name: a\n    " + f.name + ": " + f.value + "\n  - name: a\n"
	} else {
		probe += "  - " + f.name + ": " + f.value + "\n"
	}
	featuregatetest.WaitFor(t, 2*time.Minute, s.name+": the policies act", func() bool {
		r := k.run(probe, "create", "--dry-run=server", "--validate=false", "-o", "jsonpath={.spec.rules[0]."+f.probe+"}", "-f", "-")
		switch {
		case !s.gatesOn:
			return r.err == nil && strings.TrimSpace(r.stdout) == ""
		case uniqueNames:
			return r.err != nil && strings.Contains(r.stderr, "Rule name must be unique")
		}
		return r.err == nil && strings.TrimSpace(r.stdout) == f.probeValue
	})
}

// mergeChannels writes the gated CRD set of a release's two channels into a directory, as
// `featuregate-gen channels` writes it without --gates.
func mergeChannels(t *testing.T, crdDir string) string {
	t.Helper()
	res, err := channels.Merge(filepath.Join(crdDir, "standard"), filepath.Join(crdDir, "experimental"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range res.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// enableAllGates sets enabled: true on every gate of a CRD manifest.
func enableAllGates(t *testing.T, manifest []byte) []byte {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(manifest, crd); err != nil {
		t.Fatal(err)
	}
	if crd.Spec.CustomFeatureGates == nil {
		return manifest
	}
	on := true
	for i := range crd.Spec.CustomFeatureGates.FeatureGates {
		crd.Spec.CustomFeatureGates.FeatureGates[i].Enabled = &on
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func yamlFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no YAML files under %s: %v", dir, err)
	}
	sort.Strings(files)
	return files
}

// stored reads every Gateway API object back: its spec, labels and the annotations the user
// wrote, by kind, namespace and name.
func stored(t *testing.T, k kubectl) map[string]string {
	t.Helper()
	r := k.run("", "api-resources", "--api-group=gateway.networking.k8s.io", "-o", "name")
	if r.err != nil {
		t.Fatalf("api-resources: %v\n%s", r.err, r.stderr)
	}
	out := map[string]string{}
	for _, resource := range strings.Fields(r.stdout) {
		r := k.run("", "get", resource, "-A", "-o", "json")
		if r.err != nil {
			t.Fatalf("get %s: %v\n%s", resource, r.err, r.stderr)
		}
		var list struct {
			Items []struct {
				Kind     string
				Metadata struct {
					Name, Namespace string
					Labels          map[string]string
					Annotations     map[string]string
				}
				Spec json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
			t.Fatal(err)
		}
		for _, it := range list.Items {
			delete(it.Metadata.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
			b, _ := json.Marshal(map[string]interface{}{"labels": it.Metadata.Labels, "annotations": it.Metadata.Annotations, "spec": it.Spec})
			out[it.Kind+" "+it.Metadata.Namespace+"/"+it.Metadata.Name] = string(b)
		}
	}
	return out
}

// celSuite runs Gateway API's CEL tests with the channel's build tag against the server, and
// returns each test's result (subtests included). From v1.5.0 on, the suite is in the
// module sigs.k8s.io/gateway-api/tests, which the Go module proxy does not serve (the
// release's module zip leaves nested modules out): for such a release it returns no result
// and says so, and the examples and invalid examples are compared alone.
func celSuite(t *testing.T, gw, channel, kubeconfig string) map[string]string {
	t.Helper()
	if !fileExists(filepath.Join(gw, "pkg", "test", "cel")) {
		t.Logf("%s: Gateway API %s has no CEL suite in its module (pkg/test/cel); not run", channel, gatewayAPIVersion())
		return map[string]string{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-json", "-tags", channel, "./pkg/test/cel/...")
	cmd.Dir = gw
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.Output() // a failing test exits non-zero; the events say which
	results := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct{ Action, Test string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		switch ev.Action {
		case "pass":
			results[ev.Test] = "pass"
		case "fail":
			results[ev.Test] = "fail"
		}
	}
	if len(results) == 0 {
		t.Fatalf("the CEL suite (%s) reported no test: %s\n%s", channel, stderr.String(), stdout)
	}
	return results
}

type kubectl struct{ bin, kubeconfig string }

type result struct {
	stdout, stderr string
	err            error
}

func (k kubectl) run(stdin string, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.kubeconfig)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return result{stdout: out.String(), stderr: errOut.String(), err: err}
}

// compare fails on each kind of difference, and accepts only a drop warning as intended.
func TestCompareFindsDifferences(t *testing.T) {
	base := func() *outcome {
		return &outcome{
			examples: map[string]string{"a.yaml": "ok"},
			warnings: map[string][]string{},
			stored:   map[string]string{"HTTPRoute default/r": `{"spec":{}}`},
			invalid:  map[string]string{"bad.yaml": "rejected"},
			cel:      map[string]string{"TestX": "pass"},
		}
	}
	for _, tc := range []struct {
		name         string
		mutate       func(o *outcome)
		wantFail     bool
		wantIntended int
	}{
		{"same", func(o *outcome) {}, false, 0},
		{"example rejected", func(o *outcome) { o.examples["a.yaml"] = "error" }, true, 0},
		{"stored differently", func(o *outcome) { o.stored["HTTPRoute default/r"] = `{"spec":{"x":1}}` }, true, 0},
		{"stored on ours only", func(o *outcome) { o.stored["HTTPRoute default/s"] = `{}` }, true, 0},
		{"invalid example accepted", func(o *outcome) { o.invalid["bad.yaml"] = "" }, true, 0},
		{"CEL test fails", func(o *outcome) { o.cel["TestX"] = "fail" }, true, 0},
		{"CEL test on ours only", func(o *outcome) { o.cel["TestY"] = "pass" }, true, 0},
		{"another warning", func(o *outcome) { o.warnings["a.yaml"] = []string{"something"} }, true, 0},
		{"drop warning", func(o *outcome) {
			o.warnings["a.yaml"] = []string{".spec.x was dropped: feature gate G (alpha) is disabled"}
		}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours := base()
			tc.mutate(ours)
			inner := &testing.T{}
			var intended []string
			done := make(chan struct{})
			go func() { // compare reports through inner; Errorf does not stop the goroutine
				defer close(done)
				intended = compare(inner, "standard", base(), ours)
			}()
			<-done
			if inner.Failed() != tc.wantFail || len(intended) != tc.wantIntended {
				t.Errorf("failed %v (want %v), intended %q (want %d)", inner.Failed(), tc.wantFail, intended, tc.wantIntended)
			}
		})
	}
}

// The channel switch of cilium/cilium#39843 on a stock kube-apiserver: a route uses
// experimental fields under the experimental CRDs; the standard CRD is installed over the
// experimental one; the next write of the route (client-side apply of the same route without
// the fields, as a standard-channel user writes it) prunes the values, and going back to the
// experimental CRD does not bring them back. test/e2e's TestGatewayAPILosslessDisable is the
// same sequence on our server with gates, where nothing is lost.
func TestGatewayAPIChannelSwitchOnStock(t *testing.T) {
	binDir := env(t, "E2E_BIN_DIR")
	stockAPIServer := env(t, "GATEWAY_API_STOCK_APISERVER")
	gw := featuregatetest.ModuleDir(t, "sigs.k8s.io/gateway-api@"+gatewayAPIVersion())
	ports, err := featuregatetest.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := localup.Start(context.Background(), localup.Options{Dir: t.TempDir(), BinDir: binDir, KubeAPIServer: stockAPIServer,
		EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2]})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	k := kubectl{bin: filepath.Join(binDir, "kubectl"), kubeconfig: cp.Kubeconfig}
	must := func(stdin string, args ...string) result {
		t.Helper()
		r := k.run(stdin, args...)
		if r.err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), r.err, r.stderr)
		}
		return r
	}
	crd := func(channel string) string {
		return filepath.Join(gw, "config", "crd", channel, "gateway.networking.k8s.io_httproutes.yaml")
	}
	f := experimentalRuleField(t, crd("experimental"), crd("standard"))
	must("", "apply", "--server-side", "-f", crd("experimental"))
	must("", "wait", "--for=condition=Established", "--timeout=60s", "crd/httproutes.gateway.networking.k8s.io")
	featuregatetest.WaitFor(t, time.Minute, "HTTPRoutes served", func() bool { return k.run("", "get", "httproutes").err == nil })
	routeWithout := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: switch, namespace: default}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: svc, port: 8080}]
`
	routeWith := routeWithout + "    " + f.name + ": " + f.value + "\n"
	stored := `"` + f.name + `"`
	must(routeWith, "apply", "-f", "-")
	if !strings.Contains(storedRoute(t, cp.EtcdURL), stored) {
		t.Fatalf("with the experimental CRD, etcd has no %s", f.name)
	}

	must("", "replace", "-f", crd("standard"))
	featuregatetest.WaitFor(t, time.Minute, "the standard CRD to be served", func() bool {
		r := k.run(routeWith, "apply", "--dry-run=server", "--validate=false", "-o", "jsonpath={.spec.rules[0]."+f.name+"}", "-f", "-")
		return r.err == nil && strings.TrimSpace(r.stdout) == ""
	})
	r := must(routeWithout, "apply", "-f", "-")
	if strings.Contains(storedRoute(t, cp.EtcdURL), stored) {
		t.Fatalf("after the switch to the standard CRD and a write, etcd still has %s; stock was expected to prune it", f.name)
	}
	if ws := featuregatetest.KubectlWarnings(r.stderr); len(ws) != 0 {
		t.Errorf("stock warned %q; the loss was expected to be silent", ws)
	}
	must("", "replace", "-f", crd("experimental"))
	featuregatetest.WaitFor(t, time.Minute, "the experimental CRD to be served", func() bool {
		r := k.run(routeWith, "apply", "--dry-run=server", "-o", "jsonpath={.spec.rules[0]."+f.probe+"}", "-f", "-")
		return r.err == nil && strings.TrimSpace(r.stdout) == f.probeValue
	})
	if got := must("", "get", "httproute", "switch", "-o", "jsonpath={.spec.rules[0]."+f.name+"}").stdout; got != "" {
		t.Errorf("back on the experimental CRD the route reads %s %s; it was expected to be gone", f.name, got)
	}
}

// ruleField is a field of an HTTPRoute rule that only the experimental channel has: its
// value in YAML, and a path below it (from the rule) with the value it reads.
type ruleField struct{ name, value, probe, probeValue string }

// experimentalRuleField picks the first of the rule fields that the experimental CRD of this
// release declares and its standard CRD does not: retry (experimental since v1.2.0), else
// timeouts (experimental in v1.0.x and v1.1.x, standard since v1.2.0).
func experimentalRuleField(t *testing.T, experimental, standard string) ruleField {
	t.Helper()
	exp, err := os.ReadFile(experimental)
	if err != nil {
		t.Fatal(err)
	}
	std, err := os.ReadFile(standard)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []ruleField{
		{name: "retry", value: "{attempts: 3, codes: [503], backoff: 100ms}", probe: "retry.attempts", probeValue: "3"},
		{name: "timeouts", value: "{request: 10s}", probe: "timeouts.request", probeValue: "10s"},
	} {
		key := regexp.MustCompile(`(?m)^\s+` + f.name + `:\s*$`)
		if key.Match(exp) && !key.Match(std) {
			return f
		}
	}
	t.Fatalf("the HTTPRoute CRD of Gateway API %s has no rule field, of retry and timeouts, in its experimental channel only", gatewayAPIVersion())
	return ruleField{}
}

// storedRoute is the HTTPRoute default/switch as etcd holds it.
func storedRoute(t *testing.T, etcdURL string) string {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Get(context.Background(), "/registry/gateway.networking.k8s.io/httproutes/default/switch")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd: %v, %d keys", err, len(resp.Kvs))
	}
	return string(resp.Kvs[0].Value)
}
