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

// Command kubectl-featuregates is a kubectl plugin for the field feature gates of CRDs
// (KEP-2608, spec.customFeatureGates). On PATH, it runs as `kubectl featuregates`:
//
//	kubectl featuregates list [CRD...]
//	kubectl featuregates enable CRD GATE
//	kubectl featuregates disable CRD GATE
//	kubectl featuregates status CRD [FIELD...]
//	kubectl featuregates usage CRD [GATE...]
//
// It takes kubectl's usual flags (--kubeconfig, --context, -o json|yaml, ...).
package main

import (
	"os"

	"k8s.io/apiextensions-apiserver/pkg/kubectlplugin"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func main() {
	cmd := kubectlplugin.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	if err := cmd.Execute(); err != nil {
		// cobra has printed the error.
		os.Exit(1)
	}
}
