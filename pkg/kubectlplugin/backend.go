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

package kubectlplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/policies"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// A CRD's gate states live in one of two places, its backend:
//
//   - native: the CRD's own spec.customFeatureGates, on a kube-apiserver built with this fork;
//   - policies: on a stock kube-apiserver, the CRD is served without gates and the generated
//     admission policies enforce them. The states live in the parameter object of those
//     policies: a cluster-scoped CustomResourceFeatureGates named exactly like the CRD, whose
//     spec has the shape of spec.customFeatureGates and whose fieldPaths hold every gated path
//     of the CRD's storage version (the stock CRD has no x-kubernetes-feature-gate marks).
//
// The commands read a policies-backed CRD as the stock CRD with spec.customFeatureGates set,
// in memory only, from the parameter object's spec. Every state is then computed by the same
// code as on the native backend, and writes go to the parameter object, never to the CRD.

// Backend names where a CRD's gate states live.
type Backend string

const (
	// BackendNative is the CRD's own spec.customFeatureGates.
	BackendNative Backend = "native"
	// BackendPolicies is the CustomResourceFeatureGates object named like the CRD, the
	// parameter object of the admission policies that enforce the gates on a stock
	// kube-apiserver.
	BackendPolicies Backend = "policies"
)

// The parameter object of the generated policies, as pkg/generators/policies (param.go)
// defines it.
const (
	paramGroup    = policies.ParamGroup
	paramVersion  = policies.ParamVersion
	paramKind     = policies.ParamKind
	paramResource = policies.ParamResource
	// generatedByAnnotation is set on every object featuregate-gen writes for a stock
	// cluster, the stock CRD among them.
	generatedByAnnotation = policies.GeneratedByAnnotation
)

// ParamGVR is the resource of the parameter objects.
var ParamGVR = schema.GroupVersionResource{Group: paramGroup, Version: paramVersion, Resource: paramResource}

const (
	// crdRef and paramRef are how kubectl names the two kinds of object a gate is written in.
	crdRef   = "customresourcedefinition.apiextensions.k8s.io"
	paramRef = paramResource + "." + paramGroup
	// nativeGatesPath and policiesGatesPath are the JSON pointers of the gate list in a CRD
	// and in a parameter object.
	nativeGatesPath   = "/spec/customFeatureGates/featureGates"
	policiesGatesPath = "/spec/featureGates"
)

// paramObject is the parameter object, as pkg/generators/policies defines it.
type paramObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              apiextensionsv1.CustomResourceDefinitionFeatureGates `json:"spec"`
}

// GatedCRD is a CRD with the gates the commands act on. CRD.Spec.CustomFeatureGates holds
// them on either backend: on BackendPolicies it is set, in this copy only, from the spec of
// Param; every other field of CRD is as the server returned it.
type GatedCRD struct {
	CRD     *apiextensionsv1.CustomResourceDefinition
	Backend Backend
	// Param is the parameter object as the server returned it; nil on BackendNative.
	Param *unstructured.Unstructured
}

// objectRef is how kubectl names the object that holds the gate states of crd on backend b:
// resource.group/name. The name is the CRD's name on either backend.
func objectRef(b Backend, crd string) string {
	if b == BackendPolicies {
		return paramRef + "/" + crd
	}
	return crdRef + "/" + crd
}

// gatesSource describes where the gates of crd on backend b live, for the header of a
// report: "" on the native backend, whose reports stay as they were.
func gatesSource(b Backend, crd string) string {
	if b == BackendPolicies {
		return fmt.Sprintf("gates: %s %s (admission policies)", paramKind, crd)
	}
	return ""
}

// gatesPath is the JSON pointer of the gate list in the object that holds g's gate states.
func (g *GatedCRD) gatesPath() string {
	if g.Backend == BackendPolicies {
		return policiesGatesPath
	}
	return nativeGatesPath
}

// managedByClientSideApply is ManagedByClientSideApply for the object that holds g's gate
// states: the CRD, or its parameter object.
func (g *GatedCRD) managedByClientSideApply() bool {
	if g.Backend == BackendPolicies {
		return managedByClientSideApply(g.Param.GetAnnotations(), g.Param.GetManagedFields())
	}
	return ManagedByClientSideApply(g.CRD)
}

// applyBody is the server-side apply configuration, for the object that holds g's gate
// states, that sets enabled on each gate of values as fieldManager and carries every other
// field that manager owns there (applyBodyMany, ParamApplyBody).
func (g *GatedCRD) applyBody(fieldManager string, values []GateValue) ([]byte, error) {
	if g.Backend == BackendPolicies {
		return ParamApplyBody(g.Param, fieldManager, values)
	}
	return applyBodyMany(g.CRD, fieldManager, values)
}

// gateReader reads CRDs with their gates, detecting each one's backend.
type gateReader struct {
	crds apiextensionsv1client.CustomResourceDefinitionInterface
	// params reads the parameter objects. When it is nil only the native backend is
	// detected: a CRD without spec.customFeatureGates is then read as native, without gates.
	params dynamic.Interface
}

