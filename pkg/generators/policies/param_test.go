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
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// TestParamRulesMatchServerValidation: for every combination of a gate's preRelease,
// default, enabled and fieldDeprecationWarning, the parameter kind's CEL rules (as the
// stock API server compiles and runs them for a CRD) refuse exactly what our server's CRD
// validation refuses in spec.customFeatureGates, at the same field below the gate, with the
// same error type and text.
func TestParamRulesMatchServerValidation(t *testing.T) {
	ctx := context.Background()
	param := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(ParamCRD(), param, nil); err != nil {
		t.Fatal(err)
	}
	if errs := validation.ValidateCustomResourceDefinition(ctx, withStatus(param)); len(errs) > 0 {
		t.Fatalf("the parameter kind's CRD is invalid: %v", errs)
	}
	// The internal form keeps a schema that every version shares in spec.validation.
	ss, err := structuralschema.NewStructural(param.Spec.Validation.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	validator := cel.NewValidator(ss, true, celconfig.PerCallLimit)
	if validator == nil {
		t.Fatal("the parameter kind has no CEL rules")
	}

	// The gated CRD whose gate each combination replaces, as the server decodes it.
	content, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "feature-gates", "crontab-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gated := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(content, gated); err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(gated)

	bools := []*bool{nil, ptr.To(false), ptr.To(true)}
	refused := 0
	for _, stage := range []string{"alpha", "beta", "stable", "deprecated"} {
		for _, def := range bools {
			for _, enabled := range bools {
				for _, warning := range []*string{nil, ptr.To("use .spec.other instead")} {
					gate := apiextensionsv1.CustomResourceDefinitionFeatureGate{
						Name: "ReplicasFeatureGate", PreRelease: apiextensionsv1.CustomFeatureGatePreRelease(stage),
						Default: def, Enabled: enabled, FieldDeprecationWarning: warning, FieldPaths: []string{".spec.replicas"},
					}
					name := fmt.Sprintf("%s default=%s enabled=%s warning=%t", stage, show(def), show(enabled), warning != nil)
					t.Run(name, func(t *testing.T) {
						crd := gated.DeepCopy()
						crd.Spec.CustomFeatureGates = &apiextensionsv1.CustomResourceDefinitionFeatureGates{FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{gate}}
						internal := &apiextensions.CustomResourceDefinition{}
						if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
							t.Fatal(err)
						}
						ours := gateErrors(validation.ValidateCustomResourceDefinition(ctx, withStatus(internal)), "spec.customFeatureGates.featureGates[0]")

						obj := map[string]interface{}{
							"apiVersion": ParamAPIVersion, "kind": ParamKind,
							"metadata": map[string]interface{}{"name": crd.Name},
							"spec":     map[string]interface{}{"featureGates": []interface{}{gateObject(t, gate)}},
						}
						errs, _ := validator.Validate(ctx, nil, ss, obj, nil, celconfig.RuntimeCELCostBudget)
						stock := gateErrors(errs, "spec.featureGates[0]")

						if strings.Join(ours, "\n") != strings.Join(stock, "\n") {
							t.Errorf("our CRD validation:\n  %s\nthe parameter kind's rules:\n  %s", strings.Join(ours, "\n  "), strings.Join(stock, "\n  "))
						}
						if len(ours) > 0 {
							refused++
						}
					})
				}
			}
		}
	}
	// The combinations cover every rule (a test that refuses nothing proves nothing).
	if refused == 0 {
		t.Error("no combination was refused")
	}
	t.Logf("%d of 72 combinations refused alike", refused)
}

func withStatus(crd *apiextensions.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			crd.Status.StoredVersions = []string{v.Name}
		}
	}
	return crd
}

// gateErrors are the errors at or below the gate at prefix, each as "<field below the
// gate> <type>: <detail>", sorted. A CEL rule's error carries the object as its value,
// so values are left out.
func gateErrors(errs fieldpath.ErrorList, prefix string) []string {
	var out []string
	for _, e := range errs {
		if rest, ok := strings.CutPrefix(e.Field, prefix); ok {
			out = append(out, fmt.Sprintf("%s %s: %s", rest, e.Type, e.Detail))
		}
	}
	sort.Strings(out)
	return out
}

func show(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}

func gateObject(t *testing.T, v interface{}) map[string]interface{} {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The controller package (controllers/featuregates, a module of its own that does not import
// the generator) names the parameter kind itself; its names must stay those written here.
func TestControllersNameTheParamKindAlike(t *testing.T) {
	file := filepath.Join("..", "..", "..", "controllers", "featuregates", "backend.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatalf("reading the controller package's names: %v", err)
	}
	got := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, name := range v.Names {
				if i < len(v.Values) {
					if lit, ok := v.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						got[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	for name, want := range map[string]string{
		"ParamGroup": ParamGroup, "ParamVersion": ParamVersion, "ParamKind": ParamKind, "ParamResource": ParamResource,
	} {
		if got[name] != want {
			t.Errorf("%s in %s is %q; featuregate-gen writes %q", name, file, got[name], want)
		}
	}
}
