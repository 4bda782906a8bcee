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

// Command kubectl is kubectl from k8s.io/kubectl v0.37.1, built by `make kubectl` so that the
// fork's tests and examples never depend on whatever kubectl a machine happens to have.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// RunNoErrOutput leaves error printing to kubectl's own CheckErr, which picks the exit
	// code kubectl users expect.
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		cmdutil.CheckErr(err)
	}
}
