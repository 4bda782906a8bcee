// Package badinline gates an inline field.
//
// +groupName=badinline.example.com
// +versionName=v1
// +customfeaturegates:gate:name=G,preRelease=alpha
package badinline

// Bad is a kind.
type Bad struct {
	Spec BadSpec `json:"spec"`
}

// BadSpec gates an inlined struct.
type BadSpec struct {
	// +customfeaturegates:gatedBy=G
	In `json:",inline"`
}

// In is inlined.
type In struct {
	X string `json:"x"`
}
