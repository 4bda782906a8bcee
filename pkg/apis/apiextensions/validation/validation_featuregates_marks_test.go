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
		{name: "a fieldPath of the storage version may name another gate than a mark of another version at the same path",
			mutate: func(v1, v2 *apiextensions.JSONSchemaProps) {
				host := v1.Properties["spec"].Properties["host"]
				host.XFeatureGate = ptr.To("PortGate")
				v1.Properties["spec"].Properties["host"] = host
			},
			gates: []apiextensions.CustomResourceDefinitionFeatureGate{portGate, gate("HostGate", apiextensions.CustomFeatureGateAlpha, ".spec.host")}},
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
