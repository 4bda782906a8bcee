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
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// undoCRD is the CRD of OpenShift's own example of gated fields, in example/v1.
const undoCRD = "stableconfigtypes.example.openshift.io"

// techPreviewValues are values that only TechPreviewNoUpgrade's CRD accepts, each of another
// kind, and the text that shows each one in the object as etcd holds it (JSON).
var techPreviewValues = []struct{ what, manifest, stored string }{
	{"a field (spec.coolNewField, gate Example)", "  coolNewField: tech-preview-value\n", `"coolNewField":"tech-preview-value"`},
	{"a list longer than Default's maxItems 1 (spec.evolvingCollection)", "  evolvingCollection: [a, b, c]\n", `"evolvingCollection":["a","b","c"]`},
	{"an enum value (spec.evolvingUnion.type TechPreviewOnlyValue)", "  evolvingUnion: {type: TechPreviewOnlyValue}\n", `"type":"TechPreviewOnlyValue"`},
}

// undoManifest is an object with every TechPreview value; withoutField leaves the field out,
// as a user of a Default cluster writes the object (the list and the enum value are fields
// of Default too, and stay as they are).
func undoManifest(name, stableField string, withoutField bool) string {
	m := fmt.Sprintf("apiVersion: example.openshift.io/v1\nkind: StableConfigType\nmetadata: {name: %s}\nspec:\n  immutableField: fixed\n  stableField: %s\n", name, stableField)
	for i, v := range techPreviewValues {
		if i == 0 && withoutField {
			continue
		}
		m += v.manifest
	}
	return m
}

// The undo that OpenShift's feature sets cannot do. Objects that use TechPreview values are
// created with TechPreviewNoUpgrade's gate states; then every gate goes to Default's states,
// each object is written once more (client-side apply, server-side apply, a status write),
// and the gates go back. On ours (one CRD, gates switched by kubectl featuregates) etcd holds
// every value throughout. On stock, where the same switch means replacing the CRD with
// Default's and back, the writes lose the field; the values that only a validation rule
// (maxItems, enum) holds back survive through validation ratcheting, since they did not
// change.
func TestOpenShiftUndo(t *testing.T) {
	binDir := env(t, "E2E_BIN_DIR")
	stockAPIServer := env(t, "OPENSHIFT_API_STOCK_APISERVER")
	dir := env(t, "OPENSHIFT_API_DIR")
	l, err := LoadLayout(dir, []string{"example"}, envOr("OPENSHIFT_API_PROFILE", "SelfManagedHA"))
	if err != nil {
		t.Fatalf("the undo test needs OpenShift's example group (example/v1, CRD %s): %v", undoCRD, err)
	}
	stockCRD := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, f := range l.CRDs["example/v1"] {
		for _, fs := range f.FeatureSets {
			if f.CRD.Name == undoCRD && f.hasProfile(l.Profile) {
				crd, err := onlyVersion(f.CRD, "v1")
				if err != nil {
					t.Fatal(err)
				}
				stockCRD[fs] = crd
			}
		}
	}
	if stockCRD["Default"] == nil || stockCRD["TechPreviewNoUpgrade"] == nil {
		t.Fatalf("example/v1 has no Default and TechPreviewNoUpgrade CRD %s", undoCRD)
	}
	m := merge(t, binDir, l)
	src := m.crds["example/v1/"+undoCRD]
	if src == nil {
		t.Fatalf("featuregate-gen wrote no merged %s:\n%s", undoCRD, m.errors)
	}
	oursCRD, err := onlyVersion(src, "v1")
	if err != nil {
		t.Fatal(err)
	}
	for i := range oursCRD.Spec.CustomFeatureGates.FeatureGates {
		oursCRD.Spec.CustomFeatureGates.FeatureGates[i].Enabled = nil
	}

	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(2)
	var lossOnStock map[string][]string
	go func() {
		defer wg.Done()
		t.Run("stock", func(t *testing.T) {
			s := startUndoServer(ctx, t, "stock", binDir, stockAPIServer, false)
			lossOnStock = undoSequence(ctx, t, s, func(fs string) error { return s.install(ctx, stockCRD[fs]) })
		})
	}()
	var lossOnOurs map[string][]string
	go func() {
		defer wg.Done()
		t.Run("ours", func(t *testing.T) {
			s := startUndoServer(ctx, t, "ours", binDir, stockAPIServer, true)
			if err := s.install(ctx, oursCRD); err != nil {
				t.Fatal(err)
			}
			lossOnOurs = undoSequence(ctx, t, s, func(fs string) error { return s.setGates(ctx, undoCRD, m.gates("example/v1", undoCRD, fs)) })
		})
	}()
	wg.Wait()
	if len(lossOnOurs) != 0 {
		t.Errorf("ours lost values: %v", lossOnOurs)
	}
	for _, obj := range []string{"undo-csa", "undo-ssa"} {
		if !contains(lossOnStock[obj], techPreviewValues[0].what) {
			t.Errorf("stock kept %s of %s through the switch to Default's CRD; this test expects stock to lose it (lost: %v)", techPreviewValues[0].what, obj, lossOnStock[obj])
		}
	}
	t.Logf("lost on stock: %v; lost on ours: none", lossOnStock)
}

