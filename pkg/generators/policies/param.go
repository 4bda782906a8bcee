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
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The parameter object of the generated policies: one per gated CRD, cluster-scoped, named
// exactly like the CRD, whose spec has the shape of the CRD's spec.customFeatureGates. The
// cluster admin turns a gate on or off by setting its enabled here, as on our server in the
// CRD; the tools read both alike.
const (
	ParamGroup    = "featuregates.apiextensions.x-k8s.io"
	ParamVersion  = "v1alpha1"
	ParamKind     = "CustomResourceFeatureGates"
	ParamListKind = "CustomResourceFeatureGatesList"
	ParamResource = "customresourcefeaturegates"
	ParamSingular = "customresourcefeaturegates"
	// ParamCRDName is the name of the parameter kind's CRD.
	ParamCRDName = ParamResource + "." + ParamGroup
	// ParamAPIVersion is the parameter object's apiVersion.
	ParamAPIVersion = ParamGroup + "/" + ParamVersion
)

// GeneratedByAnnotation is set on every object the generator writes, with the generator's
// name, so that tools can tell a generated stock CRD and its policies apart.
const GeneratedByAnnotation = "featuregates.apiextensions.x-k8s.io/generated-by"

// Param is the parameter object: the gates of one CRD (its spec.customFeatureGates), with
// every gate's fieldPaths completed from the marks of the CRD's storage version, since the
// stock CRD carries neither gates nor marks.
type Param struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              apiextensionsv1.CustomResourceDefinitionFeatureGates `json:"spec"`
}

// ParamCRD returns the CRD of the parameter kind, which a cluster needs once, before any
// parameter object.
func ParamCRD() *apiextensionsv1.CustomResourceDefinition {
	str := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
	}
	boolean := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "boolean", Description: desc}
	}
	set := func(desc string, item apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{
			Type: "array", Description: desc, XListType: ptr.To("set"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item},
		}
	}
	gateName := apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](63), Pattern: "^[A-Z][A-Za-z0-9]*$"}
	enum := func(vs ...string) []apiextensionsv1.JSON {
		var out []apiextensionsv1.JSON
		for _, v := range vs {
			b, _ := json.Marshal(v)
			out = append(out, apiextensionsv1.JSON{Raw: b})
		}
		return out
	}
	preRelease := str("The gate's stage: alpha, beta, stable or deprecated.")
	preRelease.Enum = enum("alpha", "beta", "stable", "deprecated")
	name := gateName
	name.Description = "The gate's name, as the gated CRD declares it."
	warning := str("The warning a deprecated gate's fields draw.")
	warning.MaxLength = ptr.To[int64](validation.MaxFieldDeprecationWarningLength)
	gate := apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"name", "preRelease"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"name":                    name,
			"preRelease":              preRelease,
			"enabled":                 boolean("What the cluster admin set; it decides the gate's state unless the gate is stable."),
			"default":                 boolean("The CRD author's default, used while enabled is unset."),
			"fieldDeprecationWarning": warning,
			"fieldPaths":              set("The paths the gate guards in the CRD's storage version.", apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](256)}),
			"requires":                set("Gates that must all be enabled for this one to be.", gateName),
			"requiresAnyOf":           set("Gates of which at least one must be enabled for this one to be.", gateName),
		},
		XValidations: gateRules(),
	}
	spec := apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"featureGates"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"component": str("The component the gates belong to."),
			"featureGates": {
				Type:         "array",
				Description:  "The gates of the CRD named like this object; a map list keyed by name, so that a cluster admin can own one gate's enabled through server-side apply.",
				MaxItems:     ptr.To[int64](128),
				Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &gate},
				XListType:    ptr.To("map"),
				XListMapKeys: []string{"name"},
			},
		},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        ParamCRDName,
			Annotations: map[string]string{GeneratedByAnnotation: "featuregate-gen policies"},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: ParamGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: ParamResource, Singular: ParamSingular, Kind: ParamKind, ListKind: ParamListKind,
				ShortNames: []string{"crfg"},
			},
			Scope: apiextensionsv1.ClusterScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: ParamVersion, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:        "object",
					Description: "The field feature gates (KEP-2608) of the CustomResourceDefinition named like this object, on a cluster whose kube-apiserver enforces them through generated admission policies.",
					Required:    []string{"spec"},
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"apiVersion": {Type: "string"},
						"kind":       {Type: "string"},
						"metadata":   {Type: "object"},
						"spec":       spec,
					},
				}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Gates", Type: "string", JSONPath: ".spec.featureGates[*].name"},
				},
			}},
		},
	}
}

// gateRules are the checks of one gate's own fields that our server makes on
// spec.customFeatureGates (docs/reference/api.md, "Validation"), as CEL rules of
// the parameter kind, with the same messages at the same paths: an admin's edit of a
// parameter object that our server would refuse in the CRD is refused on stock too. The
// policies read preRelease, default and enabled on every write; the rules keep those three
// consistent. Like every CEL rule since CRD validation ratcheting, a rule does not refuse a
// gate that an update leaves unchanged.
func gateRules() apiextensionsv1.ValidationRules {
	rule := func(rule, fieldPath, message string, reason apiextensionsv1.FieldValueErrorReason) apiextensionsv1.ValidationRule {
		return apiextensionsv1.ValidationRule{Rule: rule, FieldPath: fieldPath, Message: message, Reason: ptr.To(reason)}
	}
	return apiextensionsv1.ValidationRules{
		rule("self.preRelease != 'alpha' || !has(self.default) || !self.default", ".default",
			"must be false for an alpha gate", apiextensionsv1.FieldValueInvalid),
		rule("self.preRelease != 'stable' || !has(self.default) || self.default", ".default",
			"must be true for a stable gate", apiextensionsv1.FieldValueInvalid),
		rule("self.preRelease != 'stable' || !has(self.enabled) || self.enabled", ".enabled",
			"a stable gate is locked on and cannot be disabled", apiextensionsv1.FieldValueInvalid),
		rule("self.preRelease != 'deprecated' || has(self.default)", ".default",
			"a deprecated gate must set its default", apiextensionsv1.FieldValueRequired),
		rule("self.preRelease == 'deprecated' || !has(self.fieldDeprecationWarning)", ".fieldDeprecationWarning",
			"may only be set when preRelease is deprecated", apiextensionsv1.FieldValueForbidden),
	}
}
