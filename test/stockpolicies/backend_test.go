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
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apiextensions-apiserver/test/localup"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// backend is one control plane of the comparison.
type backend struct {
	name     string
	cp       *localup.ControlPlane
	rc       *rest.RESTClient
	warnings *featuregatetest.WarningRecorder
	etcd     *clientv3.Client
	// states holds each CRD's gates' own states as last set (install: as declared); a gate
	// is enabled if its own state and those of the gates it requires are (see enabled).
	states map[string]map[string]bool
	// declared holds each CRD's list of gates as installed, for the cases that edit more
	// than enabled to put back.
	declared map[string][]interface{}
	// broken are the gates ("<crd>/<gate>") whose probe did not follow a change in time
	// once: they are not waited for again, so that a policy that never follows its gate
	// costs one timeout, not one per case. The test reports each.
	broken map[string]bool
}

// probeTimeout is the error of gates whose probes did not follow in time (and of generated
// manifests that the server refused at install): the run goes on, the test fails.
type probeTimeout struct{ msg string }

func (e *probeTimeout) Error() string { return e.msg }

func newBackend(name string, cp *localup.ControlPlane) (*backend, error) {
	b := &backend{name: name, cp: cp, warnings: &featuregatetest.WarningRecorder{}, states: map[string]map[string]bool{}, declared: map[string][]interface{}{}, broken: map[string]bool{}}
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		cp.Stop()
		return nil, err
	}
	cfg.WarningHandler = b.warnings
	cfg.QPS, cfg.Burst = 1000, 1000
	cfg.Timeout = 30 * time.Second
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	cfg.APIPath = "/"
	cfg.GroupVersion = &schema.GroupVersion{}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	if b.rc, err = rest.RESTClientFor(cfg); err != nil {
		cp.Stop()
		return nil, err
	}
	if b.etcd, err = clientv3.New(clientv3.Config{Endpoints: []string{cp.EtcdURL}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()}); err != nil {
		cp.Stop()
		return nil, err
	}
	return b, nil
}

func (b *backend) close() {
	if b.etcd != nil {
		_ = b.etcd.Close()
	}
	b.cp.Stop()
}

// answer is what the server said to one request.
type answer struct {
	code     int
	body     []byte
	obj      map[string]interface{} // the decoded body, nil if it is not a JSON object
	warnings []string
	err      error // no HTTP answer at all
}

// request sends one request to the backend and takes the warnings of its answer.
func (b *backend) request(method, urlPath string, query map[string]string, contentType string, body []byte) answer {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b.warnings.Take()
	req := b.rc.Verb(method).AbsPath(urlPath)
	for k, v := range query {
		req = req.Param(k, v)
	}
	if body != nil {
		req = req.SetHeader("Content-Type", contentType).Body(body)
	}
	res := req.Do(ctx)
	var a answer
	res.StatusCode(&a.code)
	a.body, a.err = res.Raw()
	if a.code != 0 {
		a.err = nil
	}
	a.warnings = b.warnings.Take()
	if len(a.body) > 0 {
		var obj map[string]interface{}
		if json.Unmarshal(a.body, &obj) == nil {
			a.obj = obj
		}
	}
	return a
}

// objectPath is the URL path of a CRD's collection in ns (name "") or of one object, or of
// one of its subresources.
func objectPath(c *crdInfo, ns, name, sub string) string {
	p := path.Join("/apis", c.group, c.version, "namespaces", ns, c.resource)
	if name != "" {
		p = path.Join(p, name)
	}
	if sub != "" {
		p = path.Join(p, sub)
	}
	return p
}

// object is a full object of the CRD: apiVersion, kind, metadata and the given top-level
// fields (a JSON object such as {"spec":{...}}).
func object(c *crdInfo, ns, name, content string) []byte {
	obj := map[string]interface{}{}
	if content != "" {
		if err := json.Unmarshal([]byte(content), &obj); err != nil {
			panic(fmt.Sprintf("bad content %s: %v", content, err))
		}
	}
	obj["apiVersion"], obj["kind"] = c.apiVersion(), c.kind
	obj["metadata"] = map[string]interface{}{"name": name, "namespace": ns}
	out, _ := json.Marshal(obj)
	return out
}

