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

// Package featuregates implements KEP-2608's field-level feature gates for custom resources.
// Like pruning and defaulting, it knows structural schemas and unstructured objects, and
// nothing of the registry or the handlers. Of the API types it reads only the gates, in
// one place (crd.go), so that every caller compiles a CRD's gates the same way.
//
// # Vocabulary
//
// One word per concept, in code, comments and docs:
//
//   - the feature: the kube-apiserver feature gate CRDFieldLevelVersioning
//     (k8s.io/apiextensions-apiserver/pkg/features). With it off, nothing here runs.
//   - gate: a custom feature gate that a CRD declares in spec.customFeatureGates. This
//     package is about gates; "feature gate" alone always means the feature.
//   - mark: x-kubernetes-feature-gate: <Gate> on a node of one version's schema; it guards
//     that node and everything below it. With conversion None (a shared shape, SharesShape)
//     it does so in every version whose schema has the path; with a conversion webhook, in
//     that version only.
//   - gated path: a path that a gate guards in one version's objects: a marked node's path
//     (see mark), or one of a gate's fieldPaths (paths in the storage version's schema, which
//     also hold in every version of a CRD without a conversion webhook).
//   - enabled: a gate's state: its own (Enabled, by KEP-2608's rules) and, for a gate that
//     requires others, theirs (GateStates). A path is effectively
//     disabled when its gate, or the gate of a gated path above it, is not enabled; a path
//     that is not effectively disabled is live.
//   - field gating: what the server does to a custom resource write with a CRD's gates
//     (drop, keep the stored value, warn). In the registry, customresource.FieldGates is the
//     field gating of one CRD revision: an Index per version plus the storage version and
//     converter.
//
// # Pipeline
//
// Parse once, compile once per CRD revision, apply per request:
//
//  1. path.go: ParsePath reads the path syntax (.a.b[*].c); resolve.go: Resolve checks a
//     path against a structural schema. CRD validation calls both; it never re-implements them.
//  2. enabled.go: Enabled decides a gate's own state; GateStates and States add what it
//     requires (a gate is enabled only while every gate it requires is), the one answer
//     every reader of gate state uses.
//  3. crd.go: SpecsFromV1 and SpecsFromInternal read a CRD's gates as GateSpecs; marks.go:
//     Marks reads a version's marks from its structural schema.
//  4. index.go: CompileVersions builds the Index of every version of a CRD revision: every
//     gated path of that version, and a trie of the effectively disabled ones, which is all
//     a write needs to walk. With a shared shape a version's index holds every version's
//     marks (CompileSharedShape), with a webhook its own (CompileVersion);
//     crd.go: CompileCRDVersion does the same for one version of a v1 CRD, for the OpenAPI
//     builder and pkg/apihelpers. Compile is CompileVersion of the storage version.
//  5. apply.go: Index.PrepareForCreate and Index.PrepareForUpdate apply the trie to the
//     unstructured objects of a write (drop on create, keep the stored value on update;
//     equal.go compares values) and return the Changes; warnings.go turns Changes and
//     deprecated fields into warning texts.
//  6. defaults.go: Index.WithoutDisabledDefaults gives the schema that defaulting uses, with
//     no default at an effectively disabled path.
//  7. query.go, describe.go: what the OpenAPI builder, pkg/apihelpers and kubectl
//     featuregates ask of an Index (which gated path disables a path, its stage note).
//
// The write path through the server, hook by hook, is docs/development/write-path.md.
package featuregates
