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

// Package policies turns a gated CRD (spec.customFeatureGates, x-kubernetes-feature-gate
// marks, x-kubernetes-feature-gated-validations, CEL rules that read featureGates) into what
// a stock kube-apiserver (1.36 or later) needs to honour the same gates through admission
// policies:
//
//   - the CRD as a stock server accepts it: no gates, no marks, no gated keywords, no rule
//     that reads featureGates, and no schema default at or below a gated path (the custom
//     resource defaulter runs again after every mutation, so such a default would undo a
//     drop; the mutating policy applies it instead while the path is live);
//   - the parameter object (kind CustomResourceFeatureGates, named like the CRD) that holds
//     the gate states, in the shape of spec.customFeatureGates;
//   - a MutatingAdmissionPolicy and its binding: on create, the values at effectively
//     disabled paths are removed; on update, a stored value is put back and a new one removed
//     (docs/reference/semantics.md), list items correlated by their list-map keys, map
//     values by key, other list items by what they hold outside the gated paths;
//   - a ValidatingAdmissionPolicy and its binding (Deny): gated keywords and the rules that
//     read featureGates, evaluated with the gate states of the parameter object, and a
//     backstop against a stored value that the write would lose;
//   - a ValidatingAdmissionPolicy and its binding (Warn) for the fields of deprecated gates.
//
// The policies read the objects in the CRD's storage version (matchPolicy Equivalent with
// the storage version as the only matched version), so gated paths are storage-version
// paths, as the server's own gating.
//
// Everything is deterministic: the same CRD gives the same bytes. What the policies cannot
// express the way our server behaves is returned as a Difference, never left out silently.
package policies
