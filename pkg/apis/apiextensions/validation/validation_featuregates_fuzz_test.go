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

package validation

import (
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzValidateCustomFeatureGates feeds arbitrary gates to the validator and the warnings.
// Neither may panic, and the validator must reject what the contract forbids.
func FuzzValidateCustomFeatureGates(f *testing.F) {
	f.Add("ReplicasFeatureGate", "alpha", ".spec.replicas", ".spec.foo.qux", "", byte(0))
	f.Add("Old", "deprecated", ".spec.containers[*].image", ".metadata.name", "use .spec.x\r\n", byte(7))
	f.Add("", "gamma", "spec[", ".spec..", "\xff", byte(255))
	f.Add("Ünïcode", "stable", ".spec.raw.a[*][*]", ".spec.replicas", "ok", byte(3))
	f.Fuzz(func(t *testing.T, name, preRelease, path1, path2, warning string, flags byte) {
		boolPtr := func(bit byte) *bool {
			if flags&(1<<bit) == 0 {
				return nil
			}
			v := flags&(1<<(bit+1)) != 0
			return &v
		}
		g := apiextensions.CustomResourceDefinitionFeatureGate{
			Name:       name,
			PreRelease: apiextensions.CustomFeatureGatePreRelease(preRelease),
			Enabled:    boolPtr(0),
			Default:    boolPtr(2),
			FieldPaths: []string{path1, path2},
		}
		if flags&(1<<4) != 0 {
			g.FieldDeprecationWarning = &warning
		}
		spec := featureGateTestSpec(g, apiextensions.CustomResourceDefinitionFeatureGate{Name: "Other", PreRelease: "beta", FieldPaths: []string{path2}})
		old := featureGateTestSpec(g)
		errs := validateCustomFeatureGates(spec, old.CustomFeatureGates, field.NewPath("spec", "customFeatureGates"))
		_ = CustomFeatureGatesWarnings(spec, old)

		// The same path in two gates is always rejected: as a duplicate, or for itself.
		if path1 == path2 && !hasErrorAt(errs, "spec.customFeatureGates.featureGates[1].fieldPaths[0]") {
			t.Errorf("path %q in two gates was accepted: %v", path2, errs)
		}
		// A warning text with control characters never passes.
		if g.FieldDeprecationWarning != nil && strings.ContainsAny(warning, "\r\n\x00") && !hasErrorAt(errs, "spec.customFeatureGates.featureGates[0].fieldDeprecationWarning") {
			t.Errorf("warning %q was accepted: %v", warning, errs)
		}
	})
}

func hasErrorAt(errs field.ErrorList, path string) bool {
	for _, e := range errs {
		if e.Field == path {
			return true
		}
	}
	return false
}
