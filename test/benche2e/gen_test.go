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
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestShape(t *testing.T) {
	for _, tc := range []struct {
		gates                         int
		wantGated, wantUngated        int
		wantDisabled                  int
		wantFirstGated, wantLastGated string
	}{
		{gates: 0, wantGated: 0, wantUngated: 100, wantDisabled: 0},
		{gates: 1, wantGated: 1, wantUngated: 99, wantDisabled: 1, wantFirstGated: "f00", wantLastGated: "f00"},
		{gates: 50, wantGated: 50, wantUngated: 50, wantDisabled: 25, wantFirstGated: "f00", wantLastGated: "f49"},
		{gates: 128, wantGated: 128, wantUngated: ungatedIntFields, wantDisabled: 64, wantFirstGated: "f000", wantLastGated: "f127"},
	} {
		s := shape{gates: tc.gates}
		gated, ungated := s.gatedFields(), s.ungatedFields()
		if len(gated) != tc.wantGated || len(ungated) != tc.wantUngated {
			t.Errorf("%d gates: %d gated and %d ungated fields, want %d and %d", tc.gates, len(gated), len(ungated), tc.wantGated, tc.wantUngated)
		}
		if got := s.disabledGates(); got != tc.wantDisabled {
			t.Errorf("%d gates: %d disabled, want %d", tc.gates, got, tc.wantDisabled)
		}
		if len(gated) > 0 && (gated[0] != tc.wantFirstGated || gated[len(gated)-1] != tc.wantLastGated) {
			t.Errorf("%d gates: gated fields %s..%s, want %s..%s", tc.gates, gated[0], gated[len(gated)-1], tc.wantFirstGated, tc.wantLastGated)
		}
		fg := s.featureGates()
		if tc.gates == 0 {
			if fg != nil {
				t.Errorf("0 gates: featureGates() = %v, want nil", fg)
			}
			continue
		}
		if len(fg.FeatureGates) != tc.gates {
			t.Fatalf("%d gates: featureGates() has %d", tc.gates, len(fg.FeatureGates))
		}
		// The fork's own enablement rules must agree with gateDisabled, gate by gate, and
		// each gate must guard exactly its own field.
		// States is the state the server uses (it takes requires into account).
		disabled := 0
		states := featuregates.States(featuregates.SpecsFromV1(fg))
		for i, g := range fg.FeatureGates {
			on := states[g.Name]
			if on == gateDisabled(i) {
				t.Errorf("gate %s (%s): States() = %v, but gateDisabled(%d) = %v", g.Name, g.PreRelease, on, i, gateDisabled(i))
			}
			if !on {
				disabled++
			}
			if want := []string{".spec." + gated[i]}; !reflect.DeepEqual(g.FieldPaths, want) {
				t.Errorf("gate %s guards %v, want %v", g.Name, g.FieldPaths, want)
			}
		}
		if disabled != tc.wantDisabled {
			t.Errorf("%d gates: the enablement rules disable %d, want %d", tc.gates, disabled, tc.wantDisabled)
		}
	}
}

func TestObject(t *testing.T) {
	s := shape{gates: 50}
	names := namesFor("")
	obj := s.object(names, "ns", "obj-00007", 3)
	data, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(data); n < 4500 || n > 5600 {
		t.Errorf("object is %d bytes of JSON, want about 5 KB (4500..5600)", n)
	}
	spec := obj.Object["spec"].(map[string]interface{})
	if len(spec) != 101 {
		t.Errorf("object has %d fields under .spec, want 101 (50 gated, 50 ungated, counter)", len(spec))
	}
	if got := obj.GetAPIVersion() + " " + obj.GetKind() + " " + obj.GetNamespace(); got != "bench.example.com/v1 BenchItem ns" {
		t.Errorf("apiVersion kind namespace = %q", got)
	}

	// Every field matches the schema's type, and every schema property is set.
	props := s.crd(names).Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties
	if len(props) != len(spec) {
		t.Errorf("schema has %d properties under .spec, object %d fields", len(props), len(spec))
	}
	for k, v := range spec {
		p, ok := props[k]
		if !ok {
			t.Errorf(".spec.%s is not in the schema", k)
			continue
		}
		switch v.(type) {
		case string:
			if p.Type != "string" {
				t.Errorf(".spec.%s is a string, schema says %s", k, p.Type)
			}
		case int64:
			if p.Type != "integer" {
				t.Errorf(".spec.%s is an integer, schema says %s", k, p.Type)
			}
		default:
			t.Errorf(".spec.%s has type %T", k, v)
		}
	}

	// An update (another seq) changes every field.
	next := s.object(names, "ns", "obj-00007", 4).Object["spec"].(map[string]interface{})
	for k, v := range spec {
		if next[k] == v {
			t.Errorf(".spec.%s is %v for seq 3 and 4", k, v)
		}
	}
}

