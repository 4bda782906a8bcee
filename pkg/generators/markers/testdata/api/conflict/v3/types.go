// Package v3 declares v1's G as v1 does, but in another component.
//
// +groupName=conflict.example.com
// +customfeaturegates:component=two.example.com
// +customfeaturegates:gate:name=G,preRelease=alpha
package v3

// Bad is a kind.
type Bad struct {
	Spec BadSpec `json:"spec"`
}

// BadSpec has a gated field.
type BadSpec struct {
	// +customfeaturegates:gatedBy=G
	X string `json:"x"`
}
