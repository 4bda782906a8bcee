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

// Package envtestgates installs gated CustomResourceDefinitions in a test API server (such
// as controller-runtime's envtest) without a Go type between the file and the server, and
// checks that the server kept their gates.
//
// envtest's CRDDirectoryPaths decodes each file into upstream's
// apiextensionsv1.CustomResourceDefinition, which has no spec.customFeatureGates and no gate
// marks: a module that does not replace k8s.io/apiextensions-apiserver with this fork installs
// its CRDs without their gates, and every field is live, silently. Install reads the files as
// unstructured objects instead, and Verify fails loudly when a CRD on the server lacks a gate
// its file declares, whoever installed it. The package uses no type of this fork, so it works
// with upstream k8s.io/apiextensions-apiserver in the module graph.
package envtestgates

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRD is one CustomResourceDefinition read from a file.
type CRD struct {
	// File is the file it was read from.
	File string
	// Object is the CRD as the file has it.
	Object *unstructured.Unstructured
}

// Read returns the apiextensions.k8s.io/v1 CustomResourceDefinitions of the files at paths:
// each path is a file, or a directory whose *.yaml, *.yml and *.json files are read (not its
// subdirectories), as envtest's CRDDirectoryPaths. Other documents are skipped. A path that
// holds no CRD is an error: a typo would otherwise test nothing.
func Read(paths ...string) ([]CRD, error) {
	var out []CRD
	for _, p := range paths {
		files, err := files(p)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, f := range files {
			crds, err := readFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, crds...)
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s holds no apiextensions.k8s.io/v1 CustomResourceDefinition", p)
		}
	}
	// One CRD in two places would be installed twice, the second over the first, and checked
	// against the wrong file.
	seen := map[string]string{}
	for _, c := range out {
		if prev, ok := seen[c.Object.GetName()]; ok {
			return nil, fmt.Errorf("CRD %s is in %s and in %s: keep one", c.Object.GetName(), prev, c.File)
		}
		seen[c.Object.GetName()] = c.File
	}
	return out, nil
}

