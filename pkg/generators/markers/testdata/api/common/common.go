// Package common holds types that another package's kind uses.
package common

// Shared is used by v1's Thing.
type Shared struct {
	// +customfeaturegates:gatedBy=SharedGate
	Secret string `json:"secret,omitempty"`
	Plain  string `json:"plain,omitempty"`
}
