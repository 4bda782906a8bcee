// Package bad uses a gate nobody declares.
//
// +groupName=bad.example.com
// +versionName=v1
package bad

// Bad is a kind.
type Bad struct {
	Spec BadSpec `json:"spec"`
}

// BadSpec has a field under an undeclared gate.
type BadSpec struct {
	// +customfeaturegates:gatedBy=NobodyDeclaredMe
	X string `json:"x"`
}
