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

package openshiftapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// probeField is the top-level property that the runner adds to a CRD's schema, for a moment,
// to learn when the server serves a new revision of the CRD (see server.sync). No OpenShift
// object has it.
const probeField = "zzOpenShiftAPIDifferentialProbe"

// server is one control plane: etcd and a kube-apiserver (stock or ours).
type server struct {
	name    string
	ours    bool
	binDir  string
	cp      *localup.ControlPlane
	cfg     *rest.Config
	crds    apiextensionsclient.CustomResourceDefinitionInterface
	dynamic dynamic.Interface
}

func startServer(ctx context.Context, name, binDir, kubeAPIServer string, ours bool, dir string) (*server, error) {
	ports, err := featuregatetest.FreePorts(3)
	if err != nil {
		return nil, err
	}
	o := localup.Options{Dir: dir, BinDir: binDir, EtcdPort: ports[0], EtcdPeerPort: ports[1], APIServerPort: ports[2]}
	if ours {
		o.FeatureGates = "CRDFieldLevelVersioning=true"
	} else {
		o.KubeAPIServer = kubeAPIServer
	}
	cp, err := localup.Start(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		cp.Stop()
		return nil, err
	}
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling: the cases are the load
	s := &server{name: name, ours: ours, binDir: binDir, cp: cp, cfg: cfg}
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		cp.Stop()
		return nil, err
	}
	s.crds = cs.CustomResourceDefinitions()
	if s.dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		cp.Stop()
		return nil, err
	}
	return s, nil
}

// resource is the dynamic client of the CRD's one version, in namespace default when the
// CRD is namespaced.
func (s *server) resource(d dynamic.Interface, crd *apiextensionsv1.CustomResourceDefinition) dynamic.ResourceInterface {
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: crd.Spec.Versions[0].Name, Resource: crd.Spec.Names.Plural}
	if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
		return d.Resource(gvr).Namespace("default")
	}
	return d.Resource(gvr)
}

// install creates the CRD, or replaces the spec of the one installed (which then holds no
// objects), and waits until the server serves this revision.
func (s *server) install(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	live, err := s.crds.Get(ctx, crd.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := s.crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("%s: creating CRD %s: %w", s.name, crd.Name, err)
		}
	case err != nil:
		return err
	default:
		next := crd.DeepCopy()
		next.ResourceVersion = live.ResourceVersion
		if _, err := s.crds.Update(ctx, next, metav1.UpdateOptions{}); err != nil {
			// Another version (stored versions cannot go), or a change that CRD validation
			// refuses on update: install it afresh, as OpenShift's harness does every time.
			if !apierrors.IsInvalid(err) {
				return fmt.Errorf("%s: replacing CRD %s: %w", s.name, crd.Name, err)
			}
			if err := s.reinstall(ctx, crd); err != nil {
				return err
			}
		}
	}
	if err := s.waitEstablished(ctx, crd.Name); err != nil {
		return err
	}
	return s.sync(ctx, crd.Name)
}

// reinstall deletes the CRD, waits until it is gone, and creates crd.
func (s *server) reinstall(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if err := s.crds.Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%s: deleting CRD %s: %w", s.name, crd.Name, err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, err := s.crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: CRD %s not gone within 2 minutes after its deletion (%v)", s.name, crd.Name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := s.crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("%s: creating CRD %s: %w", s.name, crd.Name, err)
	}
	return nil
}

