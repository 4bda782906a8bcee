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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

const databases = "databases.gates.example.com"

// stockCRD is crd as featuregate-gen writes it for a stock kube-apiserver: without
// spec.customFeatureGates, and with the generated-by annotation.
func stockCRD(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	crd = crd.DeepCopy()
	crd.Spec.CustomFeatureGates = nil
	crd.Annotations = map[string]string{generatedByAnnotation: "featuregate-gen policies"}
	return crd
}

// paramOf returns the CustomResourceFeatureGates object of crd: named like it, with its
// spec.customFeatureGates as spec. edit, if not nil, changes it first.
func paramOf(crd *apiextensionsv1.CustomResourceDefinition, edit func(*paramObject)) *unstructured.Unstructured {
	p := &paramObject{
		TypeMeta:   metav1.TypeMeta{APIVersion: paramGroup + "/" + paramVersion, Kind: paramKind},
		ObjectMeta: metav1.ObjectMeta{Name: crd.Name},
		Spec:       *crd.Spec.CustomFeatureGates.DeepCopy(),
	}
	if edit != nil {
		edit(p)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

// stockClient is the dynamic client of a stock cluster: the parameter objects are the fake's,
// and the pagedServer lists the objects of every other resource.
type stockClient struct {
	pagedClient
}

func (c stockClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	if gvr == ParamGVR {
		return c.FakeDynamicClient.Resource(gvr)
	}
	return c.pagedClient.Resource(gvr)
}

// stockCluster is a fake cluster of CRDs, CustomResourceFeatureGates objects, and the objects
// of one CRD.
type stockCluster struct {
	crds   *fake.Clientset
	params *dynamicfake.FakeDynamicClient
	server *pagedServer
	// paramPatches are the patches the parameter objects received, as
	// "TYPE name manager=M force=F BODY".
	paramPatches []string
}

// newStockCluster returns a cluster that holds crds and params; the pagedServer lists objs.
// The parameter objects answer a JSON patch as kube-apiserver does (a failed operation is a
// 422), and a server-side apply by setting enabled on the gates it names, which is all the
// commands send.
func newStockCluster(t *testing.T, crds []*apiextensionsv1.CustomResourceDefinition, params []*unstructured.Unstructured, objs ...*unstructured.Unstructured) *stockCluster {
	t.Helper()
	var crdObjs []runtime.Object
	for _, crd := range crds {
		crdObjs = append(crdObjs, crd)
	}
	c := &stockCluster{
		crds:   fake.NewSimpleClientset(crdObjs...),
		params: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{ParamGVR: paramKind + "List"}),
		server: &pagedServer{objs: objs},
	}
	serverLikeJSONPatch(c.crds, nil)
	for _, p := range params {
		if err := c.params.Tracker().Create(ParamGVR, p, ""); err != nil {
			t.Fatal(err)
		}
	}
	c.params.PrependReactor("patch", paramResource, func(a clienttesting.Action) (bool, runtime.Object, error) {
		pa := a.(clienttesting.PatchActionImpl)
		force := "<nil>"
		if pa.PatchOptions.Force != nil {
			force = fmt.Sprint(*pa.PatchOptions.Force)
		}
		c.paramPatches = append(c.paramPatches, fmt.Sprintf("%s %s manager=%s force=%s %s", pa.GetPatchType(), pa.GetName(), pa.PatchOptions.FieldManager, force, pa.GetPatch()))
		obj, err := c.params.Tracker().Get(ParamGVR, "", pa.GetName())
		if err != nil {
			return true, nil, err
		}
		js, err := json.Marshal(obj)
		if err != nil {
			return true, nil, err
		}
		switch pa.GetPatchType() {
		case types.JSONPatchType:
			p, err := jsonpatch.DecodePatch(pa.GetPatch())
			if err != nil {
				return true, nil, err
			}
			if js, err = p.Apply(js); err != nil {
				return true, nil, apierrors.NewGenericServerResponse(422, "", schema.GroupResource{}, "", err.Error(), 0, false)
			}
		case types.ApplyPatchType:
			var applied paramObject
			if err := json.Unmarshal(pa.GetPatch(), &applied); err != nil {
				return true, nil, err
			}
			var stored paramObject
			if err := json.Unmarshal(js, &stored); err != nil {
				return true, nil, err
			}
			for _, a := range applied.Spec.FeatureGates {
				for i := range stored.Spec.FeatureGates {
					if stored.Spec.FeatureGates[i].Name == a.Name {
						stored.Spec.FeatureGates[i].Enabled = a.Enabled
					}
				}
			}
			if js, err = json.Marshal(stored); err != nil {
				return true, nil, err
			}
		default:
			return true, nil, fmt.Errorf("unexpected patch type %s", pa.GetPatchType())
		}
		out := &unstructured.Unstructured{}
		if err := json.Unmarshal(js, &out.Object); err != nil {
			return true, nil, err
		}
		return true, out, c.params.Tracker().Update(ParamGVR, out, "")
	})
	return c
}

// run runs the plugin with args against the cluster.
func (c *stockCluster) run(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	o := &Options{
		ConfigFlags: genericclioptions.NewConfigFlags(false),
		PrintFlags:  genericclioptions.NewPrintFlags(""),
		Streams:     genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		newClient: func() (apiextensionsv1client.CustomResourceDefinitionInterface, error) {
			return c.crds.ApiextensionsV1().CustomResourceDefinitions(), nil
		},
		newDynamicClient: func() (dynamic.Interface, error) {
			return stockClient{pagedClient{FakeDynamicClient: c.params, server: c.server}}, nil
		},
	}
	cmd := newCommand(o)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

// crdWrites are the requests the CRDs received other than reads.
func (c *stockCluster) crdWrites() []string {
	var writes []string
	for _, a := range c.crds.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
			writes = append(writes, v+" "+a.GetResource().Resource)
		}
	}
	return writes
}

