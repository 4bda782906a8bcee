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
	"os"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/utils/ptr"
)

// runValidating evaluates every validation of a generated validating policy on a write of
// obj over old (nil on create) with the given gate states, as the API server's policy
// evaluator does, and returns the messages of the validations that fail.
func runValidating(t testing.TB, p *admissionregistrationv1.ValidatingAdmissionPolicy, param *Param, obj, old map[string]interface{}, subresource string) []string {
	t.Helper()
	return compileValidating(t, p)(param, obj, old, subresource)
}

// compileValidating compiles a generated validating policy once and returns the function
// that evaluates it on a write.
func compileValidating(t testing.TB, p *admissionregistrationv1.ValidatingAdmissionPolicy) func(param *Param, obj, old map[string]interface{}, subresource string) []string {
	t.Helper()
	run := compileValidatingErr(t, p)
	return func(param *Param, obj, old map[string]interface{}, subresource string) []string {
		failed, err := run(param, obj, old, subresource)
		if err != nil {
			t.Fatal(err)
		}
		return failed
	}
}

// compileValidatingErr is compileValidating that returns an evaluation's error (a cost limit
// exceeded, say) instead of failing the test.
func compileValidatingErr(t testing.TB, p *admissionregistrationv1.ValidatingAdmissionPolicy) func(param *Param, obj, old map[string]interface{}, subresource string) ([]string, error) {
	t.Helper()
	if p == nil {
		return func(*Param, map[string]interface{}, map[string]interface{}, string) ([]string, error) {
			return nil, nil
		}
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasParams: true}
	for _, v := range p.Spec.Variables {
		if r := compiler.CompileAndStoreVariable(variable{v.Name, v.Expression}, opts, environment.StoredExpressions); r.Error != nil {
			t.Fatalf("variable %s: %v", v.Name, r.Error)
		}
	}
	var exprs []plugincel.ExpressionAccessor
	for _, v := range p.Spec.Validations {
		exprs = append(exprs, condition(v.Expression))
	}
	ev := compiler.CompileCondition(exprs, opts, environment.StoredExpressions)
	if errs := ev.CompilationErrors(); len(errs) > 0 {
		t.Fatalf("%s does not compile: %v", p.Name, errs)
	}
	// The match conditions, as the dispatcher evaluates them before the checks: where one is
	// false, the policy is skipped. The checks run anyway, and a check that would refuse a
	// write that the conditions skip is an error: a condition that lets such a write in.
	matches := compileMatch(t, p.Spec.MatchConditions)
	runChecks := checksOf(t, p, ev)
	return func(param *Param, obj, old map[string]interface{}, subresource string) ([]string, error) {
		matched, err := matches(param, obj, old, subresource)
		if err != nil {
			return nil, err
		}
		failed, err := runChecks(param, obj, old, subresource)
		if err != nil || matched {
			return failed, err
		}
		if len(failed) > 0 {
			return nil, fmt.Errorf("the match conditions of %s skip a write that its checks refuse: %v", p.Name, failed)
		}
		return nil, nil
	}
}

// checksOf returns the function that runs every check of the compiled policy p on a write,
// whatever its match conditions, and returns the messages of those that refuse it.
func checksOf(t testing.TB, p *admissionregistrationv1.ValidatingAdmissionPolicy, ev plugincel.ConditionEvaluator) func(param *Param, obj, old map[string]interface{}, subresource string) ([]string, error) {
	return func(param *Param, obj, old map[string]interface{}, subresource string) ([]string, error) {
		cur := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
		var oldObj runtime.Object
		op := admission.Create
		if old != nil {
			oldObj = &unstructured.Unstructured{Object: runtime.DeepCopyJSON(old)}
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
		results, _, err := ev.ForInput(context.Background(), va, req, plugincel.OptionalVariableBindings{VersionedParams: toUnstructured(t, param)}, nil, celconfig.RuntimeCELCostBudget)
		if err != nil {
			return nil, err
		}
		var failed []string
		for i, r := range results {
			if r.Error != nil {
				return nil, fmt.Errorf("validation %d: %w\n%s", i, r.Error, p.Spec.Validations[i].Expression)
			}
			if r.EvalResult != nil && r.EvalResult.Value() != true {
				failed = append(failed, p.Spec.Validations[i].Message)
			}
		}
		return failed, nil
	}
}

// withStates returns res's parameter object with the named gates enabled and the others
// disabled.
func withStates(res *Result, on ...string) *Param {
	p := &Param{TypeMeta: res.Param.TypeMeta, ObjectMeta: res.Param.ObjectMeta, Spec: *res.Param.Spec.DeepCopy()}
	for i := range p.Spec.FeatureGates {
		enabled := false
		for _, n := range on {
			enabled = enabled || n == p.Spec.FeatureGates[i].Name
		}
		if p.Spec.FeatureGates[i].PreRelease != "stable" {
			p.Spec.FeatureGates[i].Enabled = ptr.To(enabled)
		}
	}
	return p
}

// deprecatedStepsCRD has a deprecated gate on a field of the items of a list without keys.
// The policies warn whenever a write changes that list and an item holds a value there (a
// reorder too), where our server follows each item: a declared difference
// (docs/guides/stock-clusters.md).
const deprecatedStepsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pipes.d.example.com}
spec:
  group: d.example.com
  scope: Namespaced
  names: {plural: pipes, singular: pipe, kind: Pipe}
  customFeatureGates:
    featureGates:
    - {name: OldRetry, preRelease: deprecated, default: true, fieldPaths: ['.spec.steps[*].retry']}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              steps:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    retry: {type: integer}
