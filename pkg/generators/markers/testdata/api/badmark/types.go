// Package badmark gates kind, which a mark must not be on.
//
// +groupName=badmark.example.com
// +versionName=v1
// +customfeaturegates:gate:name=G,preRelease=alpha
package badmark

// Bad is a kind.
type Bad struct {
	// +customfeaturegates:gatedBy=G
	Kind string `json:"kind"`
}
