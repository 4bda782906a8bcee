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

package gatewayapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The witness is a gate that TestGatewayAPIPerGate adds to each gated CRD it installs, with
// two fields: witnessField, a path of the gate, and witnessCheck, whose gated keyword
// (maxLength 0 while the gate is off) refuses any value while the gate is off. The judge flips
// the witness with every gate change of that CRD: once dry-run writes of the two fields show
// the new witness state (the first kept, the second accepted, or the first dropped, the
// second refused), the server judges with the new gate states. On our server that means the
// new CRD revision is served; with the policies, that both the mutating and the validating
// policy read the new parameter object.
const (
	witnessGate  = "PerGateJudgeWitness"
	witnessField = "perGateJudgeWitness"
	witnessCheck = "perGateJudgeWitnessCheck"
)

// judged is one Gateway API object of the examples, the invalid examples or
// testdata/probes.yaml.
type judged struct {
	id  string // where it comes from: source/file#document
	obj *unstructured.Unstructured
}

// gateState is one state of the gated CRD set: the gates that are on, by CRD.
type gateState struct {
	name string
	on   map[string]sets.Set[string]
	// crds are the CRDs whose objects the state can judge differently from every gate off.
	crds sets.Set[string]
}

// TestGatewayAPIPerGate turns the gates of the gated set on one at a time: with every gate
// off, with each gate alone on, and with every gate on, each Gateway API object of the
// standard and experimental examples, invalid examples and testdata/probes.yaml gets from our
// server the outcome that one of the two stock channels gives it: rejected, or accepted and
// stored as that channel stores it. In particular no state accepts an object that both
// channels reject, or stores a value that neither would: a gate that holds only a part of a
// feature (a type's enum value without the rule that ties it to its field) would.
//
// The same states are then judged on the stock kube-apiserver with the gated set turned into
// stock CRDs and admission policies (featuregate-gen policies), toggled through the
// parameter objects: each object must again get one of the two channels' outcomes, and the
// same outcome as on our server.
//
// Objects are created with dry-run and the server's default field validation (Warn): a field
// the standard channel does not know is pruned with a warning there, as a field whose gate is
// off is dropped with a warning by ours (and silently by the mutating policy).
func TestGatewayAPIPerGate(t *testing.T) {
	binDir := env(t, "E2E_BIN_DIR")
	stockAPIServer := env(t, "GATEWAY_API_STOCK_APISERVER")
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
	corpus, namespaces := loadCorpus(t, gw)
	start := time.Now()

	// The two channels' outcomes, on the stock server.
	stock := map[string]map[string]outcomeOf{}
	for _, channel := range []string{"standard", "experimental"} {
		s := startJudge(t, setup{name: "stock, " + channel + " CRDs", stock: true, crdDir: filepath.Join(gw, "config", "crd", channel)}, binDir, stockAPIServer, namespaces, nil)
		stock[channel] = map[string]outcomeOf{}
		for _, o := range corpus {
			stock[channel][o.id] = s.judge(o)
		}
		s.stop()
	}
	t.Logf("stock outcomes: %d objects, %v", len(corpus), time.Since(start).Round(time.Second))
	var bases []judged
	for _, o := range corpus {
		if stock["standard"][o.id].err == "" && stock["experimental"][o.id].err == "" {
			bases = append(bases, o)
		}
	}

	// Ours, one state after the other; then stock with the policies, in the same states.
	ours := startJudge(t, setup{name: "ours, gated CRDs", crdDir: gated}, binDir, stockAPIServer, namespaces, bases)
	states := gateStates(ours.gates)
	var report bytes.Buffer
	fmt.Fprintf(&report, "Gateway API %s: %d objects, judged in %d gate states\n\n", version, len(corpus), len(states))
	fmt.Fprintln(&report, "Our server:")
	fmt.Fprintln(&report)
	oursOutcomes := judgeStates(t, ours, states, corpus, stock, nil, &report)
	ours.stop()

	withPolicies := startJudge(t, setup{name: "stock + policies, gated CRDs", stock: true, policies: true, crdDir: gated}, binDir, stockAPIServer, namespaces, bases)
	defer withPolicies.stop()
	fmt.Fprintln(&report)
	fmt.Fprintln(&report, "The stock kube-apiserver with the policies of featuregate-gen policies:")
	fmt.Fprintln(&report)
	judgeStates(t, withPolicies, states, corpus, stock, oursOutcomes, &report)
	fmt.Fprintf(&report, "\n%v in all\n", time.Since(start).Round(time.Second))
	if out := os.Getenv("GATEWAY_API_OUT"); out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "per-gate.md"), report.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("\n%s", report.String())
}

