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
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
)

// TestConfigMapPolicies: -param-configmap replaces the parameter object with a ConfigMap of
// every gate's state, points every policy and binding at it, and leaves no expression that
// reads the parameter object's spec.
func TestConfigMapPolicies(t *testing.T) {
	s := shape{gates: 50}
	f, err := stockFormsFor(s, namesFor(""))
	if err != nil {
		t.Fatal(err)
	}
	out, err := configMapPolicies(f.policiesYAML, f.res.Param)
	if err != nil {
		t.Fatal(err)
	}
	before, err := decodeManifests(f.policiesYAML)
	if err != nil {
		t.Fatal(err)
	}
	after, err := decodeManifests(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d objects after the rewrite, %d before", len(after), len(before))
	}
	policiesSeen, bindingsSeen := 0, 0
	for i, obj := range after {
		switch obj.GetKind() {
		case "ConfigMap":
			if before[i].GetKind() != "CustomResourceFeatureGates" || obj.GetName() != before[i].GetName() || obj.GetNamespace() != benchNamespace {
				t.Errorf("ConfigMap %s/%s stands in for %s %s", obj.GetNamespace(), obj.GetName(), before[i].GetKind(), before[i].GetName())
			}
			data, _, _ := unstructured.NestedStringMap(obj.Object, "data")
			want := map[string]string{}
			for _, g := range f.res.Param.Spec.FeatureGates {
				want[g.Name] = "false"
				if ownState(g) {
					want[g.Name] = "true"
				}
			}
			if !reflect.DeepEqual(data, want) {
				t.Errorf("ConfigMap data %v, want %v", data, want)
			}
			on := 0
			for _, v := range data {
				if v == "true" {
					on++
				}
			}
			if on != s.gates-s.disabledGates() {
				t.Errorf("%d gates on in the ConfigMap, want %d", on, s.gates-s.disabledGates())
			}
		case "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy":
			policiesSeen++
			kind, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "paramKind")
			if !reflect.DeepEqual(kind, map[string]string{"apiVersion": "v1", "kind": "ConfigMap"}) {
				t.Errorf("%s %s: paramKind %v", obj.GetKind(), obj.GetName(), kind)
			}
			vars, _, _ := unstructured.NestedSlice(obj.Object, "spec", "variables")
			found := false
			for _, v := range vars {
				if m := v.(map[string]interface{}); m["name"] == "gateStates" {
					found = m["expression"] == configMapStates
				}
			}
			if !found {
				t.Errorf("%s %s: no gateStates variable that reads the ConfigMap", obj.GetKind(), obj.GetName())
			}
		case "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding":
			bindingsSeen++
			if ns, _, _ := unstructured.NestedString(obj.Object, "spec", "paramRef", "namespace"); ns != benchNamespace {
				t.Errorf("%s %s: paramRef.namespace %q, want %q", obj.GetKind(), obj.GetName(), ns, benchNamespace)
			}
		}
	}
	if policiesSeen == 0 || bindingsSeen != policiesSeen {
		t.Errorf("%d policies and %d bindings rewritten", policiesSeen, bindingsSeen)
	}
	if strings.Contains(string(out), "params.spec") {
		t.Errorf("the rewritten manifest still reads params.spec")
	}
	if !strings.Contains(string(out), "c.exists(n, c[n] \\u0026\\u0026 params.data[?n]") {
		t.Errorf("no match condition tests the gates in the ConfigMap")
	}

	// A policy that reads the parameter object elsewhere is refused, not half rewritten.
	broken := strings.Replace(string(f.policiesYAML), "variables.gateStates[", "params.spec.featureGates.size() > 0 && variables.gateStates[", 1)
	if broken == string(f.policiesYAML) {
		t.Fatal("the generated policies read no gateStates variable")
	}
	if _, err := configMapPolicies([]byte(broken), f.res.Param); err == nil || !strings.Contains(err.Error(), "outside a gateStates variable") {
		t.Errorf("a policy reading params.spec elsewhere: error %v", err)
	}
}

func TestOwnState(t *testing.T) {
	for _, tc := range []struct {
		stage             apiextensionsv1.CustomFeatureGatePreRelease
		enabled, default_ *bool
		want              bool
	}{
		{stage: apiextensionsv1.CustomFeatureGateAlpha, want: false},
		{stage: apiextensionsv1.CustomFeatureGateBeta, want: true},
		{stage: apiextensionsv1.CustomFeatureGateStable, want: true},
		{stage: apiextensionsv1.CustomFeatureGateDeprecated, want: false},
		{stage: apiextensionsv1.CustomFeatureGateAlpha, enabled: ptr.To(true), want: true},
		{stage: apiextensionsv1.CustomFeatureGateBeta, enabled: ptr.To(false), want: false},
		{stage: apiextensionsv1.CustomFeatureGateStable, enabled: ptr.To(false), want: true},
		{stage: apiextensionsv1.CustomFeatureGateBeta, default_: ptr.To(false), want: false},
		{stage: apiextensionsv1.CustomFeatureGateBeta, enabled: ptr.To(true), default_: ptr.To(false), want: true},
		{stage: apiextensionsv1.CustomFeatureGateDeprecated, default_: ptr.To(true), want: true},
	} {
		g := apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "G", PreRelease: tc.stage, Enabled: tc.enabled, Default: tc.default_}
		if got := ownState(g); got != tc.want {
			t.Errorf("%s enabled=%v default=%v: %t, want %t", tc.stage, ptr.Deref(tc.enabled, false), ptr.Deref(tc.default_, false), got, tc.want)
		}
	}
}
