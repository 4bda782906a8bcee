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
	"encoding/json"
	"fmt"
	"testing"

	celgo "github.com/google/cel-go/cel"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

// The tests in this file run the generated policies in process, with the API server's own
// CEL compiler and JSON patcher (k8s.io/apiserver's admission plugins), the way the
// mutating policy dispatcher does: variables first, then each mutation in turn on the
// object the previous one returned. No API server is involved; test/stockpolicies runs the
// same policies on a real stock kube-apiserver.

type variable struct{ name, expr string }

func (v variable) GetExpression() string       { return v.expr }
func (v variable) ReturnTypes() []*celgo.Type  { return []*celgo.Type{celgo.AnyType} }
func (v variable) GetName() string             { return v.name }
func (c condition) GetExpression() string      { return string(c) }
func (c condition) ReturnTypes() []*celgo.Type { return []*celgo.Type{celgo.BoolType} }

type condition string

// runMutating applies a generated mutating policy to a write of obj over old (nil on
// create) with param as its parameter object, and returns the object the policy leaves.
func runMutating(t testing.TB, p *admissionregistrationv1.MutatingAdmissionPolicy, param *Param, obj, old map[string]interface{}) (map[string]interface{}, error) {
	t.Helper()
	return compileMutating(t, p)(param, obj, old)
}

// compileMutating compiles a generated mutating policy once and returns the function that
// applies it to a write.
func compileMutating(t testing.TB, p *admissionregistrationv1.MutatingAdmissionPolicy) func(param *Param, obj, old map[string]interface{}) (map[string]interface{}, error) {
	t.Helper()
	if p == nil {
		return func(_ *Param, obj, _ map[string]interface{}) (map[string]interface{}, error) { return obj, nil }
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasParams: true}
	var vars []plugincel.NamedExpressionAccessor
	for _, v := range p.Spec.Variables {
		vars = append(vars, variable{v.Name, v.Expression})
	}
	for _, v := range vars {
		if r := compiler.CompileAndStoreVariable(v, opts, environment.StoredExpressions); r.Error != nil {
			t.Fatalf("variable %s does not compile: %v", v.GetName(), r.Error)
		}
	}
	// The match conditions, as the dispatcher evaluates them before the mutations: where one
	// is false, the policy is skipped and the object is left as it is.
	matches := compileMatch(t, p.Spec.MatchConditions)
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	var patchers []patch.Patcher
	for i, m := range p.Spec.Mutations {
		ev := compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, patchOpts, environment.StoredExpressions)
		if errs := ev.CompilationErrors(); len(errs) > 0 {
			t.Fatalf("mutation %d does not compile: %v\n%s", i, errs, m.JSONPatch.Expression)
		}
		patchers = append(patchers, patch.NewJSONPatcher(ev))
	}
	return func(param *Param, obj, old map[string]interface{}) (map[string]interface{}, error) {
		paramObj := toUnstructured(t, param)
		cur := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
		var oldObj runtime.Object
		op := admission.Create
		if old != nil {
			oldObj = &unstructured.Unstructured{Object: runtime.DeepCopyJSON(old)}
			op = admission.Update
		}
		gvk := cur.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: "things"}
		scheme := runtime.NewScheme()
		if ok, err := matches(param, cur.Object, old, ""); err != nil {
			return nil, err
		} else if !ok {
			return cur.Object, nil
		}
		// One composition context per request, as the dispatcher makes: variables are computed
		// once and shared by every mutation.
		ctx := compiler.CreateContext(context.Background())
		for i, patcher := range patchers {
			attrs := admission.NewAttributesRecord(cur, oldObj, gvk, cur.GetNamespace(), cur.GetName(), gvr, "", op, nil, false, nil)
			va := &admission.VersionedAttributes{
				Attributes:      attrs,
				VersionedObject: admission.NewLazyObject(cur),
				VersionedKind:   gvk,
			}
			if oldObj != nil {
				va.VersionedOldObject = admission.NewLazyObject(oldObj)
			}
			out, err := patcher.Patch(ctx, patch.Request{
				MatchedResource:     gvr,
				VersionedAttributes: va,
				ObjectInterfaces:    admission.NewObjectInterfacesFromScheme(scheme),
				OptionalVariables:   plugincel.OptionalVariableBindings{VersionedParams: paramObj},
			}, celconfig.RuntimeCELCostBudget)
			if err != nil {
				return nil, fmt.Errorf("mutation %d: %w", i, err)
			}
			cur = out.(*unstructured.Unstructured)
		}
		return cur.Object, nil
	}
}

