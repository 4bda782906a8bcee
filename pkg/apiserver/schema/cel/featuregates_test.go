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

package cel

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/utils/ptr"
)

// fgSchema is an object with a string mode, a bool flag and a list of at most 100 strings;
// rules are set on the root.
func fgSchema(rules ...apiextensions.ValidationRule) *schema.Structural {
	return &schema.Structural{
		Generic: schema.Generic{Type: "object"},
		Properties: map[string]schema.Structural{
			"mode":  {Generic: schema.Generic{Type: "string"}, ValueValidation: &schema.ValueValidation{MaxLength: ptr.To[int64](16)}},
			"flag":  {Generic: schema.Generic{Type: "boolean"}},
			"items": {Generic: schema.Generic{Type: "array"}, ValueValidation: &schema.ValueValidation{MaxItems: ptr.To[int64](100)}, Items: &schema.Structural{Generic: schema.Generic{Type: "string"}, ValueValidation: &schema.ValueValidation{MaxLength: ptr.To[int64](16)}}},
		},
		ValidationExtensions: schema.ValidationExtensions{XValidations: rules},
	}
}

func fgEnv(t testing.TB, states map[string]bool) *environment.EnvSet {
	t.Helper()
	env, err := FeatureGatesEnvSet(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), states)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestFeatureGatesEnvSetWithoutGatesIsUpstreams(t *testing.T) {
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	for _, states := range []map[string]bool{nil, {}} {
		env, err := FeatureGatesEnvSet(base, states)
		if err != nil || env != base {
			t.Errorf("FeatureGatesEnvSet(base, %v) = %p, %v; want base itself (%p)", states, env, err, base)
		}
	}
	if got := validatorBaseEnvSet(nil); got != base {
		t.Errorf("validatorBaseEnvSet(nil) is not upstream's base environment")
	}
	if got := validatorBaseEnvSet([]ValidatorOption{WithBaseEnvSet(nil)}); got != base {
		t.Errorf("WithBaseEnvSet(nil) changed the base environment")
	}
}

func TestFeatureGatesCompile(t *testing.T) {
	gates := map[string]bool{"FastMode": false, "BigLists": true}
	tests := []struct {
		name   string
		states map[string]bool
		rule   apiextensions.ValidationRule
		// wantErr is a substring of the rule's compile error, "" for none.
		wantErr string
		// wantMsgErr is a substring of the messageExpression's compile error, "" for none.
		wantMsgErr string
	}{
		{name: "no gates, no featureGates", rule: apiextensions.ValidationRule{Rule: "self.mode != 'Fast'"}},
		{name: "no gates, featureGates named", rule: apiextensions.ValidationRule{Rule: "featureGates.FastMode || self.mode != 'Fast'"}, wantErr: "undeclared reference to 'featureGates'"},
		{name: "gates, declared gate", states: gates, rule: apiextensions.ValidationRule{Rule: "featureGates.FastMode || self.mode != 'Fast'"}},
		{name: "gates, maxItems recipe", states: gates, rule: apiextensions.ValidationRule{Rule: "featureGates.BigLists || size(self.items) <= 10"}},
		{name: "gates, has()", states: gates, rule: apiextensions.ValidationRule{Rule: "has(featureGates.FastMode)"}, wantErr: "featureGates may only be read as featureGates.<GateName>"},
		{name: "gates, featureGates alone", states: gates, rule: apiextensions.ValidationRule{Rule: "featureGates == featureGates"}, wantErr: "featureGates may only be read as featureGates.<GateName>"},
		{name: "gates, rule without featureGates", states: gates, rule: apiextensions.ValidationRule{Rule: "self.mode != 'Fast'"}},
		{name: "gates, undeclared gate", states: gates, rule: apiextensions.ValidationRule{Rule: "featureGates.SlowMode || self.mode != 'Fast'"}, wantErr: "undefined field 'SlowMode'"},
		{name: "gates, wrong case", states: gates, rule: apiextensions.ValidationRule{Rule: "featureGates.fastMode"}, wantErr: "undefined field 'fastMode'"},
		{name: "gates, not a bool rule", states: gates, rule: apiextensions.ValidationRule{Rule: "featureGates.FastMode == 1"}, wantErr: "found no matching overload for '_==_'"},
		{name: "gates, index syntax", states: gates, rule: apiextensions.ValidationRule{Rule: "featureGates['FastMode']"}, wantErr: "compilation failed"},
		{name: "gates, messageExpression reads a gate", states: gates, rule: apiextensions.ValidationRule{Rule: "self.mode != 'Fast'", MessageExpression: "featureGates.FastMode ? 'on' : 'FastMode is off'"}},
		{name: "gates, messageExpression names an undeclared gate", states: gates, rule: apiextensions.ValidationRule{Rule: "self.mode != 'Fast'", MessageExpression: "featureGates.Nope ? 'a' : 'b'"}, wantMsgErr: "undefined field 'Nope'"},
		{name: "no gates, messageExpression names featureGates", rule: apiextensions.ValidationRule{Rule: "self.mode != 'Fast'", MessageExpression: "featureGates.FastMode ? 'a' : 'b'"}, wantMsgErr: "undeclared reference to 'featureGates'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, loader := range []EnvLoader{NewExpressionsEnvLoader(), StoredExpressionsEnvLoader()} {
				s := fgSchema(tc.rule)
				results, err := Compile(s, model.SchemaDeclType(s, false), celconfig.PerCallLimit, fgEnv(t, tc.states), loader)
				if err != nil {
					t.Fatal(err)
				}
				r := results[0]
				switch {
				case tc.wantErr == "" && r.Error != nil:
					t.Errorf("unexpected compile error: %v", r.Error)
				case tc.wantErr != "" && (r.Error == nil || !strings.Contains(r.Error.Error(), tc.wantErr)):
					t.Errorf("compile error %v, want one containing %q", r.Error, tc.wantErr)
				}
				switch {
				case tc.wantMsgErr == "" && r.MessageExpressionError != nil:
					t.Errorf("unexpected messageExpression error: %v", r.MessageExpressionError)
				case tc.wantMsgErr != "" && (r.MessageExpressionError == nil || !strings.Contains(r.MessageExpressionError.Error(), tc.wantMsgErr)):
					t.Errorf("messageExpression error %v, want one containing %q", r.MessageExpressionError, tc.wantMsgErr)
				}
			}
		})
	}
}