// param returns the stored parameter object named name.
func (c *stockCluster) param(t *testing.T, name string) *paramObject {
	t.Helper()
	obj, err := c.params.Tracker().Get(ParamGVR, "", name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := toParam(obj.(*unstructured.Unstructured))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// notServed makes the cluster answer every request for the parameter objects as
// kube-apiserver answers a resource it does not serve: 404, naming no object.
func (c *stockCluster) notServed() {
	c.params.PrependReactor("*", paramResource, func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{}, "")
	})
}

// forbidden makes the cluster refuse every request for the parameter objects.
func (c *stockCluster) forbidden() {
	c.params.PrependReactor("*", paramResource, func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(ParamGVR.GroupResource(), "", fmt.Errorf("user cannot %s", a.GetVerb()))
	})
}

func TestGateReaderBackend(t *testing.T) {
	native := databaseCRD()
	stock := stockCRD(databaseCRD())
	param := paramOf(withEnabled(databaseCRD(), "BackupGate", ptr(true)), nil)
	plain := stockCRD(databaseCRD())
	plain.Annotations = nil
	noGatesMsg := `customresourcedefinition "databases.gates.example.com" declares no field feature gates: neither spec.customFeatureGates nor a CustomResourceFeatureGates object of that name`
	tests := []struct {
		name      string
		crd       *apiextensionsv1.CustomResourceDefinition
		params    []*unstructured.Unstructured
		cluster   func(*stockCluster)
		noParams  bool // the reader has no client for the parameter objects
		want      Backend
		wantGates *apiextensionsv1.CustomResourceDefinitionFeatureGates
		wantErr   string
	}{{
		name: "native: the CRD has spec.customFeatureGates", crd: native,
		want: BackendNative, wantGates: databaseCRD().Spec.CustomFeatureGates,
	}, {
		name: "native wins over a parameter object", crd: native, params: []*unstructured.Unstructured{param},
		want: BackendNative, wantGates: databaseCRD().Spec.CustomFeatureGates,
	}, {
		name: "policies: no spec.customFeatureGates, a CustomResourceFeatureGates of the CRD's name", crd: stock, params: []*unstructured.Unstructured{param},
		want: BackendPolicies, wantGates: withEnabled(databaseCRD(), "BackupGate", ptr(true)).Spec.CustomFeatureGates,
	}, {
		name: "neither, the CRD generated for a stock cluster: apply its parameter object", crd: stock,
		params:  []*unstructured.Unstructured{paramOf(versionsCRD(apiextensionsv1.NoneConverter, nil), nil)},
		wantErr: noGatesMsg + `; the CRD was generated by featuregate-gen policies (annotation featuregates.apiextensions.x-k8s.io/generated-by): apply the CustomResourceFeatureGates object databases.gates.example.com that was generated with it`,
	}, {
		name: "neither, a CRD without gates", crd: plain,
		wantErr: noGatesMsg,
	}, {
		name: "neither, the kind is not served", crd: plain, cluster: (*stockCluster).notServed,
		wantErr: noGatesMsg + ` (this cluster does not serve customresourcefeaturegates.featuregates.apiextensions.x-k8s.io)`,
	}, {
		name: "the kind is not served, a generated CRD", crd: stock, cluster: (*stockCluster).notServed,
		wantErr: noGatesMsg + `; the CRD was generated by featuregate-gen policies`,
	}, {
		name: "the parameter object cannot be read", crd: stock, params: []*unstructured.Unstructured{param}, cluster: (*stockCluster).forbidden,
		wantErr: `customresourcedefinition "databases.gates.example.com" has no spec.customFeatureGates, and its CustomResourceFeatureGates object customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com cannot be read: customresourcefeaturegates.featuregates.apiextensions.x-k8s.io is forbidden: user cannot get`,
	}, {
		name: "without a client for the parameter objects, only native is detected", crd: stock, params: []*unstructured.Unstructured{param}, noParams: true,
		want: BackendNative,
	}, {
		name: "no such CRD", crd: versionsCRD(apiextensionsv1.NoneConverter, nil), params: []*unstructured.Unstructured{param},
		wantErr: `customresourcedefinition "databases.gates.example.com" not found`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{tc.crd}, tc.params)
			if tc.cluster != nil {
				tc.cluster(c)
			}
			r := &gateReader{crds: c.crds.ApiextensionsV1().CustomResourceDefinitions(), params: c.params}
			if tc.noParams {
				r.params = nil
			}
			g, err := r.get(context.Background(), databases)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v\nwant   %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Backend != tc.want {
				t.Errorf("backend %s, want %s", g.Backend, tc.want)
			}
			if diff := cmp.Diff(tc.wantGates, g.CRD.Spec.CustomFeatureGates); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
			// Only the gates come from the parameter object.
			got := g.CRD.DeepCopy()
			got.Spec.CustomFeatureGates = tc.crd.Spec.CustomFeatureGates
			if diff := cmp.Diff(tc.crd, got); diff != "" {
				t.Errorf("the CRD besides its gates (-want +got):\n%s", diff)
			}
			if (g.Param != nil) != (tc.want == BackendPolicies) {
				t.Errorf("param %v on backend %s", g.Param, g.Backend)
			}
		})
	}
}

