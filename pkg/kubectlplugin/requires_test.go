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
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// exampleCRD is OpenShift's Example+Example2: .spec.both exists only while both Example and
// Example2 are enabled, through the stable gate ExampleWithExample2 that requires both.
func exampleCRD(example *bool) *apiextensionsv1.CustomResourceDefinition {
	spec := object(props{"one": scalar("string"), "two": scalar("string"), "both": scalar("string")})
	return versionsCRD(apiextensionsv1.NoneConverter,
		[]apiextensionsv1.CustomResourceDefinitionFeatureGate{
			{Name: "Example", PreRelease: "alpha", Enabled: example, FieldPaths: []string{".spec.one"}},
			{Name: "Example2", PreRelease: "alpha", FieldPaths: []string{".spec.two"}},
			{Name: "ExampleWithExample2", PreRelease: "stable", Requires: []string{"Example", "Example2"}, FieldPaths: []string{".spec.both"}},
		},
		spec)
}

func TestListRequires(t *testing.T) {
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		args []string
		want string
	}{{
		name: "Example on alone",
		crd:  exampleCRD(ptr(true)),
		want: `CRD                   GATE                  STAGE    ENABLED   STATE                                             FIELDS       COMPONENT
widgets.example.com   Example               alpha    true      enabled                                           .spec.one    <none>
widgets.example.com   Example2              alpha    <unset>   disabled                                          .spec.two    <none>
widgets.example.com   ExampleWithExample2   stable   <unset>   disabled (requires Example2, which is disabled)   .spec.both   <none>
`,
	}, {
		name: "wide shows requires",
		crd:  exampleCRD(nil),
		args: []string{"-o", "wide"},
		want: `CRD                   GATE                  STAGE    ENABLED   DEFAULT   STATE                                                          FIELDS       COMPONENT   REQUIRES
widgets.example.com   Example               alpha    <unset>   <unset>   disabled                                                       .spec.one    <none>      <none>
widgets.example.com   Example2              alpha    <unset>   <unset>   disabled                                                       .spec.two    <none>      <none>
widgets.example.com   ExampleWithExample2   stable   <unset>   <unset>   disabled (requires Example and Example2, which are disabled)   .spec.both   <none>      Example,Example2
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

	out, err := runPlugin(exampleCRD(ptr(true)), "list", "widgets.example.com", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"requires": [`, `"unmet": [`, `"Example2"`} {
		if !strings.Contains(out, want) {
			t.Errorf("json output has no %s:\n%s", want, out)
		}
	}
}

func TestStatusRequires(t *testing.T) {
	out, err := runPlugin(exampleCRD(ptr(true)), "status", "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	want := "feature gate ExampleWithExample2 (stable) is disabled: requires Example2, which is disabled"
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, ".spec.both ") {
			line = l
		}
	}
	if !strings.Contains(line, want) || !strings.Contains(line, " no ") {
		t.Errorf(".spec.both row %q does not say it is not live because %q; output:\n%s", line, want, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, ".spec.one ") && strings.Contains(l, "requires") {
			t.Errorf("a gate without requires mentions requires: %q", l)
		}
	}
}

func TestPrintToggleRequires(t *testing.T) {
	tg := &Toggler{FieldManager: "cluster-admin"}
	tests := []struct {
		name, gate, verb string
		crd              *apiextensionsv1.CustomResourceDefinition
		noop             bool
		want             string
	}{
		{
			name: "enable a gate a required gate keeps off", gate: "ExampleWithExample2", verb: "enable", crd: withEnabled(exampleCRD(ptr(true)), "ExampleWithExample2", ptr(true)),
			want: "customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate ExampleWithExample2 enabled (server-side apply, field manager cluster-admin); state: disabled (requires Example2, which is disabled)\n" +
				"feature gate ExampleWithExample2 stays disabled until Example2 is enabled\n",
		},
		{
			name: "enable a stable combination: nothing to write", gate: "ExampleWithExample2", verb: "enable", crd: exampleCRD(nil), noop: true,
			want: "customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate ExampleWithExample2 is stable, so enabled only by the gates it requires (Example, Example2); nothing to change; state: disabled (requires Example and Example2, which are disabled)\n",
		},
		{
			name: "a gate without requires keeps its text", gate: "Example", verb: "enable", crd: exampleCRD(ptr(true)),
			want: "customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate Example enabled (server-side apply, field manager cluster-admin); state: enabled\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := printToggle(&out, tc.crd.Name, tc.gate, tc.verb, tg, &ToggleResult{Method: MethodApply, Noop: tc.noop, CRD: tc.crd}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