// get reads an object (nil when there is none).
func (b *backend) get(c *crdInfo, ns, name string) (map[string]interface{}, error) {
	a := b.request(http.MethodGet, objectPath(c, ns, name, ""), nil, "", nil)
	switch {
	case a.err != nil:
		return nil, a.err
	case a.code == http.StatusNotFound:
		return nil, nil
	case a.code != http.StatusOK || a.obj == nil:
		return nil, fmt.Errorf("%s: GET %s: HTTP %d: %s", b.name, objectPath(c, ns, name, ""), a.code, a.body)
	}
	return a.obj, nil
}

// ensureNamespace creates a namespace if it is not there.
func (b *backend) ensureNamespace(ns string) error {
	a := b.request(http.MethodPost, "/api/v1/namespaces", nil, "application/json",
		[]byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)))
	if a.err != nil {
		return a.err
	}
	if a.code != http.StatusCreated && a.code != http.StatusConflict {
		return fmt.Errorf("%s: cannot create namespace %s: HTTP %d: %s", b.name, ns, a.code, a.body)
	}
	return nil
}

// install puts the CRDs on the backend: the examples as they are on ours, featuregate-gen
// policies' output on stock (CRDs, wait for Established, then policies and parameter
// objects), as the generator's documentation says. It returns once every gate probe shows
// the declared state.
func (b *backend) install() error {
	if b.name == backendOurs {
		args := []string{"apply", "--server-side", "--field-manager=crd-author"}
		for _, c := range allCRDs {
			args = append(args, "-f", c.file)
		}
		if _, err := b.mustKubectl("", args...); err != nil {
			return err
		}
	} else {
		if _, err := b.mustKubectl("", "apply", "--server-side", "-f", filepath.Join(generatedDir, "crds")); err != nil {
			return err
		}
	}
	if _, err := b.mustKubectl("", "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"); err != nil {
		return err
	}
	// A manifest of the generated policies that the server refuses is a finding, not the end
	// of the run: kubectl applies the others, and the cases show what that leaves.
	var problems []string
	if b.name != backendOurs {
		if r := b.kubectl("", "apply", "--server-side", "-f", filepath.Join(generatedDir, "policies")); r.err != nil {
			problems = append(problems, fmt.Sprintf("%s: kubectl apply --server-side -f <out>/policies: %v: %s", b.name, r.err, strings.TrimSpace(r.stderr)))
		}
	}
	for _, c := range allCRDs {
		b.states[c.name] = map[string]bool{}
		for _, g := range c.gates {
			b.states[c.name][g.name] = g.initial
		}
	}
	// The object that status probes patch (with dryRun). On stock, writes get a 503 until the
	// CRD's schema is published in /openapi/v3.
	deadline := time.Now().Add(installTimeout)
	for {
		a := b.request(http.MethodPost, objectPath(widgetCRD, "default", "", ""), nil, "application/json", object(widgetCRD, "default", "probe", `{"spec":{"image":"probe"}}`))
		if a.err == nil && (a.code == http.StatusCreated || a.code == http.StatusConflict) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: cannot create the probe widget within %s: HTTP %d %v: %s", b.name, installTimeout, a.code, a.err, a.body)
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, c := range allCRDs {
		if err := b.waitForGates(c, time.Until(deadline)); err != nil {
			if _, ok := err.(*probeTimeout); !ok {
				return err
			}
			problems = append(problems, err.Error())
		}
		gl, err := b.gateList(c)
		if err != nil {
			return err
		}
		b.declared[c.name] = gl.items
	}
	if problems != nil {
		return &probeTimeout{msg: strings.Join(problems, "\n")}
	}
	return nil
}

// probe asks the backend whether a gate's field is live now.
func (b *backend) probe(c *crdInfo, g *gateInfo, gp gateProbe) probeAnswer {
	var a answer
	dry := map[string]string{"dryRun": "All"}
	if gp.sub != "" {
		a = b.request(http.MethodPatch, objectPath(c, "default", "probe", gp.sub), dry, "application/merge-patch+json", []byte(gp.body))
	} else {
		a = b.request(http.MethodPost, objectPath(c, "default", "", ""), dry, "application/json", object(c, "default", "probe-"+strings.ToLower(g.name), gp.body))
	}
	return probeAnswer{code: a.code, obj: a.obj, warnings: a.warnings}
}

// effective is whether a gate's probe field should be live with the states last set: the
// gate is enabled (its own state, every gate it requires, one of requiresAnyOf if it has
// any; docs/reference/semantics.md), and so is every gate of a gated ancestor.
func (b *backend) effective(c *crdInfo, g *gateInfo) bool {
	on := b.enabled(c, g)
	for _, p := range g.parents {
		on = on && b.enabled(c, c.gate(p))
	}
	return on
}

// enabled is whether a gate is enabled with the states last set. Validation refuses a cycle
// of requires and requiresAnyOf, so the recursion ends.
func (b *backend) enabled(c *crdInfo, g *gateInfo) bool {
	on := b.states[c.name][g.name]
	for _, r := range g.requires {
		on = on && b.enabled(c, c.gate(r))
	}
	if len(g.requiresAnyOf) > 0 {
		any := false
		for _, r := range g.requiresAnyOf {
			any = any || b.enabled(c, c.gate(r))
		}
		on = on && any
	}
	return on
}

// waitForGates waits until every probe of the CRD shows the states last set, twice in a
// row. After timeout it marks the gates whose probes still disagree as broken and returns
// a *probeTimeout that names them.
func (b *backend) waitForGates(c *crdInfo, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	good := 0
	for {
		var wrong []string
		var wrongGates []string
		for i := range c.gates {
			g := &c.gates[i]
			if b.broken[c.name+"/"+g.name] {
				continue
			}
			want := b.effective(c, g)
			for _, gp := range g.probes {
				p := b.probe(c, g, gp)
				live, valid := gp.observe(p)
				if !valid || live != want {
					wrongGates = append(wrongGates, g.name)
					wrong = append(wrong, fmt.Sprintf("%s: want live=%t, the probe %s %s answered HTTP %d (live=%t, valid=%t, warnings %q, object %s)",
						g.name, want, gp.sub, gp.body, p.code, live, valid, p.warnings, content(p.obj)))
					break
				}
			}
		}
		if len(wrong) == 0 {
			if good++; good == 2 {
				return nil
			}
		} else {
			good = 0
			if time.Now().After(deadline) {
				for _, g := range wrongGates {
					b.broken[c.name+"/"+g] = true
				}
				return &probeTimeout{msg: fmt.Sprintf("%s: the writes to %s do not follow the gates within %s (not waited for again): %s", b.name, c.name, timeout, strings.Join(wrong, "; "))}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// setGates sets the named gates' enabled on the backend, as a cluster admin does: one JSON
// patch, each gate guarded by a test of its name, of the CRD on ours and of the parameter
// object on stock. Then it waits until the writes follow.
func (b *backend) setGates(c *crdInfo, states map[string]bool) error {
	var names []string
	for name, on := range states {
		c.gate(name) // panics on a typo
		if b.states[c.name][name] != on {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	gl, err := b.gateList(c)
	if err != nil {
		return err
	}
	var ops []map[string]interface{}
	for _, name := range names {
		gatePath, err := gl.gatePath(name)
		if err != nil {
			return err
		}
		ops = append(ops,
			map[string]interface{}{"op": "test", "path": gatePath + "/name", "value": name},
			map[string]interface{}{"op": "add", "path": gatePath + "/enabled", "value": states[name]})
	}
	patch, _ := json.Marshal(ops)
	if _, err := b.mustKubectl("", "patch", gl.resource, c.name, "--type", "json", "-p", string(patch)); err != nil {
		return err
	}
	for _, name := range names {
		b.states[c.name][name] = states[name]
	}
	return b.waitForGates(c, gateChangeTimeout)
}

// etcdObject reads an object straight from etcd, where kube-apiserver stores custom
// resources as JSON under /registry/<group>/<resource>/<namespace>/<name>.
func (b *backend) etcdObject(c *crdInfo, ns, name string) (map[string]interface{}, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	key := path.Join("/registry", c.group, c.resource, ns, name)
	resp, err := b.etcd.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("%s: etcd get %s: %w", b.name, key, err)
	}
	if len(resp.Kvs) != 1 {
		return nil, fmt.Errorf("%s: etcd has %d values at %s", b.name, len(resp.Kvs), key)
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(resp.Kvs[0].Value, &obj); err != nil {
		return nil, fmt.Errorf("%s: the value at %s is not JSON (%v): %.200q", b.name, key, err, resp.Kvs[0].Value)
	}
	return obj, nil
}

// gateList is where a backend keeps a CRD's gates: the CRD on ours, the parameter object
// on stock, read now.
type gateList struct {
	backend, crd string
	// resource and urlPath name the object that holds the list, at listPath (a JSON pointer).
	resource, urlPath, listPath string
	items                       []interface{}
}

func (b *backend) gateList(c *crdInfo) (*gateList, error) {
	gl := &gateList{backend: b.name, crd: c.name, resource: "customresourcedefinitions.apiextensions.k8s.io",
		urlPath: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + c.name, listPath: "/spec/customFeatureGates/featureGates"}
	if b.name != backendOurs {
		gl.resource, gl.listPath = paramResource, "/spec/featureGates"
		gl.urlPath = path.Join("/apis", policies.ParamAPIVersion, policies.ParamResource, c.name)
	}
	r, err := b.mustKubectl("", "get", gl.resource, c.name, "-o", "json")
	if err != nil {
		return nil, err
	}
	var holder map[string]interface{}
	if err := json.Unmarshal([]byte(r.stdout), &holder); err != nil {
		return nil, fmt.Errorf("%s: kubectl get %s %s: %v", b.name, gl.resource, c.name, err)
	}
	list, _ := lookup(holder, strings.Split(strings.TrimPrefix(gl.listPath, "/"), "/")...)
	gl.items, _ = list.([]interface{})
	return gl, nil
}

// gatePath is the JSON pointer of the named gate's item.
func (gl *gateList) gatePath(name string) (string, error) {
	for i, item := range gl.items {
		if n, _ := lookup(item, "name"); n == name {
			return fmt.Sprintf("%s/%d", gl.listPath, i), nil
		}
	}
	return "", fmt.Errorf("%s: %s %s has no gate %s at %s", gl.backend, gl.resource, gl.crd, name, gl.listPath)
}

// gateEdit changes one field of a gate's definition, as a cluster admin (enabled) or the
// CRD's author (default) would: value nil removes the field.
type gateEdit struct {
	gate, field string
	value       interface{}
}

// editGates sends one JSON patch with the edits, each guarded by a test of the gate's name,
// to the object that holds the gates (or, with restore, puts back the gates as installed),
// and returns the server's answer. It does not wait for the writes to follow.
func (b *backend) editGates(c *crdInfo, edits []gateEdit, restore bool) (answer, error) {
	gl, err := b.gateList(c)
	if err != nil {
		return answer{}, err
	}
	var ops []map[string]interface{}
	if restore {
		ops = append(ops, map[string]interface{}{"op": "replace", "path": gl.listPath, "value": b.declared[c.name]})
	}
	for _, e := range edits {
		gatePath, err := gl.gatePath(e.gate)
		if err != nil {
			return answer{}, err
		}
		ops = append(ops, map[string]interface{}{"op": "test", "path": gatePath + "/name", "value": e.gate})
		if e.value == nil {
			ops = append(ops, map[string]interface{}{"op": "remove", "path": gatePath + "/" + e.field})
		} else {
			ops = append(ops, map[string]interface{}{"op": "add", "path": gatePath + "/" + e.field, "value": e.value})
		}
	}
	patch, _ := json.Marshal(ops)
	a := b.request(http.MethodPatch, gl.urlPath, nil, "application/json-patch+json", patch)
	return a, a.err
}
