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

// Command kube-apiserver is the stock Kubernetes v1.37.1 API server compiled against this
// fork of k8s.io/apiextensions-apiserver, so that CustomResourceDefinitions carry
// spec.customFeatureGates and custom-resource writes honour them once the server runs with
// --feature-gates=CRDFieldLevelVersioning=true. It is a drop-in replacement for the
// upstream binary: same flags, same behaviour with the feature off.
package main

import (
	"os"

	// The upstream binary links these for their side effects; so does ours, so that the two
	// accept the same flags and expose the same metrics.
	_ "time/tzdata" // CronJob time zones on hosts without a zoneinfo database

	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // kubernetes_build_info

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