func (s *server) waitEstablished(ctx context.Context, name string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		crd, err := s.crds.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: CRD %s not established within a minute (%v)", s.name, name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sync returns once the server serves the CRD's current revision. A CRD write returns before
// the server's handler has read it; the handler serves revisions in order. So sync writes a
// revision with a probe property whose enum is a fresh token and waits until a dry-run
// create is refused with that token, then writes the revision without the probe and waits
// until a dry-run create no longer mentions the probe.
func (s *server) sync(ctx context.Context, name string) error {
	token := "t" + rand.String(10)
	if err := s.patchSchema(ctx, name, func(props map[string]interface{}) {
		props[probeField] = map[string]interface{}{"type": "string", "enum": []interface{}{token}}
	}); err != nil {
		return err
	}
	if err := s.waitProbe(ctx, name, func(msg string) bool { return strings.Contains(msg, token) }); err != nil {
		return err
	}
	if err := s.patchSchema(ctx, name, func(props map[string]interface{}) { delete(props, probeField) }); err != nil {
		return err
	}
	return s.waitProbe(ctx, name, func(msg string) bool { return !strings.Contains(msg, probeField) })
}

// patchSchema changes the top-level properties of the CRD's one version.
func (s *server) patchSchema(ctx context.Context, name string, change func(props map[string]interface{})) error {
	for attempt := 0; ; attempt++ {
		crd, err := s.crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		raw, err := json.Marshal(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
		if err != nil {
			return err
		}
		var schemaMap map[string]interface{}
		if err := json.Unmarshal(raw, &schemaMap); err != nil {
			return err
		}
		props, _ := schemaMap["properties"].(map[string]interface{})
		if props == nil {
			props = map[string]interface{}{}
			schemaMap["properties"] = props
		}
		change(props)
		raw, _ = json.Marshal(schemaMap)
		next := &apiextensionsv1.JSONSchemaProps{}
		if err := json.Unmarshal(raw, next); err != nil {
			return err
		}
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema = next
		_, err = s.crds.Update(ctx, crd, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsConflict(err) || attempt > 5 {
			return fmt.Errorf("%s: updating CRD %s: %w", s.name, name, err)
		}
	}
}

// waitProbe dry-run creates an object with the probe field set to a value no token has, until
// done holds for the server's answer.
func (s *server) waitProbe(ctx context.Context, name string, done func(msg string) bool) error {
	crd, err := s.crds.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": crd.Spec.Group + "/" + crd.Spec.Versions[0].Name,
		"kind":       crd.Spec.Names.Kind,
		"metadata":   map[string]interface{}{"generateName": "probe-"},
		probeField:   "no-token",
	}}
	deadline := time.Now().Add(time.Minute)
	last := ""
	for {
		_, err := s.resource(s.dynamic, crd).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		last = ""
		if err != nil {
			last = err.Error()
		}
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
			last = "not served yet: " + last
		} else if done(last) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: CRD %s: the new revision was not served within a minute (last answer %q)", s.name, name, last)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// setGates sets the gates of the CRD with `kubectl featuregates set`, one write for all, and
// waits until the server serves them.
func (s *server) setGates(ctx context.Context, crdName string, gates map[string]bool) error {
	if len(gates) > 0 {
		args := []string{"featuregates", "set", crdName}
		for _, g := range sortedKeys(gates) {
			args = append(args, fmt.Sprintf("%s=%v", g, gates[g]))
		}
		if out, err := s.kubectl(ctx, args...); err != nil {
			return fmt.Errorf("%s: kubectl %s: %v\n%s", s.name, strings.Join(args, " "), err, out)
		}
	}
	return s.sync(ctx, crdName)
}

// kubectl runs the real kubectl of binDir (and, through it, the plugin kubectl-featuregates,
// which is found on PATH as kubectl finds plugins).
func (s *server) kubectl(ctx context.Context, args ...string) (string, error) {
	return s.kubectlWithStdin(ctx, "", args...)
}

func (s *server) kubectlWithStdin(ctx context.Context, stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, "kubectl"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+s.cp.Kubeconfig, "PATH="+s.binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Result is what one case did on one server.
type Result struct {
	// Pass says whether the case met its expectation; Why says why not.
	Pass bool
	Why  string
	// Step is the step whose answer decided the case: create, update, status or stored.
	Step string
	// Err is that step's error; Matched whether it held the expected error text.
	Err     string
	Matched bool
	// Stored is the object as read back at the end (metadata noise removed), if any.
	Stored string
	// Warnings are the server's warnings for the case's own requests.
	Warnings []string
}

// caseRun is one case of one suite, to run on a unit.
type caseRun struct {
	suite    *Suite
	update   bool
	index    int
	c        Case
	explicit string // the object's own name, if the initial object names it
}

func (r caseRun) key() string {
	kind := "onCreate"
	if r.update {
		kind = "onUpdate"
	}
	return fmt.Sprintf("%s %s[%d] %s", r.suite.Path, kind, r.index, r.c.Name)
}

// runUnit runs every case of the unit's suites on the server, on the CRD already installed:
// cases that patch the CRD one at a time at the end; the others in parallel, except that
// cases whose objects have the same name run one after the other.
func (s *server) runUnit(ctx context.Context, u *Unit, crd *apiextensionsv1.CustomResourceDefinition, parallel int) map[string]*Result {
	var lanes [][]caseRun
	var patching []caseRun
	byName := map[string]int{}
	for _, suite := range u.Suites {
		for i, c := range suite.Tests.OnCreate {
			r := caseRun{suite: suite, index: i, c: c, explicit: objectName(c.Initial)}
			lanes = addToLane(lanes, byName, r)
		}
		for i, c := range suite.Tests.OnUpdate {
			r := caseRun{suite: suite, update: true, index: i, c: c, explicit: objectName(c.Initial)}
			if len(c.InitialCRDPatches) > 0 {
				patching = append(patching, r)
				continue
			}
			lanes = addToLane(lanes, byName, r)
		}
	}
	results := map[string]*Result{}
	var mu sync.Mutex
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, lane := range lanes {
		wg.Add(1)
		sem <- struct{}{}
		go func(lane []caseRun) {
			defer wg.Done()
			defer func() { <-sem }()
			for _, r := range lane {
				res := s.runCase(ctx, crd, r)
				mu.Lock()
				results[r.key()] = res
				mu.Unlock()
			}
		}(lane)
	}
	wg.Wait()
	for _, r := range patching {
		results[r.key()] = s.runCase(ctx, crd, r)
	}
	return results
}

func addToLane(lanes [][]caseRun, byName map[string]int, r caseRun) [][]caseRun {
	if r.explicit == "" {
		return append(lanes, []caseRun{r})
	}
	if i, ok := byName[r.explicit]; ok {
		lanes[i] = append(lanes[i], r)
		return lanes
	}
	byName[r.explicit] = len(lanes)
	return append(lanes, []caseRun{r})
}

// objectName is metadata.name of a YAML object, if it has one.
func objectName(doc string) string {
	var o struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	_ = yaml.Unmarshal([]byte(doc), &o)
	return o.Metadata.Name
}

// parseObject reads a case's YAML object and gives it the name or generateName and the
// namespace it is created with.
func parseObject(doc string, crd *apiextensionsv1.CustomResourceDefinition) (*unstructured.Unstructured, error) {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetName() == "" {
		u.SetGenerateName("test-")
	}
	if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
		u.SetNamespace("default")
	} else {
		u.SetNamespace("")
	}
	return u, nil
}

// runCase runs one case as the format describes it (tests-README.md). The object it created
// is deleted at the end.
func (s *server) runCase(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, r caseRun) (res *Result) {
	warnings := &featuregatetest.WarningRecorder{}
	cfg := rest.CopyConfig(s.cfg)
	cfg.WarningHandler = warnings
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return &Result{Why: err.Error(), Step: "setup"}
	}
	res = &Result{}
	client := s.resource(d, crd)
	var created string
	defer func() {
		res.Warnings = warnings.Take()
		sort.Strings(res.Warnings)
		if created != "" {
			s.deleteObject(ctx, crd, created, r.explicit != "")
		}
	}()
	fail := func(step, format string, args ...interface{}) *Result {
		res.Pass, res.Step, res.Why = false, step, fmt.Sprintf(format, args...)
		return res
	}
	initial, err := parseObject(r.c.Initial, crd)
	if err != nil {
		return fail("setup", "initial is not a YAML object: %v", err)
	}

	if !r.update {
		out, err := client.Create(ctx, initial, metav1.CreateOptions{})
		if err == nil {
			created = out.GetName()
		}
		if r.c.ExpectedError != "" {
			return s.expectError(ctx, client, res, "create", err, r.c.ExpectedError, created, r.explicit == "")
		}
		if err != nil {
			res.Err = err.Error()
			return fail("create", "create failed: %v", err)
		}
		expected := r.c.Expected
		if strings.TrimSpace(expected) == "" {
			expected = r.c.Initial
		}
		return s.checkStored(ctx, client, res, created, expected, r.explicit == "")
	}

	// onUpdate.
	var restore *apiextensionsv1.CustomResourceDefinitionSpec
	if len(r.c.InitialCRDPatches) > 0 {
		spec, err := s.patchCRD(ctx, crd.Name, r.c.InitialCRDPatches)
		if err != nil {
			return fail("setup", "initialCRDPatches: %v", err)
		}
		restore = spec
	}
	initialStatus, hasInitialStatus := initial.Object["status"]
	out, err := client.Create(ctx, initial, metav1.CreateOptions{})
	if err != nil {
		if restore != nil {
			_ = s.restoreCRD(ctx, crd.Name, restore)
		}
		res.Err = err.Error()
		return fail("create", "the initial object was not created: %v", err)
	}
	created = out.GetName()
	if hasInitialStatus {
		out.Object["status"] = initialStatus
		if out, err = client.UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil {
			if restore != nil {
				_ = s.restoreCRD(ctx, crd.Name, restore)
			}
			res.Err = err.Error()
			return fail("status", "the initial status was not written: %v", err)
		}
	}
	if restore != nil {
		if err := s.restoreCRD(ctx, crd.Name, restore); err != nil {
			return fail("setup", "restoring the CRD after initialCRDPatches: %v", err)
		}
	}
	got, err := client.Get(ctx, created, metav1.GetOptions{})
	if err != nil {
		return fail("setup", "reading the initial object: %v", err)
	}
	updated, err := parseObject(r.c.Updated, crd)
	if err != nil {
		return fail("setup", "updated is not a YAML object: %v", err)
	}
	updatedStatus, hasUpdatedStatus := updated.Object["status"]
	updated.SetName(got.GetName())
	updated.SetResourceVersion(got.GetResourceVersion())
	out, err = client.Update(ctx, updated, metav1.UpdateOptions{})
	if r.c.ExpectedError != "" {
		return s.expectError(ctx, client, res, "update", err, r.c.ExpectedError, created, r.explicit == "")
	}
	if err != nil {
		res.Err = err.Error()
		return fail("update", "update failed: %v", err)
	}
	if hasUpdatedStatus {
		out.Object["status"] = updatedStatus
		_, err = client.UpdateStatus(ctx, out, metav1.UpdateOptions{})
		if r.c.ExpectedStatusError != "" {
			return s.expectError(ctx, client, res, "status", err, r.c.ExpectedStatusError, created, r.explicit == "")
		}
		if err != nil {
			res.Err = err.Error()
			return fail("status", "status update failed: %v", err)
		}
	}
	expected := r.c.Expected
	if strings.TrimSpace(expected) == "" {
		expected = r.c.Updated
	}
	return s.checkStored(ctx, client, res, created, expected, r.explicit == "")
}

// expectError decides a case that expects an error at step.
func (s *server) expectError(ctx context.Context, client dynamic.ResourceInterface, res *Result, step string, err error, want, created string, generated bool) *Result {
	res.Step = step
	if err == nil {
		res.Pass, res.Why = false, fmt.Sprintf("%s succeeded; expected an error containing %q", step, want)
		if created != "" {
			if got, gerr := client.Get(ctx, created, metav1.GetOptions{}); gerr == nil {
				res.Stored = normalized(got.Object, generated)
			}
		}
		return res
	}
	res.Err = err.Error()
	res.Matched = strings.Contains(res.Err, want)
	res.Pass = res.Matched
	if !res.Matched {
		res.Why = fmt.Sprintf("%s error %q does not contain %q", step, res.Err, want)
	}
	return res
}

// checkStored reads the object back and compares it with expected, metadata that the server
// generates aside.
func (s *server) checkStored(ctx context.Context, client dynamic.ResourceInterface, res *Result, name, expected string, generated bool) *Result {
	res.Step = "stored"
	got, err := client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		res.Pass, res.Why = false, fmt.Sprintf("reading the object back: %v", err)
		return res
	}
	res.Stored = normalized(got.Object, generated)
	want := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(expected), &want); err != nil {
		res.Pass, res.Why = false, fmt.Sprintf("expected is not a YAML object: %v", err)
		return res
	}
	wantObj := &unstructured.Unstructured{Object: want}
	wantObj.SetName(got.GetName())
	wantObj.SetNamespace(got.GetNamespace())
	a, b := forVerdict(got.Object), forVerdict(wantObj.Object)
	if reflect.DeepEqual(a, b) {
		res.Pass = true
		return res
	}
	ga, _ := json.Marshal(a)
	gb, _ := json.Marshal(b)
	res.Pass, res.Why = false, fmt.Sprintf("stored %s, expected %s", ga, gb)
	return res
}

