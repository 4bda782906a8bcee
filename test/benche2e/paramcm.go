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

package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// configMapStates is the expression of the gateStates variable when the policies read a
// ConfigMap (-param-configmap): its data maps each gate to "true" or "false".
const configMapStates = `params.data.transformMap(k, v, v == "true")`

// paramGateOff is how the generated match conditions test whether a gate named in the map c
// (of gate name to "a path it guards was sent or changed") is off in the parameter object, or
// missing from it; configMapGateOff is the same test on the ConfigMap.
var paramGateOff = regexp.MustCompile(regexp.QuoteMeta(`params.spec.featureGates.exists(g, c[?g.name].orValue(false) && !(g.preRelease == "stable" || (has(g.enabled) ? g.enabled : has(g.default) ? g.default : g.preRelease == "beta"))) || params.spec.featureGates.filter(g, g.name in c).size() < `) + `[0-9]+`)

const configMapGateOff = `c.exists(n, c[n] && params.data[?n].orValue("false") != "true")`

// configMapPolicies rewrites the generated policies manifest for -param-configmap, an
// experiment that measures what a built-in parameter kind would cost the stock server: the
// parameter object becomes a ConfigMap in the bench namespace whose data holds each gate's
// own state (as the generated policies compute it from the parameter object), the policies
// take ConfigMap as their paramKind and read their gateStates variable and their match
// conditions' gate tests from it, and the bindings name the ConfigMap's namespace. The stock server reads a built-in parameter
// object for CEL lazily, field by field, where it converts a custom resource whole, through
// JSON, for every evaluation context. It refuses (an error, nothing applied) policies that
// read the parameter object anywhere else than in gateStates, since those could not be
// rewritten this way.
func configMapPolicies(manifest []byte, param *policies.Param) ([]byte, error) {
	objs, err := decodeManifests(manifest)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, obj := range objs {
		switch obj.GetKind() {
		case policies.ParamKind:
			obj = configMapOf(param)
		case "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy":
			if err := readConfigMap(obj); err != nil {
				return nil, err
			}
		case "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding":
			if _, found, _ := unstructured.NestedMap(obj.Object, "spec", "paramRef"); !found {
				return nil, fmt.Errorf("%s %s has no spec.paramRef", obj.GetKind(), obj.GetName())
			}
			if err := unstructured.SetNestedField(obj.Object, benchNamespace, "spec", "paramRef", "namespace"); err != nil {
				return nil, err
			}
		}
		raw, err := json.Marshal(obj.Object)
		if err != nil {
			return nil, err
		}
		out = append(out, string(raw))
	}
	return []byte(strings.Join(out, "\n---\n")), nil
}

// configMapOf is the ConfigMap that stands for param: each gate's own state (before
// requires), "true" or "false".
func configMapOf(param *policies.Param) *unstructured.Unstructured {
	data := map[string]interface{}{}
	for _, g := range param.Spec.FeatureGates {
		data[g.Name] = strconv.FormatBool(ownState(g))
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]interface{}{"name": param.Name, "namespace": benchNamespace},
		"data":       data,
	}}
}

// ownState is a gate's state before requires, as the generated policies read it from the
// parameter object: stable is on; otherwise enabled, else default, else on only in beta.
func ownState(g apiextensionsv1.CustomResourceDefinitionFeatureGate) bool {
	switch {
	case g.PreRelease == apiextensionsv1.CustomFeatureGateStable:
		return true
	case g.Enabled != nil:
		return *g.Enabled
	case g.Default != nil:
		return *g.Default
	}
	return g.PreRelease == apiextensionsv1.CustomFeatureGateBeta
}

// readConfigMap makes the policy obj take a ConfigMap parameter and read its gateStates from
// the ConfigMap's data.
func readConfigMap(obj *unstructured.Unstructured) error {
	if err := unstructured.SetNestedMap(obj.Object, map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap"}, "spec", "paramKind"); err != nil {
		return err
	}
	vars, _, err := unstructured.NestedSlice(obj.Object, "spec", "variables")
	if err != nil {
		return err
	}
	rewritten := false
	for _, v := range vars {
		m, ok := v.(map[string]interface{})
		if ok && m["name"] == "gateStates" {
			m["expression"] = configMapStates
			rewritten = true
		}
	}
	if rewritten {
		if err := unstructured.SetNestedSlice(obj.Object, vars, "spec", "variables"); err != nil {
			return err
		}
	}
	obj.Object["spec"] = replaceStrings(obj.Object["spec"], func(s string) string {
		return paramGateOff.ReplaceAllLiteralString(s, configMapGateOff)
	})
	raw, err := json.Marshal(obj.Object["spec"])
	if err != nil {
		return err
	}
	if strings.Contains(string(raw), "params.spec") {
		return fmt.Errorf("%s %s reads the parameter object outside a gateStates variable; -param-configmap cannot rewrite it", obj.GetKind(), obj.GetName())
	}
	return nil
}

// replaceStrings returns v with every string in it, at any depth, replaced by f's result.
func replaceStrings(v interface{}, f func(string) string) interface{} {
	switch v := v.(type) {
	case string:
		return f(v)
	case map[string]interface{}:
		for k, e := range v {
			v[k] = replaceStrings(e, f)
		}
	case []interface{}:
		for i, e := range v {
			v[i] = replaceStrings(e, f)
		}
	}
	return v
}