// get reads the CRD named name and its gates. The backend is native when the CRD has
// spec.customFeatureGates, else policies when a CustomResourceFeatureGates of that name
// exists; a CRD with neither is an error that says so, as is a parameter object that cannot
// be read for another reason than that it, or its kind, does not exist.
func (r *gateReader) get(ctx context.Context, name string) (*GatedCRD, error) {
	crd, err := getCRD(ctx, r.crds, name)
	if err != nil {
		return nil, err
	}
	if crd.Spec.CustomFeatureGates != nil || r.params == nil {
		return &GatedCRD{CRD: crd, Backend: BackendNative}, nil
	}
	param, err := r.params.Resource(ParamGVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, noGatesError(crd, paramKindServed(err, name))
	}
	if err != nil {
		return nil, fmt.Errorf("customresourcedefinition %q has no spec.customFeatureGates, and its %s object %s cannot be read: %w", name, paramKind, paramRef+"/"+name, err)
	}
	return policiesCRD(crd, param)
}

// list reads every CRD that declares gates on either backend, in name order, with its
// gates. The parameter objects are listed once, and only when some CRD has no
// spec.customFeatureGates. When the server does not serve their kind, no CRD is on the
// policies backend; when they cannot be listed for another reason, the CRDs of the native
// backend are still returned, and a warning says which ones may be missing.
func (r *gateReader) list(ctx context.Context) (gated []GatedCRD, warnings []string, err error) {
	l, err := r.crds.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot list customresourcedefinitions: %w", err)
	}
	crds := l.Items
	sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
	var params map[string]*unstructured.Unstructured
	listed := false
	for i := range crds {
		crd := &crds[i]
		if crd.Spec.CustomFeatureGates != nil || r.params == nil {
			gated = append(gated, GatedCRD{CRD: crd, Backend: BackendNative})
			continue
		}
		if !listed {
			listed = true
			if params, err = r.listParams(ctx); err != nil {
				warnings = append(warnings, fmt.Sprintf("cannot list %s, so the CRDs whose gates admission policies enforce (on a stock kube-apiserver) are not listed: %v", paramRef, err))
			}
		}
		param, ok := params[crd.Name]
		if !ok {
			continue
		}
		g, err := policiesCRD(crd, param)
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		gated = append(gated, *g)
	}
	return gated, warnings, nil
}

// listParams returns the parameter objects by name; none when the kind is not served.
func (r *gateReader) listParams(ctx context.Context) (map[string]*unstructured.Unstructured, error) {
	l, err := r.params.Resource(ParamGVR).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	params := make(map[string]*unstructured.Unstructured, len(l.Items))
	for i := range l.Items {
		params[l.Items[i].GetName()] = &l.Items[i]
	}
	return params, nil
}

// policiesCRD returns crd on the policies backend: a copy with spec.customFeatureGates set
// from the spec of param, its parameter object.
func policiesCRD(crd *apiextensionsv1.CustomResourceDefinition, param *unstructured.Unstructured) (*GatedCRD, error) {
	p, err := toParam(param)
	if err != nil {
		return nil, err
	}
	out := crd.DeepCopy()
	out.Spec.CustomFeatureGates = p.Spec.DeepCopy()
	return &GatedCRD{CRD: out, Backend: BackendPolicies, Param: param}, nil
}

// toParam decodes a parameter object.
func toParam(u *unstructured.Unstructured) (*paramObject, error) {
	p := &paramObject{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, p); err != nil {
		return nil, fmt.Errorf("%s %s is not a valid %s: %w", paramKind, u.GetName(), paramKind, err)
	}
	return p, nil
}

// paramKindServed reports, for a NotFound answer to a read of the parameter object named
// name, whether the server serves the kind at all: kube-apiserver names a missing object in
// the answer's details, and names nothing when it serves no such resource.
func paramKindServed(err error, name string) bool {
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Name == name
}

// noGatesError says that crd declares no gates on either backend, and what to do about a
// CRD that featuregate-gen generated for a stock cluster.
func noGatesError(crd *apiextensionsv1.CustomResourceDefinition, kindServed bool) error {
	msg := fmt.Sprintf("customresourcedefinition %q declares no field feature gates: neither spec.customFeatureGates nor a %s object of that name", crd.Name, paramKind)
	switch by, generated := crd.Annotations[generatedByAnnotation]; {
	case generated:
		msg += fmt.Sprintf("; the CRD was generated by %s (annotation %s): apply the %s object %s that was generated with it", by, generatedByAnnotation, paramKind, crd.Name)
	case !kindServed:
		msg += fmt.Sprintf(" (this cluster does not serve %s)", paramRef)
	}
	return fmt.Errorf("%s", msg)
}

