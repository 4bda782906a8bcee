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

package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is the kind of the example. A gate declared on the kind's type is always written
// into its CRD.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +customfeaturegates:gate:name=LegacyModeGate,preRelease=deprecated,default=true,deprecationWarning="spec.legacyMode is deprecated; set spec.mode instead"
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	// Size is always live.
	Size int32 `json:"size"`

	// Mode replaces legacyMode.
	// +optional
	Mode string `json:"mode,omitempty"`

	// LegacyMode is deprecated: .spec.legacyMode, under LegacyModeGate.
	// +customfeaturegates:gatedBy=LegacyModeGate
	// +optional
	LegacyMode *bool `json:"legacyMode,omitempty"`

	// Autoscaling is new: .spec.autoscaling, under AutoscalingGate (alpha, off).
	// +customfeaturegates:gatedBy=AutoscalingGate
	// +optional
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`

	// CommonSpec's fields are inlined: its gated field is .spec.priority.
	CommonSpec `json:",inline"`

	// Ports is a list: the gated field of its items is .spec.ports[*].protocol.
	// +listType=map
	// +listMapKey=name
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// Limits is a map: the gated field of its values is .spec.limits[*].burst.
	// +optional
	Limits map[string]Limit `json:"limits,omitempty"`

	// Internal is not serialized, so it is not in the CRD and never gated.
	Internal string `json:"-"`
}

// CommonSpec is embedded in WidgetSpec.
type CommonSpec struct {
	// Priority: .spec.priority, under PriorityGate (stable, always on).
	// +customfeaturegates:gatedBy=PriorityGate
	// +optional
	Priority *int32 `json:"priority,omitempty"`
}

// Autoscaling is the alpha autoscaling of a Widget.
type Autoscaling struct {
	MinReplicas int32 `json:"minReplicas"`
	MaxReplicas int32 `json:"maxReplicas"`

	// Metrics: .spec.autoscaling.metrics, under AutoscalingMetricsGate (beta), which is
	// live only while its parent's AutoscalingGate is enabled too.
	// +customfeaturegates:gatedBy=AutoscalingMetricsGate
	// +optional
	Metrics []string `json:"metrics,omitempty"`
}

// Port is one port of a Widget.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`

	// Protocol: .spec.ports[*].protocol, under PortProtocolGate (beta, default off).
	// +customfeaturegates:gatedBy=PortProtocolGate
	// +optional
	Protocol string `json:"protocol,omitempty"`
}

// Limit is one named limit of a Widget.
type Limit struct {
	Max int32 `json:"max"`

	// Burst: .spec.limits[*].burst, under BurstGate (alpha).
	// +customfeaturegates:gatedBy=BurstGate
	// +optional
	Burst *int32 `json:"burst,omitempty"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// CurrentScale: .status.currentScale, also under AutoscalingGate.
	// +customfeaturegates:gatedBy=AutoscalingGate
	// +optional
	CurrentScale *int32 `json:"currentScale,omitempty"`
}
