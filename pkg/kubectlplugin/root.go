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

// Package kubectlplugin implements the kubectl-featuregates plugin: list, enable, disable and explain
// the field feature gates of CRDs (KEP-2608, spec.customFeatureGates), and count the stored
// objects that hold values at a gate's fields.
//
// Every answer about whether a gate is enabled or a field is live comes from the API
// server's own evaluation code (pkg/apihelpers and pkg/apiserver/schema/featuregates), so
// the plugin and the server cannot disagree.
package kubectlplugin

import (
	"context"
	"encoding/json"
	"io"

	"fmt"
	"strings"

	"github.com/spf13/cobra"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/buildinfo"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// DefaultFieldManager is the field manager the plugin writes a gate's enabled with.
const DefaultFieldManager = "cluster-admin"

// Options are the flags every subcommand shares.
type Options struct {
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *genericclioptions.PrintFlags
	Streams     genericiooptions.IOStreams

	// newClient builds the CRD client; tests replace it.
	newClient func() (apiextensionsv1client.CustomResourceDefinitionInterface, error)
	// newDynamicClient builds the client that reads custom resources; tests replace it.
	newDynamicClient func() (dynamic.Interface, error)
}

// NewCommand returns the root command of the plugin.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		PrintFlags:  genericclioptions.NewPrintFlags(""),
		Streams:     streams,
	}
	o.newClient = o.client
	o.newDynamicClient = o.dynamicClient
	return newCommand(o)
}

func newCommand(o *Options) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-featuregates",
		Short: "List, enable and disable the field feature gates of CRDs (KEP-2608)",
		Long: `List, enable and disable the field feature gates that CRDs declare in
spec.customFeatureGates (KEP-2608), see which fields of a CRD are live, and count the
stored objects that hold values at a gate's fields.

Whether a gate is enabled and whether a field is live are computed with the API server's
own rules. Gates are addressed by name: enable and disable never depend on a gate's
position in the list.

On a stock kube-apiserver, whose generated admission policies enforce a CRD's gates, the
CRD has no spec.customFeatureGates: the gate states live in the CustomResourceFeatureGates
object (featuregates.apiextensions.x-k8s.io/v1alpha1) named like the CRD. Every command
detects this for each CRD, and reads and writes the gates there, by the same names; the CRD
itself is then never changed.`,
		Example: `  kubectl featuregates list
  kubectl featuregates enable databases.gates.example.com BackupGate
  kubectl featuregates status databases.gates.example.com
  kubectl featuregates usage databases.gates.example.com BackupGate
  kubectl featuregates disable databases.gates.example.com BackupGate
  kubectl featuregates set databases.gates.example.com BackupGate=true LabelsGate=false`,
		SilenceUsage:  true,
		SilenceErrors: false,
		// --version prints the release (make release sets it; "devel" from a checkout).
		Version: buildinfo.Version,
	}
	root.SetVersionTemplate(buildinfo.String("kubectl-featuregates") + "\n")
	root.SetOut(o.Streams.Out)
	root.SetErr(o.Streams.ErrOut)
	root.SetIn(o.Streams.In)
	o.ConfigFlags.AddFlags(root.PersistentFlags())
	root.AddCommand(newListCommand(o), newToggleCommand(o, true), newToggleCommand(o, false), newSetCommand(o), newStatusCommand(o), newUsageCommand(o))
	return root
}

func (o *Options) client() (apiextensionsv1client.CustomResourceDefinitionInterface, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cs, err := clientset.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return cs.ApiextensionsV1().CustomResourceDefinitions(), nil
}

// dynamicClient builds the client that lists custom resources. It lists one page at a time,
// so at most one of its requests is in flight: client-side throttling would only slow a large
// scan down, and the server's own priority and fairness still applies.
func (o *Options) dynamicClient() (dynamic.Interface, error) {
	cfg, err := o.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1
	return dynamic.NewForConfig(cfg)
}

// getCRD reads one CRD and turns a missing one into a clear error.
func getCRD(ctx context.Context, c apiextensionsv1client.CustomResourceDefinitionInterface, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd, err := c.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		hint := ""
		if !strings.Contains(name, ".") {
			hint = " (give the CRD's full name, <plural>.<group>, as in crontabs.stable.example.com)"
		}
		return nil, fmt.Errorf("customresourcedefinition %q not found%s", name, hint)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read customresourcedefinition %q: %w", name, err)
	}
	return crd, nil
}

// ReportAPIVersion is the apiVersion of the objects -o json|yaml prints. They are reports of
// this plugin, not API objects.
const ReportAPIVersion = "featuregates.kubectl.k8s.io/v1alpha1"

func (o *Options) output() string {
	if o.PrintFlags.OutputFormat == nil {
		return ""
	}
	return *o.PrintFlags.OutputFormat
}

// print writes items as a table, or with kubectl's printers for -o json|yaml|jsonpath|...,
// wrapped in an object of kind kind with the items under "items".
func (o *Options) print(kind string, items interface{}, table func(io.Writer) error) error {
	switch o.output() {
	case "", "wide":
		w := printers.GetNewTabWriter(o.Streams.Out)
		if err := table(w); err != nil {
			return err
		}
		return w.Flush()
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	obj, err := reportObject(kind, items)
	if err != nil {
		return err
	}
	return p.PrintObj(obj, o.Streams.Out)
}

// reportObject wraps a report in an unstructured object, so every kubectl printer can print it.
func reportObject(kind string, report interface{}) (*unstructured.Unstructured, error) {
	b, err := json.Marshal(report)
	if err != nil {
		return nil, err
	}
	var content interface{}
	if err := json.Unmarshal(b, &content); err != nil {
		return nil, err
	}
	obj := map[string]interface{}{"apiVersion": ReportAPIVersion, "kind": kind}
	switch c := content.(type) {
	case map[string]interface{}:
		for k, v := range c {
			obj[k] = v
		}
	default:
		obj["items"] = c
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func boolOrUnset(b *bool) string {
	if b == nil {
		return "<unset>"
	}
	return fmt.Sprint(*b)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
