// Package v1 declares G as alpha, in the component one.example.com.
//
// +groupName=conflict.example.com
// +customfeaturegates:component=one.example.com
// +customfeaturegates:gate:name=G,preRelease=alpha
package v1

// Bad is a kind.
type Bad struct {
	Spec BadSpec `json:"spec"`
}

// BadSpec has a gated field.
type BadSpec struct {
	// +customfeaturegates:gatedBy=G
	X string `json:"x"`
}