`

const keywordsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: kws.t.example.com}
spec:
  group: t.example.com
  scope: Namespaced
  names: {plural: kws, singular: kw, kind: Kw}
  customFeatureGates:
    featureGates:
    - {name: NewModes, preRelease: alpha}
    - {name: Strict, preRelease: alpha}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode:
                type: string
                enum: [A, B, C]
                x-kubernetes-feature-gated-validations:
                - {featureGate: NewModes, enabled: false, enum: [A, B]}
              items:
                type: array
                items:
                  type: object
                  properties:
                    name:
                      type: string
                      maxLength: 64
                      x-kubernetes-feature-gated-validations:
                      - {featureGate: Strict, enabled: true, maxLength: 3, pattern: '^[a-z]+$'}
                    port:
                      type: integer
                      x-kubernetes-feature-gated-validations:
                      - {featureGate: Strict, enabled: true, minimum: 1, maximum: 100, exclusiveMaximum: true}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    number:
                      type: integer
                      x-kubernetes-feature-gated-validations:
                      - {featureGate: Strict, enabled: true, maximum: 100}
              labels:
                type: object
                additionalProperties:
                  type: string
                  x-kubernetes-feature-gated-validations:
                  - {featureGate: Strict, enabled: true, maxLength: 3}
              meta:
                type: object
                properties:
                  namespace: {type: string}
                  owner: {type: string}
                x-kubernetes-feature-gated-validations:
                - {featureGate: Strict, enabled: true, required: [owner]}
                x-kubernetes-validations:
                - rule: "!featureGates.Strict || !has(self.__namespace__) || self.__namespace__ != 'kube-system'"
                  message: namespace kube-system is not allowed
`

