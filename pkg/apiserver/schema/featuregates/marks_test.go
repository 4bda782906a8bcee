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

package featuregates

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func marked(s structuralschema.Structural, gate string) structuralschema.Structural {
	s.XFeatureGate = &gate
	return s
}

func object(props map[string]structuralschema.Structural) structuralschema.Structural {
	return structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: props}
}

var str = structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}

// markTestSchema has marks on a property, below a marked property, on list items, on map
// values, on the root and on metadata.
func markTestSchema() *structuralschema.Structural {
	root := object(map[string]structuralschema.Structural{
		"metadata": marked(object(nil), "MetaGate"),
		"spec": object(map[string]structuralschema.Structural{
			"port":   marked(str, "PortGate"),
			"backup": marked(object(map[string]structuralschema.Structural{"encryption": marked(str, "EncryptionGate"), "size": str}), "BackupGate"),
			"listeners": {Generic: structuralschema.Generic{Type: "array"}, Items: &structuralschema.Structural{
				Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{"tls": marked(str, "TLSGate")}}},
			"limits": {Generic: structuralschema.Generic{Type: "object"}, AdditionalProperties: &structuralschema.StructuralOrBool{
				Bool: true, Structural: &structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}, Extensions: structuralschema.Extensions{XFeatureGate: ptrTo("LimitsGate")}}}},
		}),
	})
	return ptrTo(marked(root, "RootGate"))
}

func ptrTo[T any](v T) *T { return &v }