func TestListPolicies(t *testing.T) {
	// widgets.example.com is native; databases.gates.example.com is on the policies backend,
	// with BackupGate enabled in its parameter object; crontabs.stable.example.com declares no
	// gates on either.
	plain := stockCRD(databaseCRD())
	plain.Name, plain.Annotations = "crontabs.stable.example.com", nil
	crds := []*apiextensionsv1.CustomResourceDefinition{scaleCRD(), stockCRD(databaseCRD()), plain}
	params := []*unstructured.Unstructured{paramOf(withEnabled(databaseCRD(), "BackupGate", ptr(true)), nil)}
	table := `CRD                           GATE                   STAGE        ENABLED   STATE     FIELDS                       COMPONENT
databases.gates.example.com   BackupGate             alpha        true      enabled   .spec.backup                 databases.gates.example.com
databases.gates.example.com   BackupEncryptionGate   beta         <unset>   enabled   .spec.backup.encryption      databases.gates.example.com
databases.gates.example.com   TagsGate               stable       <unset>   enabled   .spec.tags                   databases.gates.example.com
databases.gates.example.com   LabelsGate             deprecated   <unset>   enabled   .spec.labels[*]              databases.gates.example.com
widgets.example.com           ScaleGate              beta         <unset>   enabled   .spec.replicas,.spec.scale   <none>
`
	tests := []struct {
		name       string
		args       []string
		cluster    func(*stockCluster)
		want       string
		wantStderr string
		wantErr    string
	}{{
		name: "every CRD, either backend",
		args: []string{"list"},
		want: table,
	}, {
		name: "wide adds BACKEND",
		args: []string{"list", "-o", "wide"},
		want: `CRD                           GATE                   STAGE        ENABLED   DEFAULT   STATE     FIELDS                       COMPONENT                     BACKEND
databases.gates.example.com   BackupGate             alpha        true      <unset>   enabled   .spec.backup                 databases.gates.example.com   policies
databases.gates.example.com   BackupEncryptionGate   beta         <unset>   <unset>   enabled   .spec.backup.encryption      databases.gates.example.com   policies
databases.gates.example.com   TagsGate               stable       <unset>   <unset>   enabled   .spec.tags                   databases.gates.example.com   policies
databases.gates.example.com   LabelsGate             deprecated   <unset>   true      enabled   .spec.labels[*]              databases.gates.example.com   policies
widgets.example.com           ScaleGate              beta         <unset>   <unset>   enabled   .spec.replicas,.spec.scale   <none>                        native
`,
	}, {
		name: "one CRD on the policies backend",
		args: []string{"list", databases, "-o", "jsonpath={range .items[*]}{.gate}={.state}/{.backend} {end}"},
		want: "BackupGate=enabled/policies BackupEncryptionGate=enabled/policies TagsGate=enabled/policies LabelsGate=enabled/policies ",
	}, {
		name:    "a CRD with neither",
		args:    []string{"list", "crontabs.stable.example.com"},
		wantErr: `customresourcedefinition "crontabs.stable.example.com" declares no field feature gates: neither spec.customFeatureGates nor a CustomResourceFeatureGates object of that name`,
	}, {
		name:    "the kind is not served: the native CRDs only",
		args:    []string{"list"},
		cluster: (*stockCluster).notServed,
		want: `CRD                   GATE        STAGE   ENABLED   STATE     FIELDS                       COMPONENT
widgets.example.com   ScaleGate   beta    <unset>   enabled   .spec.replicas,.spec.scale   <none>
`,
	}, {
		name:    "the parameter objects cannot be listed: the native CRDs, and a warning",
		args:    []string{"list"},
		cluster: (*stockCluster).forbidden,
		want: `CRD                   GATE        STAGE   ENABLED   STATE     FIELDS                       COMPONENT
widgets.example.com   ScaleGate   beta    <unset>   enabled   .spec.replicas,.spec.scale   <none>
`,
		wantStderr: "Warning: cannot list customresourcefeaturegates.featuregates.apiextensions.x-k8s.io, so the CRDs whose gates admission policies enforce (on a stock kube-apiserver) are not listed: customresourcefeaturegates.featuregates.apiextensions.x-k8s.io is forbidden: user cannot list\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newStockCluster(t, crds, params)
			if tc.cluster != nil {
				tc.cluster(c)
			}
			out, stderr, err := c.run(tc.args...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v\nwant   %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if stderr != tc.wantStderr {
				t.Errorf("stderr %q, want %q", stderr, tc.wantStderr)
			}
			if w := c.crdWrites(); len(w) > 0 {
				t.Errorf("list wrote %v", w)
			}
		})
	}
}

