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
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"sigs.k8s.io/yaml"
)

// fleetCRD has one version, the storage version, with gates on [*] paths, nested gates, a
// mark, a named key of a map and a gate without fields:
//
//	PoolNameGate    .spec.pools[*].name            fieldPaths, through a list
//	PoolLabelsGate  .spec.pools[*].labels[*]       fieldPaths, through a list and a map
//	BackupGate      .spec.backup                   a mark of the storage version
//	EncryptionGate  .spec.backup.encryption        fieldPaths, below BackupGate's mark
//	CPUGate         .spec.limits.cpu               fieldPaths, one key of a map
//	RulesGate       -                              guards CEL rules only
func fleetCRD() *apiextensionsv1.CustomResourceDefinition {
	stringMap := apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
		Allows: true, Schema: ptr(scalar("string"))}}
	pool := object(props{"name": scalar("string"), "size": scalar("integer"), "labels": stringMap})
	spec := object(props{
		"pools":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &pool}},
		"backup": marked(object(props{"schedule": scalar("string"), "encryption": object(props{"key": scalar("string")})}), "BackupGate"),
		"limits": stringMap,
		"zone":   scalar("string"),
	})
	crd := versionsCRD(apiextensionsv1.NoneConverter, []apiextensionsv1.CustomResourceDefinitionFeatureGate{
		{Name: "PoolNameGate", PreRelease: "alpha", Enabled: ptr(true), FieldPaths: []string{".spec.pools[*].name"}},
		{Name: "PoolLabelsGate", PreRelease: "beta", FieldPaths: []string{".spec.pools[*].labels[*]"}},
		{Name: "BackupGate", PreRelease: "beta"},
		{Name: "EncryptionGate", PreRelease: "alpha", FieldPaths: []string{".spec.backup.encryption"}},
		{Name: "CPUGate", PreRelease: "deprecated", Default: ptr(true), FieldPaths: []string{".spec.limits.cpu"}},
		{Name: "RulesGate", PreRelease: "beta"},
	}, spec)
	crd.Name, crd.Spec.Names = "fleets.example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "fleets", Kind: "Fleet"}
	return crd
}

// fleets are objects of fleetCRD, each with the gates it counts for in its name.
func fleets() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		cr("fleets", "a", "poolname-poollabels", `{"pools": [{"size": 1}, {"name": "x", "labels": {"tier": "gold"}}]}`),
		cr("fleets", "a", "poolname", `{"pools": [{"name": "y"}]}`),
		cr("fleets", "a", "none-empty-pools", `{"pools": []}`),
		cr("fleets", "a", "none-pools-without-gated-fields", `{"pools": [{"size": 1, "labels": {}}, {"size": 2}]}`),
		cr("fleets", "b", "backup-empty", `{"backup": {}}`),
		cr("fleets", "b", "backup-encryption", `{"backup": {"schedule": "@daily", "encryption": {"key": "k"}}}`),
		cr("fleets", "b", "backup-encryption-empty", `{"backup": {"encryption": {}}}`),
		cr("fleets", "b", "cpu", `{"limits": {"cpu": "2", "memory": "1Gi"}}`),
		cr("fleets", "c", "none-other-key", `{"limits": {"memory": "1Gi"}}`),
		cr("fleets", "c", "none-zone", `{"zone": "eu"}`),
		cr("fleets", "c", "none-no-spec", ``),
	}
}

// widgets are objects of replicasCRD(true), read in v2: ReplicasGate guards .spec.replicas by
// its fieldPaths, ImageGate .spec.image by a mark of v2 only.
func widgets() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		cr("widgets", "default", "w1", `{"replicas": 1, "image": "a"}`),
		cr("widgets", "default", "w2", `{"image": "b"}`),
		cr("widgets", "default", "w3", `{"replicas": 0}`),
		cr("widgets", "prod", "w4", `{}`),
		cr("widgets", "prod", "w5", `{"replicas": 5}`),
		cr("widgets", "prod", "w6", `{"replicas": 6, "image": "f"}`),
		cr("widgets", "prod", "w7", `{"image": ""}`),
	}
}

// cr returns an object of the CRD with the plural resource in the namespace (none when
// empty) with the spec spec (none when empty).
func cr(resource, namespace, name, spec string) *unstructured.Unstructured {
	obj := map[string]interface{}{"metadata": map[string]interface{}{"name": name}}
	if namespace != "" {
		obj["metadata"].(map[string]interface{})["namespace"] = namespace
	}
	if spec != "" {
		var s interface{}
		if err := yaml.Unmarshal([]byte(spec), &s); err != nil {
			panic(err)
		}
		obj["spec"] = s
	}
	return &unstructured.Unstructured{Object: obj}
}

// pagedServer answers list requests for the objects of one resource as kube-apiserver does:
// objs in order, at most limit per page, with a continue token while more remain. It fails
// the request for page failPage (counting from 1) with failErr.
type pagedServer struct {
	objs     []*unstructured.Unstructured
	failPage int
	failErr  error
	// requests are the list requests received: version, namespace if any, limit and
	// continue token.
	requests []string
}

