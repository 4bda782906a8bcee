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

package openshift

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// Merge writes only CRDs that the API server's CRD validation accepts (with
// CRDFieldLevelVersioning on, as a cluster that serves them runs): the gates, the marks, the
// gated keywords and every generated CEL rule with its cost. Each written CRD is validated
// again here; a rejected one is an error of the run that names it.
func validateMerged(t *testing.T, dir string) (accepted []string, res *Result) {
	t.Helper()
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, apiextensionsfeatures.CRDFieldLevelVersioning, true)
	res, err := Merge(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if strings.HasPrefix(f.Name, "featuresets/") {
			continue
		}
		errs, err := serverValidation(f.Content)
		if err != nil || len(errs) > 0 {
			t.Errorf("%s: written, but the server rejects it: %v %v", f.Name, err, errs.ToAggregate())
			continue
		}
		accepted = append(accepted, f.Name)
	}
	return accepted, res
}

func TestServerValidatesMergedSynthetic(t *testing.T) {
	got, res := validateMerged(t, filepath.Join("testdata", "api"))
	if len(got) != 1 || len(res.Errors) > 0 {
		t.Errorf("validated %v, errors %v; want the one CRD and no error", got, res.Errors)
	}
}

// With OPENSHIFT_API_DIR, every CRD merged from that copy of openshift/api; the CRDs the run
// rejects because the server's validation does are logged.
func TestServerValidatesMergedOpenShiftAPI(t *testing.T) {
	dir := os.Getenv("OPENSHIFT_API_DIR")
	if dir == "" {
		t.Skip("OPENSHIFT_API_DIR is not set")
	}
	got, res := validateMerged(t, dir)
	for _, e := range res.Errors {
		if strings.Contains(e.Error(), "CRD validation rejects") {
			t.Logf("rejected: %.400s", e.Error())
		}
	}
	t.Logf("%d merged CRDs accepted by the server's CRD validation", len(got))
}