// judgeStates puts j in each state in turn and judges every object of the CRDs the state
// concerns, failing the test on an outcome that neither stock channel gives, and, when ours
// is set (the outcomes of our server by state and object), on one that differs from ours. It
// writes a table row per state to report and returns the outcomes by state and object.
func judgeStates(t *testing.T, j *judge, states []gateState, corpus []judged, stock, ours map[string]map[string]outcomeOf, report io.Writer) map[string]map[string]outcomeOf {
	t.Helper()
	if ours == nil {
		fmt.Fprintln(report, "| gate state | objects judged | accepted | as standard | as experimental | as neither |")
		fmt.Fprintln(report, "| --- | ---: | ---: | ---: | ---: | ---: |")
	} else {
		fmt.Fprintln(report, "| gate state | objects judged | accepted | as standard | as experimental | as neither | as our server |")
		fmt.Fprintln(report, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	}
	out := map[string]map[string]outcomeOf{}
	for _, st := range states {
		j.set(t, st)
		out[st.name] = map[string]outcomeOf{}
		judgedN, accepted, asStd, asExp, neither, asOurs := 0, 0, 0, 0, 0, 0
		for _, o := range corpus {
			if !st.crds.Has(j.crdOf(o)) {
				continue
			}
			judgedN++
			got := j.judge(o)
			out[st.name][o.id] = got
			std, exp := stock["standard"][o.id], stock["experimental"][o.id]
			if got.err == "" {
				accepted++
			}
			if got.same(std) {
				asStd++
			}
			if got.same(exp) {
				asExp++
			}
			if !got.same(std) && !got.same(exp) {
				neither++
				t.Errorf("%s: %s: %s: the outcome is neither channel's\n  got:          %s\n  standard:     %s\n  experimental: %s",
					j.name, st.name, o.id, got, std, exp)
			}
			if ours != nil {
				if want := ours[st.name][o.id]; got.same(want) {
					asOurs++
				} else {
					t.Errorf("%s: %s: %s: the outcome differs from our server's\n  got:  %s\n  ours: %s", j.name, st.name, o.id, got, want)
				}
			}
		}
		if ours == nil {
			fmt.Fprintf(report, "| %s | %d | %d | %d | %d | %d |\n", st.name, judgedN, accepted, asStd, asExp, neither)
		} else {
			fmt.Fprintf(report, "| %s | %d | %d | %d | %d | %d | %d |\n", st.name, judgedN, accepted, asStd, asExp, neither, asOurs)
		}
	}
	return out
}

// outcomeOf is what a server did with an object: rejected it (err), or accepted it and would
// store stored (its spec, labels and annotations).
type outcomeOf struct{ err, stored string }

func (o outcomeOf) same(other outcomeOf) bool {
	if o.err != "" || other.err != "" {
		return o.err != "" && other.err != ""
	}
	return o.stored == other.stored
}

func (o outcomeOf) String() string {
	if o.err != "" {
		return "rejected: " + o.err
	}
	return "accepted, stored as " + o.stored
}

// gateStates are every gate off, each gate alone on, and every gate on.
func gateStates(gates map[string][]string) []gateState {
	crds := make([]string, 0, len(gates))
	for c := range gates {
		crds = append(crds, c)
	}
	sort.Strings(crds)
	all := sets.New(crds...)
	states := []gateState{{name: "every gate off", on: map[string]sets.Set[string]{}, crds: all}}
	for _, c := range crds {
		for _, g := range gates[c] {
			states = append(states, gateState{name: g + " alone", on: map[string]sets.Set[string]{c: sets.New(g)}, crds: sets.New(c)})
		}
	}
	every := gateState{name: "every gate on", on: map[string]sets.Set[string]{}, crds: all}
	for _, c := range crds {
		every.on[c] = sets.New(gates[c]...)
	}
	return append(states, every)
}

// loadCorpus reads the objects to judge, and the namespaces they are in.
func loadCorpus(t *testing.T, gw string) ([]judged, sets.Set[string]) {
	t.Helper()
	var out []judged
	namespaces := sets.New("default")
	sources := []struct{ name, dir string }{
		{"examples/standard", filepath.Join(gw, "examples", "standard")},
		{"examples/experimental", filepath.Join(gw, "examples", "experimental")},
		{"invalid-examples/standard", filepath.Join(gw, "hack", "invalid-examples", "standard")},
		{"invalid-examples/experimental", filepath.Join(gw, "hack", "invalid-examples", "experimental")},
		{"probes", "testdata"},
	}
	for _, src := range sources {
		for _, f := range yamlFiles(t, src.dir) {
			rel, _ := filepath.Rel(src.dir, f)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for i := 1; ; i++ {
				obj := map[string]interface{}{}
				if err := d.Decode(&obj); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s, document %d: %v", f, i, err)
				}
				if len(obj) == 0 {
					continue
				}
				u := &unstructured.Unstructured{Object: obj}
				if u.GetKind() == "Namespace" {
					namespaces.Insert(u.GetName())
					continue
				}
				if ns := u.GetNamespace(); ns != "" {
					namespaces.Insert(ns)
				}
				if g := u.GroupVersionKind().Group; g != "gateway.networking.k8s.io" && g != "gateway.networking.x-k8s.io" {
					continue // a Service, a Secret: the same on both servers
				}
				out = append(out, judged{id: fmt.Sprintf("%s/%s#%d %s %s", src.name, rel, i, u.GetKind(), u.GetName()), obj: u})
			}
		}
	}
	return out, namespaces
}

