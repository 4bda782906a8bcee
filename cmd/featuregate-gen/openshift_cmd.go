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
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"k8s.io/apiextensions-apiserver/pkg/generators/openshift"
)

// runOpenShift is `featuregate-gen openshift`: it writes one gated CRD per type of each
// <group>/<version> of an openshift/api checkout into --out/<group>/<version>/<crd>.yaml,
// and the gate states of each feature set into --out/featuresets/<FeatureSet>.yaml. Files it
// writes again with the same content are left alone. A CRD that cannot be merged is reported
// (CRD, file, path) and not written; the run then exits 1.
func runOpenShift(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuregate-gen openshift", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "root of an openshift/api checkout (or a folder laid out the same way)")
	groups := fs.String("groups", "", "comma-separated <group>/<version> folders to merge, e.g. config/v1,example/v1 (default: all)")
	out := fs.String("out", "", "directory to write the merged CRDs and the feature-set states into (created if missing)")
	profile := fs.String("cluster-profile", openshift.DefaultClusterProfile, "cluster profile of the payload feature sets that give the stages and featuresets/*.yaml (SelfManagedHA, Hypershift)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: featuregate-gen openshift --dir DIR --out DIR [--groups config/v1,...] [--cluster-profile SelfManagedHA]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *dir == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	var gvs []string
	for _, g := range strings.Split(*groups, ",") {
		if g = strings.TrimSpace(g); g != "" {
			gvs = append(gvs, g)
		}
	}
	res, err := openshift.Merge(openshift.Options{Dir: *dir, Groups: gvs, ClusterProfile: *profile})
	if err != nil {
		fmt.Fprintln(stderr, "featuregate-gen openshift:", err)
		return 1
	}
	for _, f := range res.Files {
		if err := writeFile(stdout, filepath.Join(*out, filepath.FromSlash(f.Name)), f.Content); err != nil {
			fmt.Fprintln(stderr, "featuregate-gen openshift:", err)
			return 1
		}
	}
	fmt.Fprintln(stdout, "\nGates:")
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP/VERSION\tCRD\tGATE\tSTAGE\tREQUIRES")
	for _, g := range res.Gates {
		req := strings.Join(g.Requires, ",")
		if len(g.RequiresAnyOf) > 0 {
			req = "any of " + strings.Join(g.RequiresAnyOf, ",")
		}
		if g.TopLevel {
			req = "(top-level: install the CRD only while it is on)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.GroupVersion, g.CRD, g.Gate, g.PreRelease, req)
	}
	tw.Flush()
	if len(res.Notes) > 0 {
		fmt.Fprintln(stdout, "\nNotes:")
		for _, n := range res.Notes {
			fmt.Fprintf(stdout, "  %s\n", n)
		}
	}
	if len(res.Errors) > 0 {
		for _, e := range res.Errors {
			for _, line := range strings.Split(e.Error(), "\n") {
				fmt.Fprintln(stderr, "featuregate-gen openshift:", line)
			}
		}
		fmt.Fprintf(stderr, "featuregate-gen openshift: %d CRD(s) could not be merged and were not written; each error names the CRD, the version, the file and the path\n", len(res.Errors))
		return 1
	}
	return 0
}
