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

package apihelpers

import (
	"fmt"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
)

// The helpers below answer, for controllers, the questions the API server answers when it
// gates the writes of custom resources (KEP-2608, spec.customFeatureGates). They call the
// server's own rules in pkg/apiserver/schema/featuregates, so both always agree.
//
// They read only the CRD they are given. The API server applies the gates only when its
// CRDFieldLevelVersioning feature gate is on; these helpers cannot see the server's
// feature gates and report what the CRD declares.

// FindCustomFeatureGate returns the feature gate named name that the CRD declares in
// spec.customFeatureGates, or nil.
func FindCustomFeatureGate(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionFeatureGate {
	if crd.Spec.CustomFeatureGates == nil {
		return nil
	}
	for i := range crd.Spec.CustomFeatureGates.FeatureGates {
		if crd.Spec.CustomFeatureGates.FeatureGates[i].Name == name {
			return &crd.Spec.CustomFeatureGates.FeatureGates[i]
		}
	}
	return nil
}

// IsCustomFeatureGateEnabled reports whether the CRD's feature gate named name is enabled,
// and whether the CRD declares such a gate. The rules are, in order: a stable gate is
// enabled; else enabled decides when it is set; else default decides when it is set; else
// a beta gate is enabled; else (alpha, deprecated) the gate is disabled. A gate that
// requires other gates (requires) is enabled only when, in addition, every gate it
// requires is enabled, transitively.
//
// This is the gate's state as the server uses it (featuregates.GateStates), what CEL rules
// read as featureGates.<Name>. A field it guards may still be disabled by the disabled gate
// of an ancestor field; use IsFieldEnabled to know whether a field is live.
func IsCustomFeatureGateEnabled(crd *apiextensionsv1.CustomResourceDefinition, name string) (enabled bool, found bool) {
	g := FindCustomFeatureGate(crd, name)
	if g == nil {
		return false, false
	}
	if len(g.Requires) == 0 && len(g.RequiresAnyOf) == 0 {
		return featuregates.Enabled(string(g.PreRelease), g.Enabled, g.Default), true
	}
	return featuregates.States(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates))[name], true
}

// IsFieldEnabled reports whether the field at fieldPath of the CRD's custom resources of
// the given version is effectively enabled: whether the API server stores a value that a
// write sets there. It is disabled when its own gate, or the gate of any gated ancestor
// field, is disabled; a field that no gate guards, directly or through an ancestor, is
// enabled.
//
// fieldPath uses the syntax of spec.customFeatureGates.featureGates[*].fieldPaths, such as
// `.spec.replicas` or `.spec.containers[*].image`, and must exist in the schema of the
// version. `[*]` stands for every item of a list or every value of a map; a map key may
// also be named, as in `.spec.limits.cpu`, which a gate on `.spec.limits[*]` covers.
// Paths into metadata, apiVersion and kind are never gated.
//
// A version's fields are gated as the API server gates them
// (featuregates.CompileCRDVersion). With conversion None all versions share one shape: the
// gates' fieldPaths, and the x-kubernetes-feature-gate marks of every version's schema, gate
// every version whose schema has the path, so the answer does not depend on which version
// marks the field nor on which one is the storage version. With a conversion webhook, each
// version has its own marks, and fieldPaths hold in the storage version only, since the
// fields of other versions map to the storage version's in ways only the webhook knows:
// another version may be asked about when no gate has fieldPaths, and the answer is that
// version's marks. (The server gates a write in the version it was sent in and again in the
// storage version; with a mark on the field in every version, as the CRD authors' guide
// asks, both give the same answer.)
//
// It returns an error when the version does not exist, fieldPath is not a valid path or
// is not in the version's schema, the version's schema is not structural, or the question
// needs a mapping only the webhook knows.
func IsFieldEnabled(crd *apiextensionsv1.CustomResourceDefinition, version, fieldPath string) (bool, error) {
	p, err := featuregates.ParsePath(fieldPath)
	if err != nil {
		return false, fmt.Errorf("invalid field path %q: %v", fieldPath, err)
	}
	validation, err := GetSchemaForVersion(crd, version)
	if err != nil {
		return false, err
	}
	specs := featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates)
	if !featuregates.AppliesToVersion(crd, version) {
		for _, g := range specs {
			if len(g.FieldPaths) == 0 {
				continue
			}
			storageVersion, err := GetCRDStorageVersion(crd)
			if err != nil {
				return false, err
			}
			return false, fmt.Errorf("the fieldPaths of %s (gate %s) are paths of its storage version %s, and a conversion webhook maps the fields of version %s to it: ask about the field of version %s, or mark the field in each version's schema with x-kubernetes-feature-gate", crd.Name, g.Name, storageVersion, version, storageVersion)
		}
	}
	if p.IsReserved() {
		return true, nil
	}
	s, err := structuralFor(validation)
	if err == nil {
		err = featuregates.Resolve(p, s)
	}
	if err != nil {
		return false, fmt.Errorf("field path %q of version %s of %s: %v", fieldPath, version, crd.Name, err)
	}
	return featuregates.CompileCRDVersion(crd, version, s).DisabledBy(p) == nil, nil
}

// structuralFor returns the structural schema of a version's schema.
func structuralFor(validation *apiextensionsv1.CustomResourceValidation) (*structuralschema.Structural, error) {
	if validation == nil || validation.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("the version has no schema")
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(validation, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema is not structural: %v", err)
	}
	return s, nil
}

// CustomFeatureGateStates returns the enabled state of every feature gate the CRD
// declares, keyed by gate name: exactly the values that the CRD's x-kubernetes-validations
// rules read as featureGates.<Name>. It returns nil when the CRD declares no gates. A
// controller can use it to apply the same value rules as the server (for example, to not
// send evictionPolicy ARC while featureGates.ARCEviction is false), or to pass the states to
// a CEL program of its own.
func CustomFeatureGateStates(crd *apiextensionsv1.CustomResourceDefinition) map[string]bool {
	return featuregates.States(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates))
}
