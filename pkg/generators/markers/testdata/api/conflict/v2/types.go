// Package v2 declares v1's G as beta.
//
// +groupName=conflict.example.com
// +customfeaturegates:gate:name=G,preRelease=beta,default=false
package v2

// Bad is a kind.
type Bad struct {
	Spec BadSpec `json:"spec"`
}

// BadSpec has a gated field.
type BadSpec struct {
	// +customfeaturegates:gatedBy=G
	X string `json:"x"`
}
