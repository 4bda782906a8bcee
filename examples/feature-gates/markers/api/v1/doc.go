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

// Package v1 is the worked example of featuregate-gen: Go API types whose markers declare
// field feature gates (KEP-2608). controller-gen writes the CRD from these types, then
// featuregate-gen writes spec.customFeatureGates into it:
//
//	controller-gen crd paths=./examples/feature-gates/markers/api/... output:crd:dir=examples/feature-gates/markers/crds
//	featuregate-gen -paths ./examples/feature-gates/markers/api/... -crd-dir examples/feature-gates/markers/crds
//
// Gates declared here, at package level, go into the CRD of every kind of the package whose
// fields use them.
//
// +groupName=markers.example.com
// +customfeaturegates:component=widgets.markers.example.com
// +customfeaturegates:gate:name=AutoscalingGate,preRelease=alpha
// +customfeaturegates:gate:name=AutoscalingMetricsGate,preRelease=beta
// +customfeaturegates:gate:name=PortProtocolGate,preRelease=beta,default=false
// +customfeaturegates:gate:name=BurstGate,preRelease=alpha
// +customfeaturegates:gate:name=PriorityGate,preRelease=stable
// +customfeaturegates:gate:name=NotUsedByWidgetGate,preRelease=alpha
package v1
