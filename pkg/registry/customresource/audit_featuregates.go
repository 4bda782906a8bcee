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

package customresource

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apiserver/pkg/audit"
)

const (
	// FieldGatesAuditAnnotationKey is the audit annotation a custom resource write carries
	// when a disabled feature gate (spec.customFeatureGates) changed what it stores. Like
	// upstream's authorization.k8s.io/decision, it is prefixed with the owning API group.
	FieldGatesAuditAnnotationKey = "apiextensions.k8s.io/field-gates"

	// maxFieldGatesAuditValueLength bounds the annotation's value in bytes. The paths and
	// gate names in it are bounded by CRD validation (256 and 63 characters); the number of
	// entries is not, so the value lists what fits and then how many more there are.
	maxFieldGatesAuditValueLength = 1024
)

// fieldGatesAuditValue renders the changes of one write as the annotation's value, in path
// order, for example
//
//	dropped .spec.replicas (ReplicasFeatureGate); kept .spec.mode (ModeGate)
//
// "dropped": the write set a value that was removed. "kept": the write changed or removed a
// stored value, and the stored value was kept (the words of the write's warnings). The value holds only gated paths
// and gate names, both from the CRD and validated; nothing the custom resource's writer sent.
func fieldGatesAuditValue(changes []featuregates.Change) string {
	var b strings.Builder
	for i, c := range changes {
		kind := "dropped"
		if c.Kind == featuregates.NotApplied {
			kind = "kept"
		}
		entry := featuregates.Printable(fmt.Sprintf("%s %s (%s)", kind, c.Path.Path.String(), c.Path.Gate.Name))
		if i > 0 {
			entry = "; " + entry
		}
		// Entries are written only while the "and N more" that may have to follow still fits.
		room := maxFieldGatesAuditValueLength
		if rest := len(changes) - i - 1; rest > 0 {
			room -= len(fmt.Sprintf("; and %d more", rest))
		}
		if b.Len()+len(entry) > room {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "and %d more", len(changes)-i)
			break
		}
		b.WriteString(entry)
	}
	return b.String()
}

// addFieldGatesAuditAnnotation annotates the request's audit event with what gating did.
// It does nothing when the request is not audited.
func addFieldGatesAuditAnnotation(ctx context.Context, changes []featuregates.Change) {
	if len(changes) == 0 || !audit.AuditContextFrom(ctx).Enabled() {
		return // not audited: do not build the value
	}
	audit.AddAuditAnnotation(ctx, FieldGatesAuditAnnotationKey, fieldGatesAuditValue(changes))
}
