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

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

const (
	// OperationCreate and OperationUpdate are the values of the operation label of
	// apiextensions_custom_feature_gate_field_drops_total.
	OperationCreate = "create"
	OperationUpdate = "update"
)

// fieldGateDrops counts, per gate, the gated paths whose value a write did not store: a
// value dropped on create or update, or an update not applied because the stored value was
// kept. Dry-run writes are not counted: they store nothing, and kubectl diff issues one on
// every run. The series of a CRD are deleted with the CRD (see DeleteFieldGateDrops).
var fieldGateDrops = metrics.NewCounterVec(
	&metrics.CounterOpts{
		Namespace:      "apiextensions",
		Subsystem:      "custom_feature_gate",
		Name:           "field_drops_total",
		Help:           "Number of gated field paths whose value a custom resource write did not store because the path's feature gate (spec.customFeatureGates) is disabled: dropped, or kept at the stored value. Dry-run writes are not counted.",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"group", "resource", "name", "operation"},
)

func init() {
	legacyregistry.MustRegister(fieldGateDrops)
}

// DeleteFieldGateDrops deletes the drop counters of a CRD's gate, or of all the CRD's gates
// when gate is empty. It is called when a CRD or one of its gates goes away, so that no
// stale series stay behind.
func DeleteFieldGateDrops(group, resource, gate string) {
	if !fieldGateDrops.IsCreated() {
		return
	}
	labels := map[string]string{"group": group, "resource": resource}
	if gate != "" {
		labels["name"] = gate
	}
	fieldGateDrops.DeletePartialMatch(labels)
}

// dropCounterKey names one series of fieldGateDrops of a CRD: its gate and operation.
type dropCounterKey struct {
	gate      *featuregates.Gate
	operation string
}

// dropCounter returns the drop counter of a gate and operation of this CRD revision. The
// series is looked up once per revision and then kept: WithLabelValues hashes the labels and
// allocates on every call, and a write may drop many paths. A series deleted while this
// revision still serves (its CRD or gate went away) is not made again by a late write.
func (g *FieldGates) dropCounter(gate *featuregates.Gate, operation string) metrics.CounterMetric {
	key := dropCounterKey{gate: gate, operation: operation}
	if c, ok := g.dropCounters.Load(key); ok {
		return c.(metrics.CounterMetric)
	}
	c, _ := g.dropCounters.LoadOrStore(key, fieldGateDrops.WithLabelValues(g.storageVersion.Group, g.resource, gate.Name, operation))
	return c.(metrics.CounterMetric)
}

// observe records what gating did to one write: the drop counters (unless the write is a
// dry run, as its options say) and the audit annotation (always: the audit event of a
// dry-run request records what the server answered).
func (g *FieldGates) observe(ctx context.Context, changes []featuregates.Change, create, dryRun bool) {
	if len(changes) == 0 {
		return
	}
	if !dryRun {
		operation := OperationUpdate
		if create {
			operation = OperationCreate
		}
		for _, c := range changes {
			g.dropCounter(c.Path.Gate, operation).Inc()
		}
	}
	addFieldGatesAuditAnnotation(ctx, changes)
}