// TestFeatureGatesCost checks that reading a gate costs what reading a bool field of self
// costs, estimated and at run time.
func TestFeatureGatesCost(t *testing.T) {
	states := map[string]bool{"G": true, "H": false}
	tests := []struct {
		name         string
		withGate     string
		withSelfFlag string
	}{
		{name: "gate alone", withGate: "featureGates.G", withSelfFlag: "self.flag"},
		{name: "gated enum", withGate: "featureGates.H || self.mode != 'Fast'", withSelfFlag: "self.flag || self.mode != 'Fast'"},
		{name: "gated maxItems", withGate: "featureGates.H || size(self.items) <= 10", withSelfFlag: "self.flag || size(self.items) <= 10"},
		{name: "all over a list", withGate: "self.items.all(i, featureGates.H || i != 'x')", withSelfFlag: "self.items.all(i, self.flag || i != 'x')"},
	}
	obj := map[string]interface{}{"mode": "Slow", "flag": false, "items": []interface{}{"a", "b", "c"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cost := func(rule string) (estimated uint64, runtime int64) {
				s := fgSchema(apiextensions.ValidationRule{Rule: rule})
				results, err := Compile(s, model.SchemaDeclType(s, false), celconfig.PerCallLimit, fgEnv(t, states), StoredExpressionsEnvLoader())
				if err != nil || results[0].Error != nil {
					t.Fatalf("%s: %v %v", rule, err, results[0].Error)
				}
				v := NewValidator(s, false, celconfig.PerCallLimit, WithBaseEnvSet(fgEnv(t, states)))
				_, remaining := v.Validate(context.Background(), nil, s, obj, nil, celconfig.RuntimeCELCostBudget)
				return results[0].MaxCost, celconfig.RuntimeCELCostBudget - remaining
			}
			ge, gr := cost(tc.withGate)
			fe, fr := cost(tc.withSelfFlag)
			if ge > fe {
				t.Errorf("estimated cost of %q is %d, more than %d for %q", tc.withGate, ge, fe, tc.withSelfFlag)
			}
			if gr > fr {
				t.Errorf("runtime cost of %q is %d, more than %d for %q", tc.withGate, gr, fr, tc.withSelfFlag)
			}
		})
	}
}

