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
	"sort"
	"strings"
	"text/tabwriter"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
)

const policiesUsage = "Usage: featuregate-gen policies --crds FILE|DIR[,FILE|DIR...] --out DIR [--check]"

// runPolicies is `featuregate-gen policies`: for every CRD in --crds it writes what a stock
// kube-apiserver needs to serve the CRD's gates: --out/crds (the parameter kind's CRD and
// each CRD as a stock server accepts it; a CRD without gates as it is) and --out/policies
// (per gated CRD, its gate states and the admission policies). It prints every difference
// from our server that the policies have. With --check it writes nothing and fails if a file
// is missing or not up to date.
func runPolicies(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuregate-gen policies", flag.ContinueOnError)
	fs.SetOutput(stderr)
	crds := fs.String("crds", "", "gated CRD manifests: files or directories of *.yaml, comma-separated")
	out := fs.String("out", "", "directory to write crds/ and policies/ into (created if missing)")
	check := fs.Bool("check", false, "write nothing; fail if a file is missing or not up to date")
	fs.Usage = func() {
		fmt.Fprintln(stderr, policiesUsage)
		fmt.Fprintln(stderr, "\nWrites, for a stock kube-apiserver (1.36 or later), each gated CRD without its gates, the")
		fmt.Fprintln(stderr, "CustomResourceFeatureGates object that holds their states (the parameter object), and")
		fmt.Fprintln(stderr, "the Mutating- and ValidatingAdmissionPolicies that enforce them. Install the policies")
		fmt.Fprintln(stderr, "before the CRDs, so that no write to a gated kind is ever served without them:")
		fmt.Fprintln(stderr, "  kubectl apply --server-side -f OUT/crds/"+policies.ParamCRDName+".yaml")
		fmt.Fprintln(stderr, "  kubectl wait --for=condition=Established crd/"+policies.ParamCRDName)
		fmt.Fprintln(stderr, "  kubectl apply --server-side -f OUT/policies")
		fmt.Fprintln(stderr, "  kubectl apply --server-side -f OUT/crds")
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *crds == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "featuregate-gen policies:", err)
		return 1
	}
	files, err := manifestFiles(strings.Split(*crds, ","))
	if err != nil {
		return fail(err)
	}
	type file struct {
		path    string
		content []byte
	}
	paramCRD, err := policies.ParamCRDManifest()
	if err != nil {
		return fail(err)
	}
	outFiles := []file{{filepath.Join(*out, "crds", policies.ParamCRDName+".yaml"), paramCRD}}
	var diffs [][2]string
	seen := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fail(err)
		}
		list, notes, err := crdmerge.ReadCRDs(f, data)
		if err != nil {
			return fail(err)
		}
		for _, n := range notes {
			fmt.Fprintln(stderr, "featuregate-gen policies:", n)
		}
		for _, crd := range list {
			if prev, dup := seen[crd.Name]; dup {
				return fail(fmt.Errorf("CustomResourceDefinition %s is in both %s and %s", crd.Name, prev, f))
			}
			seen[crd.Name] = f
			if crd.Name == policies.ParamCRDName {
				continue
			}
			if !hasGates(crd) {
				body, err := crdmerge.MarshalCRD(crd)
				if err != nil {
					return fail(err)
				}
				outFiles = append(outFiles, file{filepath.Join(*out, "crds", crd.Name+".yaml"), body})
				fmt.Fprintf(stdout, "%s: no gates; copied as it is\n", crd.Name)
				continue
			}
			res, err := policies.Generate(crd)
			if err != nil {
				return fail(fmt.Errorf("%s: %w", f, err))
			}
			c, err := res.CRDManifest()
			if err != nil {
				return fail(err)
			}
			p, err := res.PoliciesManifest()
			if err != nil {
				return fail(err)
			}
			outFiles = append(outFiles,
				file{filepath.Join(*out, "crds", crd.Name+".yaml"), c},
				file{filepath.Join(*out, "policies", crd.Name+".yaml"), p})
			for _, d := range res.Differences {
				diffs = append(diffs, [2]string{crd.Name, d.String()})
			}
		}
	}
	stale := false
	for _, f := range outFiles {
		if *check {
			old, err := os.ReadFile(f.path)
			if err != nil || !bytes.Equal(old, f.content) {
				fmt.Fprintf(stdout, "%s: not up to date\n", f.path)
				stale = true
			} else {
				fmt.Fprintf(stdout, "%s: unchanged\n", f.path)
			}
			continue
		}
		if err := writeFile(stdout, f.path, f.content); err != nil {
			return fail(err)
		}
	}
	if len(diffs) > 0 {
		fmt.Fprintln(stdout, "\nDifferences from a kube-apiserver that serves the gates itself:")
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "CRD\tDIFFERENCE")
		for _, d := range diffs {
			fmt.Fprintf(tw, "%s\t%s\n", d[0], d[1])
		}
		tw.Flush()
	}
	if stale {
		fmt.Fprintln(stderr, "featuregate-gen policies: run it without --check to update the files")
		return 1
	}
	return 0
}

func hasGates(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd.Spec.CustomFeatureGates != nil && len(crd.Spec.CustomFeatureGates.FeatureGates) > 0
}

// manifestFiles expands the paths: a file as it is, a directory to its *.yaml and *.yml files
// in name order.
func manifestFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
				names = append(names, filepath.Join(p, e.Name()))
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("%s holds no *.yaml or *.yml file", p)
		}
		out = append(out, names...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--crds names no file")
	}
	return out, nil
}
