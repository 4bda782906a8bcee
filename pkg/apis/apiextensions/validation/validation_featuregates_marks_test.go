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

package validation

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// markedVersionsCRD is a CRD with two versions that have their own schemas: v1, where the
// port is spec.hostPort, and v2 (the storage version), where it is spec.port.
func markedVersionsCRD(mutate func(v1, v2 *apiextensions.JSONSchemaProps), gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinition {
	crd := featureGateTestCRD(gates...)
	schema := func(portField string) *apiextensions.JSONSchemaProps {
		return &apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
				portField: {Type: "string", XFeatureGate: ptr.To("PortGate")},
				"host":    {Type: "string"},
				"tags":    {Type: "array", Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{Type: "string"}}},
			}},
		}}
	}
	v1, v2 := schema("hostPort"), schema("port")
	if mutate != nil {
		mutate(v1, v2)
	}
	crd.Spec.Validation = nil
	crd.Spec.Version = "v1"
	crd.Spec.Versions = []apiextensions.CustomResourceDefinitionVersion{
		{Name: "v1", Served: true, Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: v1}},
		{Name: "v2", Served: true, Storage: true, Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: v2}},
	}
	crd.Status.StoredVersions = []string{"v2"}
	return crd
}

func TestValidateFeatureGateMarks(t *testing.T) {
	portGate := gate("PortGate", apiextensions.CustomFeatureGateAlpha)
	v1Path := field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	v2Path := field.NewPath("spec", "versions").Index(1).Child("schema", "openAPIV3Schema")
	at := func(root *field.Path, props ...string) *field.Path {
		for _, p := range props {
			root = root.Child("properties").Key(p)
		}
		return root.Child("x-kubernetes-feature-gate")
	}
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailSubstring()
	for _, tc := range []struct {
		name   string
		mutate func(v1, v2 *apiextensions.JSONSchemaProps)
		gates  []apiextensions.CustomResourceDefinitionFeatureGate
		want   field.ErrorList
	}{
		{name: "marks in both versions, no fieldPaths", gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate}},
		{name: "a mark and a fieldPath name the same gate",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("PortGate", apiextensions.CustomFeatureGateAlpha, ".spec.port")}},
		{name: "a mark on list items",
			mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
				v2.Properties["spec"].Properties["tags"].Items.Schema.XFeatureGate = ptr.To("PortGate")
			},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate}},
		{name: "undeclared gate", gates: []apiextensions.CustomResourceDefinitionFeatureGate{gate("OtherGate", apiextensions.CustomFeatureGateAlpha, ".spec.host")},
			want: field.ErrorList{
				field.Invalid(at(v1Path, "spec", "hostPort"), "PortGate", "must name a feature gate declared in spec.customFeatureGates.featureGates"),
				field.Invalid(at(v2Path, "spec", "port"), "PortGate", "must name a feature gate declared in spec.customFeatureGates.featureGates"),
			}},
		{name: "no customFeatureGates at all",
			want: field.ErrorList{
				field.Invalid(at(v1Path, "spec", "hostPort"), "PortGate", "declared"),
				field.Invalid(at(v2Path, "spec", "port"), "PortGate", "declared"),
			}},
		{name: "empty gate name",
			mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
				host := v1.Properties["spec"].Properties["host"]
				host.XFeatureGate = ptr.To("")
				v1.Properties["spec"].Properties["host"] = host
			},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate},
			want:  field.ErrorList{field.Required(at(v1Path, "spec", "host"), "must name a feature gate")}},
		{name: "root, apiVersion, kind and metadata.name",
			mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
				v1.XFeatureGate = ptr.To("PortGate")
				v2.Properties["apiVersion"] = apiextensions.JSONSchemaProps{Type: "string", XFeatureGate: ptr.To("PortGate")}
				v2.Properties["metadata"] = apiextensions.JSONSchemaProps{Type: "object", Properties: map[string]apiextensions.JSONSchemaProps{
					"name": {Type: "string", XFeatureGate: ptr.To("PortGate")},
				}}
				v2.Properties["kind"] = apiextensions.JSONSchemaProps{Type: "string", XFeatureGate: ptr.To("PortGate")}
			},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate},
			want: field.ErrorList{
				field.Forbidden(v1Path.Child("x-kubernetes-feature-gate"), "root"),
				field.Forbidden(at(v2Path, "apiVersion"), "metadata, apiVersion or kind"),
				field.Forbidden(at(v2Path, "kind"), "metadata, apiVersion or kind"),
				field.Forbidden(at(v2Path, "metadata", "name"), "metadata, apiVersion or kind"),
			}},
		{name: "a mark and a fieldPath name different gates in the storage version",
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate, gate("OtherGate", apiextensions.CustomFeatureGateAlpha, ".spec.port")},
			want: field.ErrorList{
				field.Invalid(at(v2Path, "spec", "port"), "PortGate", `is also in the fieldPaths of feature gate "OtherGate"`),
			}},
		{name: "with conversion None, a mark of another version than the storage version and a fieldPath name different gates",
			mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
				host := v1.Properties["spec"].Properties["host"]
				host.XFeatureGate = ptr.To("PortGate")
				v1.Properties["spec"].Properties["host"] = host
			},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate, gate("HostGate", apiextensions.CustomFeatureGateAlpha, ".spec.host")},
			want: field.ErrorList{
				// With a webhook it is fine: TestValidateFeatureGateMarksAcrossVersions.
				field.Invalid(at(v1Path, "spec", "host"), "PortGate", `is also in the fieldPaths of feature gate "HostGate", which gate it in every version with conversion None`),
			}},
		{name: "inside allOf",
			mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
				spec := v2.Properties["spec"]
				spec.AllOf = []apiextensions.JSONSchemaProps{{Properties: map[string]apiextensions.JSONSchemaProps{"host": {XFeatureGate: ptr.To("PortGate")}}}}
				v2.Properties["spec"] = spec
			},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate},
			want: field.ErrorList{
				field.Forbidden(v2Path.Child("properties").Key("spec").Child("allOf").Index(0).Child("properties").Key("host").Child("x-kubernetes-feature-gate"), "must be undefined to be structural"),
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := markedVersionsCRD(tc.mutate, tc.gates...)
			if tc.gates == nil {
				crd.Spec.CustomFeatureGates = nil
			}
			errs := ValidateCustomResourceDefinition(context.Background(), crd)
			matcher.Test(t, tc.want, errs)
		})
	}
}

