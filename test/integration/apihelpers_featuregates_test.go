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

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/test/integration/fixtures"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// apiHelpersSeedEnv replays one run of TestAPIHelpersAgreeWithServer: set it to the seed the
// test logged.
const apiHelpersSeedEnv = "APIHELPERS_FEATUREGATES_SEED"

// apiHelpersGatablePaths are the paths of apiHelpersCRD that the random gates guard. They
// nest (a parent and its children), cross lists and maps with [*], and name a map key.
// The list-map key .spec.items[*].name is left out: without it an item is invalid.
var apiHelpersGatablePaths = []string{
	".spec",
	".spec.a",
	".spec.a.x",
	".spec.a.y",
	".spec.a.y.p",
	".spec.a.y.q",
	".spec.a.z",
	".spec.b",
	".spec.b.x",
	".spec.c",
	".spec.d",
	".spec.items",
	".spec.items[*]",
	".spec.items[*].v",
	".spec.items[*].w",
	".spec.items[*].w.r",
	".spec.tags",
	".spec.tags[*]",
	".spec.tags[*].k",
	".spec.tags.one",
	".spec.tags.one.l",
	".spec.plain",
	".spec.plain[*]",
	".status",
	".status.s",
	".status.t",
	".status.t.u",
}

// apiHelpersQueries are the paths whose presence the test compares with IsFieldEnabled:
// every gatable path, and paths no gate names. A map is asked about by key only, since a
// gate on one key (.spec.tags.one) removes some of the values [*] stands for.
var apiHelpersQueries = func() []string {
	var qs []string
	for _, p := range apiHelpersGatablePaths {
		if !strings.HasPrefix(p, ".spec.tags[*]") {
			qs = append(qs, p)
		}
	}
	return append(qs,
		".spec.items[*].name",
		".spec.tags.one.k",
		".spec.tags.two",
		".spec.tags.two.k",
		".spec.tags.two.l",
	)
}()

// apiHelpersContent sets every field of apiHelpersCRD.
const apiHelpersContent = `"spec":{
	"a":{"x":1,"y":{"p":"p","q":2},"z":"z"},
	"b":{"x":3},
	"c":"c",
	"d":4,
	"items":[{"name":"first","v":5,"w":{"r":"r1"}},{"name":"second","v":6,"w":{"r":"r2"}}],
	"tags":{"one":{"k":"k1","l":7},"two":{"k":"k2","l":8}},
	"plain":["x","y"]
},
"status":{"s":"s","t":{"u":9}}`

// apiHelpersCRD has two versions with conversion None, so gates apply to both as they are.
func apiHelpersCRD(i int, gates []apiextensionsv1.CustomResourceDefinitionFeatureGate) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	integer := apiextensionsv1.JSONSchemaProps{Type: "integer"}
	object := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	tag := object(map[string]apiextensionsv1.JSONSchemaProps{"k": str, "l": integer})
	item := object(map[string]apiextensionsv1.JSONSchemaProps{
		"name": str,
		"v":    integer,
		"w":    object(map[string]apiextensionsv1.JSONSchemaProps{"r": str}),
	})
	item.Required = []string{"name"}
	openAPI := object(map[string]apiextensionsv1.JSONSchemaProps{
		"spec": object(map[string]apiextensionsv1.JSONSchemaProps{
			"a": object(map[string]apiextensionsv1.JSONSchemaProps{
				"x": integer,
				"y": object(map[string]apiextensionsv1.JSONSchemaProps{"p": str, "q": integer}),
				"z": str,
			}),
			"b": object(map[string]apiextensionsv1.JSONSchemaProps{"x": integer}),
			"c": str,
			"d": integer,
			"items": {
				Type:         "array",
				XListType:    ptr.To("map"),
				XListMapKeys: []string{"name"},
				Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item},
			},
			"tags":  {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &tag}},
			"plain": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
		}),
		"status": object(map[string]apiextensionsv1.JSONSchemaProps{
			"s": str,
			"t": object(map[string]apiextensionsv1.JSONSchemaProps{"u": integer}),
		}),
	})
	version := func(name string, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{
			Name: name, Served: true, Storage: storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: openAPI.DeepCopy()},
		}
	}
	singular, kind := fmt.Sprintf("helper%dtab", i), fmt.Sprintf("Helper%dTab", i)
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: singular + "s.helpers.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group:    "helpers.example.com",
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: singular + "s", Singular: singular, Kind: kind, ListKind: kind + "List"},
			Scope:    apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{version("v1", true), version("v2", false)},
		},
	}
	if len(gates) > 0 {
		crd.Spec.CustomFeatureGates = &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: gates}
	}
	return crd
}