func TestObjectOmitDisabled(t *testing.T) {
	for _, tc := range []struct {
		gates      int
		wantFields int
	}{
		{gates: 50, wantFields: 101 - 25},
		{gates: 3, wantFields: 101 - 2},
		{gates: 0, wantFields: 101},
	} {
		s := shape{gates: tc.gates, omitDisabled: true}
		obj := s.object(namesFor(""), "ns", "o", 0)
		spec := obj.Object["spec"].(map[string]interface{})
		if len(spec) != tc.wantFields {
			t.Errorf("%d gates, omitDisabled: %d fields under .spec, want %d", tc.gates, len(spec), tc.wantFields)
		}
		// Without the disabled fields the object looks gated whether or not gating was on.
		if err := s.checkGated(obj, true); err != nil {
			t.Errorf("%d gates, omitDisabled: %v", tc.gates, err)
		}
		if err := s.checkGated(obj, false); (err == nil) != (s.disabledGates() == 0) {
			t.Errorf("%d gates, omitDisabled: checkGated(inactive) = %v", tc.gates, err)
		}
	}
}

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		name, field string
		seq, length int
		want        string
	}{
		{"obj-00001", "f00", 2, 20, "obj-00001-f00-2-xxxx"},
		{"obj-00001", "u12", 0, 10, "obj-00001-"},
		{"a", "b", 7, 6, "a-b-7-"},
	} {
		if got := value(tc.name, tc.field, tc.seq, tc.length); got != tc.want || len(got) != tc.length {
			t.Errorf("value(%q, %q, %d, %d) = %q, want %q", tc.name, tc.field, tc.seq, tc.length, got, tc.want)
		}
	}
}

// The generated CRDs pass the fork's CRD validation, gates included; the live server
// checks them again in the command.
func TestCRDValidates(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	toInternal := func(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
		t.Helper()
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
		crd.Status.StoredVersions = []string{"v1"}
		out := &apiextensions.CustomResourceDefinition{}
		if err := scheme.Convert(crd, out, nil); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		gates   int
		mutate  func(*apiextensionsv1.CustomResourceDefinition)
		wantErr string
	}{
		{name: "no gates", gates: 0},
		{name: "1 gate", gates: 1},
		{name: "50 gates", gates: 50},
		{name: "128 gates, the most allowed", gates: 128},
		{name: "rss mode name", gates: 50, mutate: func(crd *apiextensionsv1.CustomResourceDefinition) {
			*crd = *shape{gates: 50}.crd(namesFor("00999"))
		}},
		// The validator does look at the gates: a path outside the schema is rejected.
		{name: "path not in the schema", gates: 50, mutate: func(crd *apiextensionsv1.CustomResourceDefinition) {
			crd.Spec.CustomFeatureGates.FeatureGates[3].FieldPaths = []string{".spec.nope"}
		}, wantErr: "spec.customFeatureGates.featureGates[3].fieldPaths[0]"},
		{name: "path in two gates", gates: 50, mutate: func(crd *apiextensionsv1.CustomResourceDefinition) {
			crd.Spec.CustomFeatureGates.FeatureGates[3].FieldPaths = []string{".spec.f02"}
		}, wantErr: "fieldPaths"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := shape{gates: tc.gates}.crd(namesFor(""))
			if tc.mutate != nil {
				tc.mutate(crd)
			}
			errs := validation.ValidateCustomResourceDefinition(context.Background(), toInternal(t, crd))
			switch {
			case tc.wantErr == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", errs)
			case tc.wantErr != "" && !strings.Contains(errs.ToAggregate().Error(), tc.wantErr):
				t.Errorf("errors %v, want one about %s", errs, tc.wantErr)
			}
		})
	}
}