// judge is a running server with a CRD set, and clients to judge objects with.
type judge struct {
	name    string
	cp      *localup.ControlPlane
	dynamic dynamic.Interface
	apiext  clientset.Interface
	mapper  meta.RESTMapper
	warn    *featuregatetest.WarningRecorder
	// gates are the gated CRDs' gates (without the witness), by CRD; kinds the CRD of each
	// group and kind; storage the storage version of each gated CRD; witness the witness
	// state of each gated CRD.
	gates   map[string][]string
	kinds   map[string]string
	storage map[string]string
	witness map[string]bool
	// bases are the corpus objects that both stock channels accept; syncWitness builds its
	// probes from them.
	bases []judged
	// gateHolder is the resource whose objects, named like the gated CRDs, hold the gate
	// states at gatesAt: the CRDs themselves on our server, the parameter objects with the
	// policies. Both have the shape of spec.customFeatureGates there.
	gateHolder schema.GroupVersionResource
	gatesAt    []string
}

func startJudge(t *testing.T, s setup, binDir, stockAPIServer string, namespaces sets.Set[string], bases []judged) *judge {
	t.Helper()
	began := time.Now()
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
	j := &judge{name: s.name, cp: cp, warn: &featuregatetest.WarningRecorder{},
		gates: map[string][]string{}, kinds: map[string]string{}, storage: map[string]string{}, witness: map[string]bool{}, bases: bases,
		gateHolder: apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"),
		gatesAt:    []string{"spec", "customFeatureGates", "featureGates"}}
	if s.policies {
		j.gateHolder = schema.GroupVersionResource{Group: policies.ParamGroup, Version: policies.ParamVersion, Resource: policies.ParamResource}
		j.gatesAt = []string{"spec", "featureGates"}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	cfg.WarningHandler = j.warn
	if j.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if j.apiext, err = clientset.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ns := range sets.List(namespaces) {
		if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("%s: namespace %s: %v", s.name, ns, err)
		}
	}

	files, err := filepath.Glob(filepath.Join(s.crdDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no CRDs in %s", s.name, s.crdDir)
	}
	var names []string
	var generated []*policies.Result
	if s.policies {
		if _, err := j.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, policies.ParamCRD(), metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: installing the parameter kind: %v", s.name, err)
		}
		names = append(names, policies.ParamCRDName)
	}
	for _, f := range files {
		manifest, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(manifest, crd); err != nil || crd.Kind != "CustomResourceDefinition" {
			continue // kustomization.yaml
		}
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				j.storage[crd.Name] = v.Name
			}
		}
		j.kinds[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = crd.Name
		if (!s.stock || s.policies) && crd.Spec.CustomFeatureGates != nil && len(crd.Spec.CustomFeatureGates.FeatureGates) > 0 {
			for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
				j.gates[crd.Name] = append(j.gates[crd.Name], g.Name)
			}
			addWitness(crd)
			if s.policies {
				res, err := policies.Generate(crd)
				if err != nil {
					t.Fatalf("%s: featuregate-gen policies for %s: %v", s.name, crd.Name, err)
				}
				generated = append(generated, res)
				crd = res.CRD
			}
		}
		if _, err := j.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: installing %s: %v", s.name, filepath.Base(f), err)
		}
		names = append(names, crd.Name)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	featuregatetest.WaitFor(t, 2*time.Minute, s.name+": every CRD served", func() bool {
		for _, n := range names {
			crd, err := j.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, n, metav1.GetOptions{})
			if err != nil || !established(crd) {
				return false
			}
		}
		groups, err := restmapper.GetAPIGroupResources(dc)
		if err != nil {
			return false
		}
		j.mapper = restmapper.NewDiscoveryRESTMapper(groups)
		for gk := range j.kinds {
			group, kind, _ := strings.Cut(gk, "/")
			if _, err := j.mapper.RESTMappings(schema.GroupKind{Group: group, Kind: kind}); err != nil {
				return false
			}
		}
		return true
	})
	for _, res := range generated {
		installGenerated(t, j, res)
	}
	for c := range j.gates {
		j.syncWitness(t, c)
	}
	t.Logf("%s: serving %d CRDs in %v", s.name, len(names), time.Since(began).Round(100*time.Millisecond))
	return j
}

