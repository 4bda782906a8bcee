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
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// generatedCRD is what featuregate-gen policies made of one gated CRD: the gated CRD as
// written (in, for our server), and the stock CRD and the CRD's policies it generated.
type generatedCRD struct {
	in, crd, policies string
}

// generate writes the gated CRD named name (its YAML) to a file of the test's and runs the
// generator on it.
func generate(t *testing.T, name string, gatedYAML []byte) generatedCRD {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(in, gatedYAML, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "generated")
	if o, err := exec.Command(filepath.Join(binDir, "featuregate-gen"), "policies", "--crds", in, "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", generatorCommand, err, o)
	}
	return generatedCRD{in: in, crd: filepath.Join(out, "crds", name+".yaml"), policies: filepath.Join(out, "policies", name+".yaml")}
}

// installOnStock applies the CRD's policies and then its stock CRD, server-side, in the order
// docs/guides/stock-clusters.md gives (the parameter kind is installed already), and deletes both
// when the test ends.
func (g generatedCRD) installOnStock(t *testing.T, b *backend) {
	t.Helper()
	t.Cleanup(func() {
		b.kubectl("", "delete", "--ignore-not-found", "-f", g.crd)
		b.kubectl("", "delete", "--ignore-not-found", "-f", g.policies)
	})
	for _, file := range []string{g.policies, g.crd} {
		if _, err := b.mustKubectl("", "apply", "--server-side", "-f", file); err != nil {
			t.Fatal(err)
		}
	}
}
