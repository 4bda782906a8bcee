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

// Command featuregate-gen writes field feature gates (KEP-2608) into the CRD manifests that
// controller-gen produced, from markers in the Go API types. Run it after controller-gen:
//
//	controller-gen crd paths=./api/... output:crd:dir=config/crd/bases
//	featuregate-gen -paths ./api/... -crd-dir config/crd/bases
//
// Markers (see package markers):
//
//	+customfeaturegates:gate:name=BackupGate,preRelease=alpha[,default=false][,deprecationWarning="..."]
//	+customfeaturegates:component=databases.example.com
//	+customfeaturegates:gatedBy=BackupGate
//
// By default it marks each gated field in the schema of every version whose Go package is
// loaded, from that version's types, with `x-kubernetes-feature-gate: <Gate>`, and declares
// the gates in spec.customFeatureGates without fieldPaths. A field that a version's types
// gate but its schema lacks is an error. With -field-paths it writes what it wrote before
// marks existed: each gate's fieldPaths, the gated fields' paths in the storage version, and
// no marks. In both modes it owns the x-kubernetes-feature-gate marks of the versions whose
// Go package is loaded, and removes those its markers no longer call for.
//
// Running it again changes nothing. It never writes a gate's enabled, which is the cluster
// admin's: an enabled already in a manifest is kept. With -check it writes nothing and
// fails if a manifest is not up to date for the mode asked for.
//
// The subcommand channels turns a project's two channels of the same CRDs into one CRD set
// with gates (see package channels):
//
//	featuregate-gen channels --standard DIR --experimental DIR --out DIR [--gates FILE]
//
// The subcommand openshift turns OpenShift's per-gate CRD manifests (an openshift/api
// checkout) into one gated CRD per type, and writes each feature set's gate states (see
// package openshift):
//
//	featuregate-gen openshift --dir DIR --out DIR [--groups config/v1,...] [--cluster-profile SelfManagedHA]
//
// The subcommand policies writes, for a stock kube-apiserver, each gated CRD without its
// gates, the object that holds the gate states and the admission policies that enforce them
// (see package policies):
//
//	featuregate-gen policies --crds FILE|DIR[,...] --out DIR [--check]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/buildinfo"
	"k8s.io/apiextensions-apiserver/pkg/generators/markers"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		fmt.Fprintln(stdout, buildinfo.String("featuregate-gen"))
		return 0
	}
	if len(args) > 0 && args[0] == "channels" {
		return runChannels(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "openshift" {
		return runOpenShift(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "policies" {
		return runPolicies(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("featuregate-gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	paths := fs.String("paths", "", "Go package patterns of the API types, comma-separated (as controller-gen's paths=), e.g. ./api/...")
	crdDir := fs.String("crd-dir", "", "directory of the CRD manifests controller-gen wrote")
	check := fs.Bool("check", false, "write nothing; fail if a manifest is not up to date")
	fieldPaths := fs.Bool("field-paths", false, "write each gate's fieldPaths (paths in the storage version) instead of marking each version's schema with x-kubernetes-feature-gate")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: featuregate-gen -paths ./api/... -crd-dir config/crd/bases [-field-paths] [-check]")
		fmt.Fprintln(stderr, "       featuregate-gen channels --standard DIR --experimental DIR --out DIR [--gates FILE]")
		fmt.Fprintln(stderr, "       featuregate-gen openshift --dir DIR --out DIR [--groups config/v1,...] [--cluster-profile SelfManagedHA]")
		fmt.Fprintln(stderr, "       "+strings.TrimPrefix(policiesUsage, "Usage: "))
		fmt.Fprintln(stderr, "\nSubcommands:")
		fmt.Fprintln(stderr, "  channels   merge a project's standard and experimental CRD channels into gated CRDs")
		fmt.Fprintln(stderr, "  openshift  merge OpenShift's per-gate CRD manifests into one gated CRD per type")
		fmt.Fprintln(stderr, "  policies   write gated CRDs for a stock kube-apiserver, with admission policies that enforce their gates")
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "  -version\n    \tprint the release and exit")
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *paths == "" || *crdDir == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	var pkgs []string
	for _, p := range strings.Split(*paths, ",") {
		if p = strings.TrimSpace(p); p != "" {
			pkgs = append(pkgs, p)
		}
	}
	g, err := markers.Load(pkgs...)
	if err != nil {
		fmt.Fprintln(stderr, "featuregate-gen:", err)
		return 1
	}
	g.FieldPaths = *fieldPaths
	results, err := g.Process(*crdDir)
	if err != nil {
		fmt.Fprintln(stderr, "featuregate-gen:", err)
		return 1
	}
	stale := false
	for _, r := range results {
		for _, n := range r.Notes {
			fmt.Fprintf(stderr, "featuregate-gen: %s: %s\n", r.Path, n)
		}
		switch {
		case !r.Changed:
			fmt.Fprintf(stdout, "%s: unchanged\n", r.Path)
		case *check:
			fmt.Fprintf(stdout, "%s: not up to date\n", r.Path)
			stale = true
		default:
			if err := os.WriteFile(r.Path, r.Content, 0o644); err != nil {
				fmt.Fprintln(stderr, "featuregate-gen:", err)
				return 1
			}
			fmt.Fprintf(stdout, "%s: written\n", r.Path)
		}
	}
	if stale {
		mode := ""
		if *fieldPaths {
			mode = " -field-paths"
		}
		fmt.Fprintf(stderr, "featuregate-gen: run featuregate-gen%s without -check to update the manifests\n", mode)
		return 1
	}
	return 0
}
