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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testMakefile = `BIN := _output/bin
OUT ?= _output
.PHONY: run test
run: $(BIN)/kube-apiserver ## Run.
	echo run
test: verify test-unit
$(BIN)/kube-apiserver: go.mod
	go build
$(OUT)/stock/kube-apiserver:
	go build
verify test-unit bench:
	true
x := $(shell echo y)
`

func TestAnchorOf(t *testing.T) {
	for title, want := range map[string]string{
		"Installing from a release":              "installing-from-a-release",
		"The plugin, with krew":                  "the-plugin-with-krew",
		"`make test` on a fresh clone (2 cores)": "make-test-on-a-fresh-clone-2-cores",
		"What `x-kubernetes-feature-gate` means": "what-x-kubernetes-feature-gate-means",
		"See [the API](api.md#x) first":          "see-the-api-first",
		"**Bold** and *emphasis*: done.":         "bold-and-emphasis-done",
		"requires / requiresAnyOf":               "requires--requiresanyof",
		"snake_case stays":                       "snake_case-stays",
	} {
		if got := anchorOf(title); got != want {
			t.Errorf("anchorOf(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Makefile", testMakefile)
	write("docs/guide.md", `# Guide
## Setup
## Setup
Text with a [good link](api.md#the-field), [a good self link](#setup-1),
[a missing file](nope.md), [a missing anchor](api.md#nothing), [a self miss](#setup-2),
[the web](https://example.com/x.md#y) and [a dir](../examples).
Prose where we make sure nothing is a target, and make it so.

    indented text

Run `+"`make run`"+`, `+"`make test GOTESTFLAGS=-v`"+`, `+"`make _output/bin/kube-apiserver`"+`,
`+"`make _output/stock/kube-apiserver`"+`, `+"`make nothing-here`"+`,
`+"`make -C elsewhere other`"+` and `+"`make bench FLAGS='-rounds 0 -x'`"+`.
Another project's `+"`make update`"+` <!-- not our Makefile -->

`+"```sh"+`
make verify test-unit   # two targets
make missing-in-fence
`+"```"+`
`+"```text"+`
This will make your day.
`+"```"+`

[ref]: ./api.md#the-field
[bad ref]: ./api.md#gone
`)
	write("docs/api.md", "# API\n\n## The field\n\n<a name=\"legacy\"></a>\n[back](guide.md#setup) [legacy](#legacy)\n")
	if err := os.MkdirAll(filepath.Join(root, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}

	problems, err := check(root, []string{"docs/guide.md", "docs/api.md"}, filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		`docs/guide.md:5: link "nope.md": no file docs/nope.md`,
		`docs/guide.md:5: link "api.md#nothing": docs/api.md has no heading with the anchor #nothing`,
		`docs/guide.md:5: link "#setup-2": docs/guide.md has no heading with the anchor #setup-2`,
		"docs/guide.md:12: `make nothing-here`: the Makefile has no target nothing-here",
		"docs/guide.md:18: `make missing-in-fence`: the Makefile has no target missing-in-fence",
		`docs/guide.md:25: link "./api.md#gone": docs/api.md has no heading with the anchor #gone`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRunExitCodes(t *testing.T) {
	var out, errOut strings.Builder
	if code := run([]string{"--help"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "docs check") {
		t.Errorf("--help: exit %d, output %q", code, out.String())
	}
	if code := run([]string{"frobnicate"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, errOut.String())
	}
}
