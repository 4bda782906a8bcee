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

package policies

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Result is what Generate writes for one gated CRD.
type Result struct {
	// CRD is the CRD as a stock kube-apiserver accepts it.
	CRD *apiextensionsv1.CustomResourceDefinition
	// Param is the parameter object that holds the CRD's gates.
	Param *Param
	// Mutating and MutatingBinding drop and keep values at disabled paths; nil when the
	// gates guard no path (only values and rules).
	Mutating        *admissionregistrationv1.MutatingAdmissionPolicy
	MutatingBinding *admissionregistrationv1.MutatingAdmissionPolicyBinding
	// Validating and ValidatingBinding (Deny) check gated keywords and gated rules; nil when
	// the CRD has none of either.
	Validating        *admissionregistrationv1.ValidatingAdmissionPolicy
	ValidatingBinding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	// Warnings and WarningsBinding (Warn) warn of fields of deprecated gates and of the
	// values that the Deny checks let pass because the update left them as stored
	// (ratcheting); nil when the CRD has neither.
	Warnings        *admissionregistrationv1.ValidatingAdmissionPolicy
	WarningsBinding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	// Differences are what the policies do differently from our server for this CRD.
	Differences []Difference
}

// Difference is one behaviour of our server that the policies for a CRD cannot reproduce.
type Difference struct {
	// Path is the gated path, or the schema node of a rule or keyword, it concerns; empty
	// for the whole CRD.
	Path string
	// Gate is the gate concerned, or "".
	Gate string
	// What says what differs and what the policies do instead.
	What string
}