func TestStatusPolicies(t *testing.T) {
	c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{stockCRD(databaseCRD())},
		[]*unstructured.Unstructured{paramOf(withEnabled(withEnabled(databaseCRD(), "BackupGate", ptr(true)), "BackupEncryptionGate", ptr(false)), nil)})
	out, _, err := c.run("status", databases, ".spec.backup", ".spec.backup.encryption", ".spec.engine")
	if err != nil {
		t.Fatal(err)
	}
	want := `# gates: CustomResourceFeatureGates databases.gates.example.com (admission policies)
# databases.gates.example.com, storage version v1
FIELD                     GATE                   STAGE   LIVE   REASON
.spec.backup              BackupGate             alpha   yes
.spec.backup.encryption   BackupEncryptionGate   beta    no     feature gate BackupEncryptionGate (beta) is disabled
.spec.engine              -                      -       yes
`
	if diff := cmp.Diff(want, trimLines(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}

	out, _, err = c.run("status", databases, ".spec.backup", "-o", "jsonpath={.backend}")
	if err != nil || out != "policies" {
		t.Errorf("backend %q, %v; want policies", out, err)
	}
	// The native report is as it was: no header, no backend.
	out, err = runPlugin(databaseCRD(), "status", databases, ".spec.engine", "-o", "json")
	if err != nil || strings.Contains(out, "backend") {
		t.Errorf("native status json has a backend (%v):\n%s", err, out)
	}
}

func TestUsagePolicies(t *testing.T) {
	c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{stockCRD(databaseCRD())},
		[]*unstructured.Unstructured{paramOf(databaseCRD(), nil)},
		cr("databases", "default", "orders", `{"engine": "pg", "backup": {"encryption": {"keySecretName": "k"}}}`),
		cr("databases", "default", "users", `{"labels": {"team": "a"}}`))
	out, _, err := c.run("usage", databases, "BackupGate", "LabelsGate")
	if err != nil {
		t.Fatal(err)
	}
	want := `# gates: CustomResourceFeatureGates databases.gates.example.com (admission policies)
# databases.gates.example.com, storage version v1: 2 objects scanned
GATE         STAGE        STATE      OBJECTS   EXAMPLES
BackupGate   alpha        disabled   1         default/orders
LabelsGate   deprecated   enabled    1         default/users
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// managedParam is the parameter object of databaseCRD on which the field manager
// cluster-admin owns enabled of BackupGate (true) and a label, and ops owns enabled of
// LabelsGate (false).
func managedParam() *unstructured.Unstructured {
	crd := withEnabled(withEnabled(databaseCRD(), "BackupGate", ptr(true)), "LabelsGate", ptr(false))
	return paramOf(crd, func(p *paramObject) {
		p.Labels = map[string]string{"team": "platform"}
		p.ManagedFields = []metav1.ManagedFieldsEntry{
			{Manager: "featuregate-gen", Operation: metav1.ManagedFieldsOperationApply, APIVersion: paramGroup + "/" + paramVersion, FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:component":{},"f:featureGates":{"k:{\"name\":\"BackupGate\"}":{".":{},"f:name":{},"f:preRelease":{},"f:fieldPaths":{}}}}}`)}},
			{Manager: "cluster-admin", Operation: metav1.ManagedFieldsOperationApply, APIVersion: paramGroup + "/" + paramVersion, FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:team":{}}},"f:spec":{"f:featureGates":{"k:{\"name\":\"BackupGate\"}":{".":{},"f:enabled":{},"f:name":{}}}}}`)}},
			{Manager: "ops", Operation: metav1.ManagedFieldsOperationApply, APIVersion: paramGroup + "/" + paramVersion, FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:featureGates":{"k:{\"name\":\"LabelsGate\"}":{".":{},"f:enabled":{},"f:name":{}}}}}`)}},
		}
	})
}