// compileMatch compiles a generated policy's match conditions and returns the function that
// tells whether a write (to subresource, "" for the main resource) matches them (every
// condition true).
func compileMatch(t testing.TB, matchConditions []admissionregistrationv1.MatchCondition) func(param *Param, obj, old map[string]interface{}, subresource string) (bool, error) {
	t.Helper()
	if len(matchConditions) == 0 {
		return func(*Param, map[string]interface{}, map[string]interface{}, string) (bool, error) { return true, nil }
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	var conds []plugincel.ExpressionAccessor
	for _, c := range matchConditions {
		conds = append(conds, condition(c.Expression))
	}
	match := compiler.CompileCondition(conds, plugincel.OptionalVariableDeclarations{HasParams: true}, environment.StoredExpressions)
	if errs := match.CompilationErrors(); len(errs) > 0 {
		t.Fatalf("the match conditions do not compile: %v", errs)
	}
	return func(param *Param, obj, old map[string]interface{}, subresource string) (bool, error) {
		cur := &unstructured.Unstructured{Object: obj}
		var oldObj runtime.Object
		op := admission.Create
		if old != nil {
			oldObj = &unstructured.Unstructured{Object: old}
			op = admission.Update
		}
		gvk := cur.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: "things"}
		attrs := admission.NewAttributesRecord(cur, oldObj, gvk, cur.GetNamespace(), cur.GetName(), gvr, subresource, op, nil, false, nil)
		va := &admission.VersionedAttributes{Attributes: attrs, VersionedObject: admission.NewLazyObject(cur), VersionedKind: gvk}
		if oldObj != nil {
			va.VersionedOldObject = admission.NewLazyObject(oldObj)
		}
		req := plugincel.CreateAdmissionRequest(attrs, metav1GVR(gvr), metav1GVK(gvk))
		results, _, err := match.ForInput(context.Background(), va, req, plugincel.OptionalVariableBindings{VersionedParams: toUnstructured(t, param)}, nil, celconfig.RuntimeCELCostBudget)
		if err != nil {
			return false, fmt.Errorf("match conditions: %w", err)
		}
		for i, r := range results {
			if r.Error != nil {
				return false, fmt.Errorf("match condition %d: %w", i, r.Error)
			}
			if r.EvalResult != nil && r.EvalResult.Value() != true {
				return false, nil
			}
		}
		return true, nil
	}
}

// checkValidating compiles every expression of a generated validating policy with the API
// server's compiler.
func checkValidating(t testing.TB, p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	t.Helper()
	if p == nil {
		return
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasParams: true}
	var vars []plugincel.NamedExpressionAccessor
	for _, v := range p.Spec.Variables {
		vars = append(vars, variable{v.Name, v.Expression})
	}
	for _, v := range vars {
		if r := compiler.CompileAndStoreVariable(v, opts, environment.StoredExpressions); r.Error != nil {
			t.Errorf("variable %s of %s does not compile: %v", v.GetName(), p.Name, r.Error)
		}
	}
	for i, v := range p.Spec.Validations {
		ev := compiler.CompileCondition([]plugincel.ExpressionAccessor{condition(v.Expression)}, opts, environment.StoredExpressions)
		if errs := ev.CompilationErrors(); len(errs) > 0 {
			t.Errorf("validation %d of %s does not compile: %v\n%s", i, p.Name, errs, v.Expression)
		}
	}
}

func toUnstructured(t testing.TB, obj interface{}) *unstructured.Unstructured {
	t.Helper()
	js, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	return u
}

func mustCRD(t testing.TB, y string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(y), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func mustObj(t testing.TB, y string) map[string]interface{} {
	t.Helper()
	if y == "" {
		return nil
	}
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func metav1GVR(gvr schema.GroupVersionResource) metav1.GroupVersionResource {
	return metav1.GroupVersionResource{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource}
}

func metav1GVK(gvk schema.GroupVersionKind) metav1.GroupVersionKind {
	return metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
}
