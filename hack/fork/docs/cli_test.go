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
	"reflect"
	"strings"
	"testing"
)

func TestWithoutGlobalFlags(t *testing.T) {
	help := "Usage:\n  tool list\n\nFlags:\n  -o, --output string   format\n\nGlobal Flags:\n      --kubeconfig string   path\n      --context string      name\n\nUse \"tool --help\".\n"
	want := "Usage:\n  tool list\n\nFlags:\n  -o, --output string   format\n\nGlobal Flags: those of tool, above.\n\nUse \"tool --help\".\n"
	if got := withoutGlobalFlags(help, "tool"); got != want {
		t.Errorf("withoutGlobalFlags:\n%s\nwant:\n%s", got, want)
	}
	if got := withoutGlobalFlags("Usage: x\n", "tool"); got != "Usage: x\n" {
		t.Errorf("a help without global flags changed: %q", got)
	}
}

func TestSubcommands(t *testing.T) {
	cobra := `Manage gates.

Usage:
  featuregates [command]

Available Commands:
  completion  Generate the autocompletion script
  disable     Disable a gate
  enable      Enable a gate
  help        Help about any command
  list        List gates

Flags:
  -h, --help   help for featuregates
`
	flagStyle := `Usage: featuregate-gen -paths ...

Subcommands:
  channels   merge channels
  policies   write policies

Flags:
  -check
    	write nothing
`
	for name, tc := range map[string]struct {
		help string
		want []string
	}{
		"cobra":      {cobra, []string{"disable", "enable", "list"}},
		"flag style": {flagStyle, []string{"channels", "policies"}},
		"none":       {"Usage: x\n\nFlags:\n  -v   verbose\n", nil},
	} {
		if got := subcommands(tc.help); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: subcommands = %q, want %q", name, got, tc.want)
		}
	}
}

// fakeTool writes a shell script that prints a root help listing "list" and "broken", a help
// for list, and fails for broken when failBroken is set.
func fakeTool(t *testing.T, dir, name string, failBroken bool) {
	t.Helper()
	broken := `echo "Usage: broken"`
	if failBroken {
		broken = `echo "broken: no help" >&2; exit 1`
	}
	script := `#!/bin/sh
case "$1" in
  --help) printf 'Usage: tool\n\nAvailable Commands:\n  list    List\n  broken  Broken\n\nHome: %s\n' "$HOME" ;;
  list) echo "Usage: tool list" ;;
  broken) ` + broken + ` ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestCLIReference(t *testing.T) {
	root, bin := t.TempDir(), t.TempDir()
	for _, tl := range tools {
		fakeTool(t, bin, tl.binary, false)
	}
	if stale, err := cliReference(root, bin, false); err != nil || len(stale) != len(tools) {
		t.Fatalf("before writing: stale %q, err %v; want every page stale", stale, err)
	}
	if _, err := cliReference(root, bin, true); err != nil {
		t.Fatal(err)
	}
	if stale, err := cliReference(root, bin, false); err != nil || len(stale) != 0 {
		t.Fatalf("after writing: stale %q, err %v", stale, err)
	}
	page, err := os.ReadFile(filepath.Join(root, tools[0].page))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## kubectl featuregates\n", "## kubectl featuregates list\n\n```text\nUsage: tool list\n```", "## kubectl featuregates broken\n", "Home: ~\n", "Do not edit."} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}

	// A changed help makes the page stale; a failing help is an error naming the command.
	fakeTool(t, bin, tools[1].binary, true)
	if _, err := cliReference(root, bin, false); err == nil || !strings.Contains(err.Error(), "featuregate-gen broken --help") {
		t.Errorf("a failing --help: err %v, want one naming featuregate-gen broken --help", err)
	}
	if err := os.WriteFile(filepath.Join(root, tools[0].page), append(page, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	fakeTool(t, bin, tools[1].binary, false)
	if stale, err := cliReference(root, bin, false); err != nil || !reflect.DeepEqual(stale, []string{tools[0].page}) {
		t.Errorf("an edited page: stale %q, err %v; want [%s]", stale, err, tools[0].page)
	}
}