func TestMarks(t *testing.T) {
	type got struct{ Path, Gate, SchemaPath string }
	var out []got
	for _, m := range Marks(markTestSchema()) {
		out = append(out, got{m.Path.String(), m.Gate, m.SchemaPath(field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")).String()})
	}
	const at = "spec.versions[0].schema.openAPIV3Schema"
	want := []got{
		{"", "RootGate", at + ".x-kubernetes-feature-gate"},
		{".metadata", "MetaGate", at + ".properties[metadata].x-kubernetes-feature-gate"},
		{".spec.backup", "BackupGate", at + ".properties[spec].properties[backup].x-kubernetes-feature-gate"},
		{".spec.backup.encryption", "EncryptionGate", at + ".properties[spec].properties[backup].properties[encryption].x-kubernetes-feature-gate"},
		{".spec.limits[*]", "LimitsGate", at + ".properties[spec].properties[limits].additionalProperties.x-kubernetes-feature-gate"},
		{".spec.listeners[*].tls", "TLSGate", at + ".properties[spec].properties[listeners].items.properties[tls].x-kubernetes-feature-gate"},
		{".spec.port", "PortGate", at + ".properties[spec].properties[port].x-kubernetes-feature-gate"},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("Marks (-want +got):\n%s", diff)
	}
	if !HasMarks(markTestSchema()) {
		t.Error("HasMarks = false, want true")
	}
	if HasMarks(ptrTo(object(map[string]structuralschema.Structural{"spec": object(map[string]structuralschema.Structural{"a": str})}))) || HasMarks(nil) {
		t.Error("HasMarks of a schema without marks = true")
	}
}

func TestCompileVersionMarks(t *testing.T) {
	off, on := false, true
	specs := []GateSpec{
		{Name: "PortGate", PreRelease: Alpha},
		{Name: "BackupGate", PreRelease: Alpha, FieldPaths: []string{".spec.backup"}},
		{Name: "EncryptionGate", PreRelease: Beta, Enabled: &on},
		{Name: "TLSGate", PreRelease: Beta, Enabled: &off},
		{Name: "LimitsGate", PreRelease: Stable},
		{Name: "SizeGate", PreRelease: Alpha, FieldPaths: []string{".spec.size"}},
		// RootGate and MetaGate are declared, but the root and metadata are never gated.
		{Name: "RootGate", PreRelease: Alpha},
		{Name: "MetaGate", PreRelease: Alpha},
	}
	type path struct {
		Path, Gate string
		Live       bool
	}
	summary := func(ix *Index) []path {
		var out []path
		for _, p := range ix.Paths() {
			out = append(out, path{p.Path.String(), p.Gate.Name, p.EffectivelyEnabled})
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		specs      []GateSpec
		fieldPaths bool
		want       []path
	}{{
		name: "marks and fieldPaths", specs: specs, fieldPaths: true,
		want: []path{
			{".spec.backup", "BackupGate", false}, {".spec.size", "SizeGate", false}, {".spec.port", "PortGate", false},
			{".spec.backup.encryption", "EncryptionGate", false}, {".spec.limits[*]", "LimitsGate", true},
			{".spec.listeners[*].tls", "TLSGate", false},
		},
	}, {
		name: "marks only", specs: specs, fieldPaths: false,
		want: []path{
			// .spec.backup comes from its mark here, with the same gate as its field path.
			{".spec.backup", "BackupGate", false}, {".spec.port", "PortGate", false},
			{".spec.backup.encryption", "EncryptionGate", false}, {".spec.limits[*]", "LimitsGate", true},
			{".spec.listeners[*].tls", "TLSGate", false},
		},
	}, {
		name: "a mark that names an undeclared gate is skipped", specs: []GateSpec{{Name: "PortGate", PreRelease: Beta}}, fieldPaths: true,
		want: []path{{".spec.port", "PortGate", true}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summary(CompileVersion(tc.specs, markTestSchema(), tc.fieldPaths))); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
	if ix := CompileVersion([]GateSpec{{Name: "Other", PreRelease: Alpha}}, markTestSchema(), true); ix != nil {
		t.Errorf("CompileVersion without any gated path = %v, want nil", summary(ix))
	}
}

// TestMarkedPathsGateWrites: a path gated by a mark is gated like a field path: dropped on
// create, the stored value kept on update, and a disabled marked parent disables its marked
// children.
func TestMarkedPathsGateWrites(t *testing.T) {
	on := true
	ix := CompileVersion([]GateSpec{
		{Name: "PortGate", PreRelease: Alpha},
		{Name: "BackupGate", PreRelease: Alpha},
		{Name: "EncryptionGate", PreRelease: Beta, Enabled: &on},
		{Name: "TLSGate", PreRelease: Beta},
		{Name: "LimitsGate", PreRelease: Stable},
	}, markTestSchema(), false)
	obj := map[string]interface{}{"spec": map[string]interface{}{
		"port": "80", "backup": map[string]interface{}{"encryption": "aes"}, "limits": map[string]interface{}{"cpu": "1"},
		"listeners": []interface{}{map[string]interface{}{"tls": "on"}},
	}}
	old := map[string]interface{}{"spec": map[string]interface{}{"port": "8080"}}
	changes, err := ix.PrepareForUpdate(obj, old, ScopeAll)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]interface{}{"spec": map[string]interface{}{
		"port": "8080", "limits": map[string]interface{}{"cpu": "1"},
		"listeners": []interface{}{map[string]interface{}{"tls": "on"}},
	}}
	if diff := cmp.Diff(want, obj); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
	var texts []string
	for _, c := range changes {
		texts = append(texts, c.Warning())
	}
	wantTexts := []string{
		".spec.backup was dropped: feature gate BackupGate (alpha) is disabled",
		".spec.port was not updated: feature gate PortGate (alpha) is disabled; the stored value was kept",
	}
	if diff := cmp.Diff(wantTexts, texts); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestEffectivelyEnabledBelowADisabledWildcard: a path through a named map key is not live
// while a gate on every value of the map ([*]) is disabled, in the index's own state as in
// DisabledBy (what a write honours).
func TestEffectivelyEnabledBelowADisabledWildcard(t *testing.T) {
	ix := Compile([]GateSpec{
		{Name: "LimitsGate", PreRelease: Alpha, FieldPaths: []string{".spec.limits[*]"}},
		{Name: "CPUGate", PreRelease: Stable, FieldPaths: []string{".spec.limits.cpu.max"}},
		{Name: "OtherGate", PreRelease: Stable, FieldPaths: []string{".spec.other.cpu"}},
	}, nil)
	for _, p := range ix.Paths() {
		disabledBy := ix.DisabledBy(p.Path)
		if p.EffectivelyEnabled != (disabledBy == nil) {
			t.Errorf("%s: EffectivelyEnabled = %t, but DisabledBy = %v", p.Path.String(), p.EffectivelyEnabled, disabledBy)
		}
	}
	want := map[string]bool{".spec.limits[*]": false, ".spec.limits.cpu.max": false, ".spec.other.cpu": true}
	for _, p := range ix.Paths() {
		if p.EffectivelyEnabled != want[p.Path.String()] {
			t.Errorf("%s: EffectivelyEnabled = %t, want %t", p.Path.String(), p.EffectivelyEnabled, want[p.Path.String()])
		}
	}
}
