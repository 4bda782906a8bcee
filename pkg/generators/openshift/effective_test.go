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

package openshift

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregatedvalidations"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"
)

// The effective schema of a version of a CRD for gate states, compared structurally: the
// server's featuregatedvalidations.Compile applies the gated keywords; fields whose mark is
// off are dropped; a rule whose gate guard holds is dropped, one whose guard does not is
// unguarded; an enum value that an "any of these gates" rule forbids is taken out of the
// enum. Documentation (description, title, example, externalDocs) is not compared.

var guardEnv = func() *cel.Env {
	env, err := cel.NewEnv(cel.Variable("featureGates", cel.MapType(cel.StringType, cel.BoolType)))
	if err != nil {
		panic(err)
	}
	return env
}()

// evalGuard evaluates expr, which reads only featureGates; ok is false when expr reads
// anything else or does not compile.
func evalGuard(expr string, states map[string]bool) (value, ok bool) {
	ast, iss := guardEnv.Compile(expr)
	if iss.Err() != nil {
		return false, false
	}
	prg, err := guardEnv.Program(ast)
	if err != nil {
		return false, false
	}
	out, _, err := prg.Eval(map[string]interface{}{"featureGates": states})
	if err != nil {
		return false, false
	}
	b, isBool := out.(types.Bool)
	return bool(b), isBool
}

// splitGuard splits a merged rule "<guard> || (<rule>)" at the longest guard that reads
// only featureGates.
func splitGuard(rule string, states map[string]bool) (guard bool, inner string, ok bool) {
	for i := len(rule); i > 0; i-- {
		i = strings.LastIndex(rule[:i], " || ")
		if i < 0 {
			break
		}
		if v, ok := evalGuard(rule[:i], states); ok {
			rest := rule[i+len(" || "):]
			if strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") {
				return v, rest[1 : len(rest)-1], true
			}
			if strings.HasPrefix(rest, "self != ") {
				return v, rest, true
			}
		}
	}
	return false, rule, false
}

func toInternal(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
	t.Helper()
	out := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, out, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// gatesOf reads the gates of a merged CRD manifest, as the API server reads them.
func gatesOf(t *testing.T, content []byte) []featuregates.GateSpec {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(content, &crd); err != nil {
		t.Fatal(err)
	}
	return featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates)
}

// statesOf are the states of the merged CRD's gates, by the server's rules
// (featuregates.States), with exactly the gates of on enabled: every gate that requires
// others (a combination, or a gate that requires any of several) keeps its stage, and every
// other gate is enabled exactly when on has it.
func statesOf(gates []featuregates.GateSpec, on sets.Set[string]) map[string]bool {
	specs := make([]featuregates.GateSpec, len(gates))
	for i, g := range gates {
		specs[i] = g
		if len(g.Requires) == 0 && len(g.RequiresAnyOf) == 0 {
			enabled := on.Has(g.Name)
			specs[i].PreRelease, specs[i].Enabled, specs[i].Default = featuregates.Alpha, &enabled, nil
		}
	}
	return featuregates.States(specs)
}

// effective is the effective schema of version of crd (the merged CRD) for states.
func effective(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version string, states map[string]bool) *apiextensions.JSONSchemaProps {
	t.Helper()
	s := fileSchema(t, crd, version)
	if s == nil {
		t.Fatalf("%s has no schema for version %s", crd.Name, version)
	}
	s = featuregatedvalidations.Compile(s, states).DeepCopy()
	applyGates(s, states)
	return s
}

func applyGates(s *apiextensions.JSONSchemaProps, states map[string]bool) {
	var rules apiextensions.ValidationRules
	for _, r := range s.XValidations {
		guard, inner, ok := splitGuard(r.Rule, states)
		if !ok {
			rules = append(rules, r)
			continue
		}
		if guard {
			continue
		}
		if lit, isOr := strings.CutPrefix(inner, "self != "); isOr {
			var kept []apiextensions.JSON
			for _, e := range s.Enum {
				js, _ := json.Marshal(e)
				if string(js) != lit {
					kept = append(kept, e)
				}
			}
			s.Enum = kept
			continue
		}
		r.Rule = inner
		rules = append(rules, r)
	}
	s.XValidations = rules
	for name, p := range s.Properties {
		if p.XFeatureGate != nil && !states[*p.XFeatureGate] {
			delete(s.Properties, name)
			continue
		}
		p.XFeatureGate = nil
		applyGates(&p, states)
		s.Properties[name] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		applyGates(s.Items.Schema, states)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		applyGates(s.AdditionalProperties.Schema, states)
	}
}

