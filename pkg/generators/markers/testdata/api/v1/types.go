// Package v1 covers the JSON-name cases of featuregate-gen.
//
// +groupName=test.example.com
// +customfeaturegates:component=things.test.example.com
// +customfeaturegates:gate:name=PkgGate,preRelease=alpha
// +customfeaturegates:gate:name=SharedGate,preRelease=beta
// +customfeaturegates:gate:name=UnusedGate,preRelease=alpha
// +customfeaturegates:gate:name=DeepGate,preRelease=alpha,default=false
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apiextensions-apiserver/pkg/generators/markers/testdata/api/common"
)

// Thing is a kind.
//
// +customfeaturegates:gate:name=TypeGate,preRelease=beta
// +customfeaturegates:gate:name=CELOnlyGate,preRelease=alpha
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec,omitempty"`
}

// ThingSpec covers the tag cases.
type ThingSpec struct {
	// +customfeaturegates:gatedBy=PkgGate
	Plain string `json:"plain"`
	// +customfeaturegates:gatedBy=PkgGate
	Omit *string `json:"omit,omitempty"`
	// +customfeaturegates:gatedBy=PkgGate
	Skipped string `json:"-"`
	// +customfeaturegates:gatedBy=PkgGate
	NoTag string
	// +customfeaturegates:gatedBy=TypeGate
	Dash string `json:"-,"`

	Inline `json:",inline"`
	Embedded

	Items  []Item            `json:"items,omitempty"`
	ByName map[string]Item   `json:"byName,omitempty"`
	Grid   [][]Item          `json:"grid,omitempty"`
	Groups map[string][]Item `json:"groups,omitempty"`
	Fixed  [2]Item           `json:"fixed,omitempty"`
	Named  ItemList          `json:"named,omitempty"`
	Ptr    *Item             `json:"ptr,omitempty"`
	Bytes  []byte            `json:"bytes,omitempty"`
	Shared common.Shared     `json:"shared,omitempty"`
	Tree   *Node             `json:"tree,omitempty"`
}

// Inline is inlined with ",inline".
type Inline struct {
	// +customfeaturegates:gatedBy=TypeGate
	InlinedField string `json:"inlinedField,omitempty"`
}

// Embedded is embedded without a json tag: controller-gen skips it.
type Embedded struct {
	// +customfeaturegates:gatedBy=TypeGate
	NotSerialized string `json:"notSerialized,omitempty"`
}

// Item is used in lists and maps.
type Item struct {
	Name string `json:"name"`
	// +customfeaturegates:gatedBy=DeepGate
	Deep *int32 `json:"deep,omitempty"`
}

// ItemList is a named slice type.
type ItemList []Item

// Node is recursive.
type Node struct {
	// +customfeaturegates:gatedBy=TypeGate
	Value    string  `json:"value,omitempty"`
	Children []*Node `json:"children,omitempty"`
}

// Other is a second kind of the package with no gated field.
type Other struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		A string `json:"a"`
	} `json:"spec"`
}