// TestValidatingPolicy checks the validating policies' verdicts on writes, gate by gate: the
// gated keywords and the rules that read featureGates judge as CRD validation does on our
// server, an unchanged value is not judged again (ratcheting), and the deprecation policy
// warns only where a field of a live deprecated gate is set or changed.
func TestValidatingPolicy(t *testing.T) {
	cacheData, err := os.ReadFile("../../../examples/feature-gates/rules/cache-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reportData, err := os.ReadFile("../../../examples/feature-gates/deprecated/report-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gen := func(y string) *Result {
		res, err := Generate(mustCRD(t, y))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	routeData, err := os.ReadFile("../../../examples/gateway-api/crds/gateway.networking.k8s.io_httproutes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cache, kws, report, routes := gen(string(cacheData)), gen(keywordsCRD), gen(string(reportData)), gen(string(routeData))
	pipes := gen(deprecatedStepsCRD)
	obj := func(apiVersion, spec string) map[string]interface{} {
		return mustObj(t, "{apiVersion: "+apiVersion+", kind: X, metadata: {name: x, namespace: default}, spec: "+spec+"}")
	}
	cacheObj := func(spec string) map[string]interface{} { return obj("gates.example.com/v1", spec) }
	kwObj := func(spec string) map[string]interface{} { return obj("t.example.com/v1", spec) }
	route := func(spec string) map[string]interface{} { return obj("gateway.networking.k8s.io/v1", spec) }
	dupParents := "{parentRefs: [{kind: Gateway, group: gateway.networking.k8s.io, name: example}, {kind: Gateway, group: gateway.networking.k8s.io, name: example}]}"
	for _, tc := range []struct {
		name     string
		policy   *admissionregistrationv1.ValidatingAdmissionPolicy
		res      *Result
		on       []string
		obj, old map[string]interface{}
		sub      string
		want     []string // substrings of the failing validations' messages, in order
	}{
		{name: "gated enum value, gate off", res: cache, obj: cacheObj("{evictionPolicy: ARC}"), want: []string{"evictionPolicy ARC needs the ARCEviction feature gate"}},
		{name: "gated enum value, gate on", res: cache, on: []string{"ARCEviction"}, obj: cacheObj("{evictionPolicy: ARC}")},
		{name: "other value, gate off", res: cache, obj: cacheObj("{evictionPolicy: LRU}")},
		{name: "stored value kept while off (ratcheting)", res: cache, obj: cacheObj("{evictionPolicy: ARC, sizeMiB: 2}"), old: cacheObj("{evictionPolicy: ARC, sizeMiB: 1}")},
		{name: "a ratcheted value draws a warning", policy: cache.Warnings, res: cache, obj: cacheObj("{evictionPolicy: ARC, sizeMiB: 2}"), old: cacheObj("{evictionPolicy: ARC, sizeMiB: 1}"), want: []string{"spec.evictionPolicy: Invalid value: evictionPolicy ARC needs the ARCEviction feature gate"}},
		{name: "no warning for a value the update changes", policy: cache.Warnings, res: cache, obj: cacheObj("{evictionPolicy: ARC}"), old: cacheObj("{evictionPolicy: LRU}")},
		{name: "no warning for a valid ratcheted value", policy: cache.Warnings, res: cache, on: []string{"ARCEviction"}, obj: cacheObj("{evictionPolicy: ARC, sizeMiB: 2}"), old: cacheObj("{evictionPolicy: ARC, sizeMiB: 1}")},
		{name: "changed to the gated value while off", res: cache, obj: cacheObj("{evictionPolicy: ARC}"), old: cacheObj("{evictionPolicy: LRU}"), want: []string{"ARCEviction"}},
		{name: "gated bound, gate off", res: cache, obj: cacheObj("{zones: [a, b, c, d]}"), want: []string{"spec.zones"}},
		{name: "gated bound, gate on", res: cache, on: []string{"ManyZones"}, obj: cacheObj("{zones: [a, b, c, d]}")},
		{name: "stricter rule, off", res: cache, obj: cacheObj("{keyPrefix: Foo}")},
		{name: "stricter rule, on", res: cache, on: []string{"StrictKeyPrefix"}, obj: cacheObj("{keyPrefix: Foo}"), want: []string{"keyPrefix must be lower-case"}},
		{name: "scale writes are not judged by the rules", res: cache, obj: cacheObj("{evictionPolicy: ARC}"), sub: "scale"},
		{name: "gated enum keyword, off", res: kws, obj: kwObj("{mode: C}"), want: []string{"spec.mode: Invalid value: supported values: \"A\", \"B\" (while feature gate NewModes is disabled)"}},
		{name: "gated enum keyword, on", res: kws, on: []string{"NewModes"}, obj: kwObj("{mode: C}")},
		{name: "gated bounds in list items, on", res: kws, on: []string{"Strict", "NewModes"}, obj: kwObj("{items: [{name: ab, port: 5}, {name: abcd, port: 100}]}"), want: []string{"spec.items[*].name", "spec.items[*].port"}},
		{name: "gated bounds in list items, off", res: kws, obj: kwObj("{items: [{name: abcd, port: 100}]}")},
		{name: "ratcheting per map-list item: a stored item left as it was passes beside a new one", res: kws, on: []string{"Strict"}, obj: kwObj("{ports: [{name: a, number: 500}, {name: b, number: 5}]}"), old: kwObj("{ports: [{name: a, number: 500}]}")},
		{name: "ratcheting per map-list item, items reordered", res: kws, on: []string{"Strict"}, obj: kwObj("{ports: [{name: b, number: 5}, {name: a, number: 500}]}"), old: kwObj("{ports: [{name: a, number: 500}]}")},
		{name: "ratcheting per map-list item: a changed item is judged", res: kws, on: []string{"Strict"}, obj: kwObj("{ports: [{name: a, number: 600}, {name: b, number: 5}]}"), old: kwObj("{ports: [{name: a, number: 500}]}"), want: []string{"spec.ports[*].number"}},
		{name: "ratcheting per map-list item draws a warning", policy: kws.Warnings, res: kws, on: []string{"Strict"}, obj: kwObj("{ports: [{name: a, number: 500}, {name: b, number: 5}]}"), old: kwObj("{ports: [{name: a, number: 500}]}"), want: []string{"spec.ports[*].number"}},
		{name: "ratcheting per map key: a stored value left as it was passes beside a new one", res: kws, on: []string{"Strict"}, obj: kwObj("{labels: {x: long, y: ok}}"), old: kwObj("{labels: {x: long}}")},
		{name: "ratcheting per map key: a changed value is judged", res: kws, on: []string{"Strict"}, obj: kwObj("{labels: {x: longer, y: ok}}"), old: kwObj("{labels: {x: long}}"), want: []string{"spec.labels[*]"}},
		{name: "no ratcheting per item of a list without keys (as upstream)", res: kws, on: []string{"Strict"}, obj: kwObj("{items: [{name: abcd}, {name: ab}]}"), old: kwObj("{items: [{name: abcd}]}"), want: []string{"spec.items[*].name"}},
		{name: "gated pattern", res: kws, on: []string{"Strict"}, obj: kwObj("{items: [{name: A1}]}"), want: []string{"spec.items[*].name"}},
		{name: "gated required", res: kws, on: []string{"Strict"}, obj: kwObj("{meta: {namespace: a}}"), want: []string{"requires owner"}},
		{name: "escaped property in a moved rule", res: kws, on: []string{"Strict"}, obj: kwObj("{meta: {namespace: kube-system, owner: me}}"), want: []string{"namespace kube-system is not allowed"}},
		{name: "escaped property, has() false", res: kws, on: []string{"Strict"}, obj: kwObj("{meta: {owner: me}}")},
		{name: "Gateway API: has() of an escaped property inside macros, gate off", res: routes, obj: route(dupParents), want: []string{"sectionName must be unique when parentRefs includes 2 or more references to the same parent"}},
		{name: "Gateway API: the same with the gate on", res: routes, on: []string{"HTTPRouteParentRefs"}, obj: route(dupParents), want: []string{"sectionName or port must be unique when parentRefs includes 2 or more references to the same parent"}},
		{name: "Gateway API: parent refs in other namespaces", res: routes, obj: route("{parentRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: example, namespace: a}, {group: gateway.networking.k8s.io, kind: Gateway, name: example, namespace: b}]}")},
		{name: "deprecated field set on create", policy: report.Warnings, res: report, on: []string{"UTCOffsetGate"}, obj: obj("gates.example.com/v1", "{utcOffset: '+01:00'}"), want: []string{"deprecated"}},
		{name: "deprecated field unchanged", policy: report.Warnings, res: report, on: []string{"UTCOffsetGate"}, obj: obj("gates.example.com/v1", "{utcOffset: '+01:00', schedule: b}"), old: obj("gates.example.com/v1", "{utcOffset: '+01:00', schedule: a}")},
		{name: "deprecated field below a list without keys, list unchanged: no warning", policy: pipes.Warnings, res: pipes, on: []string{"OldRetry"}, obj: obj("d.example.com/v1", "{steps: [{name: a, retry: 1}, {name: b}]}"), old: obj("d.example.com/v1", "{steps: [{name: a, retry: 1}, {name: b}]}")},
		{name: "deprecated field below a list without keys, items reordered: a warning (ours gives none)", policy: pipes.Warnings, res: pipes, on: []string{"OldRetry"}, obj: obj("d.example.com/v1", "{steps: [{name: b}, {name: a, retry: 1}]}"), old: obj("d.example.com/v1", "{steps: [{name: a, retry: 1}, {name: b}]}"), want: []string{"deprecated"}},
		{name: "deprecated gate disabled: no warning", policy: report.Warnings, res: report, obj: obj("gates.example.com/v1", "{utcOffset: '+01:00', legacyFormat: x}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.policy
			if p == nil {
				p = tc.res.Validating
			}
			got := runValidating(t, p, withStates(tc.res, tc.on...), tc.obj, tc.old, tc.sub)
			if len(got) != len(tc.want) {
				t.Fatalf("failing validations %q, want %d matching %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("failing validation %d: %q, want it to contain %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}
