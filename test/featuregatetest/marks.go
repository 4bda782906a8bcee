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

package featuregatetest

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// PortGate is the gate of PortsCRD.
const PortGate = "PortGate"

// PortsCRD is the CRD that sttts' review of KEP-2608 asks about: v1 calls a gated field
// spec.hostPort, v2 calls it spec.port, each version's schema marks it with
// x-kubernetes-feature-gate: PortGate, no gate has fieldPaths, and a conversion webhook
// (ConvertPorts behind webhook) renames the field. storage names the storage version.
// PortGate is alpha, so it is disabled until enabled is set.
func PortsCRD(group, storage string, webhook *apiextensionsv1.WebhookClientConfig) *apiextensionsv1.CustomResourceDefinition {
	schema := func(port string) *apiextensionsv1.CustomResourceValidation {
		str := apiextensionsv1.JSONSchemaProps{Type: "string"}
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"host": str,
					port: {Type: "string", XFeatureGate: ptr.To(PortGate),
						Description: port + " is the port, gated by " + PortGate + "."},
					"tags": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
				}},
			},
		}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "endpoints." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "endpoints", Singular: "endpoint", Kind: "Endpoint", ListKind: "EndpointList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: storage == "v1", Schema: schema("hostPort")},
				{Name: "v2", Served: true, Storage: storage == "v2", Schema: schema("port")},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: webhook, ConversionReviewVersions: []string{"v1", "v1beta1"}},
			},
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{{Name: PortGate, PreRelease: apiextensionsv1.CustomFeatureGateAlpha}},
			},
		},
	}
}

// PortField is the name of PortsCRD's gated field in a version.
func PortField(version string) string {
	if version == "v1" {
		return "hostPort"
	}
	return "port"
}

// ConvertPorts converts a PortsCRD object to desiredAPIVersion (group/v1 or group/v2) in
// place: it renames spec.hostPort and spec.port into each other, and an absent field stays
// absent, so the conversion round-trips.
func ConvertPorts(obj *unstructured.Unstructured, desiredAPIVersion string) error {
	i := strings.LastIndex(desiredAPIVersion, "/")
	if i < 0 {
		return fmt.Errorf("bad apiVersion %q", desiredAPIVersion)
	}
	to := desiredAPIVersion[i+1:]
	if to != "v1" && to != "v2" {
		return fmt.Errorf("unknown version %q", to)
	}
	from := "v1"
	if to == "v1" {
		from = "v2"
	}
	if v, ok, _ := unstructured.NestedFieldCopy(obj.Object, "spec", PortField(from)); ok {
		unstructured.RemoveNestedField(obj.Object, "spec", PortField(from))
		if err := unstructured.SetNestedField(obj.Object, v, "spec", PortField(to)); err != nil {
			return err
		}
	}
	obj.SetAPIVersion(desiredAPIVersion)
	return nil
}

// ConvertPortsRaw is ConvertPorts for one object of a ConversionReview, with the signature
// of test/integration/conversion's ObjectConverterFunc, for a conversion webhook server.
func ConvertPortsRaw(desiredAPIVersion string, in runtime.RawExtension) (runtime.RawExtension, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(in.Raw); err != nil {
		return runtime.RawExtension{}, err
	}
	if err := ConvertPorts(u, desiredAPIVersion); err != nil {
		return runtime.RawExtension{}, err
	}
	raw, err := u.MarshalJSON()
	return runtime.RawExtension{Raw: raw}, err
}
