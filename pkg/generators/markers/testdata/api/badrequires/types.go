// Package badrequires has a gate that requires a gate nobody declares.
//
// +groupName=badrequires.example.com
// +versionName=v1
// +customfeaturegates:gate:name=Both,preRelease=stable,requires=Example;Missing
// +customfeaturegates:gate:name=Example,preRelease=alpha
package badrequires

// Bad is a kind.
type Bad struct {
	Spec BadSpec `json:"spec"`
}

// BadSpec has a field under the gate.
type BadSpec struct {
	// +customfeaturegates:gatedBy=Both
	X string `json:"x"`
}