// clientSideApplied is the parameter object of databaseCRD as client-side kubectl apply
// installed it.
func clientSideApplied() *unstructured.Unstructured {
	return paramOf(databaseCRD(), func(p *paramObject) {
		p.Annotations = map[string]string{lastAppliedAnnotation: "{}"}
		p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: paramGroup + "/" + paramVersion, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},"f:spec":{"f:featureGates":{}}}`)}}}
	})
}

func TestParamApplyBody(t *testing.T) {
	head := `{"kind":"CustomResourceFeatureGates","apiVersion":"featuregates.apiextensions.x-k8s.io/v1alpha1",`
	tests := []struct {
		name    string
		param   *unstructured.Unstructured
		manager string
		values  []GateValue
		want    string
	}{{
		name: "nothing owned", param: paramOf(databaseCRD(), nil), manager: "cluster-admin", values: []GateValue{{"BackupGate", true}},
		want: head + `"metadata":{"name":"databases.gates.example.com"},"spec":{"featureGates":[{"name":"BackupGate","enabled":true}]}}`,
	}, {
		name: "the manager's other gate and label are kept; ops's gate is not the manager's", param: managedParam(), manager: "cluster-admin", values: []GateValue{{"TagsGate", true}},
		want: head + `"metadata":{"name":"databases.gates.example.com","labels":{"team":"platform"}},"spec":{"featureGates":[{"name":"BackupGate","enabled":true},{"name":"TagsGate","enabled":true}]}}`,
	}, {
		name: "an owned gate changes in place", param: managedParam(), manager: "cluster-admin", values: []GateValue{{"BackupGate", false}},
		want: head + `"metadata":{"name":"databases.gates.example.com","labels":{"team":"platform"}},"spec":{"featureGates":[{"name":"BackupGate","enabled":false}]}}`,
	}, {
		name: "another manager's fields", param: managedParam(), manager: "ops", values: []GateValue{{"BackupEncryptionGate", false}, {"LabelsGate", true}},
		want: head + `"metadata":{"name":"databases.gates.example.com"},"spec":{"featureGates":[{"name":"LabelsGate","enabled":true},{"name":"BackupEncryptionGate","enabled":false}]}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParamApplyBody(tc.param, tc.manager, tc.values)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestTogglePolicies(t *testing.T) {
	tests := []struct {
		name  string
		param *unstructured.Unstructured
		args  []string
		// wantPatches are the patches the parameter object receives.
		wantPatches []string
		want        string
		// wantEnabled is enabled of each gate in the stored parameter object afterwards.
		wantEnabled map[string]*bool
		wantErr     string
	}{{
		name:  "enable: server-side apply of the parameter object",
		param: paramOf(databaseCRD(), nil),
		args:  []string{"enable", databases, "BackupGate"},
		wantPatches: []string{`application/apply-patch+yaml databases.gates.example.com manager=cluster-admin force=false ` +
			`{"kind":"CustomResourceFeatureGates","apiVersion":"featuregates.apiextensions.x-k8s.io/v1alpha1","metadata":{"name":"databases.gates.example.com"},"spec":{"featureGates":[{"name":"BackupGate","enabled":true}]}}`},
		want:        "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com: feature gate BackupGate enabled (server-side apply, field manager cluster-admin); state: enabled\n",
		wantEnabled: map[string]*bool{"BackupGate": ptr(true), "BackupEncryptionGate": nil, "TagsGate": nil, "LabelsGate": nil},
	}, {
		name:  "enable keeps the gates the manager set",
		param: managedParam(),
		args:  []string{"enable", databases, "BackupEncryptionGate", "--force-conflicts"},
		wantPatches: []string{`application/apply-patch+yaml databases.gates.example.com manager=cluster-admin force=true ` +
			`{"kind":"CustomResourceFeatureGates","apiVersion":"featuregates.apiextensions.x-k8s.io/v1alpha1","metadata":{"name":"databases.gates.example.com","labels":{"team":"platform"}},"spec":{"featureGates":[{"name":"BackupGate","enabled":true},{"name":"BackupEncryptionGate","enabled":true}]}}`},
		want:        "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com: feature gate BackupEncryptionGate enabled (server-side apply, field manager cluster-admin); state: enabled\n",
		wantEnabled: map[string]*bool{"BackupGate": ptr(true), "BackupEncryptionGate": ptr(true), "LabelsGate": ptr(false)},
	}, {
		name:  "disable: a guarded JSON patch of the parameter object that client-side apply installed",
		param: clientSideApplied(),
		args:  []string{"disable", databases, "LabelsGate", "--skip-usage"},
		wantPatches: []string{`application/json-patch+json databases.gates.example.com manager=cluster-admin force=<nil> ` +
			`[{"op":"test","path":"/spec/featureGates/3/name","value":"LabelsGate"},{"op":"add","path":"/spec/featureGates/3/enabled","value":false}]`},
		want:        "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com: feature gate LabelsGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled\n",
		wantEnabled: map[string]*bool{"LabelsGate": ptr(false), "BackupGate": nil},
	}, {
		name:  "disable counts the objects first",
		param: paramOf(databaseCRD(), nil),
		args:  []string{"disable", databases, "LabelsGate", "--method=patch", "--field-manager=ops"},
		wantPatches: []string{`application/json-patch+json databases.gates.example.com manager=ops force=<nil> ` +
			`[{"op":"test","path":"/spec/featureGates/3/name","value":"LabelsGate"},{"op":"add","path":"/spec/featureGates/3/enabled","value":false}]`},
		want: "1 object holds values at the fields of LabelsGate (examples: default/users); they are kept, and writes can no longer change them.\n" +
			"customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com: feature gate LabelsGate disabled (JSON patch guarded by the gate's name, field manager ops); state: disabled\n",
		wantEnabled: map[string]*bool{"LabelsGate": ptr(false)},
	}, {
		name:        "enable a stable gate: nothing written",
		param:       paramOf(databaseCRD(), nil),
		args:        []string{"enable", databases, "TagsGate"},
		want:        "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com: feature gate TagsGate is stable and always enabled; nothing to change\n",
		wantEnabled: map[string]*bool{"TagsGate": nil},
	}, {
		name:    "an unknown gate",
		param:   paramOf(databaseCRD(), nil),
		args:    []string{"enable", databases, "NoSuchGate"},
		wantErr: `customresourcedefinition "databases.gates.example.com" declares no feature gate named "NoSuchGate"; its gates are: BackupEncryptionGate, BackupGate, LabelsGate, TagsGate`,
	}, {
		name:  "set: one server-side apply of the parameter object",
		param: paramOf(databaseCRD(), nil),
		args:  []string{"set", databases, "BackupGate=true", "BackupEncryptionGate=false", "TagsGate=true"},
		wantPatches: []string{`application/apply-patch+yaml databases.gates.example.com manager=cluster-admin force=false ` +
			`{"kind":"CustomResourceFeatureGates","apiVersion":"featuregates.apiextensions.x-k8s.io/v1alpha1","metadata":{"name":"databases.gates.example.com"},"spec":{"featureGates":[{"name":"BackupGate","enabled":true},{"name":"BackupEncryptionGate","enabled":false}]}}`},
		want:        "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com: 2 gates set (server-side apply, field manager cluster-admin); state: BackupEncryptionGate=disabled BackupGate=enabled TagsGate=enabled\n",
		wantEnabled: map[string]*bool{"BackupGate": ptr(true), "BackupEncryptionGate": ptr(false), "TagsGate": nil},
	}, {
		name:  "set: one guarded JSON patch of the parameter object",
		param: paramOf(databaseCRD(), nil),
		args:  []string{"set", databases, "LabelsGate=false", "BackupGate=true", "--method=patch"},
		wantPatches: []string{`application/json-patch+json databases.gates.example.com manager=cluster-admin force=<nil> ` +
			`[{"op":"test","path":"/spec/featureGates/3/name","value":"LabelsGate"},{"op":"add","path":"/spec/featureGates/3/enabled","value":false},` +
			`{"op":"test","path":"/spec/featureGates/0/name","value":"BackupGate"},{"op":"add","path":"/spec/featureGates/0/enabled","value":true}]`},
		want:        "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/databases.gates.example.com: 2 gates set (JSON patch guarded by the gates' names, field manager cluster-admin); state: BackupGate=enabled LabelsGate=disabled\n",
		wantEnabled: map[string]*bool{"BackupGate": ptr(true), "LabelsGate": ptr(false)},
	}, {
		name:    "set: disabling a stable gate writes nothing",
		param:   paramOf(databaseCRD(), nil),
		args:    []string{"set", databases, "BackupGate=true", "TagsGate=false"},
		wantErr: "feature gate TagsGate of databases.gates.example.com is stable: a stable gate is always enabled and cannot be disabled",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{stockCRD(databaseCRD())}, []*unstructured.Unstructured{tc.param},
				cr("databases", "default", "orders", `{"engine": "pg"}`),
				cr("databases", "default", "users", `{"labels": {"team": "a"}}`))
			out, _, err := c.run(tc.args...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v\nwant   %s", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPatches, c.paramPatches); diff != "" {
				t.Errorf("patches of the parameter object (-want +got):\n%s", diff)
			}
			// The stock CRD is never written.
			if w := c.crdWrites(); len(w) > 0 {
				t.Errorf("the CRD was written: %v", w)
			}
			p := c.param(t, databases)
			for gate, want := range tc.wantEnabled {
				var got *bool
				for _, g := range p.Spec.FeatureGates {
					if g.Name == gate {
						got = g.Enabled
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("enabled of %s (-want +got):\n%s", gate, diff)
				}
			}
		})
	}
}