func TestUnusedGateWarningsCountMarks(t *testing.T) {
	crd := markedVersionsCRD(nil, gate("PortGate", apiextensions.CustomFeatureGateAlpha), gate("IdleGate", apiextensions.CustomFeatureGateAlpha))
	warnings := UnusedGateWarnings(&crd.Spec)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "feature gate IdleGate has no fieldPaths, no schema marks it") {
		t.Errorf("warnings = %q, want one for IdleGate only", warnings)
	}
}

func TestDropFeatureGateMarks(t *testing.T) {
	crd := markedVersionsCRD(func(v1, v2 *apiextensions.JSONSchemaProps) {
		v2.Properties["spec"].Properties["tags"].Items.Schema.XFeatureGate = ptr.To("PortGate")
	}, gate("PortGate", apiextensions.CustomFeatureGateAlpha))
	if !HasFeatureGateMarks(&crd.Spec) {
		t.Fatal("HasFeatureGateMarks = false before the drop")
	}
	DropFeatureGateMarks(&crd.Spec)
	if HasFeatureGateMarks(&crd.Spec) {
		t.Errorf("HasFeatureGateMarks = true after the drop: %+v", crd.Spec.Versions)
	}
	if _, ok := crd.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"].Properties["port"]; !ok {
		t.Error("the drop removed the marked property itself")
	}
}