// randomHelperGates draws 1 to 4 gates over 1 to 8 distinct gatable paths, each with a random
// stage and random enabled and default values that CRD validation accepts.
func randomHelperGates(r *rand.Rand) []apiextensionsv1.CustomResourceDefinitionFeatureGate {
	perm := r.Perm(len(apiHelpersGatablePaths))
	paths := perm[:1+r.Intn(8)]
	gates := make([]apiextensionsv1.CustomResourceDefinitionFeatureGate, 1+r.Intn(min(4, len(paths))))
	for i, p := range paths {
		g := i // every gate gets at least one path
		if i >= len(gates) {
			g = r.Intn(len(gates))
		}
		gates[g].FieldPaths = append(gates[g].FieldPaths, apiHelpersGatablePaths[p])
	}
	maybe := func(values ...bool) *bool {
		if i := r.Intn(len(values) + 1); i < len(values) {
			return ptr.To(values[i])
		}
		return nil
	}
	stages := []apiextensionsv1.CustomFeatureGatePreRelease{
		apiextensionsv1.CustomFeatureGateAlpha, apiextensionsv1.CustomFeatureGateBeta,
		apiextensionsv1.CustomFeatureGateStable, apiextensionsv1.CustomFeatureGateDeprecated,
	}
	for i := range gates {
		g := &gates[i]
		g.Name = fmt.Sprintf("Gate%d", i)
		g.PreRelease = stages[r.Intn(len(stages))]
		switch g.PreRelease {
		case apiextensionsv1.CustomFeatureGateAlpha:
			g.Default, g.Enabled = maybe(false), maybe(true, false)
		case apiextensionsv1.CustomFeatureGateBeta:
			g.Default, g.Enabled = maybe(true, false), maybe(true, false)
		case apiextensionsv1.CustomFeatureGateStable:
			g.Default, g.Enabled = maybe(true), maybe(true)
		case apiextensionsv1.CustomFeatureGateDeprecated:
			g.Default, g.Enabled = ptr.To(r.Intn(2) == 0), maybe(true, false)
			if r.Intn(2) == 0 {
				g.FieldDeprecationWarning = ptr.To(g.Name + " is going away")
			}
		}
	}
	return gates
}

// countValues returns how many values the path addresses in obj.
func countValues(obj interface{}, steps []string) int {
	if len(steps) == 0 {
		return 1
	}
	n := 0
	switch v := obj.(type) {
	case map[string]interface{}:
		if steps[0] == "[*]" {
			for _, child := range v {
				n += countValues(child, steps[1:])
			}
		} else if child, ok := v[steps[0]]; ok {
			n += countValues(child, steps[1:])
		}
	case []interface{}:
		if steps[0] == "[*]" {
			for _, child := range v {
				n += countValues(child, steps[1:])
			}
		}
	}
	return n
}

// helperPathSteps splits `.spec.items[*].v` into spec, items, [*], v.
func helperPathSteps(path string) []string {
	path = strings.ReplaceAll(path, "[*]", ".[*]")
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// TestAPIHelpersAgreeWithServer checks apihelpers.IsFieldEnabled against the API server: for
// random gate sets, a CR that sets every field is created, and each field is in the object the
// server returns, reads back and stores in etcd exactly when IsFieldEnabled says it is enabled.
func TestAPIHelpersAgreeWithServer(t *testing.T) {
	enableFeature(t, true)
	env := startGatesServer(t, "")

	seed := time.Now().UnixNano()
	if s := os.Getenv(apiHelpersSeedEnv); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", apiHelpersSeedEnv, s, err)
		}
	}
	t.Logf("seed %d (replay with %s=%d)", seed, apiHelpersSeedEnv, seed)
	r := rand.New(rand.NewSource(seed))

	const iterations = 30
	type iteration struct {
		gates   []apiextensionsv1.CustomResourceDefinitionFeatureGate
		version string
	}
	its := make([]iteration, iterations)
	for i := range its {
		its[i] = iteration{gates: randomHelperGates(r), version: []string{"v1", "v2"}[r.Intn(2)]}
	}
	sent := map[string]interface{}{}
	if err := json.Unmarshal([]byte("{"+apiHelpersContent+"}"), &sent); err != nil {
		t.Fatal(err)
	}

	// Creating a CRD mostly waits for it to be served, so all of them are created at once;
	// the checks then run one iteration at a time.
	crds := make([]*apiextensionsv1.CustomResourceDefinition, iterations)
	crdErrs := make([]error, iterations)
	var wg sync.WaitGroup
	for i := range its {
		wg.Add(1)
		go func() {
			defer wg.Done()
			crds[i], crdErrs[i] = fixtures.CreateNewV1CustomResourceDefinitionWatchUnsafe(apiHelpersCRD(i, its[i].gates), env.apiext)
		}()
	}
	wg.Wait()

	for i, it := range its {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			gatesJSON, _ := json.Marshal(it.gates)
			t.Logf("version %s, gates %s", it.version, gatesJSON)
			crd, err := crds[i], crdErrs[i]
			if err != nil {
				t.Fatalf("create CRD: %v", err)
			}
			gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: it.version, Resource: crd.Spec.Names.Plural}
			client := env.dynamic.Resource(gvr).Namespace(gatesTestNamespace)
			obj := &unstructured.Unstructured{}
			doc := fmt.Sprintf(`{"apiVersion":"helpers.example.com/%s","kind":%q,"metadata":{"name":"all"},%s}`, it.version, crd.Spec.Names.Kind, apiHelpersContent)
			if err := json.Unmarshal([]byte(doc), &obj.Object); err != nil {
				t.Fatal(err)
			}
			created, err := client.Create(context.Background(), obj, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			read, err := client.Get(context.Background(), "all", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get: %v", err)
			}
			stored := env.stored(t, crd, "all")
			if stored == nil {
				t.Fatal("the object is not in etcd")
			}

			for _, q := range apiHelpersQueries {
				enabled, err := apihelpers.IsFieldEnabled(crd, it.version, q)
				if err != nil {
					t.Errorf("IsFieldEnabled(%s, %s): %v", it.version, q, err)
					continue
				}
				steps := helperPathSteps(q)
				want := 0
				if enabled {
					want = countValues(sent, steps)
				}
				for _, got := range []struct {
					what string
					obj  map[string]interface{}
				}{{"returned by the create", created.Object}, {"read back", read.Object}, {"stored in etcd", stored}} {
					if n := countValues(got.obj, steps); n != want {
						t.Errorf("%s: %d values %s, want %d (IsFieldEnabled = %t)", q, n, got.what, want, enabled)
					}
				}
			}
		})
	}
}