// TestTogglePoliciesReordered: a JSON patch whose test op fails because the gates of the
// parameter object were reordered is sent again at the gate's new index.
func TestTogglePoliciesReordered(t *testing.T) {
	c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{stockCRD(databaseCRD())}, []*unstructured.Unstructured{paramOf(databaseCRD(), nil)})
	reversed := paramOf(databaseCRD(), func(p *paramObject) {
		g := p.Spec.FeatureGates
		g[0], g[1], g[2], g[3] = g[3], g[2], g[1], g[0]
	})
	first := true
	c.params.PrependReactor("patch", paramResource, func(clienttesting.Action) (bool, runtime.Object, error) {
		if first {
			first = false
			if err := c.params.Tracker().Update(ParamGVR, reversed, ""); err != nil {
				t.Error(err)
			}
		}
		return false, nil, nil
	})
	tg := &Toggler{Client: c.crds.ApiextensionsV1().CustomResourceDefinitions(), Params: c.params, FieldManager: "cluster-admin", Method: MethodPatch}
	res, err := tg.Toggle(context.Background(), databases, "BackupGate", true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Backend != BackendPolicies || gateState(res.CRD, "BackupGate") != "enabled" {
		t.Errorf("attempts %d, backend %s, state %s; want 2, policies, enabled", res.Attempts, res.Backend, gateState(res.CRD, "BackupGate"))
	}
	want := []string{
		`application/json-patch+json databases.gates.example.com manager=cluster-admin force=<nil> [{"op":"test","path":"/spec/featureGates/0/name","value":"BackupGate"},{"op":"add","path":"/spec/featureGates/0/enabled","value":true}]`,
		`application/json-patch+json databases.gates.example.com manager=cluster-admin force=<nil> [{"op":"test","path":"/spec/featureGates/3/name","value":"BackupGate"},{"op":"add","path":"/spec/featureGates/3/enabled","value":true}]`,
	}
	if diff := cmp.Diff(want, c.paramPatches); diff != "" {
		t.Errorf("patches (-want +got):\n%s", diff)
	}
	if p := c.param(t, databases); p.Spec.FeatureGates[3].Name != "BackupGate" || p.Spec.FeatureGates[3].Enabled == nil || !*p.Spec.FeatureGates[3].Enabled || p.Spec.FeatureGates[0].Enabled != nil {
		t.Errorf("stored gates %+v", p.Spec.FeatureGates)
	}
}