// TestValidateFeatureGateMarksListMapKey: a mark on a key of a map list is rejected, at the
// mark, in every version, when its gate is new or changed; an update that leaves the gate as
// it was keeps it, with a warning. A mark on the list or its items is fine.
func TestValidateFeatureGateMarksListMapKey(t *testing.T) {
	listenersGate := gate("ListenersGate", apiextensions.CustomFeatureGateAlpha)
	markAt := func(version int, props ...string) *field.Path {
		p := field.NewPath("spec", "versions").Index(version).Child("schema", "openAPIV3Schema")
		for _, prop := range props {
			if prop == "items" {
				p = p.Child("items")
				continue
			}
			p = p.Child("properties").Key(prop)
		}
		return p.Child("x-kubernetes-feature-gate")
	}
	detail := func(version string) string {
		return `.spec.listeners[*].name is a list-map key of the list .spec.listeners (x-kubernetes-list-type: map, x-kubernetes-list-map-keys) in version "` + version + `" and cannot be gated: ` +
			"dropping it would leave list items without their key, so they could no longer be told apart; gate the list item (.spec.listeners[*]) or the list (.spec.listeners) instead"
	}
	// marked adds .spec.listeners, a map list keyed by name, to both versions, and marks
	// what mark returns in each.
	marked := func(mark func(list, items, name *apiextensions.JSONSchemaProps), gates ...apiextensions.CustomResourceDefinitionFeatureGate) *apiextensions.CustomResourceDefinition {
		return markedVersionsCRD(func(v1, v2 *apiextensions.JSONSchemaProps) {
			for _, v := range []*apiextensions.JSONSchemaProps{v1, v2} {
				name := apiextensions.JSONSchemaProps{Type: "string"}
				items := apiextensions.JSONSchemaProps{Type: "object", Required: []string{"name"}}
				list := apiextensions.JSONSchemaProps{Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"}}
				if mark != nil {
					mark(&list, &items, &name)
				}
				items.Properties = map[string]apiextensions.JSONSchemaProps{"name": name, "port": {Type: "integer"}}
				list.Items = &apiextensions.JSONSchemaPropsOrArray{Schema: &items}
				v.Properties["spec"].Properties["listeners"] = list
			}
		}, append([]apiextensions.CustomResourceDefinitionFeatureGate{gate("PortGate", apiextensions.CustomFeatureGateAlpha)}, gates...)...)
	}
	onName := func(list, items, name *apiextensions.JSONSchemaProps) { name.XFeatureGate = ptr.To("ListenersGate") }
	matcher := field.ErrorMatcher{}.ByType().ByField().ByValue().ByDetailExact()

	tests := []struct {
		name         string
		crd, old     *apiextensions.CustomResourceDefinition
		want         field.ErrorList
		wantWarnings []string
	}{
		{
			name: "create: marks on the list and on its items",
			crd: marked(func(list, items, name *apiextensions.JSONSchemaProps) {
				list.XFeatureGate = ptr.To("ListenersGate")
				items.XFeatureGate = ptr.To("PortGate")
			}, listenersGate),
		},
		{
			name: "create: a mark on a key, in both versions",
			crd:  marked(onName, listenersGate),
			want: field.ErrorList{
				field.Invalid(markAt(0, "spec", "listeners", "items", "name"), "ListenersGate", detail("v1")),
				field.Invalid(markAt(1, "spec", "listeners", "items", "name"), "ListenersGate", detail("v2")),
			},
		},
		{
			name: "update that adds the gate and the marks: rejected",
			crd:  marked(onName, listenersGate),
			old:  marked(nil),
			want: field.ErrorList{
				field.Invalid(markAt(0, "spec", "listeners", "items", "name"), "ListenersGate", detail("v1")),
				field.Invalid(markAt(1, "spec", "listeners", "items", "name"), "ListenersGate", detail("v2")),
			},
		},
		{
			name: "update that changes the marked gate: rejected",
			crd:  marked(onName, withGate(listenersGate, func(g *apiextensions.CustomResourceDefinitionFeatureGate) { g.Enabled = ptr.To(true) })),
			old:  marked(onName, listenersGate),
			want: field.ErrorList{
				field.Invalid(markAt(0, "spec", "listeners", "items", "name"), "ListenersGate", detail("v1")),
				field.Invalid(markAt(1, "spec", "listeners", "items", "name"), "ListenersGate", detail("v2")),
			},
		},
		{
			name: "update that leaves the marked gate as it was: ratcheted, with warnings",
			crd:  marked(onName, listenersGate),
			old:  marked(onName, listenersGate),
			wantWarnings: []string{
				markAt(0, "spec", "listeners", "items", "name").String() + ": the mark of feature gate ListenersGate: " + detail("v1") + "; it is kept because the gate did not change",
				markAt(1, "spec", "listeners", "items", "name").String() + ": the mark of feature gate ListenersGate: " + detail("v2") + "; it is kept because the gate did not change",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errs field.ErrorList
			var warnings []string
			if tc.old == nil {
				errs = ValidateCustomResourceDefinition(context.Background(), tc.crd)
			} else {
				errs = ValidateCustomResourceDefinitionUpdate(context.Background(), tc.crd, tc.old)
				warnings = UnresolvedGatedPathWarnings(&tc.crd.Spec, &tc.old.Spec)
			}
			matcher.Test(t, tc.want, errs)
			if len(warnings) != len(tc.wantWarnings) {
				t.Fatalf("warnings = %q, want %q", warnings, tc.wantWarnings)
			}
			for i := range warnings {
				if warnings[i] != tc.wantWarnings[i] {
					t.Errorf("warning %d = %q, want %q", i, warnings[i], tc.wantWarnings[i])
				}
			}
		})
	}
}
