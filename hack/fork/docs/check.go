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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// problem is one thing wrong in a Markdown file, at a line.
type problem struct {
	file string
	line int
	msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.msg) }

// mdFile is a Markdown file split into the parts the checks read: each line's prose (code
// spans blanked), the code it holds (inline spans and fenced blocks), and its anchors.
type mdFile struct {
	path    string // relative to the root, with slashes
	prose   []string
	code    [][]string // per line: the text of its code spans, or the whole line in a shell fence
	anchors map[string]bool
}

var (
	codeSpan    = regexp.MustCompile("`+[^`]*`+")
	inlineLink  = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink     = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
	heading     = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor  = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	linkText    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	quoted      = regexp.MustCompile(`'[^']*'|"[^"]*"`)
	makeCommand = regexp.MustCompile(`(?:^|[\s;&|(])make((?:\s+[^\s;&|)]+)+)`)
)

// shellFences are the info strings of fenced blocks that hold commands: only their lines
// are read for make targets (a "text" block of a tool's help is prose).
var shellFences = map[string]bool{"": true, "sh": true, "bash": true, "shell": true, "console": true, "make": true, "makefile": true}

// parseMarkdown reads a Markdown file into an mdFile.
func parseMarkdown(root, rel string) (*mdFile, error) {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	f := &mdFile{path: rel, anchors: map[string]bool{}}
	seen := map[string]int{}
	fence, shell := "", false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			f.prose = append(f.prose, "")
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
				f.code = append(f.code, nil)
				continue
			}
			if shell {
				f.code = append(f.code, []string{line})
			} else {
				f.code = append(f.code, nil)
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			shell = shellFences[strings.TrimSpace(trimmed[3:])]
			f.prose = append(f.prose, "")
			f.code = append(f.code, nil)
			continue
		}
		var spans []string
		for _, s := range codeSpan.FindAllString(line, -1) {
			spans = append(spans, strings.Trim(s, "`"))
		}
		f.code = append(f.code, spans)
		f.prose = append(f.prose, codeSpan.ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) }))
		if m := heading.FindStringSubmatch(line); m != nil {
			a := anchorOf(m[2])
			if n, dup := seen[a]; dup {
				seen[a] = n + 1
				a = fmt.Sprintf("%s-%d", a, n+1)
			} else {
				seen[a] = 0
			}
			f.anchors[a] = true
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			f.anchors[m[1]] = true
		}
	}
	return f, nil
}

// anchorOf is the anchor GitHub gives a heading: its text without Markdown (links become
// their text, code spans and emphasis lose their marks), lower case, every character but
// letters, digits, spaces, hyphens and underscores removed, and spaces turned into hyphens.
func anchorOf(title string) string {
	title = linkText.ReplaceAllString(title, "$1")
	title = strings.NewReplacer("`", "", "**", "", "*", "").Replace(title)
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// notOurMakefile on a line of Markdown says that the make targets it names are another
// project's.
const notOurMakefile = "<!-- not our Makefile -->"

// checker checks a set of Markdown files against the tree and the Makefile's targets.
type checker struct {
	root    string
	files   map[string]*mdFile
	targets map[string]bool
}

// checkLinks reports every relative link whose file does not exist under the root (or
// beside it, for ../shared), and every anchor that the file it points at does not have.
func (c *checker) checkLinks(f *mdFile) []problem {
	var out []problem
	for i, line := range f.prose {
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, t := range targets {
			if strings.Contains(t, "://") || strings.HasPrefix(t, "mailto:") {
				continue
			}
			if msg := c.checkLink(f, t); msg != "" {
				out = append(out, problem{f.path, i + 1, msg})
			}
		}
	}
	return out
}

func (c *checker) checkLink(f *mdFile, link string) string {
	target, anchor, _ := strings.Cut(link, "#")
	targetFile := f
	if target != "" {
		rel := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(f.path), target)))
		if _, err := os.Stat(filepath.Join(c.root, rel)); err != nil {
			return fmt.Sprintf("link %q: no file %s", link, rel)
		}
		if anchor == "" {
			return ""
		}
		if !strings.HasSuffix(rel, ".md") {
			return fmt.Sprintf("link %q: an anchor in a file that is not Markdown", link)
		}
		targetFile = c.files[rel]
		if targetFile == nil {
			var err error
			if targetFile, err = parseMarkdown(c.root, rel); err != nil {
				return fmt.Sprintf("link %q: %v", link, err)
			}
			c.files[rel] = targetFile
		}
	}
	if anchor != "" && !targetFile.anchors[anchor] {
		return fmt.Sprintf("link %q: %s has no heading with the anchor #%s", link, targetFile.path, anchor)
	}
	return ""
}