func files(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func readFile(f string) ([]CRD, error) {
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []CRD
	for {
		var obj map[string]interface{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		docs := []interface{}{obj}
		if obj != nil && obj["kind"] == "List" {
			// kubectl's List: its items.
			items, _ := obj["items"].([]interface{})
			docs = items
		}
		for _, d := range docs {
			m, _ := d.(map[string]interface{})
			u := &unstructured.Unstructured{Object: m}
			if m == nil || u.GetAPIVersion() != "apiextensions.k8s.io/v1" || u.GetKind() != "CustomResourceDefinition" {
				continue
			}
			if u.GetName() == "" {
				return nil, fmt.Errorf("%s: a CustomResourceDefinition without metadata.name", f)
			}
			out = append(out, CRD{File: f, Object: u})
		}
	}
}

// Install creates the CRDs of the files at paths (see Read) on the server of cfg, or updates
// the ones that exist, as unstructured objects with strict field validation, so that a server
// that does not know spec.customFeatureGates refuses them instead of dropping it. It waits
// until each one is Established and served (discovery lists its resource in every served
// version), and then checks it as Verify does. It returns the CRDs as the server has them.
func Install(ctx context.Context, cfg *rest.Config, paths ...string) ([]*unstructured.Unstructured, error) {
	crds, err := Read(paths...)
	if err != nil {
		return nil, err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	client := dc.Resource(crdResource)
	for _, c := range crds {
		obj := c.Object.DeepCopy()
		// A file written by `kubectl get -o yaml` carries the server's fields of another
		// object: not this one's.
		for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"} {
			unstructured.RemoveNestedField(obj.Object, "metadata", f)
		}
		unstructured.RemoveNestedField(obj.Object, "status")
		_, err := client.Create(ctx, obj, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
		if apierrors.IsAlreadyExists(err) {
			err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cur, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
				if err != nil {
					return err
				}
				obj.SetResourceVersion(cur.GetResourceVersion())
				_, err = client.Update(ctx, obj, metav1.UpdateOptions{FieldValidation: metav1.FieldValidationStrict})
				return err
			})
		}
		if err != nil {
			return nil, fmt.Errorf("installing CRD %s of %s: %w", c.Object.GetName(), c.File, err)
		}
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(crds))
	for _, c := range crds {
		got, err := waitServed(ctx, client, disc, c.Object.GetName())
		if err != nil {
			return nil, fmt.Errorf("CRD %s of %s: %w", c.Object.GetName(), c.File, err)
		}
		if err := check(c, got); err != nil {
			return nil, err
		}
		out = append(out, got)
	}
	return out, nil
}

// waitServed waits, up to 30 seconds, until the CRD name is Established and discovery lists
// its resource in each served version.
func waitServed(ctx context.Context, client dynamic.ResourceInterface, disc discovery.DiscoveryInterface, name string) (*unstructured.Unstructured, error) {
	var got *unstructured.Unstructured
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		crd, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		got = crd
		if !established(crd) {
			last = errors.New("not Established")
			return false, nil
		}
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range versions {
			vm, _ := v.(map[string]interface{})
			if served, _ := vm["served"].(bool); !served {
				continue
			}
			version, _ := vm["name"].(string)
			list, err := disc.ServerResourcesForGroupVersion(group + "/" + version)
			if err != nil {
				last = err
				return false, nil
			}
			found := false
			for _, r := range list.APIResources {
				found = found || r.Name == plural
			}
			if !found {
				last = fmt.Errorf("discovery does not list %s in %s/%s yet", plural, group, version)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("not served after 30 s (%v): %w", last, err)
	}
	return got, nil
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		cm, _ := c.(map[string]interface{})
		if cm["type"] == "Established" && cm["status"] == "True" {
			return true
		}
	}
	return false
}

// Verify checks that each CRD of the files at paths (see Read), as the server of cfg has it,
// keeps every gate its file declares: each gate of spec.customFeatureGates (by name, with its
// fieldPaths), and each x-kubernetes-feature-gate mark and x-kubernetes-feature-gated-validations
// entry of every version's schema, at its place. Call it after installing CRDs some other way
// (envtest's CRDDirectoryPaths): the error names the CRD, what the server lacks, and the two
// usual causes.
func Verify(ctx context.Context, cfg *rest.Config, paths ...string) error {
	crds, err := Read(paths...)
	if err != nil {
		return err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range crds {
		got, err := dc.Resource(crdResource).Get(ctx, c.Object.GetName(), metav1.GetOptions{})
		if err != nil {
			errs = append(errs, fmt.Errorf("CRD %s of %s: %w", c.Object.GetName(), c.File, err))
			continue
		}
		if err := check(c, got); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// check compares the gates that file declares with the ones the server's CRD has.
func check(file CRD, server *unstructured.Unstructured) error {
	want, have := gates(file.Object), gates(server)
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if h, ok := have[k]; !ok || !reflect.DeepEqual(h, want[k]) {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	const most = 5
	shown := missing
	if len(shown) > most {
		shown = append(shown[:most:most], fmt.Sprintf("and %d more", len(missing)-most))
	}
	return fmt.Errorf("CRD %s reached the server without %d of the feature gates that %s declares (%s). "+
		"Either it went through a Go type that has no gates (envtest's CRDDirectoryPaths with upstream "+
		"k8s.io/apiextensions-apiserver in your module: install it with envtestgates.Install instead), "+
		"or the server is not the KEP-2608 kube-apiserver with CRDFieldLevelVersioning=true "+
		"(KUBEBUILDER_ASSETS from `make envtest-assets`)",
		file.Object.GetName(), len(missing), file.File, strings.Join(shown, "; "))
}

// gates maps each gate declaration of a CRD to its value: "gate NAME" to its fieldPaths, and
// "version VERSION schema PATH KEY" to the value of each x-kubernetes-feature-gate and
// x-kubernetes-feature-gated-validations in a version's schema.
func gates(crd *unstructured.Unstructured) map[string]interface{} {
	out := map[string]interface{}{}
	list, _, _ := unstructured.NestedSlice(crd.Object, "spec", "customFeatureGates", "featureGates")
	for _, g := range list {
		gm, _ := g.(map[string]interface{})
		name, _ := gm["name"].(string)
		paths, _ := gm["fieldPaths"].([]interface{})
		out["gate "+name] = normalize(paths)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm, _ := v.(map[string]interface{})
		name, _ := vm["name"].(string)
		s, _, _ := unstructured.NestedFieldNoCopy(vm, "schema", "openAPIV3Schema")
		marks(s, "version "+name+" schema", "", out)
	}
	return out
}

func marks(node interface{}, version, path string, out map[string]interface{}) {
	switch n := node.(type) {
	case map[string]interface{}:
		for k, v := range n {
			if k == "x-kubernetes-feature-gate" || k == "x-kubernetes-feature-gated-validations" {
				at := path
				if at == "" {
					at = "."
				}
				if n := normalize(v); n != nil {
					out[version+" "+at+" "+k] = n
				}
				continue
			}
			marks(v, version, path+"."+k, out)
		}
	case []interface{}:
		for i, v := range n {
			marks(v, version, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

// normalize gives a JSON value one Go form, whichever decoder read it (YAML's int64 and
// JSON's float64 for one number), without the values that the server's types leave out as
// empty (null, false, "", [] and {}: a file's `exclusiveMaximum: false` or `fieldPaths: []`
// comes back without them).
func normalize(v interface{}) interface{} {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out interface{}
	if err := json.Unmarshal(data, &out); err != nil {
		return string(data)
	}
	return dropEmpty(out)
}

func dropEmpty(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			if e = dropEmpty(e); e == nil {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []interface{}:
		for i := range x {
			x[i] = dropEmpty(x[i])
		}
		if len(x) == 0 {
			return nil
		}
	case bool:
		if !x {
			return nil
		}
	case string:
		if x == "" {
			return nil
		}
	}
	return v
}
