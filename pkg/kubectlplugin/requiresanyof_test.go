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

package kubectlplugin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// anyOfCRD has .spec.either while Example or Example2 is enabled, through the stable gate
// ExampleOrExample2 that requires any of them.
func anyOfCRD(example *bool) *apiextensionsv1.CustomResourceDefinition {
	spec := object(props{"one": scalar("string"), "two": scalar("string"), "either": scalar("string")})
	return versionsCRD(apiextensionsv1.NoneConverter,
		[]apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "Example", PreRelease: "alpha", Enabled: example, FieldPaths: []string{".spec.one"}},
			{Name: "Example2", PreRelease: "alpha", FieldPaths: []string{".spec.two"}},
			{Name: "ExampleOrExample2", PreRelease: "stable", RequiresAnyOf: []string{"Example", "Example2"}, FieldPaths: []string{".spec.either"}},
		},
		spec)
}

func TestListRequiresAnyOf(t *testing.T) {
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		args []string
		want string
	}{{
		name: "Example on: enough",
		crd:  anyOfCRD(ptr(true)),
		want: `CRD                   GATE                STAGE    ENABLED   STATE      FIELDS         COMPONENT
widgets.example.com   Example             alpha    true      enabled    .spec.one      <none>
widgets.example.com   Example2            alpha    <unset>   disabled   .spec.two      <none>
widgets.example.com   ExampleOrExample2   stable   <unset>   enabled    .spec.either   <none>
`,
	}, {
		name: "none on, wide shows requiresAnyOf",
		crd:  anyOfCRD(nil),
		args: []string{"-o", "wide"},
		want: `CRD                   GATE                STAGE    ENABLED   DEFAULT   STATE                                                         FIELDS         COMPONENT   REQUIRES
widgets.example.com   Example             alpha    <unset>   <unset>   disabled                                                      .spec.one      <none>      <none>
widgets.example.com   Example2            alpha    <unset>   <unset>   disabled                                                      .spec.two      <none>      <none>
widgets.example.com   ExampleOrExample2   stable   <unset>   <unset>   disabled (requires Example or Example2, which are disabled)   .spec.either   <none>      Example|Example2
`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runPlugin(tc.crd, append([]string{"list", tc.crd.Name}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}

	out, err := runPlugin(anyOfCRD(nil), "list", "widgets.example.com", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"requiresAnyOf": [`, `"unmetAnyOf": [`, `"Example2"`} {
		if !strings.Contains(out, want) {
			t.Errorf("json output has no %s:\n%s", want, out)
		}
	}

	status, err := runPlugin(anyOfCRD(nil), "status", "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	want := "feature gate ExampleOrExample2 (stable) is disabled: requires Example or Example2, which are disabled"
	found := false
	for _, l := range strings.Split(status, "\n") {
		found = found || (strings.HasPrefix(l, ".spec.either ") && strings.Contains(l, want))
	}
	if !found {
		t.Errorf("status has no .spec.either row saying %q:\n%s", want, status)
	}
}

func TestRequiredGates(t *testing.T) {
	for _, tc := range []struct {
		requires, anyOf []string
		words, column   string
	}{
		{requires: []string{"A", "B"}, words: "A, B", column: "A,B"},
		{anyOf: []string{"C", "D"}, words: "any of C, D", column: "C|D"},
		{requires: []string{"A"}, anyOf: []string{"C", "D"}, words: "A; any of C, D", column: "A,C|D"},
	} {
		if got := requiredGates(tc.requires, tc.anyOf); got != tc.words {
			t.Errorf("requiredGates(%v, %v) = %q, want %q", tc.requires, tc.anyOf, got, tc.words)
		}
		if got := requiresText(tc.requires, tc.anyOf); got != tc.column {
			t.Errorf("requiresText(%v, %v) = %q, want %q", tc.requires, tc.anyOf, got, tc.column)
		}
	}
}