// ParamApplyBody is ApplyBody for a parameter object: the server-side apply configuration
// that sets enabled on each gate of values as the field manager fieldManager, and carries
// every other field of param, as read from the server, that the manager owns, with its
// current value. A gate's fields are found by the CRD's own apply configuration, since the
// parameter object's spec has the shape of spec.customFeatureGates (featureGates a map list
// keyed by name).
func ParamApplyBody(param *unstructured.Unstructured, fieldManager string, values []GateValue) ([]byte, error) {
	p, err := toParam(param)
	if err != nil {
		return nil, err
	}
	managed, err := asCRDManagedFields(p.ManagedFields)
	if err != nil {
		return nil, fmt.Errorf("reading the fields field manager %q owns in %s %s: %w", fieldManager, paramKind, p.Name, err)
	}
	// The parameter object as a CRD: its metadata and its spec as spec.customFeatureGates,
	// with the fields each manager owns moved there too.
	asCRD := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Labels: p.Labels, Annotations: p.Annotations, ManagedFields: managed},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{CustomFeatureGates: &p.Spec},
	}
	crdBody, err := applyBodyMany(asCRD, fieldManager, values)
	if err != nil {
		return nil, err
	}
	var ac struct {
		Metadata json.RawMessage `json:"metadata"`
		Spec     struct {
			CustomFeatureGates json.RawMessage `json:"customFeatureGates"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(crdBody, &ac); err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Kind       string          `json:"kind"`
		APIVersion string          `json:"apiVersion"`
		Metadata   json.RawMessage `json:"metadata"`
		Spec       json.RawMessage `json:"spec"`
	}{paramKind, paramGroup + "/" + paramVersion, ac.Metadata, ac.Spec.CustomFeatureGates})
}

// asCRDManagedFields returns the managed fields of a parameter object as those of a CRD
// whose spec.customFeatureGates is the parameter object's spec: each entry's metadata fields
// as they are, its spec fields under spec.customFeatureGates, and nothing else.
func asCRDManagedFields(entries []metav1.ManagedFieldsEntry) ([]metav1.ManagedFieldsEntry, error) {
	out := make([]metav1.ManagedFieldsEntry, 0, len(entries))
	for _, e := range entries {
		if e.FieldsV1 == nil {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(e.FieldsV1.Raw, &fields); err != nil {
			return nil, fmt.Errorf("managed fields of %q: %w", e.Manager, err)
		}
		moved := map[string]interface{}{}
		if m, ok := fields["f:metadata"]; ok {
			moved["f:metadata"] = m
		}
		if s, ok := fields["f:spec"]; ok {
			moved["f:spec"] = map[string]json.RawMessage{"f:customFeatureGates": s}
		}
		raw, err := json.Marshal(moved)
		if err != nil {
			return nil, err
		}
		e.APIVersion = "apiextensions.k8s.io/v1"
		e.FieldsV1 = &metav1.FieldsV1{Raw: raw}
		out = append(out, e)
	}
	return out, nil
}

// read reads the CRD named crdName and its gates (gateReader.get), with the parameter
// objects read through t.Params.
func (t *Toggler) read(ctx context.Context, crdName string) (*GatedCRD, error) {
	return (&gateReader{crds: t.Client, params: t.Params}).get(ctx, crdName)
}

// patch sends a patch to the object that holds g's gate states, the CRD or its parameter
// object, and returns g as the server answered: on the policies backend, g's CRD with the
// gates of the parameter object the server returned. The CRD of the policies backend is
// never written.
func (t *Toggler) patch(ctx context.Context, g *GatedCRD, pt types.PatchType, body []byte, opts metav1.PatchOptions) (*GatedCRD, error) {
	if g.Backend != BackendPolicies {
		out, err := t.Client.Patch(ctx, g.CRD.Name, pt, body, opts)
		if err != nil {
			return nil, err
		}
		return &GatedCRD{CRD: out, Backend: BackendNative}, nil
	}
	if t.Params == nil {
		return nil, fmt.Errorf("no client for %s", paramRef)
	}
	out, err := t.Params.Resource(ParamGVR).Patch(ctx, g.CRD.Name, pt, body, opts)
	if err != nil {
		return nil, err
	}
	return policiesCRD(g.CRD, out)
}

// gateReader returns the reader of the CRDs' gates on either backend. Its parameter object
// client is nil when the options have no client for custom resources (tests that fake CRDs
// only): then only the native backend is detected.
func (o *Options) gateReader() (*gateReader, error) {
	c, err := o.newClient()
	if err != nil {
		return nil, err
	}
	r := &gateReader{crds: c}
	if o.newDynamicClient != nil {
		if r.params, err = o.newDynamicClient(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// backendRows returns the rows of `list` for g (listRows), each with g's backend when it is
// not native.
func backendRows(g GatedCRD) []ListRow {
	rows := listRows(g.CRD)
	if g.Backend == BackendPolicies {
		for i := range rows {
			rows[i].Backend = g.Backend
		}
	}
	return rows
}

// backendOf is b, or BackendNative for the empty backend of the native reports.
func backendOf(b Backend) Backend {
	if b == "" {
		return BackendNative
	}
	return b
}