func (s *pagedServer) list(gvr schema.GroupVersionResource, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	s.requests = append(s.requests, fmt.Sprintf("%s limit=%d continue=%q", gvr.Version, opts.Limit, opts.Continue))
	if len(s.requests) == s.failPage {
		return nil, s.failErr
	}
	start := 0
	if opts.Continue != "" {
		var err error
		if start, err = strconv.Atoi(opts.Continue); err != nil {
			return nil, apierrors.NewBadRequest("bad continue token")
		}
	}
	end := len(s.objs)
	if opts.Limit > 0 && start+int(opts.Limit) < end {
		end = start + int(opts.Limit)
	}
	list := &unstructured.UnstructuredList{Object: map[string]interface{}{"apiVersion": gvr.GroupVersion().String(), "kind": "List"}}
	list.SetResourceVersion("2608")
	if end < len(s.objs) {
		list.SetContinue(strconv.Itoa(end))
	}
	for _, o := range s.objs[start:end] {
		item := o.DeepCopy()
		item.SetAPIVersion(gvr.GroupVersion().String())
		list.Items = append(list.Items, *item)
	}
	return list, nil
}

// pagedClient is a dynamic client whose cluster-wide lists the pagedServer answers (the fake
// dynamic client drops a list's limit and continue token). Every other request goes to the
// fake, which records it.
type pagedClient struct {
	*dynamicfake.FakeDynamicClient
	server *pagedServer
}

func (c pagedClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return pagedResource{NamespaceableResourceInterface: c.FakeDynamicClient.Resource(gvr), gvr: gvr, server: c.server}
}

type pagedResource struct {
	dynamic.NamespaceableResourceInterface
	gvr    schema.GroupVersionResource
	server *pagedServer
}

func (r pagedResource) List(_ context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return r.server.list(r.gvr, opts)
}

// usageCluster is a fake cluster that holds one CRD and its objects.
type usageCluster struct {
	crds    *fake.Clientset
	objects *dynamicfake.FakeDynamicClient
	server  *pagedServer
}

func newUsageCluster(crd *apiextensionsv1.CustomResourceDefinition, server *pagedServer) *usageCluster {
	listKinds := map[schema.GroupVersionResource]string{}
	for _, v := range crd.Spec.Versions {
		listKinds[schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}] = crd.Spec.Names.Kind + "List"
	}
	c := &usageCluster{crds: fake.NewSimpleClientset(crd), objects: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds), server: server}
	serverLikeJSONPatch(c.crds, nil)
	return c
}

