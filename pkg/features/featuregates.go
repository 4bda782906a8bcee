/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package features

import (
	"k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

const (
	// owner: @kubernetes/sig-api-machinery
	// kep: https://kep.k8s.io/2608
	//
	// Enables spec.customFeatureGates on CustomResourceDefinitions: field-level feature
	// gates that the API server honours on every write of a custom resource.
	CRDFieldLevelVersioning featuregate.Feature = "CRDFieldLevelVersioning"
)

// fieldLevelVersioningFeatureGates holds the gates this fork adds to the upstream ones in
// kube_features.go. They are registered into the same default feature gate.
var fieldLevelVersioningFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	CRDFieldLevelVersioning: {
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Alpha},
	},
}

func init() {
	runtime.Must(utilfeature.DefaultMutableFeatureGate.AddVersioned(fieldLevelVersioningFeatureGates))
}
