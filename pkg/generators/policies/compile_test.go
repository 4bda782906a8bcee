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

package policies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
)

// TestGeneratedPoliciesCompile generates the policies of every gated CRD the repository
// ships (examples/feature-gates, and Gateway API's channels as one gated set) and compiles
// every expression with the API server's CEL compiler and its limits (expression size, the
// policy environment's libraries), as a stock kube-apiserver does when it loads them.
func TestGeneratedPoliciesCompile(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../../examples/feature-gates/*.yaml", "../../../examples/feature-gates/*/*.yaml", "../../../examples/feature-gates/markers/crds/*.yaml", "../../../examples/gateway-api/crds/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	generated := 0
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
				continue
			}
			t.Run(crd.Name, func(t *testing.T) {
				res, err := Generate(crd)
				if err != nil {
					t.Fatal(err)
				}
				generated++
				compileMutating(t, res.Mutating)
				checkValidating(t, res.Validating)
				checkValidating(t, res.Warnings)
				for _, d := range res.Differences {
					if strings.Contains(d.What, "is not checked:") {
						t.Errorf("a rule is left out: %s", d)
					}
				}
				if res.CRD.Spec.CustomFeatureGates != nil {
					t.Error("the stock CRD keeps spec.customFeatureGates")
				}
				body, err := res.CRDManifest()
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range []string{"x-kubernetes-feature-gate:", "x-kubernetes-feature-gated-validations", "featureGates."} {
					if strings.Contains(string(body), s) {
						t.Errorf("the stock CRD still has %q", s)
					}
				}
			})
		}
	}
	if generated < 8 {
		t.Fatalf("only %d gated CRDs generated", generated)
	}
}
