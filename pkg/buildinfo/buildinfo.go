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

// Package buildinfo is the release version of the KEP-2608 fork's own tools
// (kubectl-featuregates, featuregate-gen), which `make release` sets at link time.
package buildinfo

import (
	"fmt"
	"runtime"
)

// Version is the release this binary was built for: `make release VERSION=v0.1.0` links it
// in with -X k8s.io/apiextensions-apiserver/pkg/buildinfo.Version=v0.1.0. A build from a
// checkout (`make`, `go build`) says "devel".
var Version = "devel"

// KubernetesVersion is the Kubernetes release whose API machinery the tools are built on.
const KubernetesVersion = "v1.37.1"

// String is the line a tool prints for --version: its name, Version, the Kubernetes release
// and the Go version and platform it was built with.
func String(tool string) string {
	return fmt.Sprintf("%s %s (KEP-2608 field feature gates, Kubernetes %s, %s %s/%s)",
		tool, Version, KubernetesVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