// run runs the plugin with args against the cluster.
func (c *usageCluster) run(args ...string) (string, error) {
	var out, errOut bytes.Buffer
	o := &Options{
		ConfigFlags: genericclioptions.NewConfigFlags(false),
		PrintFlags:  genericclioptions.NewPrintFlags(""),
		Streams:     genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		newClient: func() (apiextensionsv1client.CustomResourceDefinitionInterface, error) {
			return c.crds.ApiextensionsV1().CustomResourceDefinitions(), nil
		},
		newDynamicClient: func() (dynamic.Interface, error) {
			return pagedClient{FakeDynamicClient: c.objects, server: c.server}, nil
		},
	}
	cmd := newCommand(o)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// requests are the requests the plugin sent for custom resources: the cluster-wide lists
// the pagedServer answered, then every other request.
func (c *usageCluster) requests() []string {
	requests := append([]string{}, c.server.requests...)
	for _, a := range c.objects.Actions() {
		requests = append(requests, a.GetVerb()+" "+a.GetResource().String())
	}
	return requests
}

func TestUsage(t *testing.T) {
	storageNotServed := replicasCRD(true)
	storageNotServed.Spec.Versions[1].Served = false
	clusterScoped := replicasCRD(true)
	clusterScoped.Spec.Scope = apiextensionsv1.ClusterScoped
	noGates := replicasCRD(false)
	noGates.Spec.CustomFeatureGates = nil

	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		// target is the CRD argument, the CRD's name by default.
		target   string
		objs     []*unstructured.Unstructured
		failPage int
		failErr  error
		args     []string
		want     string
		wantErr  string
		// wantRequests are the list requests; by default, one for every object.
		wantRequests []string
	}{{
		name: "fieldPaths and a mark of the storage version, in every namespace",
		crd:  replicasCRD(true),
		objs: widgets(),
		want: `# widgets.example.com, storage version v2: 7 objects scanned
GATE           STAGE   STATE      OBJECTS   EXAMPLES
ReplicasGate   alpha   disabled   4         default/w1, default/w3, prod/w5
ImageGate      beta    disabled   4         default/w1, default/w2, prod/w6
`,
	}, {
		name: "[*] paths, nested gates, a named key of a map, a gate without fields",
		crd:  fleetCRD(),
		objs: fleets(),
		args: []string{"--examples=5"},
		want: `# fleets.example.com, storage version v1: 11 objects scanned
GATE             STAGE        STATE      OBJECTS   EXAMPLES
PoolNameGate     alpha        enabled    2         a/poolname-poollabels, a/poolname
PoolLabelsGate   beta         enabled    1         a/poolname-poollabels
BackupGate       beta         enabled    3         b/backup-empty, b/backup-encryption, b/backup-encryption-empty
EncryptionGate   alpha        disabled   2         b/backup-encryption, b/backup-encryption-empty
CPUGate          deprecated   enabled    1         b/cpu
RulesGate        beta         enabled    0         <none>
`,
	}, {
		name: "pages of 2: the same counts, four requests with the server's continue tokens",
		crd:  replicasCRD(true),
		objs: widgets(),
		args: []string{"--chunk-size=2"},
		want: `# widgets.example.com, storage version v2: 7 objects scanned
GATE           STAGE   STATE      OBJECTS   EXAMPLES
ReplicasGate   alpha   disabled   4         default/w1, default/w3, prod/w5
ImageGate      beta    disabled   4         default/w1, default/w2, prod/w6
`,
		wantRequests: []string{`v2 limit=2 continue=""`, `v2 limit=2 continue="2"`, `v2 limit=2 continue="4"`, `v2 limit=2 continue="6"`},
	}, {
		name:         "--chunk-size=0 lists everything at once",
		crd:          replicasCRD(true),
		objs:         widgets(),
		args:         []string{"--chunk-size=0", "--examples=0"},
		wantRequests: []string{`v2 limit=0 continue=""`},
		want: `# widgets.example.com, storage version v2: 7 objects scanned
GATE           STAGE   STATE      OBJECTS
ReplicasGate   alpha   disabled   4
ImageGate      beta    disabled   4
`,
	}, {
		name: "one gate, one example",
		crd:  replicasCRD(true),
		objs: widgets(),
		args: []string{"ImageGate", "--examples", "1"},
		want: `# widgets.example.com, storage version v2: 7 objects scanned
GATE        STAGE   STATE      OBJECTS   EXAMPLES
ImageGate   beta    disabled   4         default/w1
`,
	}, {
		name: "gates in the CRD's order, whatever the order of the arguments",
		crd:  fleetCRD(),
		objs: fleets(),
		args: []string{"EncryptionGate", "PoolNameGate", "EncryptionGate"},
		want: `# fleets.example.com, storage version v1: 11 objects scanned
GATE             STAGE   STATE      OBJECTS   EXAMPLES
PoolNameGate     alpha   enabled    2         a/poolname-poollabels, a/poolname
EncryptionGate   alpha   disabled   2         b/backup-encryption, b/backup-encryption-empty
`,
	}, {
		name: "cluster-scoped: names alone",
		crd:  clusterScoped,
		objs: []*unstructured.Unstructured{cr("widgets", "", "c1", `{"replicas": 1}`), cr("widgets", "", "c2", `{"image": "x"}`)},
		want: `# widgets.example.com, storage version v2: 2 objects scanned
GATE           STAGE   STATE      OBJECTS   EXAMPLES
ReplicasGate   alpha   disabled   1         c1
ImageGate      beta    disabled   1         c2
`,
	}, {
		name: "no objects",
		crd:  replicasCRD(true),
		want: `# widgets.example.com, storage version v2: 0 objects scanned
GATE           STAGE   STATE      OBJECTS   EXAMPLES
ReplicasGate   alpha   disabled   0         <none>
ImageGate      beta    disabled   0         <none>
`,
	}, {
		name: "json",
		crd:  replicasCRD(true),
		objs: widgets(),
		args: []string{"ReplicasGate", "-o", "json", "--chunk-size=5"},
		want: `{
    "apiVersion": "featuregates.kubectl.k8s.io/v1alpha1",
    "crd": "widgets.example.com",
    "gates": [
        {
            "examples": [
                "default/w1",
                "default/w3",
                "prod/w5"
            ],
            "fieldPaths": [
                ".spec.replicas"
            ],
            "gate": "ReplicasGate",
            "objects": 4,
            "preRelease": "alpha",
            "state": "disabled"
        }
    ],
    "kind": "FeatureGateUsage",
    "objects": 7,
    "resourceVersion": "2608",
    "version": "v2"
}
`,
		wantRequests: []string{`v2 limit=5 continue=""`, `v2 limit=5 continue="5"`},
	}, {
		name: "yaml, a gate without fields",
		crd:  fleetCRD(),
		objs: fleets()[:2],
		args: []string{"RulesGate", "-o", "yaml"},
		want: `apiVersion: featuregates.kubectl.k8s.io/v1alpha1
crd: fleets.example.com
gates:
- examples: []
  fieldPaths: []
  gate: RulesGate
  objects: 0
  preRelease: beta
  state: enabled
kind: FeatureGateUsage
objects: 2
resourceVersion: "2608"
version: v1
`,
	}, {
		name:         "unknown gate",
		crd:          replicasCRD(true),
		args:         []string{"ImageGate", "NoSuchGate"},
		wantErr:      `customresourcedefinition "widgets.example.com" declares no feature gate named "NoSuchGate"; its gates are: ImageGate, ReplicasGate`,
		wantRequests: []string{},
	}, {
		// Neither backend: the CRD's CustomResourceFeatureGates object is looked for.
		name:         "a CRD without gates",
		crd:          noGates,
		wantErr:      `customresourcedefinition "widgets.example.com" declares no field feature gates: neither spec.customFeatureGates nor a CustomResourceFeatureGates object of that name`,
		wantRequests: []string{"get featuregates.apiextensions.x-k8s.io/v1alpha1, Resource=customresourcefeaturegates"},
	}, {
		name:         "unknown CRD",
		crd:          replicasCRD(true),
		target:       "nopes.example.com",
		wantErr:      `customresourcedefinition "nopes.example.com" not found`,
		wantRequests: []string{},
	}, {
		name:         "the list fails mid-way",
		crd:          replicasCRD(true),
		objs:         widgets(),
		args:         []string{"--chunk-size=2"},
		failPage:     3,
		failErr:      apierrors.NewServiceUnavailable("etcd is away"),
		wantErr:      `listing the widgets of widgets.example.com in version v2 failed after 4 objects in 2 page(s): etcd is away`,
		wantRequests: []string{`v2 limit=2 continue=""`, `v2 limit=2 continue="2"`, `v2 limit=2 continue="4"`},
	}, {
		name:         "the list expires mid-way",
		crd:          replicasCRD(true),
		objs:         widgets(),
		args:         []string{"--chunk-size=3"},
		failPage:     2,
		failErr:      apierrors.NewResourceExpired("The provided continue parameter is too old"),
		wantErr:      `listing the widgets of widgets.example.com in version v2 failed after 3 objects in 1 page(s): The provided continue parameter is too old; the list expired before the scan could finish (the server keeps a list's continue token for a few minutes): run it again, with a larger --chunk-size`,
		wantRequests: []string{`v2 limit=3 continue=""`, `v2 limit=3 continue="3"`},
	}, {
		name:         "the first list fails",
		crd:          replicasCRD(true),
		failPage:     1,
		failErr:      apierrors.NewForbidden(schema.GroupResource{Group: "example.com", Resource: "widgets"}, "", fmt.Errorf("no")),
		wantErr:      `listing the widgets of widgets.example.com in version v2 failed after 0 objects in 0 page(s): widgets.example.com is forbidden: no`,
		wantRequests: []string{`v2 limit=500 continue=""`},
	}, {
		name:         "the storage version is not served",
		crd:          storageNotServed,
		wantErr:      "the storage version v2 of widgets.example.com is not served, so its objects cannot be read in it",
		wantRequests: []string{},
	}, {
		name:         "a negative chunk size",
		crd:          replicasCRD(true),
		args:         []string{"--chunk-size=-1"},
		wantErr:      "--chunk-size must not be negative",
		wantRequests: []string{},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			server := &pagedServer{objs: tc.objs, failPage: tc.failPage, failErr: tc.failErr}
			c := newUsageCluster(tc.crd, server)
			target := tc.target
			if target == "" {
				target = tc.crd.Name
			}
			out, err := c.run(append([]string{"usage", target}, tc.args...)...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("err = %v\nwant   %s", err, tc.wantErr)
				}
				if out != "" {
					t.Errorf("a failed scan printed:\n%s", out)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, trimLines(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			wantRequests := tc.wantRequests
			if wantRequests == nil {
				wantRequests = []string{`v2 limit=500 continue=""`}
				if tc.crd.Name == "fleets.example.com" {
					wantRequests = []string{`v1 limit=500 continue=""`}
				}
			}
			// Only cluster-wide lists: nothing else is read, and nothing is written.
			if diff := cmp.Diff(wantRequests, c.requests(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("requests for custom resources (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDisablePrintsUsage(t *testing.T) {
	tests := []struct {
		name    string
		crd     *apiextensionsv1.CustomResourceDefinition
		objs    []*unstructured.Unstructured
		args    []string
		failErr error
		want    string
		wantErr string
		// wantRequests are the requests for custom resources.
		wantRequests []string
		// wantDisabled is whether the gate is disabled afterwards by enabled: false.
		wantDisabled bool
	}{{
		name: "the count, then the write",
		crd:  replicasCRD(true),
		objs: widgets(),
		args: []string{"disable", "widgets.example.com", "ReplicasGate", "--method=patch"},
		want: `4 objects hold values at the fields of ReplicasGate (examples: default/w1, default/w3, prod/w5); they are kept, and writes can no longer change them.
customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate ReplicasGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantRequests: []string{`v2 limit=500 continue=""`},
		wantDisabled: true,
	}, {
		name: "one object, marks of the storage version",
		crd:  replicasCRD(true),
		objs: widgets()[1:2],
		args: []string{"disable", "widgets.example.com", "ImageGate", "--method=patch"},
		want: `1 object holds values at the fields of ImageGate (examples: default/w2); they are kept, and writes can no longer change them.
customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate ImageGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantRequests: []string{`v2 limit=500 continue=""`},
		wantDisabled: true,
	}, {
		name: "no object",
		crd:  fleetCRD(),
		objs: fleets()[4:],
		args: []string{"disable", "fleets.example.com", "PoolNameGate", "--method=patch"},
		want: `No object holds a value at the fields of PoolNameGate.
customresourcedefinition.apiextensions.k8s.io/fleets.example.com: feature gate PoolNameGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantRequests: []string{`v1 limit=500 continue=""`},
		wantDisabled: true,
	}, {
		name: "a gate without fields is not counted",
		crd:  fleetCRD(),
		objs: fleets(),
		args: []string{"disable", "fleets.example.com", "RulesGate", "--method=patch"},
		want: `Feature gate RulesGate guards no field of storage version v1: no stored value is frozen.
customresourcedefinition.apiextensions.k8s.io/fleets.example.com: feature gate RulesGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantDisabled: true,
	}, {
		name: "--skip-usage",
		crd:  replicasCRD(true),
		objs: widgets(),
		args: []string{"disable", "widgets.example.com", "ReplicasGate", "--method=patch", "--skip-usage"},
		want: `customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate ReplicasGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantDisabled: true,
	}, {
		name:         "a failed count changes nothing",
		crd:          replicasCRD(true),
		objs:         widgets(),
		args:         []string{"disable", "widgets.example.com", "ReplicasGate", "--method=patch"},
		failErr:      apierrors.NewServiceUnavailable("etcd is away"),
		wantErr:      "cannot count the objects that hold values at the fields of ReplicasGate, so nothing was changed (--skip-usage disables without counting): listing the widgets of widgets.example.com in version v2 failed after 0 objects in 0 page(s): etcd is away",
		wantRequests: []string{`v2 limit=500 continue=""`},
	}, {
		name: "values that defaults put there on read are not counted",
		crd:  defaultsCRD(),
		objs: defaultedWidgets(),
		args: []string{"disable", "widgets.example.com", "ReplicasGate", "--method=patch"},
		want: `1 object holds values at the fields of ReplicasGate (examples: a/replicas); they are kept, and writes can no longer change them.
customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate ReplicasGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantRequests: []string{`v1 limit=500 continue=""`},
		wantDisabled: true,
	}, {
		// With conversion None, v1's mark gates the storage version too.
		name: "a gate marked only in a version that is not the storage version, conversion None",
		crd:  hostCRD(apiextensionsv1.NoneConverter),
		objs: hosts(),
		args: []string{"disable", "widgets.example.com", "HostGate", "--method=patch"},
		want: `2 objects hold values at the fields of HostGate (examples: a/host, b/host-image); they are kept, and writes can no longer change them.
customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate HostGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantRequests: []string{`v2 limit=500 continue=""`},
		wantDisabled: true,
	}, {
		name: "a gate marked only in a version that is not the storage version, no object",
		crd:  hostCRD(apiextensionsv1.WebhookConverter),
		objs: hosts()[1:2],
		args: []string{"disable", "widgets.example.com", "HostGate", "--method=patch"},
		want: `No object holds a value at the fields of HostGate in version v1.
customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate HostGate disabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: disabled
`,
		wantRequests: []string{`v1 limit=500 continue=""`},
		wantDisabled: true,
	}, {
		name:    "a stable gate is refused before anything is listed",
		crd:     databaseCRD(),
		args:    []string{"disable", "databases.gates.example.com", "TagsGate"},
		wantErr: "feature gate TagsGate of databases.gates.example.com is stable: a stable gate is always enabled and cannot be disabled",
	}, {
		name:    "an unknown gate is refused before anything is listed",
		crd:     replicasCRD(true),
		args:    []string{"disable", "widgets.example.com", "NoSuchGate"},
		wantErr: `customresourcedefinition "widgets.example.com" declares no feature gate named "NoSuchGate"; its gates are: ImageGate, ReplicasGate`,
	}, {
		name: "enable counts nothing",
		crd:  replicasCRD(true),
		objs: widgets(),
		args: []string{"enable", "widgets.example.com", "ReplicasGate", "--method=patch"},
		want: `customresourcedefinition.apiextensions.k8s.io/widgets.example.com: feature gate ReplicasGate enabled (JSON patch guarded by the gate's name, field manager cluster-admin); state: enabled
`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			server := &pagedServer{objs: tc.objs}
			if tc.failErr != nil {
				server.failPage, server.failErr = 1, tc.failErr
			}
			c := newUsageCluster(tc.crd, server)
			out, err := c.run(tc.args...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("err = %v\nwant   %s", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRequests, c.requests(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("requests for custom resources (-want +got):\n%s", diff)
			}
			crd, err := c.crds.Tracker().Get(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, "", tc.crd.Name)
			if err != nil {
				t.Fatal(err)
			}
			disabled := false
			for _, g := range crd.(*apiextensionsv1.CustomResourceDefinition).Spec.CustomFeatureGates.FeatureGates {
				if g.Name == tc.args[2] && g.Enabled != nil && !*g.Enabled {
					disabled = true
				}
			}
			if disabled != tc.wantDisabled {
				t.Errorf("%s disabled = %v, want %v", tc.args[2], disabled, tc.wantDisabled)
			}
		})
	}
}

// defaultsCRD has one version, v1, whose gated fields have schema defaults, as a LIST
// returns its objects: defaulted by the server on read.
//
//	ReplicasGate  (beta)   .spec.replicas         default 1
//	PoolSizeGate  (beta)   .spec.pools[*].size    default 3, in each item
//	BackupGate    (beta)   .spec.backup           default {schedule: "@daily"}
//	ScheduleGate  (beta)   .spec.backup.schedule  set by its parent's default only
//	WindowGate    (beta)   .spec.backup.window    default "night", inside the parent's too
//	LimitsGate    (beta)   .spec.limits[*]        the map's default {cpu: "1"}
//	TierGate      (alpha)  .spec.tier             default "bronze", not applied: the gate is off
func defaultsCRD() *apiextensionsv1.CustomResourceDefinition {
	withDefault := func(s apiextensionsv1.JSONSchemaProps, def string) apiextensionsv1.JSONSchemaProps {
		s.Default = &apiextensionsv1.JSON{Raw: []byte(def)}
		return s
	}
	pool := object(props{"name": scalar("string"), "size": withDefault(scalar("integer"), `3`)})
	limits := withDefault(apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
		Allows: true, Schema: ptr(scalar("string"))}}, `{"cpu": "1"}`)
	spec := object(props{
		"replicas": withDefault(scalar("integer"), `1`),
		"pools":    {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &pool}},
		"backup": withDefault(object(props{
			"schedule":  scalar("string"),
			"window":    withDefault(scalar("string"), `"night"`),
			"retention": scalar("integer"),
		}), `{"schedule": "@daily"}`),
		"limits": limits,
		"tier":   withDefault(scalar("string"), `"bronze"`),
	})
	return versionsCRD(apiextensionsv1.NoneConverter, []apiextensionsv1.CustomResourceDefinitionFeatureGate{
		{Name: "ReplicasGate", PreRelease: "beta", FieldPaths: []string{".spec.replicas"}},
		{Name: "PoolSizeGate", PreRelease: "beta", FieldPaths: []string{".spec.pools[*].size"}},
		{Name: "BackupGate", PreRelease: "beta", FieldPaths: []string{".spec.backup"}},
		{Name: "ScheduleGate", PreRelease: "beta", FieldPaths: []string{".spec.backup.schedule"}},
		{Name: "WindowGate", PreRelease: "beta", FieldPaths: []string{".spec.backup.window"}},
		{Name: "LimitsGate", PreRelease: "beta", FieldPaths: []string{".spec.limits[*]"}},
		{Name: "TierGate", PreRelease: "alpha", FieldPaths: []string{".spec.tier"}},
	}, spec)
}

// defaultedWidgets are objects of defaultsCRD as a LIST returns them, each with what is
// stored in etcd in its comment, and in its name the gates it counts for.
func defaultedWidgets() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		// {}
		cr("widgets", "a", "none", `{"replicas": 1, "backup": {"schedule": "@daily", "window": "night"}, "limits": {"cpu": "1"}}`),
		// {"replicas": 5}
		cr("widgets", "a", "replicas", `{"replicas": 5, "backup": {"schedule": "@daily", "window": "night"}, "limits": {"cpu": "1"}}`),
		// {"replicas": 1}: written equal to the default, so indistinguishable from it.
		cr("widgets", "a", "none-replicas-as-default", `{"replicas": 1, "backup": {"schedule": "@daily", "window": "night"}, "limits": {"cpu": "1"}}`),
		// {"pools": [{"name": "p"}, {"name": "q", "size": 7}]}
		cr("widgets", "a", "poolsize", `{"replicas": 1, "pools": [{"name": "p", "size": 3}, {"name": "q", "size": 7}], "backup": {"schedule": "@daily", "window": "night"}, "limits": {"cpu": "1"}}`),
		// {"pools": [{"name": "p"}]}
		cr("widgets", "a", "none-pools", `{"replicas": 1, "pools": [{"name": "p", "size": 3}], "backup": {"schedule": "@daily", "window": "night"}, "limits": {"cpu": "1"}}`),
		// {"backup": {"retention": 3}}
		cr("widgets", "b", "backup", `{"replicas": 1, "backup": {"retention": 3, "window": "night"}, "limits": {"cpu": "1"}}`),
		// {"backup": {"schedule": "@hourly"}}
		cr("widgets", "b", "backup-schedule", `{"replicas": 1, "backup": {"schedule": "@hourly", "window": "night"}, "limits": {"cpu": "1"}}`),
		// {"backup": {"window": "day"}}
		cr("widgets", "b", "backup-window", `{"replicas": 1, "backup": {"window": "day"}, "limits": {"cpu": "1"}}`),
		// {"limits": {"memory": "1Gi"}}
		cr("widgets", "b", "limits", `{"replicas": 1, "backup": {"schedule": "@daily", "window": "night"}, "limits": {"memory": "1Gi"}}`),
		// {"tier": "bronze"}: TierGate is off, so the server does not default .spec.tier, and
		// a value there is stored even when it equals the default.
		cr("widgets", "b", "tier", `{"replicas": 1, "backup": {"schedule": "@daily", "window": "night"}, "limits": {"cpu": "1"}, "tier": "bronze"}`),
	}
}

// hostCRD marks .spec.host with HostGate in v1 only; the storage version v2 has the field
// unmarked, and marks .spec.image with ImageGate.
func hostCRD(strategy apiextensionsv1.ConversionStrategyType) *apiextensionsv1.CustomResourceDefinition {
	return versionsCRD(strategy, []apiextensionsv1.CustomResourceDefinitionFeatureGate{
		{Name: "HostGate", PreRelease: "beta"},
		{Name: "ImageGate", PreRelease: "beta"},
	},
		object(props{"host": marked(scalar("string"), "HostGate"), "image": scalar("string")}),
		object(props{"host": scalar("string"), "image": marked(scalar("string"), "ImageGate")}))
}

// hosts are objects of hostCRD.
func hosts() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		cr("widgets", "a", "host", `{"host": "h"}`),
		cr("widgets", "a", "image", `{"image": "i"}`),
		cr("widgets", "b", "host-image", `{"host": "", "image": "j"}`),
	}
}

// TestUsageCountsStoredValues checks that usage counts the values stored in etcd, although
// a LIST returns the objects with the schema's defaults applied, and the fields a gate guards
// in a served version when it guards none in the storage version.
func TestUsageCountsStoredValues(t *testing.T) {
	backupOffCRD := defaultsCRD()
	backupOffCRD.Spec.CustomFeatureGates.FeatureGates[2].Enabled = ptr(false)
	tests := []struct {
		name string
		crd  *apiextensionsv1.CustomResourceDefinition
		objs []*unstructured.Unstructured
		args []string
		want string
		// wantRequests are the list requests.
		wantRequests []string
	}{{
		name: "defaults applied on read are not counted: a scalar, [*] over a list and a map, a defaulted parent, a default inside it, a gate off",
		crd:  defaultsCRD(),
		objs: defaultedWidgets(),
		want: `# widgets.example.com, storage version v1: 10 objects scanned
GATE           STAGE   STATE      OBJECTS   EXAMPLES
ReplicasGate   beta    enabled    1         a/replicas
PoolSizeGate   beta    enabled    1         a/poolsize
BackupGate     beta    enabled    3         b/backup, b/backup-schedule, b/backup-window
ScheduleGate   beta    enabled    1         b/backup-schedule
WindowGate     beta    enabled    1         b/backup-window
LimitsGate     beta    enabled    1         b/limits
TierGate       alpha   disabled   1         b/tier
`,
		wantRequests: []string{`v1 limit=500 continue=""`},
	}, {
		name: "objects written while a defaulted gated field was off, read after enable: none counted",
		crd:  defaultsCRD(),
		objs: defaultedWidgets()[:1],
		args: []string{"ReplicasGate", "BackupGate", "LimitsGate"},
		want: `# widgets.example.com, storage version v1: 1 object scanned
GATE           STAGE   STATE     OBJECTS   EXAMPLES
ReplicasGate   beta    enabled   0         <none>
BackupGate     beta    enabled   0         <none>
LimitsGate     beta    enabled   0         <none>
`,
		wantRequests: []string{`v1 limit=500 continue=""`},
	}, {
		name: "a parent gate off: no default below it on read, so every value there is stored, even one equal to a default",
		crd:  backupOffCRD,
		objs: []*unstructured.Unstructured{
			// {}
			cr("widgets", "a", "none", `{"replicas": 1, "limits": {"cpu": "1"}}`),
			// {"backup": {"retention": 3}}
			cr("widgets", "a", "backup", `{"replicas": 1, "backup": {"retention": 3}, "limits": {"cpu": "1"}}`),
			// {"backup": {"window": "night"}}, written while BackupGate was on
			cr("widgets", "a", "backup-window", `{"replicas": 1, "backup": {"window": "night"}, "limits": {"cpu": "1"}}`),
		},
		args: []string{"BackupGate", "WindowGate"},
		want: `# widgets.example.com, storage version v1: 3 objects scanned
GATE         STAGE   STATE      OBJECTS   EXAMPLES
BackupGate   beta    disabled   2         a/backup, a/backup-window
WindowGate   beta    enabled    1         a/backup-window
`,
		wantRequests: []string{`v1 limit=500 continue=""`},
	}, {
		// With conversion None, v1's mark gates the storage version too: no note.
		name: "a gate marked only in v1, without a conversion webhook: the fields it guards in v2, which has them",
		crd:  hostCRD(apiextensionsv1.NoneConverter),
		objs: hosts(),
		want: `# widgets.example.com, storage version v2: 3 objects scanned
GATE        STAGE   STATE     OBJECTS   EXAMPLES
HostGate    beta    enabled   2         a/host, b/host-image
ImageGate   beta    enabled   2         a/image, b/host-image
`,
		wantRequests: []string{`v2 limit=500 continue=""`},
	}, {
		name: "a gate marked only in v1, with a conversion webhook: its v1 fields, in the objects read in v1",
		crd:  hostCRD(apiextensionsv1.WebhookConverter),
		objs: hosts(),
		args: []string{"--chunk-size=2"},
		want: `# widgets.example.com, storage version v2: 3 objects scanned
GATE        STAGE   STATE     OBJECTS   EXAMPLES
HostGate    beta    enabled   2         a/host, b/host-image
ImageGate   beta    enabled   2         a/image, b/host-image

# Note: HostGate guards no field of storage version v2; it is counted at the fields it guards in version v1.
`,
		wantRequests: []string{`v2 limit=2 continue=""`, `v2 limit=2 continue="2"`, `v1 limit=2 continue=""`, `v1 limit=2 continue="2"`},
	}, {
		name: "a gate marked only in v1, with a conversion webhook, alone: one list, in v1",
		crd:  hostCRD(apiextensionsv1.WebhookConverter),
		objs: hosts(),
		args: []string{"HostGate", "-o", "json"},
		want: `{
    "apiVersion": "featuregates.kubectl.k8s.io/v1alpha1",
    "crd": "widgets.example.com",
    "gates": [
        {
            "examples": [
                "a/host",
                "b/host-image"
            ],
            "fieldPaths": [
                ".spec.host"
            ],
            "gate": "HostGate",
            "objects": 2,
            "preRelease": "beta",
            "state": "enabled",
            "version": "v1"
        }
    ],
    "kind": "FeatureGateUsage",
    "objects": 3,
    "resourceVersion": "2608",
    "version": "v2"
}
`,
		wantRequests: []string{`v1 limit=500 continue=""`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			server := &pagedServer{objs: tc.objs}
			c := newUsageCluster(tc.crd, server)
			out, err := c.run(append([]string{"usage", tc.crd.Name}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, trimLines(out)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRequests, c.requests(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("requests for custom resources (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStoredValueAt(t *testing.T) {
	withDefault := func(s apiextensionsv1.JSONSchemaProps, def string) apiextensionsv1.JSONSchemaProps {
		s.Default = &apiextensionsv1.JSON{Raw: []byte(def)}
		return s
	}
	tier := object(props{"size": withDefault(scalar("integer"), `3`), "zone": scalar("string")})
	crd := versionsCRD(apiextensionsv1.NoneConverter, nil, object(props{
		"replicas": withDefault(scalar("integer"), `1`),
		"ratio":    withDefault(scalar("number"), `0.5`),
		"tiers": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
			Allows: true, Schema: &tier}},
		"matrix": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: ptr(tier)}}}},
		"options": withDefault(object(props{"debug": withDefault(scalar("boolean"), `false`), "level": scalar("string")}), `{}`),
		"free":    {Type: "object", XPreserveUnknownFields: ptr(true)},
	}))
	s, err := versionSchema(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		// spec is the spec of the object as the server returns it, defaulted.
		spec string
		want bool
	}{
		{name: "the default of a scalar", path: ".spec.replicas", spec: `{"replicas": 1}`},
		{name: "another value", path: ".spec.replicas", spec: `{"replicas": 2}`, want: true},
		{name: "no value", path: ".spec.replicas", spec: `{}`},
		{name: "no spec", path: ".spec.replicas", spec: ``},
		{name: "a number default, as a float", path: ".spec.ratio", spec: `{"ratio": 0.5}`},
		{name: "a number, not the default", path: ".spec.ratio", spec: `{"ratio": 0.25}`, want: true},
		{name: "null, where the default is not null", path: ".spec.replicas", spec: `{"replicas": null}`, want: true},
		{name: "[*] over a map: a default in each value", path: ".spec.tiers[*].size", spec: `{"tiers": {"gold": {"size": 3}, "iron": {"size": 3, "zone": "z"}}}`},
		{name: "[*] over a map: one value written", path: ".spec.tiers[*].size", spec: `{"tiers": {"gold": {"size": 3}, "iron": {"size": 4}}}`, want: true},
		{name: "a named key of a map", path: ".spec.tiers.gold.size", spec: `{"tiers": {"gold": {"size": 3}, "iron": {"size": 4}}}`},
		{name: "a map value, which defaulting never adds", path: ".spec.tiers[*]", spec: `{"tiers": {"gold": {"size": 3}}}`, want: true},
		{name: "[*][*]: lists of lists", path: ".spec.matrix[*][*].size", spec: `{"matrix": [[{"size": 3}], [], [{"size": 3}, {"size": 3}]]}`},
		{name: "[*][*]: one written", path: ".spec.matrix[*][*].size", spec: `{"matrix": [[{"size": 3}], [{"size": 3}, {"size": 9}]]}`, want: true},
		{name: "a parent defaulted to {}, its default child", path: ".spec.options.debug", spec: `{"options": {"debug": false}}`},
		{name: "the parent defaulted to {}", path: ".spec.options", spec: `{"options": {"debug": false}}`},
		{name: "the parent written", path: ".spec.options", spec: `{"options": {"debug": false, "level": "info"}}`, want: true},
		{name: "the parent written, its default child", path: ".spec.options.debug", spec: `{"options": {"debug": false, "level": "info"}}`},
		{name: "the parent written, its child written", path: ".spec.options.debug", spec: `{"options": {"debug": true, "level": "info"}}`, want: true},
		{name: "below x-kubernetes-preserve-unknown-fields", path: ".spec.free.x", spec: `{"free": {"x": 1}}`, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := featuregates.ParsePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			obj := cr("widgets", "a", "w", tc.spec).Object
			before := runtime.DeepCopyJSON(obj)
			if got := storedValueAt(obj, p, s); got != tc.want {
				t.Errorf("storedValueAt(%s, %s) = %v, want %v", tc.spec, tc.path, got, tc.want)
			}
			if diff := cmp.Diff(before, obj); diff != "" {
				t.Errorf("storedValueAt modified the object (-before +after):\n%s", diff)
			}
			// Without a schema, every value counts.
			if got, want := storedValueAt(obj, p, nil), featuregates.HasValue(obj, p); got != want {
				t.Errorf("storedValueAt(%s, %s) without a schema = %v, want HasValue's %v", tc.spec, tc.path, got, want)
			}
		})
	}
}

func TestJSONEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b interface{}
		want bool
	}{
		{name: "int64 and float64", a: int64(3), b: float64(3), want: true},
		{name: "float64 and int64", a: float64(3), b: int64(3), want: true},
		{name: "json.Number and int64", a: json.Number("3"), b: int64(3), want: true},
		{name: "json.Number and float64", a: json.Number("0.5"), b: 0.5, want: true},
		{name: "different numbers", a: int64(3), b: 3.5},
		{name: "int64s beyond float64's precision", a: int64(1<<53 + 1), b: int64(1 << 53)},
		{name: "a number and a string", a: int64(3), b: "3"},
		{name: "null and null", a: nil, b: nil, want: true},
		{name: "null and false", a: nil, b: false},
		{name: "a string and a map", a: "x", b: map[string]interface{}{}},
		{name: "maps", a: map[string]interface{}{"a": int64(1), "b": []interface{}{"x"}}, b: map[string]interface{}{"b": []interface{}{"x"}, "a": 1.0}, want: true},
		{name: "a map with a key more", a: map[string]interface{}{"a": nil}, b: map[string]interface{}{"a": nil, "b": nil}},
		{name: "a map with another key", a: map[string]interface{}{"a": nil}, b: map[string]interface{}{"b": nil}},
		{name: "lists in another order", a: []interface{}{"x", "y"}, b: []interface{}{"y", "x"}},
		{name: "a list and a map", a: []interface{}{}, b: map[string]interface{}{}},
		{name: "an unknown type", a: struct{}{}, b: struct{}{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := jsonEqual(tc.a, tc.b); got != tc.want {
				t.Errorf("jsonEqual(%#v, %#v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}