func fileSchema(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version string) *apiextensions.JSONSchemaProps {
	t.Helper()
	in := toInternal(t, crd)
	for _, v := range in.Spec.Versions {
		if v.Name == version && v.Schema != nil {
			return v.Schema.OpenAPIV3Schema
		}
		if v.Name == version && in.Spec.Validation != nil {
			// one schema for every version: the internal type holds it once.
			return in.Spec.Validation.OpenAPIV3Schema
		}
	}
	return nil
}

// diff lists the differences of two effective schemas as "<path>: <keyword>".
func diff(path string, a, b *apiextensions.JSONSchemaProps) []string {
	if a == nil || b == nil {
		if (a == nil) != (b == nil) {
			return []string{path + ": schema"}
		}
		return nil
	}
	flat := func(s *apiextensions.JSONSchemaProps) map[string]interface{} {
		c := s.DeepCopy()
		c.Properties, c.Description, c.Title, c.Example, c.ExternalDocs = nil, "", "", nil, nil
		if c.Items != nil {
			c.Items = &apiextensions.JSONSchemaPropsOrArray{}
		}
		if c.AdditionalProperties != nil {
			c.AdditionalProperties = &apiextensions.JSONSchemaPropsOrBool{Allows: c.AdditionalProperties.Allows}
		}
		if len(c.Required) == 0 {
			c.Required = nil
		}
		if len(c.Enum) == 0 {
			c.Enum = nil
		}
		if len(c.XValidations) == 0 {
			c.XValidations = nil
		}
		sort.Strings(c.Required)
		sort.Slice(c.Enum, func(i, j int) bool { return fmt.Sprint(c.Enum[i]) < fmt.Sprint(c.Enum[j]) })
		sort.Slice(c.XValidations, func(i, j int) bool { return c.XValidations[i].Rule < c.XValidations[j].Rule })
		js, _ := json.Marshal(c)
		var obj map[string]interface{}
		_ = json.Unmarshal(js, &obj)
		return obj
	}
	fa, fb := flat(a), flat(b)
	keys := sets.New[string]()
	for k := range fa {
		keys.Insert(k)
	}
	for k := range fb {
		keys.Insert(k)
	}
	at := path
	if at == "" {
		at = "."
	}
	var out []string
	for _, k := range sets.List(keys) {
		if !reflect.DeepEqual(fa[k], fb[k]) {
			out = append(out, at+": "+k)
		}
	}
	names := sets.New[string]()
	for k := range a.Properties {
		names.Insert(k)
	}
	for k := range b.Properties {
		names.Insert(k)
	}
	for _, n := range sets.List(names) {
		pa, okA := a.Properties[n]
		pb, okB := b.Properties[n]
		switch {
		case !okA || !okB:
			out = append(out, path+"."+n+": field")
		default:
			out = append(out, diff(path+"."+n, &pa, &pb)...)
		}
	}
	if a.Items != nil && b.Items != nil {
		out = append(out, diff(path+"[*]", a.Items.Schema, b.Items.Schema)...)
	}
	if a.AdditionalProperties != nil && b.AdditionalProperties != nil {
		out = append(out, diff(path+"[*]", a.AdditionalProperties.Schema, b.AdditionalProperties.Schema)...)
	}
	return out
}

