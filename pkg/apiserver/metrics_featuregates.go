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

package apiserver

import (
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// customFeatureGateEnabled has one series per gate declared in a CRD's
// spec.customFeatureGates: 1 when the gate is enabled, 0 when it is disabled. It is the
// gate's state (featuregates.States: a gate that requires a disabled gate is disabled); a
// path below a disabled gated parent is disabled whatever its gate says.
var customFeatureGateEnabled = metrics.NewGaugeVec(
	&metrics.GaugeOpts{
		Namespace:      "apiextensions",
		Subsystem:      "custom_feature_gate",
		Name:           "enabled",
		Help:           "Whether a feature gate declared in a CustomResourceDefinition's spec.customFeatureGates is enabled (1) or disabled (0), by gate name and stage.",
		StabilityLevel: metrics.ALPHA,
	},
	[]string{"group", "resource", "name", "stage"},
)

func init() {
	legacyregistry.MustRegister(customFeatureGateEnabled)
}

// featureGateMetrics keeps customFeatureGateEnabled in step with the CRDs the informer
// sees, and deletes the series (of the drop counter too) of CRDs and gates that go away.
type featureGateMetrics struct {
	lock sync.Mutex
	// crds holds, by CRD name, the series last set for the CRD.
	crds map[string]crdGateSeries
}

// crdGateSeries are the gauge series of one CRD.
type crdGateSeries struct {
	group, resource string
	// stages holds the stage of each gate, by gate name.
	stages map[string]string
}

// newFeatureGateMetricsHandler returns the informer event handler that maintains the
// field gate metrics. With the CRDFieldLevelVersioning feature off it sets nothing.
func newFeatureGateMetricsHandler() cache.ResourceEventHandler {
	m := &featureGateMetrics{crds: map[string]crdGateSeries{}}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { m.set(obj) },
		UpdateFunc: func(_, obj interface{}) { m.set(obj) },
		DeleteFunc: m.delete,
	}
}

func (m *featureGateMetrics) set(obj interface{}) {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok || !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDFieldLevelVersioning) {
		return
	}
	group, resource := crd.Spec.Group, crd.Spec.Names.Plural
	series := crdGateSeries{group: group, resource: resource, stages: map[string]string{}}
	// The state a gate's series reports is the one its fields follow (featuregates.States):
	// a gate that requires a disabled gate reports 0.
	enabled := featuregates.States(featuregates.SpecsFromV1(crd.Spec.CustomFeatureGates))
	if crd.Spec.CustomFeatureGates != nil {
		for _, g := range crd.Spec.CustomFeatureGates.FeatureGates {
			series.stages[g.Name] = string(g.PreRelease)
		}
	}

	m.lock.Lock()
	defer m.lock.Unlock()
	if old, ok := m.crds[crd.Name]; ok {
		for name, stage := range old.stages {
			newStage, kept := series.stages[name]
			if kept && newStage == stage && old.group == group && old.resource == resource {
				continue
			}
			customFeatureGateEnabled.DeleteLabelValues(old.group, old.resource, name, stage)
			if !kept || old.group != group || old.resource != resource {
				customresource.DeleteFieldGateDrops(old.group, old.resource, name)
			}
		}
	}
	for name, stage := range series.stages {
		value := 0.0
		if enabled[name] {
			value = 1
		}
		customFeatureGateEnabled.WithLabelValues(group, resource, name, stage).Set(value)
	}
	if len(series.stages) == 0 {
		delete(m.crds, crd.Name)
		return
	}
	m.crds[crd.Name] = series
}

func (m *featureGateMetrics) delete(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return
	}
	m.lock.Lock()
	defer m.lock.Unlock()
	if old, ok := m.crds[crd.Name]; ok {
		for name, stage := range old.stages {
			customFeatureGateEnabled.DeleteLabelValues(old.group, old.resource, name, stage)
		}
		delete(m.crds, crd.Name)
	}
	customresource.DeleteFieldGateDrops(crd.Spec.Group, crd.Spec.Names.Plural, "")
}
