// Package v1beta1 is an older version of v1's Thing: a gated field has another name there,
// and a gate only this version uses.
//
// +groupName=test.example.com
// +customfeaturegates:component=things.test.example.com
// +customfeaturegates:gate:name=PkgGate,preRelease=alpha
// +customfeaturegates:gate:name=OldGate,preRelease=deprecated,default=true
// +customfeaturegates:gate:name=DeepGate,preRelease=alpha,default=false
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Thing is a kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}

// ThingSpec is v1's ThingSpec, with fewer fields.
type ThingSpec struct {
	// OldPlain is v1's plain.
	// +customfeaturegates:gatedBy=PkgGate
	OldPlain string `json:"oldPlain"`
	// +customfeaturegates:gatedBy=OldGate
	Legacy map[string][]string `json:"legacy,omitempty"`
	// Groups holds lists in a map.
	Groups map[string][]Item `json:"groups,omitempty"`
}

// Item is used in lists and maps.
type Item struct {
	Name string `json:"name"`
	// +customfeaturegates:gatedBy=DeepGate
	Deep *int32 `json:"deep,omitempty"`
}
