// Package requires declares OpenShift's Example+Example2 as a gate that requires both gates it
// combines, and a field that either Example or Third adds as a gate that requires any of
// them; Unused is used by no field of Combo, so it stays out of Combo's CRD.
//
// +groupName=requires.example.com
// +versionName=v1
// +customfeaturegates:gate:name=Example,preRelease=alpha
// +customfeaturegates:gate:name=Unused,preRelease=alpha
// +customfeaturegates:gate:name=Example2,preRelease=beta,default=false
// +customfeaturegates:gate:name=ExampleWithExample2,preRelease=stable,requires=Example;Example2
// +customfeaturegates:gate:name=Third,preRelease=alpha
// +customfeaturegates:gate:name=ExampleOrThird,preRelease=stable,requiresAnyOf=Example;Third
package requires

// Combo is a kind.
type Combo struct {
	Spec ComboSpec `json:"spec"`
}

// ComboSpec has a field that exists only while Example and Example2 are both enabled.
type ComboSpec struct {
	// +customfeaturegates:gatedBy=ExampleWithExample2
	Both string `json:"both"`
	// +customfeaturegates:gatedBy=ExampleOrThird
	Either string `json:"either"`
}
