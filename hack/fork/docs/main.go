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

// Command docs keeps the repository's Markdown true (make verify runs it):
//
//	go run ./hack/fork/docs check FILE.md...
//
// fails on a relative link to a file that does not exist, an anchor that the linked page's
// headings do not give, and a `make TARGET` in code whose target the Makefile lacks;
//
//	go run ./hack/fork/docs cli [--write] BINDIR
//
// compares the reference pages of kubectl featuregates and featuregate-gen under
// docs/reference with their --help (the binaries in BINDIR), or writes them (make update-docs).
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage (from the repository's root):
  docs check FILE.md...        links, anchors and make targets
  docs cli [--write] BINDIR    the CLI reference under docs/reference against --help`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprintln(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "check":
		problems, err := check(".", args[1:], "Makefile")
		if err != nil {
			fmt.Fprintf(stderr, "docs check: %v\n", err)
			return 1
		}
		for _, p := range problems {
			fmt.Fprintln(stderr, p)
		}
		if len(problems) > 0 {
			fmt.Fprintf(stderr, "docs check: %d problems in %d files\n", len(problems), len(args)-1)
			return 1
		}
		fmt.Fprintf(stdout, "docs check: %d files, links, anchors and make targets OK\n", len(args)-1)
		return 0
	case "cli":
		write := len(args) > 1 && args[1] == "--write"
		if write {
			args = args[1:]
		}
		if len(args) != 2 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		stale, err := cliReference(".", args[1], write)
		if err != nil {
			fmt.Fprintf(stderr, "docs cli: %v\n", err)
			return 1
		}
		if len(stale) > 0 {
			fmt.Fprintf(stderr, "docs cli: %s differ from --help; run make update-docs\n", strings.Join(stale, " and "))
			return 1
		}
		if !write {
			fmt.Fprintln(stdout, "docs cli: the CLI reference matches --help")
		}
		return 0
	default:
		fmt.Fprintf(stderr, "docs: unknown command %q\n%s\n", args[0], usage)
		return 2
	}
}