// autogenerated is the metadata the server sets on its own, which a case's expected object
// does not give.
var autogenerated = []string{"uid", "generation", "creationTimestamp", "resourceVersion", "managedFields", "deletionGracePeriodSeconds", "deletionTimestamp", "selfLink", "generateName"}

// forVerdict is obj as JSON values, without the autogenerated metadata.
func forVerdict(obj map[string]interface{}) interface{} {
	c := jsonCopy(obj).(map[string]interface{})
	if md, ok := c["metadata"].(map[string]interface{}); ok {
		for _, k := range autogenerated {
			delete(md, k)
		}
		if len(md) == 0 {
			delete(c, "metadata")
		}
	}
	return c
}

// normalized is the stored object as the two servers are compared: the autogenerated
// metadata aside, and the generated name too, but metadata.generation kept.
func normalized(obj map[string]interface{}, generated bool) string {
	c := jsonCopy(obj).(map[string]interface{})
	if md, ok := c["metadata"].(map[string]interface{}); ok {
		for _, k := range []string{"uid", "creationTimestamp", "resourceVersion", "managedFields", "selfLink"} {
			delete(md, k)
		}
		if generated {
			delete(md, "name")
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

func jsonCopy(v interface{}) interface{} {
	b, _ := json.Marshal(v)
	var out interface{}
	_ = json.Unmarshal(b, &out)
	return out
}

// deleteObject deletes a case's object; one with its own name is waited for, since the next
// case of its lane creates it again.
func (s *server) deleteObject(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, name string, wait bool) {
	client := s.resource(s.dynamic, crd)
	zero := int64(0)
	_ = client.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if !wait {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := client.Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// patchCRD applies initialCRDPatches to the CRD as installed (on ours, with its gate states),
// with the probe token, waits until the server serves it, and returns the spec to restore.
func (s *server) patchCRD(ctx context.Context, name string, patches []Patch) (*apiextensionsv1.CustomResourceDefinitionSpec, error) {
	live, err := s.crds.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	saved := live.Spec.DeepCopy()
	doc, err := json.Marshal(live)
	if err != nil {
		return nil, err
	}
	ops, err := json.Marshal(patches)
	if err != nil {
		return nil, err
	}
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, err
	}
	patched, err := p.Apply(doc)
	if err != nil {
		return nil, fmt.Errorf("applying %s to CRD %s: %w", ops, name, err)
	}
	next := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(patched, next); err != nil {
		return nil, err
	}
	if _, err := s.crds.Update(ctx, next, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("updating CRD %s with initialCRDPatches: %w", name, err)
	}
	return saved, s.sync(ctx, name)
}

// restoreCRD puts the spec back and waits until the server serves it.
func (s *server) restoreCRD(ctx context.Context, name string, spec *apiextensionsv1.CustomResourceDefinitionSpec) error {
	live, err := s.crds.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	live.Spec = *spec
	if _, err := s.crds.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("restoring CRD %s: %w", name, err)
	}
	return s.sync(ctx, name)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
