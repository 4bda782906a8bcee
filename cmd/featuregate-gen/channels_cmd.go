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
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"k8s.io/apiextensions-apiserver/pkg/generators/channels"
)

// writeFile writes content to path, creating its folder, unless the file already holds
// exactly content; it prints which.
func writeFile(stdout io.Writer, path string, content []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
		fmt.Fprintf(stdout, "%s: unchanged\n", path)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: written\n", path)
	return nil
}

// runChannels is `featuregate-gen channels`: it writes one gated CRD per kind into --out and
// prints the gate mapping, what was copied and the notes. Files it writes again with the
// same content are left alone.
func runChannels(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuregate-gen channels", flag.ContinueOnError)
	fs.SetOutput(stderr)
	std := fs.String("standard", "", "directory of the standard channel's CRD manifests")
	exp := fs.String("experimental", "", "directory of the experimental channel's CRD manifests")
	out := fs.String("out", "", "directory to write the gated CRDs into (created if missing)")
	gates := fs.String("gates", "", "optional YAML file naming the gates and the paths each groups")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: featuregate-gen channels --standard DIR --experimental DIR --out DIR [--gates FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *std == "" || *exp == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	var cfg *channels.Config
	if *gates != "" {
		c, err := channels.LoadConfig(*gates)
		if err != nil {
			fmt.Fprintln(stderr, "featuregate-gen channels:", err)
			return 1
		}
		cfg = c
	}
	res, err := channels.Merge(*std, *exp, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "featuregate-gen channels:", err)
		return 1
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(stderr, "featuregate-gen channels:", err)
		return 1
	}
	for _, f := range res.Files {
		if err := writeFile(stdout, filepath.Join(*out, f.Name), f.Content); err != nil {
			fmt.Fprintln(stderr, "featuregate-gen channels:", err)
			return 1
		}
	}
	fmt.Fprintln(stdout, "\nGate mapping:")
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CRD\tVERSION\tGATE\tWHAT\tPATH")
	for _, r := range res.Mapping {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.CRD, r.Version, r.Gate, r.What, r.Path)
	}
	tw.Flush()
	if len(res.Copied) > 0 {
		fmt.Fprintln(stdout, "\nOnly in the experimental channel, copied as they are (a kind or a version cannot be gated):")
		for _, c := range res.Copied {
			fmt.Fprintf(stdout, "  %s\n", c)
		}
	}
	if len(res.Notes) > 0 {
		fmt.Fprintln(stdout, "\nNotes:")
		for _, n := range res.Notes {
			fmt.Fprintf(stdout, "  %s\n", n)
		}
	}
	return 0
}