// TestFeatureGatesKEPRules evaluates featureGates.G for every enabled rule of KEP-2608, as
// featuregates.States computes them.
func TestFeatureGatesKEPRules(t *testing.T) {
	tests := []struct {
		name string
		spec featuregates.GateSpec
		want bool
	}{
		{name: "stable", spec: featuregates.GateSpec{PreRelease: featuregates.Stable}, want: true},
		{name: "stable, default true", spec: featuregates.GateSpec{PreRelease: featuregates.Stable, Default: ptr.To(true)}, want: true},
		{name: "alpha, enabled", spec: featuregates.GateSpec{PreRelease: featuregates.Alpha, Enabled: ptr.To(true)}, want: true},
		{name: "alpha, enabled false beats default", spec: featuregates.GateSpec{PreRelease: featuregates.Alpha, Enabled: ptr.To(false), Default: ptr.To(true)}, want: false},
		{name: "beta, enabled false", spec: featuregates.GateSpec{PreRelease: featuregates.Beta, Enabled: ptr.To(false)}, want: false},
		{name: "beta, default false", spec: featuregates.GateSpec{PreRelease: featuregates.Beta, Default: ptr.To(false)}, want: false},
		{name: "beta, default true", spec: featuregates.GateSpec{PreRelease: featuregates.Beta, Default: ptr.To(true)}, want: true},
		{name: "beta", spec: featuregates.GateSpec{PreRelease: featuregates.Beta}, want: true},
		{name: "alpha", spec: featuregates.GateSpec{PreRelease: featuregates.Alpha}, want: false},
		{name: "alpha, default false", spec: featuregates.GateSpec{PreRelease: featuregates.Alpha, Default: ptr.To(false)}, want: false},
		{name: "deprecated, default true", spec: featuregates.GateSpec{PreRelease: featuregates.Deprecated, Default: ptr.To(true)}, want: true},
		{name: "deprecated, default false", spec: featuregates.GateSpec{PreRelease: featuregates.Deprecated, Default: ptr.To(false)}, want: false},
		{name: "deprecated, enabled", spec: featuregates.GateSpec{PreRelease: featuregates.Deprecated, Default: ptr.To(false), Enabled: ptr.To(true)}, want: true},
		{name: "deprecated", spec: featuregates.GateSpec{PreRelease: featuregates.Deprecated}, want: false},
	}
	s := fgSchema(
		apiextensions.ValidationRule{Rule: "featureGates.G", MessageExpression: "'G is ' + string(featureGates.G)"},
		apiextensions.ValidationRule{Rule: "featureGates.Other"},
	)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Name = "G"
			states := featuregates.States([]featuregates.GateSpec{spec, {Name: "Other", PreRelease: featuregates.Stable}})
			if states["G"] != tc.want {
				t.Fatalf("featuregates.States: G = %v, want %v", states["G"], tc.want)
			}
			v := NewValidator(s, false, celconfig.PerCallLimit, WithBaseEnvSet(fgEnv(t, states)))
			errs, _ := v.Validate(context.Background(), nil, s, map[string]interface{}{"mode": "x"}, nil, celconfig.RuntimeCELCostBudget)
			if tc.want && len(errs) != 0 {
				t.Errorf("featureGates.G is not true: %v", errs)
			}
			if !tc.want && (len(errs) != 1 || errs[0].Detail != "G is false") {
				t.Errorf("want one error %q (messageExpression), got %v", "G is false", errs)
			}
		})
	}
}

// TestFeatureGatesRatcheting: an unchanged value that a disabled gate's rule rejects is
// ratcheted (a warning, no error), as upstream ratchets any rule; a changed one is not.
func TestFeatureGatesRatcheting(t *testing.T) {
	s := &schema.Structural{
		Generic: schema.Generic{Type: "object"},
		Properties: map[string]schema.Structural{
			"mode":  {Generic: schema.Generic{Type: "string"}, ValidationExtensions: schema.ValidationExtensions{XValidations: apiextensions.ValidationRules{{Rule: "featureGates.FastMode || self != 'Fast'"}}}},
			"other": {Generic: schema.Generic{Type: "string"}},
		},
	}
	v := NewValidator(s, true, celconfig.PerCallLimit, WithBaseEnvSet(fgEnv(t, map[string]bool{"FastMode": false})))
	tests := []struct {
		name    string
		obj     map[string]interface{}
		old     map[string]interface{}
		wantErr bool
	}{
		{name: "create", obj: map[string]interface{}{"mode": "Fast"}, wantErr: true},
		{name: "update to Fast", obj: map[string]interface{}{"mode": "Fast"}, old: map[string]interface{}{"mode": "Slow"}, wantErr: true},
		{name: "update keeping Fast", obj: map[string]interface{}{"mode": "Fast", "other": "b"}, old: map[string]interface{}{"mode": "Fast", "other": "a"}},
		{name: "update to Slow", obj: map[string]interface{}{"mode": "Slow"}, old: map[string]interface{}{"mode": "Fast"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			var old interface{}
			if tc.old != nil {
				old = tc.old
				opts = append(opts, WithRatcheting(common.NewCorrelatedObject(tc.obj, tc.old, &model.Structural{Structural: s})))
			}
			errs, _ := v.Validate(context.Background(), nil, s, tc.obj, old, celconfig.RuntimeCELCostBudget, opts...)
			if (len(errs) > 0) != tc.wantErr {
				t.Errorf("errors %v, want errors: %v", errs, tc.wantErr)
			}
		})
	}
}

