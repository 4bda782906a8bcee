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

// Package featuregatetest holds what the fork's tests share, so that no test package keeps a
// copy that can drift: the gated CronTab CRD, a recorder of the Warning headers a client
// receives, the warnings kubectl prints, a poll with a deadline, free loopback ports, and a
// module's directory from the Go module proxy. It is test support only; no server code
// imports it.
package featuregatetest

import (
	"encoding/json"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// WarningRecorder is a client-go rest.WarningHandler that keeps the text of every Warning
// header of the responses its client receives, in order, until Take. With CountOnly it keeps
// only the count (for load tests, whose warnings would otherwise pile up). It is safe for
// concurrent use.
type WarningRecorder struct {
	CountOnly bool

	mu       sync.Mutex
	warnings []string
	count    int64
}

// HandleWarningHeader implements rest.WarningHandler.
func (w *WarningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.count++
	if !w.CountOnly {
		w.warnings = append(w.warnings, text)
	}
}

// Take returns the warnings recorded since the last Take (nil if none) and forgets them.
func (w *WarningRecorder) Take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.warnings
	w.warnings = nil
	return out
}

// Count is the number of Warning headers received since the recorder was made; Take does
// not reset it.
func (w *WarningRecorder) Count() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.count
}

// FreePorts returns n distinct TCP ports on 127.0.0.1 that were free a moment ago: each is
// listened on and closed before it returns, so another process may still take one.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Gate is a custom feature gate of stage stage (alpha, beta, stable, deprecated) that
// guards paths, with enabled and default unset.
func Gate(name, stage string, paths ...string) apiextensionsv1.CustomResourceDefinitionFeatureGate {
	return apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: name, PreRelease: apiextensionsv1.CustomFeatureGatePreRelease(stage), FieldPaths: paths}
}

// CronTabCRD is the KEP's crontab (group stable.example.com, kind CronTab, one version v1,
// namespaced), named plural.stable.example.com, with gates as its spec.customFeatureGates
// (none: no field). Its schema has a field of every kind a gated path can point at:
//
//	.spec: cronSpec, image, owner, legacy, retired (strings), replicas (integer),
//	       advanced {level, mode} (nested object),
//	       ports[] {name, port, appProtocol} (a map list keyed by name),
//	       limits (a map of strings, additionalProperties),
//	       extra (x-kubernetes-preserve-unknown-fields)
//	.status: ready, replicas (integers)
//
// and the status and scale (.spec.replicas, .status.replicas) subresources. Plural must end
// in "s"; the singular drops it.
func CronTabCRD(plural string, gates ...apiextensionsv1.CustomResourceDefinitionFeatureGate) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	integer := apiextensionsv1.JSONSchemaProps{Type: "integer"}
	schema := &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"cronSpec": str,
				"image":    str,
				"replicas": integer,
				"owner":    str,
				"legacy":   str,
				"retired":  str,
				"advanced": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"level": integer, "mode": str}},
				"ports": {
					Type:         "array",
					XListType:    ptr.To("map"),
					XListMapKeys: []string{"name"},
					Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
						Type:       "object",
						Required:   []string{"name"},
						Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str, "port": integer, "appProtocol": str},
					}},
				},
				"limits": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &str}},
				"extra":  {Type: "object", XPreserveUnknownFields: ptr.To(true)},
			}},
			"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"ready": integer, "replicas": integer}},
		},
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: plural[:len(plural)-1], Kind: "CronTab", ListKind: "CronTabList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
				},
			}},
		},
	}
	if len(gates) > 0 {
		crd.Spec.CustomFeatureGates = &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: gates}
	}
	return crd
}

// KubectlWarnings returns the warnings kubectl printed on stderr (its "Warning: " lines),
// without the prefix.
func KubectlWarnings(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, "Warning: "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// WaitFor polls cond every 200ms until it holds, and fails the test after timeout.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ModuleDir downloads module (path@version) from the Go module proxy, or finds it in the
// module cache, and returns its directory. It fails the test, naming the module, when the
// proxy refuses it.
func ModuleDir(t testing.TB, module string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); err != nil || jerr != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", module, err, info.Error)
	}
	return info.Dir
}