func (j *judge) stop() { j.cp.Stop() }

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// addWitness adds the witness gate, off, and its two fields to every version of crd.
func addWitness(crd *apiextensionsv1.CustomResourceDefinition) {
	off := false
	crd.Spec.CustomFeatureGates.FeatureGates = append(crd.Spec.CustomFeatureGates.FeatureGates, apiextensionsv1.CustomResourceDefinitionFeatureGate{
		Name: witnessGate, PreRelease: apiextensionsv1.CustomFeatureGateAlpha, Enabled: &off, FieldPaths: []string{".spec." + witnessField},
	})
	for i := range crd.Spec.Versions {
		root := crd.Spec.Versions[i].Schema.OpenAPIV3Schema
		spec := root.Properties["spec"]
		spec.Properties[witnessField] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		spec.Properties[witnessCheck] = apiextensionsv1.JSONSchemaProps{Type: "string", XFeatureGatedValidations: []apiextensionsv1.FeatureGatedValidation{
			{FeatureGate: witnessGate, Enabled: false, MaxLength: ptr.To[int64](0)},
		}}
		root.Properties["spec"] = spec
	}
}

// installGenerated creates what featuregate-gen policies wrote for a gated CRD besides the
// CRD, in the order to apply it (policies.Result.Objects).
func installGenerated(t *testing.T, j *judge, res *policies.Result) {
	t.Helper()
	for _, o := range res.Objects() {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		obj := &unstructured.Unstructured{Object: u}
		gvk := obj.GroupVersionKind()
		m, err := j.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: %v", j.name, err)
		}
		if _, err := j.dynamic.Resource(m.Resource).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: installing the %s %s of %s: %v", j.name, gvk.Kind, obj.GetName(), res.CRD.Name, err)
		}
	}
}

// crdOf is the name of the CRD of o's kind, or "" when no CRD serves it.
func (j *judge) crdOf(o judged) string {
	gvk := o.obj.GroupVersionKind()
	return j.kinds[gvk.Group+"/"+gvk.Kind]
}

