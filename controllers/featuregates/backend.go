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

package featuregates

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// Backend names where a CRD's gate states live.
type Backend string

const (
	// BackendNative is the CRD's own spec.customFeatureGates, on a kube-apiserver built with
	// the fork.
	BackendNative Backend = "native"
	// BackendPolicies is the CustomResourceFeatureGates object named like the CRD: on a stock
	// kube-apiserver, the parameter object of the admission policies that
	// `featuregate-gen policies` generates. The CRD itself then has no gates.
	BackendPolicies Backend = "policies"
)

// The parameter objects of the policies backend, as `featuregate-gen policies` defines them:
// cluster-scoped, named like the CRD, their spec shaped like spec.customFeatureGates, with
// every gate's fieldPaths completed from the marks of the CRD's storage version.
const (
	ParamGroup    = "featuregates.apiextensions.x-k8s.io"
	ParamVersion  = "v1alpha1"
	ParamKind     = "CustomResourceFeatureGates"
	ParamResource = "customresourcefeaturegates"
	// ParamCRDName is the name of the parameter kind's CRD.
	ParamCRDName = ParamResource + "." + ParamGroup
)

// ParamGVR is the resource of the parameter objects.
var ParamGVR = schema.GroupVersionResource{Group: ParamGroup, Version: ParamVersion, Resource: ParamResource}

// gatedCRD returns the CRD whose spec.customFeatureGates holds the gates of in, and their
// backend: the CRD as it is when it declares gates (native); else, when the parameter
// object exists, a copy with the parameter object's spec as its gates (policies); else the
// CRD as it is, with no backend. A parameter object that does not decode gives no gates.
func gatedCRD(in inputs) (*apiextensionsv1.CustomResourceDefinition, Backend) {
	switch {
	case in.crd == nil:
		return nil, ""
	case in.crd.Spec.CustomFeatureGates != nil:
		return in.crd, BackendNative
	case in.param == nil:
		return in.crd, ""
	}
	gates, err := paramGates(in.param)
	if err != nil {
		return in.crd, ""
	}
	out := in.crd.DeepCopy()
	out.Spec.CustomFeatureGates = gates
	return out, BackendPolicies
}

// paramGates decodes the spec of a parameter object.
func paramGates(param *unstructured.Unstructured) (*apiextensionsv1.CustomResourceDefinitionFeatureGates, error) {
	spec, ok := param.Object["spec"].(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s %s has no spec", ParamKind, param.GetName())
	}
	gates := &apiextensionsv1.CustomResourceDefinitionFeatureGates{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(spec, gates); err != nil {
		return nil, fmt.Errorf("%s %s is not valid: %w", ParamKind, param.GetName(), err)
	}
	return gates, nil
}

func sameCRD(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID && a.ResourceVersion == b.ResourceVersion
}

func sameParam(a, b *unstructured.Unstructured) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.GetUID() == b.GetUID() && a.GetResourceVersion() == b.GetResourceVersion()
}

// paramWatch follows the tracked CRD's parameter object. The parameter kind is a CRD that a
// cluster has only where the policies are installed, so a watch of its objects could not
// sync elsewhere: paramWatch watches that CRD by name, and starts the informer of the
// parameter object (restricted to the tracked CRD's name) once the kind is established. It
// keeps that informer until the tracker stops.
type paramWatch struct {
	t   *Tracker
	dyn dynamic.Interface

	kindFactory      externalversions.SharedInformerFactory
	kindRegistration cache.ResourceEventHandlerRegistration

	ctx context.Context

	mu      sync.Mutex
	objects dynamicinformer.DynamicSharedInformerFactory
	// objectsSynced is the registration of the objects' informer once it is started.
	objectsSynced atomic.Pointer[cache.ResourceEventHandlerRegistration]
}

func newParamWatch(t *Tracker, client clientset.Interface, dyn dynamic.Interface) (*paramWatch, error) {
	w := &paramWatch{t: t, dyn: dyn}
	w.kindFactory = externalversions.NewSharedInformerFactoryWithOptions(client, 0,
		externalversions.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", ParamCRDName).String()
		}))
	kind := w.kindFactory.Apiextensions().V1().CustomResourceDefinitions().Informer()
	onKind := func(obj interface{}) {
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok && established(crd) {
			w.startObjects()
		}
	}
	reg, err := kind.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onKind,
		UpdateFunc: func(_, obj interface{}) { onKind(obj) },
	})
	if err != nil {
		return nil, fmt.Errorf("featuregates: watching CRD %q: %w", ParamCRDName, err)
	}
	w.kindRegistration = reg
	return w, nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

func (w *paramWatch) start(ctx context.Context) {
	w.mu.Lock()
	w.ctx = ctx
	w.mu.Unlock()
	w.kindFactory.Start(ctx.Done())
}

// startObjects starts the informer of the parameter object, once.
func (w *paramWatch) startObjects() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.objects != nil || w.ctx == nil {
		return
	}
	name := w.t.crdName
	w.objects = dynamicinformer.NewFilteredDynamicSharedInformerFactory(w.dyn, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	})
	inf := w.objects.ForResource(ParamGVR).Informer()
	asParam := func(obj interface{}) *unstructured.Unstructured {
		u, _ := obj.(*unstructured.Unstructured)
		return u
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj interface{}, initial bool) { w.t.observeParam(asParam(obj), !initial) },
		UpdateFunc: func(_, obj interface{}) { w.t.observeParam(asParam(obj), true) },
		DeleteFunc: func(interface{}) { w.t.observeParam(nil, true) },
	})
	if err != nil {
		// AddEventHandler fails only on a stopped informer; this one has not started.
		return
	}
	w.objectsSynced.Store(&reg)
	w.objects.Start(w.ctx.Done())
}

// hasSynced reports whether the watch has seen whether the parameter kind exists and, when
// it does, the parameter object as it is.
func (w *paramWatch) hasSynced() bool {
	if !w.kindRegistration.HasSynced() {
		return false
	}
	w.mu.Lock()
	started := w.objects != nil
	w.mu.Unlock()
	if !started {
		return true
	}
	reg := w.objectsSynced.Load()
	return reg != nil && (*reg).HasSynced()
}

func (w *paramWatch) shutdown() {
	w.kindFactory.Shutdown()
	w.mu.Lock()
	objects := w.objects
	w.mu.Unlock()
	if objects != nil {
		objects.Shutdown()
	}
}