// TestRequiresPolicies: the states of gates that require others come from the parameter
// object, as on the native backend.
func TestRequiresPolicies(t *testing.T) {
	gates := func(example *bool) *unstructured.Unstructured {
		crd := exampleCRD(example)
		crd.Spec.CustomFeatureGates.FeatureGates = append(crd.Spec.CustomFeatureGates.FeatureGates,
			apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: "EitherExample", PreRelease: "beta", RequiresAnyOf: []string{"Example", "Example2"}})
		return paramOf(crd, nil)
	}
	tests := []struct {
		name  string
		param *unstructured.Unstructured
		args  []string
		want  string
	}{{
		name:  "list: Example on alone",
		param: gates(ptr(true)),
		args:  []string{"list", "widgets.example.com", "-o", "wide"},
		want: `CRD                   GATE                  STAGE    ENABLED   DEFAULT   STATE                                             FIELDS       COMPONENT   REQUIRES           BACKEND
widgets.example.com   Example               alpha    true      <unset>   enabled                                           .spec.one    <none>      <none>             policies
widgets.example.com   Example2              alpha    <unset>   <unset>   disabled                                          .spec.two    <none>      <none>             policies
widgets.example.com   ExampleWithExample2   stable   <unset>   <unset>   disabled (requires Example2, which is disabled)   .spec.both   <none>      Example,Example2   policies
widgets.example.com   EitherExample         beta     <unset>   <unset>   enabled                                           <none>       <none>      Example|Example2   policies
`,
	}, {
		name:  "list: neither",
		param: gates(nil),
		args:  []string{"list", "widgets.example.com"},
		want: `CRD                   GATE                  STAGE    ENABLED   STATE                                                          FIELDS       COMPONENT
widgets.example.com   Example               alpha    <unset>   disabled                                                       .spec.one    <none>
widgets.example.com   Example2              alpha    <unset>   disabled                                                       .spec.two    <none>
widgets.example.com   ExampleWithExample2   stable   <unset>   disabled (requires Example and Example2, which are disabled)   .spec.both   <none>
widgets.example.com   EitherExample         beta     <unset>   disabled (requires Example or Example2, which are disabled)    <none>       <none>
`,
	}, {
		name:  "enable the last required gate",
		param: gates(ptr(true)),
		args:  []string{"set", "widgets.example.com", "Example2=true"},
		want:  "customresourcefeaturegates.featuregates.apiextensions.x-k8s.io/widgets.example.com: 1 gates set (server-side apply, field manager cluster-admin); state: Example2=enabled\n",
	}, {
		name:  "status: .spec.both is not live while Example2 is off",
		param: gates(ptr(true)),
		args:  []string{"status", "widgets.example.com", ".spec.both"},
		want: `# gates: CustomResourceFeatureGates widgets.example.com (admission policies)
# widgets.example.com, storage version v1
FIELD        GATE                  STAGE    LIVE   REASON
.spec.both   ExampleWithExample2   stable   no     feature gate ExampleWithExample2 (stable) is disabled: requires Example2, which is disabled
`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{stockCRD(exampleCRD(nil))}, []*unstructured.Unstructured{tc.param})
			out, _, err := c.run(tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}

	// After Example2 is enabled in the parameter object, the gate that requires both is.
	c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{stockCRD(exampleCRD(nil))}, []*unstructured.Unstructured{gates(ptr(true))})
	if _, _, err := c.run("enable", "widgets.example.com", "Example2"); err != nil {
		t.Fatal(err)
	}
	out, _, err := c.run("list", "widgets.example.com", "-o", "jsonpath={range .items[*]}{.gate}={.state} {end}")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Example=enabled Example2=enabled ExampleWithExample2=enabled EitherExample=enabled "; out != want {
		t.Errorf("states %q, want %q", out, want)
	}
}

// TestTogglePoliciesUnappliable: a JSON patch the server cannot apply although the gate did
// not move is an error that names the patch and says why.
func TestTogglePoliciesUnappliable(t *testing.T) {
	c := newStockCluster(t, []*apiextensionsv1.CustomResourceDefinition{stockCRD(databaseCRD())}, []*unstructured.Unstructured{paramOf(databaseCRD(), nil)})
	c.params.PrependReactor("patch", paramResource, func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewGenericServerResponse(422, "", schema.GroupResource{}, "", "testing value failed", 0, false)
	})
	tg := &Toggler{Client: c.crds.ApiextensionsV1().CustomResourceDefinitions(), Params: c.params, FieldManager: "cluster-admin", Method: MethodPatch}
	_, err := tg.Toggle(context.Background(), databases, "LabelsGate", true)
	want := `JSON patch of databases.gates.example.com LabelsGate: the server could not apply [{"op":"test","path":"/spec/featureGates/3/name","value":"LabelsGate"},{"op":"add","path":"/spec/featureGates/3/enabled","value":true}]: `
	// The server's answer, not a nil error, follows.
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "the server rejected our request due to an error in our request") {
		t.Errorf("err = %v\nwant one that starts with %s and says why", err, want)
	}
}
