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

// Package stockpolicies runs the KEP-2608 write matrix on two control planes and compares
// them: "ours" (this fork's kube-apiserver with CRDFieldLevelVersioning on, the gated CRDs of
// examples/feature-gates installed as they are) and "stock+policies" (the stock
// kube-apiserver v1.37.1 with what `featuregate-gen policies` generates from the same CRDs:
// the stock CRDs, the parameter objects holding the gate states, and the admission
// policies). Both are real etcd and kube-apiserver processes started by test/localup on
// free loopback ports; gates are toggled with our kubectl as an admin would (a guarded JSON
// patch of the CRD on ours, of the parameter object on stock).
//
// Every case runs the same requests against both and records, per request, the HTTP status,
// the object as the server then stores it, its generation and the warnings. The test fails
// when the two differ in a way that is not declared as intended (intendedDifferences), or
// when a declared difference is not observed. It writes the comparison as a markdown table
// to $STOCK_POLICIES_REPORT (default _output/stock-policies/report.md). A second test proves
// that the policies lose no stored value, reading it through the API and straight from etcd;
// a third runs Gateway API's lossless disable (examples/gateway-api, gates toggled with
// `kubectl featuregates`) on both backends.
//
// `make test-stock-policies` builds the binaries and runs it.
package stockpolicies