// checkTargets reports every `make TARGET` in code (a span or a fenced block) whose target
// the Makefile does not define. Words after make that set a variable (NAME=value) or are
// flags are not targets, nor are quoted words; `make -C DIR` and `make -f FILE` run another
// Makefile and are skipped, as is a line that says it names another project's target with
// the comment notOurMakefile.
func (c *checker) checkTargets(f *mdFile) []problem {
	var out []problem
	for i, spans := range f.code {
		if strings.Contains(f.prose[i], notOurMakefile) {
			continue
		}
		for _, s := range spans {
			s = quoted.ReplaceAllString(s, "")
			for _, m := range makeCommand.FindAllStringSubmatch(s, -1) {
				words := strings.Fields(m[1])
				if len(words) > 0 && (words[0] == "-C" || words[0] == "-f") {
					continue
				}
				for _, w := range words {
					if strings.HasPrefix(w, "#") {
						break
					}
					if strings.HasPrefix(w, "-") || strings.Contains(w, "=") || strings.ContainsAny(w, "<>[]$`'\"") {
						continue
					}
					if !c.targets[w] {
						out = append(out, problem{f.path, i + 1, fmt.Sprintf("`make %s`: the Makefile has no target %s", w, w)})
					}
				}
			}
		}
	}
	return out
}

var (
	ruleLine   = regexp.MustCompile(`^([^\s:#=][^:=]*?)\s*::?(?:[^=]|$)`)
	assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|::)?=\s*(.*)$`)
	varRef     = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
)

// makeTargets reads the targets a Makefile's rules name, with $(VAR) expanded where VAR is
// set in the Makefile to a value that has no function call; a target whose name still holds
// a $( after that is left out.
func makeTargets(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{"CURDIR": "."}
	var rules []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "\t") {
			continue
		}
		if m := assignment.FindStringSubmatch(line); m != nil {
			if _, set := vars[m[1]]; !set {
				vars[m[1]] = strings.TrimSpace(m[2])
			}
			continue
		}
		if m := ruleLine.FindStringSubmatch(line); m != nil {
			rules = append(rules, m[1])
		}
	}
	expand := func(s string) string {
		for i := 0; i < 10 && strings.Contains(s, "$("); i++ {
			s = varRef.ReplaceAllStringFunc(s, func(ref string) string {
				if v, ok := vars[ref[2:len(ref)-1]]; ok {
					return v
				}
				return ref
			})
		}
		return s
	}
	targets := map[string]bool{}
	for _, r := range rules {
		for _, t := range strings.Fields(expand(r)) {
			if strings.HasPrefix(t, ".") || strings.Contains(t, "$(") || strings.Contains(t, "%") {
				continue
			}
			targets[filepath.Clean(strings.TrimPrefix(t, "./"))] = true
		}
	}
	return targets, nil
}

// check runs every check on the Markdown files (paths relative to root) and returns the
// problems in file and line order.
func check(root string, mdPaths []string, makefile string) ([]problem, error) {
	targets, err := makeTargets(makefile)
	if err != nil {
		return nil, err
	}
	c := &checker{root: root, files: map[string]*mdFile{}, targets: targets}
	for _, p := range mdPaths {
		f, err := parseMarkdown(root, p)
		if err != nil {
			return nil, err
		}
		c.files[p] = f
	}
	var out []problem
	for _, p := range mdPaths {
		out = append(out, c.checkLinks(c.files[p])...)
		out = append(out, c.checkTargets(c.files[p])...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].file != out[j].file {
			return out[i].file < out[j].file
		}
		return out[i].line < out[j].line
	})
	return out, nil
}