func TestCheckGated(t *testing.T) {
	s := shape{gates: 50}
	names := namesFor("")
	full := func() map[string]interface{} {
		return s.object(names, "ns", "o", 1).Object["spec"].(map[string]interface{})
	}
	dropDisabled := func(spec map[string]interface{}) {
		for i, f := range s.gatedFields() {
			if gateDisabled(i) {
				delete(spec, f)
			}
		}
	}
	for _, tc := range []struct {
		name         string
		edit         func(map[string]interface{})
		gatingActive bool
		wantErr      string
	}{
		{name: "feature off, everything kept", gatingActive: false},
		{name: "feature on, disabled fields dropped", edit: dropDisabled, gatingActive: true},
		{name: "feature on, nothing dropped", gatingActive: true, wantErr: ".spec.f00 (gate BenchGate000, disabled): present=true, want false"},
		{name: "feature off, fields dropped", edit: dropDisabled, gatingActive: false, wantErr: ".spec.f02 (gate BenchGate002, disabled): present=false, want true"},
		{name: "enabled gated field missing", edit: func(spec map[string]interface{}) { dropDisabled(spec); delete(spec, "f01") },
			gatingActive: true, wantErr: ".spec.f01 (gate BenchGate001, enabled): present=false, want true"},
		{name: "ungated field missing", edit: func(spec map[string]interface{}) { delete(spec, "u07") },
			gatingActive: false, wantErr: ".spec.u07 (not gated) is missing"},
		{name: "counter missing", edit: func(spec map[string]interface{}) { delete(spec, "counter") },
			gatingActive: false, wantErr: ".spec.counter (not gated) is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := s.object(names, "ns", "o", 1)
			spec := full()
			if tc.edit != nil {
				tc.edit(spec)
			}
			obj.Object["spec"] = spec
			err := s.checkGated(obj, tc.gatingActive)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	noSpec := s.object(names, "ns", "o", 1)
	delete(noSpec.Object, "spec")
	if err := s.checkGated(noSpec, true); err == nil {
		t.Error("an object without .spec passed")
	}
}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		writes, updates int
		wantObjects     int
		wantLast        int
	}{
		{writes: 2000, updates: 3, wantObjects: 500, wantLast: 4},
		{writes: 10, updates: 3, wantObjects: 3, wantLast: 2},
		{writes: 5, updates: 0, wantObjects: 5, wantLast: 1},
		{writes: 3, updates: 9, wantObjects: 1, wantLast: 3},
		{writes: 0, updates: 3, wantObjects: 0},
	} {
		p := plan(tc.writes, tc.updates)
		sum := 0
		for i, n := range p {
			sum += n
			if i < len(p)-1 && n != tc.updates+1 {
				t.Errorf("plan(%d, %d)[%d] = %d, want %d", tc.writes, tc.updates, i, n, tc.updates+1)
			}
		}
		if sum != tc.writes || len(p) != tc.wantObjects {
			t.Errorf("plan(%d, %d) = %d objects, %d writes; want %d objects, %d writes", tc.writes, tc.updates, len(p), sum, tc.wantObjects, tc.writes)
		}
		if len(p) > 0 && p[len(p)-1] != tc.wantLast {
			t.Errorf("plan(%d, %d): last object has %d writes, want %d", tc.writes, tc.updates, p[len(p)-1], tc.wantLast)
		}
	}
}

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", []time.Duration{7}, 99, 7},
		{"p50 of 1..100", hundred, 50, 50 * time.Millisecond},
		{"p99 of 1..100", hundred, 99, 99 * time.Millisecond},
		{"p100 of 1..100", hundred, 100, 100 * time.Millisecond},
		{"tiny p is the minimum", hundred, 0.001, time.Millisecond},
		{"p50 of 4 is the 2nd", []time.Duration{1, 2, 3, 4}, 50, 2},
		{"p99 of 4 is the max", []time.Duration{1, 2, 3, 4}, 99, 4},
		{"p99.9 of 1..100", hundred, 99.9, 100 * time.Millisecond},
	} {
		if got := percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: percentile(p=%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{0.9, 1.1, 1.0, 0.95}, 0.975},
	} {
		in := append([]float64(nil), tc.in...)
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if !reflect.DeepEqual(in, tc.in) {
			t.Errorf("median reordered its input: %v", tc.in)
		}
	}
}

func TestParseMemStats(t *testing.T) {
	profile := []byte(`heap profile: 1: 2 [3: 4] @ heap/1048576
1: 2 [3: 4] @ 0x1 0x2
#	0x1	main.f+0x1	/x.go:1

# runtime.MemStats
# Alloc = 123456
# HeapAlloc = 123456
# HeapInuse = 2097152
# NumGC = 12
# PauseNs = [1 2 3]
# DebugGC = false
`)
	got := parseMemStats(profile)
	for k, want := range map[string]int64{"HeapAlloc": 123456, "HeapInuse": 2097152, "NumGC": 12} {
		if got[k] != want {
			t.Errorf("%s = %d, want %d", k, got[k], want)
		}
	}
	for _, k := range []string{"PauseNs", "DebugGC", "runtime.MemStats"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s parsed as a number", k)
		}
	}
}

func TestReadStatAndKB(t *testing.T) {
	st, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getppid() || st.cpu < 0 {
		t.Errorf("readStat(self) = %+v, want ppid %d", st, os.Getppid())
	}
	kb, err := readKB("/proc/self/status", "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	if kb["VmRSS"] <= 0 {
		t.Errorf("VmRSS = %d kB", kb["VmRSS"])
	}
	if _, err := readKB("/proc/self/status", "NoSuchKey"); err == nil {
		t.Error("readKB of a missing key did not fail")
	}
}
