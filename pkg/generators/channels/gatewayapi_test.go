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

package channels

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// gatewayAPIReleases are the Gateway API releases from v1.0.0 to the newest that the Go
// module proxy serves to this repository's Go (v1.7.0 needs Go 1.27): every one merges
// without --gates.
var gatewayAPIReleases = []string{
	"v1.0.0", "v1.1.0", "v1.1.1", "v1.2.0", "v1.2.1", "v1.3.0", "v1.4.0", "v1.4.1",
	"v1.5.0", "v1.5.1", "v1.6.0", "v1.6.1", "v1.6.2", "v1.6.3",
}

// make test-gateway-api-releases judges the releases this test merges.
func TestGatewayAPIReleasesInMakefile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "GATEWAY_API_RELEASES ?="); ok {
			if got, want := strings.Fields(rest), gatewayAPIReleases; !slices.Equal(got, want) {
				t.Errorf("the Makefile's GATEWAY_API_RELEASES are %v, want %v", got, want)
			}
			return
		}
	}
	t.Error("the Makefile sets no GATEWAY_API_RELEASES")
}

// The generator is not tuned to one release: the channel pairs of every Gateway API release
// merge without a --gates file, every merged CRD passes the server's CRD validation as it is
// (gates, paths, the generated CEL rules and their cost), and a second run changes no byte.
func TestMergeGatewayAPIReleases(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	for _, version := range gatewayAPIReleases {
		t.Run(version, func(t *testing.T) {
			dir := filepath.Join(featuregatetest.ModuleDir(t, "sigs.k8s.io/gateway-api@"+version), "config", "crd")
			std, exp := filepath.Join(dir, "standard"), filepath.Join(dir, "experimental")
			var cfg *Config
			res, err := Merge(std, exp, cfg)
			if err != nil {
				t.Fatal(err)
			}
			gated := map[string]int{}
			for _, r := range res.Mapping {
				if r.What == "field" {
					gated[r.CRD]++
				}
			}
			// HTTPRoute has experimental fields in every release.
			if gated["httproutes.gateway.networking.k8s.io"] == 0 {
				t.Errorf("no gated field in HTTPRoute: %+v", res.Mapping)
			}
			// In v1.2's experimental channel the RequestMirror filter has percent and fraction
			// (standard from v1.3.0), and a rule that they exclude each other: one feature, so
			// one gate at each of their places.
			mirror := map[string]sets.Set[string]{}
			for _, r := range res.Mapping {
				if r.What == "field" && (strings.HasSuffix(r.Path, ".requestMirror.percent") || strings.HasSuffix(r.Path, ".requestMirror.fraction")) {
					if mirror[r.CRD] == nil {
						mirror[r.CRD] = sets.New[string]()
					}
					mirror[r.CRD].Insert(r.Gate)
				}
			}
			for crd, gates := range mirror {
				if gates.Len() != 1 {
					t.Errorf("%s: requestMirror's percent and fraction are in gates %v, want one", crd, sets.List(gates))
				}
			}
			if strings.HasPrefix(version, "v1.2.") && mirror["httproutes.gateway.networking.k8s.io"] == nil {
				t.Errorf("HTTPRoute's requestMirror.percent and .fraction are not gated")
			}
			for _, f := range res.Files {
				validate(t, decode(t, f.Content))
			}
			again, err := Merge(std, exp, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.Files {
				if !bytes.Equal(res.Files[i].Content, again.Files[i].Content) {
					t.Errorf("%s differs between two runs", res.Files[i].Name)
				}
			}
			t.Logf("%s: %d files, %d gated differences, %d copied, %d notes", version, len(res.Files), len(res.Mapping), len(res.Copied), len(res.Notes))
		})
	}
}

// examples/gateway-api/crds is what `make gateway-api-crds` writes: the generator run on
// Gateway API v1.4.0, unchanged.
func TestGatewayAPIExampleUpToDate(t *testing.T) {
	dir := filepath.Join(featuregatetest.ModuleDir(t, "sigs.k8s.io/gateway-api@v1.4.0"), "config", "crd")
	res, err := Merge(filepath.Join(dir, "standard"), filepath.Join(dir, "experimental"), nil)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "gateway-api", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(committed) != len(res.Files) {
		t.Fatalf("examples/gateway-api/crds has %d files, the generator writes %d: run make gateway-api-crds", len(committed), len(res.Files))
	}
	for _, f := range res.Files {
		got, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "gateway-api", "crds", f.Name))
		if err != nil || !bytes.Equal(got, f.Content) {
			t.Errorf("examples/gateway-api/crds/%s is not what the generator writes (%v): run make gateway-api-crds", f.Name, err)
		}
	}
}