// checkDir merges dir and compares every merged CRD's effective schemas with the files they
// come from: each per-gate file (its gates on, the others off), and each feature set's CRD
// of the cluster profile (the feature set's gates on). It returns the passes and the
// failures, each named.
func checkDir(t *testing.T, dir string, groups []string) (res *Result, pass, fail, inputDiffs []string) {
	t.Helper()
	res, err := Merge(Options{Dir: dir, Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	quirk := sets.New[string]()
	for _, q := range res.Quirks {
		quirk.Insert(strings.ToLower(q.CRD + " " + q.File + " " + q.Path + ": " + q.Keyword))
	}
	for _, f := range res.Files {
		if strings.HasPrefix(f.Name, "featuresets/") {
			continue
		}
		merged := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(f.Content, merged); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		gates := gatesOf(t, f.Content)
		gv := filepath.Dir(f.Name)
		crdDir := filepath.Join(dir, gv, manifestsDir, merged.Name)
		infos, err := readInfo(filepath.Join(dir, gv, manifestsDir+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		topLevel := sets.New(infos[merged.Name].TopLevelFeatureGates...)
		files, _ := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
		for _, file := range files {
			base := filepath.Base(file)
			on := topLevel.Clone()
			if base != ungatedFile {
				on.Insert(strings.Split(strings.TrimSuffix(base, ".yaml"), "+")...)
			}
			crd := readOne(t, file)
			for _, v := range merged.Spec.Versions {
				name := fmt.Sprintf("%s %s %s", merged.Name, v.Name, base)
				var d []string
				for _, x := range diff("", effective(t, merged, v.Name, statesOf(gates, on)), fileSchema(t, crd, v.Name)) {
					if !quirk.Has(strings.ToLower(merged.Name + " " + base + " " + x)) {
						d = append(d, x)
					}
				}
				if len(d) > 0 {
					fail = append(fail, name+": "+strings.Join(d, "; "))
				} else {
					pass = append(pass, name)
				}
			}
		}
		// What the per-gate files change, by version: a feature set's CRD that differs from
		// the first file where no per-gate file does is an input difference (OpenShift
		// writes the feature sets' CRDs apart from the per-gate files), not the merge's.
		explained := map[string]sets.Set[string]{}
		baseFile := filepath.Join(crdDir, ungatedFile)
		if _, err := os.Stat(baseFile); err != nil {
			baseFile = files[0]
		}
		baseCRD := readOne(t, baseFile)
		for _, v := range merged.Spec.Versions {
			explained[v.Name] = sets.New[string]()
			for _, file := range files {
				explained[v.Name].Insert(diff("", looseRules(fileSchema(t, baseCRD, v.Name)), looseRules(fileSchema(t, readOne(t, file), v.Name)))...)
			}
		}
		for _, fs := range res.FeatureSets {
			crd := featureSetCRD(t, filepath.Join(dir, gv, "zz_generated.crd-manifests"), merged.Name, fs.Name, DefaultClusterProfile)
			if crd == nil {
				continue
			}
			// A feature set whose CRD the API server refuses (stock's validation: its CEL cost)
			// is no judge when ours refuses the merged CRD in its gate states as well.
			if refused(t, crd) {
				if refused(t, withStates(merged, fs.Enabled)) {
					pass = append(pass, fmt.Sprintf("%s feature set %s: refused by the API server on both sides", merged.Name, fs.Name))
				} else {
					fail = append(fail, fmt.Sprintf("%s feature set %s: stock refuses the feature set's CRD, ours accepts the merged CRD in its gate states", merged.Name, fs.Name))
				}
				continue
			}
			for _, v := range merged.Spec.Versions {
				name := fmt.Sprintf("%s %s feature set %s", merged.Name, v.Name, fs.Name)
				want := looseRules(fileSchema(t, crd, v.Name))
				input := sets.New(diff("", looseRules(fileSchema(t, baseCRD, v.Name)), want)...)
				var d []string
				for _, x := range diff("", looseRules(effective(t, merged, v.Name, statesOf(gates, fs.Enabled))), want) {
					if input.Has(x) && !explained[v.Name].Has(x) {
						inputDiffs = append(inputDiffs, name+": "+x)
						continue
					}
					d = append(d, x)
				}
				if len(d) > 0 {
					fail = append(fail, name+": "+strings.Join(d, "; "))
				} else {
					pass = append(pass, name)
				}
			}
		}
	}
	return res, pass, fail, inputDiffs
}

// refused reports whether the API server's CRD validation rejects crd.
func refused(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) bool {
	t.Helper()
	content, err := crdmerge.MarshalCRD(crd)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := serverValidation(content)
	if err != nil {
		t.Fatal(err)
	}
	return len(errs) > 0
}

// withStates is a copy of the merged CRD with the admin's enabled set on every gate that is
// not stable: true for the gates of on.
func withStates(merged *apiextensionsv1.CustomResourceDefinition, on sets.Set[string]) *apiextensionsv1.CustomResourceDefinition {
	out := merged.DeepCopy()
	if out.Spec.CustomFeatureGates == nil {
		return out
	}
	for i := range out.Spec.CustomFeatureGates.FeatureGates {
		g := &out.Spec.CustomFeatureGates.FeatureGates[i]
		if g.PreRelease != apiextensionsv1.CustomFeatureGateStable {
			enabled := on.Has(g.Name)
			g.Enabled = &enabled
		}
	}
	return out
}

// looseRules is s (a copy) without the rules' fieldPath and reason, which OpenShift's per-gate
// files may lack where its feature sets' CRDs have them.
func looseRules(s *apiextensions.JSONSchemaProps) *apiextensions.JSONSchemaProps {
	if s == nil {
		return nil
	}
	c := s.DeepCopy()
	var walk func(*apiextensions.JSONSchemaProps)
	walk = func(n *apiextensions.JSONSchemaProps) {
		for i := range n.XValidations {
			n.XValidations[i].FieldPath, n.XValidations[i].Reason = "", nil
		}
		for k, p := range n.Properties {
			walk(&p)
			n.Properties[k] = p
		}
		if n.Items != nil && n.Items.Schema != nil {
			walk(n.Items.Schema)
		}
		if n.AdditionalProperties != nil && n.AdditionalProperties.Schema != nil {
			walk(n.AdditionalProperties.Schema)
		}
	}
	walk(c)
	return c
}

func readOne(t *testing.T, file string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	crds, _, err := crdmerge.ReadCRDs(file, data)
	if err != nil || len(crds) != 1 {
		t.Fatalf("%s: %v (%d CRDs)", file, err, len(crds))
	}
	return crds[0]
}

func featureSetCRD(t *testing.T, dir, name, featureSet, profile string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd, _, err := FeatureSetCRD(dir, name, featureSet, profile)
	if err != nil {
		t.Fatal(err)
	}
	return crd
}

// On the synthetic group of testdata every check passes.
func TestEffectiveSchemasSynthetic(t *testing.T) {
	res, pass, fail, input := checkDir(t, filepath.Join("testdata", "api"), nil)
	if len(input) > 0 {
		t.Errorf("input differences in the synthetic group: %v", input)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	for _, f := range fail {
		t.Errorf("differs: %s", f)
	}
	// 4 files and 4 feature sets of one CRD.
	if len(pass) != 8 {
		t.Errorf("%d checks passed, want 8: %v", len(pass), pass)
	}
}

// OPENSHIFT_API_DIR (a copy or a clone of openshift/api; OPENSHIFT_API_GROUPS optionally
// selects <group>/<version> folders, comma-separated) is checked the same way; the test
// logs every check and fails on any difference that is not a known quirk of OpenShift's
// generator.
func TestEffectiveSchemasOpenShiftAPI(t *testing.T) {
	dir := os.Getenv("OPENSHIFT_API_DIR")
	if dir == "" {
		t.Skip("OPENSHIFT_API_DIR is not set")
	}
	var groups []string
	if g := os.Getenv("OPENSHIFT_API_GROUPS"); g != "" {
		groups = strings.Split(g, ",")
	}
	res, pass, fail, input := checkDir(t, dir, groups)
	for _, x := range input {
		t.Logf("input difference (the feature set's CRD differs from the per-gate files where no gate changes it): %s", x)
	}
	for _, e := range res.Errors {
		t.Logf("not merged: %v", e)
	}
	for _, p := range pass {
		t.Logf("same: %s", p)
	}
	for _, f := range fail {
		t.Errorf("differs: %s", f)
	}
	t.Logf("%d CRDs merged, %d not; %d checks same, %d differ; %d input differences", len(res.Files)-len(res.FeatureSets), len(res.Errors), len(pass), len(fail), len(input))
}

// Merge is deterministic: two runs give the same files, byte for byte.
func TestMergeDeterministic(t *testing.T) {
	dirs := []string{filepath.Join("testdata", "api")}
	if d := os.Getenv("OPENSHIFT_API_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	for _, dir := range dirs {
		a, err := Merge(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Merge(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Files) == 0 || !reflect.DeepEqual(a.Files, b.Files) {
			t.Errorf("%s: two runs gave different files (%d, %d)", dir, len(a.Files), len(b.Files))
		}
	}
}

// copyTree copies the folder src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A folder holding only some groups (and the payload) merges them as the full folder does.
func TestMergeSubsetDir(t *testing.T) {
	cases := []struct {
		dir    string
		groups []string
	}{{filepath.Join("testdata", "api"), []string{"example/v1"}}}
	if d := os.Getenv("OPENSHIFT_API_DIR"); d != "" {
		cases = append(cases, struct {
			dir    string
			groups []string
		}{d, []string{"config/v1", "example/v1"}})
	}
	for _, tc := range cases {
		tmp := t.TempDir()
		for _, gv := range append(tc.groups, "payload-manifests") {
			copyTree(t, filepath.Join(tc.dir, gv), filepath.Join(tmp, gv))
		}
		want, err := Merge(Options{Dir: tc.dir, Groups: tc.groups})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Merge(Options{Dir: tmp})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Files) == 0 || !reflect.DeepEqual(got.Files, want.Files) || len(got.Errors) != len(want.Errors) {
			t.Errorf("%s %v: the subset folder gives %d files and %d errors, the full folder %d and %d", tc.dir, tc.groups, len(got.Files), len(got.Errors), len(want.Files), len(want.Errors))
		}
	}
}