func TestFeatureGatesUsedBy(t *testing.T) {
	tests := []struct {
		expression string
		want       []string
		wantAll    bool
	}{
		{expression: ""},
		{expression: "self.mode != 'Fast'"},
		{expression: "featureGates.FastMode || self.mode != 'Fast'", want: []string{"FastMode"}},
		{expression: "featureGates.A && (featureGates.B || has(featureGates.C))", want: []string{"A", "B", "C"}},
		{expression: "self.items.all(i, featureGates.A || i != 'x')", want: []string{"A"}},
		{expression: "'featureGates.A' != self.mode"},
		{expression: "self.featureGates.A"},
		{expression: "featureGates == featureGates", wantAll: true},
		{expression: "featureGates.A ||", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.expression, func(t *testing.T) {
			got, all := FeatureGatesUsedBy(tc.expression)
			sort.Strings(got)
			if !reflect.DeepEqual(got, tc.want) || all != tc.wantAll {
				t.Errorf("FeatureGatesUsedBy(%q) = %v, %v; want %v, %v", tc.expression, got, all, tc.want, tc.wantAll)
			}
		})
	}
}

// TestFeatureGatesOnListsAndMaps compiles and runs rules whose self is a list or a map:
// upstream registers such a self type under the name "list" or "map", which must not clash
// with the featureGates declaration.
func TestFeatureGatesOnListsAndMaps(t *testing.T) {
	str := schema.Structural{Generic: schema.Generic{Type: "string"}, ValueValidation: &schema.ValueValidation{MaxLength: ptr.To[int64](16)}}
	tests := []struct {
		name string
		s    *schema.Structural
		ok   interface{}
		bad  interface{}
	}{
		{
			name: "list",
			s:    &schema.Structural{Generic: schema.Generic{Type: "array"}, Items: &str, ValueValidation: &schema.ValueValidation{MaxItems: ptr.To[int64](100)}},
			ok:   []interface{}{"a"},
			bad:  []interface{}{"a", "b", "c", "d"},
		},
		{
			name: "map",
			s:    &schema.Structural{Generic: schema.Generic{Type: "object"}, AdditionalProperties: &schema.StructuralOrBool{Structural: &str}, ValueValidation: &schema.ValueValidation{MaxProperties: ptr.To[int64](100)}},
			ok:   map[string]interface{}{"a": "x"},
			bad:  map[string]interface{}{"a": "x", "b": "x", "c": "x", "d": "x"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.XValidations = apiextensions.ValidationRules{{Rule: "featureGates.Many || size(self) <= 3"}}
			for _, many := range []bool{false, true} {
				v := NewValidator(tc.s, false, celconfig.PerCallLimit, WithBaseEnvSet(fgEnv(t, map[string]bool{"Many": many})))
				if errs, _ := v.Validate(context.Background(), nil, tc.s, tc.ok, nil, celconfig.RuntimeCELCostBudget); len(errs) != 0 {
					t.Errorf("Many=%v: small value: %v", many, errs)
				}
				errs, _ := v.Validate(context.Background(), nil, tc.s, tc.bad, nil, celconfig.RuntimeCELCostBudget)
				if many && len(errs) != 0 {
					t.Errorf("Many=true: large value: %v", errs)
				}
				if !many && (len(errs) != 1 || !strings.Contains(errs[0].Detail, "failed rule")) {
					t.Errorf("Many=false: large value: want one failed rule, got %v", errs)
				}
			}
		})
	}
}