func startUndoServer(ctx context.Context, t *testing.T, name, binDir, stockAPIServer string, ours bool) *server {
	s, err := startServer(ctx, name, binDir, stockAPIServer, ours, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.cp.Stop)
	return s
}

// undoSequence runs the switch on one server; switchTo puts the CRD in a feature set's state.
// It returns, per object, the TechPreview values that etcd no longer held at some point.
func undoSequence(ctx context.Context, t *testing.T, s *server, switchTo func(featureSet string) error) map[string][]string {
	t.Helper()
	must := func(stdin string, args ...string) string {
		t.Helper()
		out, err := s.kubectlWithStdin(ctx, stdin, args...)
		if err != nil {
			t.Fatalf("%s: kubectl %s: %v\n%s", s.name, strings.Join(args, " "), err, out)
		}
		return out
	}
	lost := map[string][]string{}
	check := func(step string) {
		t.Helper()
		for _, obj := range []string{"undo-csa", "undo-ssa", "undo-status"} {
			stored := etcdValue(t, s.cp.EtcdURL, "/registry/example.openshift.io/stableconfigtypes/"+obj)
			for _, v := range techPreviewValues {
				if !strings.Contains(stored, v.stored) && !contains(lost[obj], v.what) {
					lost[obj] = append(lost[obj], v.what)
					t.Logf("%s: after %s, etcd no longer holds %s of %s", s.name, step, v.what, obj)
				}
			}
		}
	}

	if err := switchTo("TechPreviewNoUpgrade"); err != nil {
		t.Fatal(err)
	}
	must(undoManifest("undo-csa", "one", false), "apply", "-f", "-")
	must(undoManifest("undo-ssa", "one", false), "apply", "--server-side", "-f", "-")
	must(undoManifest("undo-status", "one", false), "apply", "-f", "-")
	check("the creates with TechPreviewNoUpgrade's states")
	if len(lost) > 0 {
		t.Fatalf("%s: values lost before any switch: %v", s.name, lost)
	}

	if err := switchTo("Default"); err != nil {
		t.Fatal(err)
	}
	must(undoManifest("undo-csa", "two", true), "apply", "-f", "-")
	must(undoManifest("undo-ssa", "two", true), "apply", "--server-side", "-f", "-")
	must("", "patch", "stableconfigtype", "undo-status", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"Available","status":"True","reason":"AsExpected","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	check("the writes with Default's states")

	if err := switchTo("TechPreviewNoUpgrade"); err != nil {
		t.Fatal(err)
	}
	// A read with TechPreviewNoUpgrade's states again, and etcd.
	for _, obj := range []string{"undo-csa", "undo-ssa", "undo-status"} {
		got := must("", "get", "stableconfigtype", obj, "-o", "jsonpath={.spec.coolNewField}")
		if got != "tech-preview-value" && !contains(lost[obj], techPreviewValues[0].what) {
			t.Errorf("%s: back on TechPreviewNoUpgrade, %s reads coolNewField %q", s.name, obj, got)
		}
	}
	check("the switch back to TechPreviewNoUpgrade's states")
	return lost
}

func etcdValue(t *testing.T, etcdURL, key string) string {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Get(context.Background(), key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd %s: %v, %d keys", key, err, len(resp.Kvs))
	}
	return string(resp.Kvs[0].Value)
}