// judge creates o with dry-run and the default field validation, and returns what the
// server did.
func (j *judge) judge(o judged) outcomeOf {
	gvk := o.obj.GroupVersionKind()
	m, err := j.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return outcomeOf{err: err.Error()}
	}
	var ri dynamic.ResourceInterface = j.dynamic.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := o.obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		ri = j.dynamic.Resource(m.Resource).Namespace(ns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := ri.Create(ctx, o.obj.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	j.warn.Take()
	if err != nil {
		return outcomeOf{err: err.Error()}
	}
	b, err := json.Marshal(map[string]interface{}{"labels": got.GetLabels(), "annotations": got.GetAnnotations(), "spec": got.Object["spec"]})
	if err != nil {
		return outcomeOf{err: err.Error()}
	}
	return outcomeOf{stored: string(b)}
}

// set puts the gated CRDs in state st: the gates st names on, the others off. A CRD whose
// gates change flips its witness, and set returns once the server judges with the new states.
func (j *judge) set(t *testing.T, st gateState) {
	t.Helper()
	ctx := context.Background()
	crds := make([]string, 0, len(j.gates))
	for c := range j.gates {
		crds = append(crds, c)
	}
	sort.Strings(crds)
	for _, c := range crds {
		var changed bool
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			holder, err := j.dynamic.Resource(j.gateHolder).Get(ctx, c, metav1.GetOptions{})
			if err != nil {
				return err
			}
			gates, found, err := unstructured.NestedSlice(holder.Object, j.gatesAt...)
			if err != nil || !found {
				return fmt.Errorf("no gates at %s: %v", strings.Join(j.gatesAt, "."), err)
			}
			changed = false
			for _, g := range gates {
				g := g.(map[string]interface{})
				if g["name"] == witnessGate {
					continue
				}
				want := st.on[c].Has(g["name"].(string))
				if on, ok := g["enabled"].(bool); !ok || on != want {
					g["enabled"], changed = want, true
				}
			}
			if !changed {
				return nil
			}
			for _, g := range gates {
				if g := g.(map[string]interface{}); g["name"] == witnessGate {
					g["enabled"] = !j.witness[c]
				}
			}
			if err := unstructured.SetNestedSlice(holder.Object, gates, j.gatesAt...); err != nil {
				return err
			}
			_, err = j.dynamic.Resource(j.gateHolder).Update(ctx, holder, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatalf("%s: setting the gates of %s for %q: %v", j.name, c, st.name, err)
		}
		if changed {
			j.witness[c] = !j.witness[c]
			j.syncWitness(t, c)
		}
	}
}

// syncWitness waits until dry-run writes of the witness fields of crd show the witness state
// the CRD was last given: the gated field kept and the checked value accepted while on, the
// field dropped and the value refused while off. The probes are a copy of a corpus object of
// crd that both stock channels accept (j.bases), so that the rest of the object passes the
// schema and the validating policy runs; a CRD without such an object fails the test.
func (j *judge) syncWitness(t *testing.T, crd string) {
	t.Helper()
	var base *unstructured.Unstructured
	for _, o := range j.bases {
		if j.crdOf(o) == crd {
			base = o.obj
			break
		}
	}
	if base == nil {
		t.Fatalf("%s: no object of %s that both stock channels accept, to build the witness probes from", j.name, crd)
	}
	gvk := base.GroupVersionKind()
	m, err := j.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatal(err)
	}
	var ri dynamic.ResourceInterface = j.dynamic.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := base.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		ri = j.dynamic.Resource(m.Resource).Namespace(ns)
	}
	create := func(field string) (*unstructured.Unstructured, error) {
		o := base.DeepCopy()
		if err := unstructured.SetNestedField(o.Object, "x", "spec", field); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		got, err := ri.Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		j.warn.Take()
		return got, err
	}
	want := j.witness[crd]
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var seen string
		if got, err := create(witnessField); err != nil {
			seen = fmt.Sprintf("the probe of %s was refused: %v", witnessField, err)
		} else {
			_, kept, _ := unstructured.NestedString(got.Object, "spec", witnessField)
			_, err = create(witnessCheck)
			if kept == want && (err == nil) == want {
				return
			}
			seen = fmt.Sprintf("%s kept: %t; %s refused: %v", witnessField, kept, witnessCheck, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s: timed out waiting for %s=%t to be served; last probe: %s", j.name, crd, witnessGate, want, seen)
		}
	}
}
