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

// Package kind runs against a kind cluster whose control plane runs our kube-apiserver
// (hack/kind/cluster.yaml, with the node image of make kind-node-image). make test-kind
// creates the cluster, sets KIND_KUBECONFIG and KIND_AGNHOST_IMAGE, runs this package and
// deletes the cluster; without KIND_KUBECONFIG the tests skip, and make test-kind fails
// unless each of them passed.
package kind

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiextensions-apiserver/test/featuregatetest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

func clients(t *testing.T) (*kubernetes.Clientset, dynamic.Interface, *featuregatetest.WarningRecorder) {
	t.Helper()
	kubeconfig := os.Getenv("KIND_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("KIND_KUBECONFIG is not set: these tests need the kind cluster of make test-kind")
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("reading %s: %v", kubeconfig, err)
	}
	recorder := &featuregatetest.WarningRecorder{}
	config.WarningHandler = recorder
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(rest.CopyConfig(config))
	if err != nil {
		t.Fatal(err)
	}
	return core, dyn, recorder
}

// servingCert returns a CA certificate and a serving certificate and key for dnsName,
// signed by that CA, all PEM encoded.
func servingCert(t *testing.T, dnsName string) (caPEM, certPEM, keyPEM []byte) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kep2608-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dnsName}, DNSNames: []string{dnsName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// exampleCRD is the CRD of examples/feature-gates/conversion-webhook, in the shape agnhost's
// crd-conversion-webhook converts: stable.example.com/v1 has hostPort "host:port", v2 (the
// storage version) has host and port. Its gate PortField (alpha, off) marks v2's .port;
// objects written as v1 reach v2 only through the webhook.
const exampleCRD = "../../examples/feature-gates/conversion-webhook/endpoint-crd.yaml"

// gateForms are the two ways the gate can guard v2's .port, which the server must treat
// alike: the example's mark (with a conversion webhook, a version's marks gate that version
// only), or the older fieldPaths, paths of the storage version. Each turns the example's CRD,
// as read, into its form.
var gateForms = []struct {
	name string
	form func(t *testing.T, crd map[string]interface{})
}{
	{name: "marks", form: func(*testing.T, map[string]interface{}) {}},
	{name: "fieldPaths", form: func(t *testing.T, crd map[string]interface{}) {
		versions, _, err := unstructured.NestedSlice(crd, "spec", "versions")
		if err != nil || len(versions) != 2 {
			t.Fatalf("%s: spec.versions is not the two versions v1 and v2: %v", exampleCRD, err)
		}
		port := []string{"schema", "openAPIV3Schema", "properties", "port", "x-kubernetes-feature-gate"}
		if mark, _, _ := unstructured.NestedString(versions[1].(map[string]interface{}), port...); mark != "PortField" {
			t.Fatalf("%s: v2's port is not marked with PortField (mark %q)", exampleCRD, mark)
		}
		unstructured.RemoveNestedField(versions[1].(map[string]interface{}), port...)
		gates, _, err := unstructured.NestedSlice(crd, "spec", "customFeatureGates", "featureGates")
		if err != nil || len(gates) != 1 {
			t.Fatalf("%s: spec.customFeatureGates.featureGates is not the one gate PortField: %v", exampleCRD, err)
		}
		gates[0].(map[string]interface{})["fieldPaths"] = []interface{}{".port"}
		if err := unstructured.SetNestedSlice(crd, versions, "spec", "versions"); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedSlice(crd, gates, "spec", "customFeatureGates", "featureGates"); err != nil {
			t.Fatal(err)
		}
	}},
}

// gatedCRD reads the example's CRD, puts it in the given form and points its webhook at the
// Service ns/service, whose serving certificate caPEM signs.
func gatedCRD(t *testing.T, form func(*testing.T, map[string]interface{}), caPEM []byte, ns, service string) *unstructured.Unstructured {
	t.Helper()
	manifest, err := os.ReadFile(exampleCRD)
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(manifest, &crd.Object); err != nil {
		t.Fatalf("%s: %v", exampleCRD, err)
	}
	form(t, crd.Object)
	clientConfig := []string{"spec", "conversion", "webhook", "clientConfig"}
	if err := unstructured.SetNestedField(crd.Object, base64.StdEncoding.EncodeToString(caPEM), append(clientConfig, "caBundle")...); err != nil {
		t.Fatal(err)
	}
	for field, value := range map[string]string{"namespace": ns, "name": service} {
		if err := unstructured.SetNestedField(crd.Object, value, append(clientConfig, "service", field)...); err != nil {
			t.Fatal(err)
		}
	}
	return crd
}

var (
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	v1GVR  = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "endpoints"}
	v2GVR  = schema.GroupVersionResource{Group: "stable.example.com", Version: "v2", Resource: "endpoints"}
)

// TestConversionWebhookPodGatesStorageVersion runs agnhost's crd-conversion-webhook as a
// Deployment behind a Service, as Kubernetes' e2e suite does, for a CRD whose gate names a
// field of the storage version only. While the gate is off, a write as v2 loses .port, with
// the warning, and a write as v1 fails, because agnhost's converter does not round-trip the
// gated field; after the admin enables the gate the v1 write stores it.
// Each object is read through both versions. It runs once per form of the gate (gateForms):
// a mark on v2's port, and fieldPaths.
func TestConversionWebhookPodGatesStorageVersion(t *testing.T) {
	core, dyn, warnings := clients(t)
	image := os.Getenv("KIND_AGNHOST_IMAGE")
	if image == "" {
		t.Fatal("KIND_AGNHOST_IMAGE is not set (make test-kind sets it to the preloaded agnhost image)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	ns, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "kep2608-conversion-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = dyn.Resource(crdGVR).Delete(context.Background(), "endpoints.stable.example.com", metav1.DeleteOptions{})
		_ = core.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})

	const service = "gated-conversion-webhook"
	caPEM, certPEM, keyPEM := servingCert(t, service+"."+ns.Name+".svc")
	if _, err := core.CoreV1().Secrets(ns.Name).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: service},
		Data:       map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": service}
	if _, err := core.AppsV1().Deployments(ns.Name).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: service},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: "webhook", Image: image, ImagePullPolicy: corev1.PullNever,
						Args: []string{"crd-conversion-webhook", "--tls-cert-file=/certs/tls.crt",
							"--tls-private-key-file=/certs/tls.key", "--port=9444"},
						Ports: []corev1.ContainerPort{{ContainerPort: 9444}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
							Scheme: corev1.URISchemeHTTPS, Port: intstr.FromInt32(9444), Path: "/readyz"}},
							PeriodSeconds: 1},
						VolumeMounts: []corev1.VolumeMount{{Name: "certs", MountPath: "/certs", ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: "certs", VolumeSource: corev1.VolumeSource{
						Secret: &corev1.SecretVolumeSource{SecretName: service}}}},
				},
			},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.CoreV1().Services(ns.Name).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: service},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{
			Port: 9443, TargetPort: intstr.FromInt32(9444)}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		d, err := core.AppsV1().Deployments(ns.Name).Get(ctx, service, metav1.GetOptions{})
		return err == nil && d.Status.AvailableReplicas == 1, nil
	}); err != nil {
		pods, _ := core.CoreV1().Pods(ns.Name).List(context.Background(), metav1.ListOptions{})
		t.Fatalf("the webhook pod did not become ready: %v\npods: %+v", err, pods)
	}

	for _, form := range gateForms {
		t.Run(form.name, func(t *testing.T) {
			gatesStorageVersion(t, ctx, dyn, warnings, ns.Name, service, gatedCRD(t, form.form, caPEM, ns.Name, service))
		})
	}
}

// gatesStorageVersion installs the CRD, whose gate PortField (off) guards v2's .port, checks
// each write's outcome through v2 and v1 with the gate off and then on, and deletes the CRD
// with its objects.
func gatesStorageVersion(t *testing.T, ctx context.Context, dyn dynamic.Interface, warnings *featuregatetest.WarningRecorder, ns, service string, crd *unstructured.Unstructured) {
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = dyn.Resource(crdGVR).Delete(context.Background(), "endpoints.stable.example.com", metav1.DeleteOptions{})
		_ = wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := dyn.Resource(crdGVR).Get(ctx, "endpoints.stable.example.com", metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})

	// served waits until a v1 create (a dry run) shows the gate's state: with PortField on it
	// stores .port; with it off, the write fails because agnhost's converter does not
	// round-trip .port (see below). Either answer also shows that the server reaches the
	// webhook pod through the Service.
	served := func(enabled bool) {
		t.Helper()
		var last error
		if err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			probe := endpoint("probe", "probe.example.com:1")
			got, err := dyn.Resource(v1GVR).Namespace(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			last = err
			if !enabled {
				return err != nil && strings.Contains(err.Error(), "does not round-trip gated fields"), nil
			}
			if err != nil {
				return false, nil
			}
			hostPort, _, _ := unstructured.NestedString(got.Object, "hostPort")
			return hostPort == "probe.example.com:1", nil
		}); err != nil {
			t.Fatalf("the CRD did not serve PortField enabled=%t: %v (last error: %v)", enabled, err, last)
		}
		warnings.Take()
	}
	served(false)

	wantWarning := ".port was dropped: feature gate PortField (alpha) is disabled"
	// Off, written as v2, the storage version: the gate drops .port, nothing converts.
	v2 := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "stable.example.com/v2", "kind": "Endpoint",
		"metadata": map[string]interface{}{"name": "direct"},
		"host":     "direct.example.com", "port": "8080",
	}}
	if _, err := dyn.Resource(v2GVR).Namespace(ns).Create(ctx, v2, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := warnings.Take(); len(got) != 1 || got[0] != wantWarning {
		t.Errorf("create as v2 with PortField off: warnings %q, want [%q]", got, wantWarning)
	}
	expect(t, ctx, dyn, ns, "direct", "direct.example.com", nil, "direct.example.com:")

	// Off, written as v1: the webhook turns hostPort into v2's host and port, and the gate
	// drops the client's port there. The server converts the gated object back to v1
	// (hostPort "db.example.com:") and checks the conversion that storage would make of it:
	// agnhost's converter, which cannot tell "no port" from an empty one, writes port "",
	// a value at the disabled path. The server fails the write rather than store it, and
	// names the path, the gate and the webhook; nothing is stored (docs/development/conformance.md).
	_, err := dyn.Resource(v1GVR).Namespace(ns).Create(ctx, endpoint("db", "db.example.com:5432"), metav1.CreateOptions{})
	var status apierrors.APIStatus
	wantMessage := "the conversion webhook of CustomResourceDefinition endpoints.stable.example.com (service " + ns + "/" + service + "/crdconvert) " +
		"does not round-trip gated fields: converting this v1 object to the storage version v2 puts a value at .port, which feature gate PortField (alpha) disables there; nothing was persisted"
	if !errors.As(err, &status) || status.Status().Code != 500 || !strings.Contains(err.Error(), wantMessage) {
		t.Errorf("create as v1 with PortField off: error %v, want a 500 containing %q", err, wantMessage)
	}
	warnings.Take()
	if _, err := dyn.Resource(v2GVR).Namespace(ns).Get(ctx, "db", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the failed create as v1 was stored, or the read failed: %v", err)
	}

	// Off, an update through v1 of "direct", stored in v2 without a port (a label patch): the
	// webhook invents port "" on the way back to v2, in the object to store and in the stored
	// object as this v1 endpoint sees it alike. The server checks the conversion against the
	// object as stored in v2, so it fails the write instead of storing port "" (issue 27).
	labelPatch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
	_, err = dyn.Resource(v1GVR).Namespace(ns).Patch(ctx, "direct", "application/merge-patch+json", labelPatch, metav1.PatchOptions{})
	if !errors.As(err, &status) || status.Status().Code != 500 || !strings.Contains(err.Error(), wantMessage) {
		t.Errorf("label patch as v1 with PortField off: error %v, want a 500 containing %q", err, wantMessage)
	}
	warnings.Take()
	expect(t, ctx, dyn, ns, "direct", "direct.example.com", nil, "direct.example.com:")
	// The same label patch through v2, the storage version, converts nothing and passes.
	if _, err := dyn.Resource(v2GVR).Namespace(ns).Patch(ctx, "direct", "application/merge-patch+json", labelPatch, metav1.PatchOptions{}); err != nil {
		t.Errorf("label patch as v2 with PortField off: %v", err)
	}
	expect(t, ctx, dyn, ns, "direct", "direct.example.com", nil, "direct.example.com:")

	// On: the admin enables the gate; the same create through v1 now stores .port.
	patch := []byte(`[{"op":"test","path":"/spec/customFeatureGates/featureGates/0/name","value":"PortField"},` +
		`{"op":"add","path":"/spec/customFeatureGates/featureGates/0/enabled","value":true}]`)
	if _, err := dyn.Resource(crdGVR).Patch(ctx, "endpoints.stable.example.com", "application/json-patch+json", patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	served(true)
	if _, err := dyn.Resource(v1GVR).Namespace(ns).Create(ctx, endpoint("db", "db.example.com:5433"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := warnings.Take(); len(got) != 0 {
		t.Errorf("create as v1 with PortField on: warnings %q, want none", got)
	}
	expect(t, ctx, dyn, ns, "db", "db.example.com", ptr.To("5433"), "db.example.com:5433")
}

func endpoint(name, hostPort string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "stable.example.com/v1", "kind": "Endpoint",
		"metadata": map[string]interface{}{"name": name},
		"hostPort": hostPort,
	}}
}

// expect reads the object name as v2 (the stored version, no conversion) and as v1 (through
// the webhook) and checks what each shows; port nil means no port is stored.
func expect(t *testing.T, ctx context.Context, dyn dynamic.Interface, ns, name, host string, port *string, hostPort string) {
	t.Helper()
	stored, err := dyn.Resource(v2GVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gotHost, _, _ := unstructured.NestedString(stored.Object, "host")
	gotPort, hasPort, _ := unstructured.NestedString(stored.Object, "port")
	if gotHost != host || hasPort != (port != nil) || (port != nil && gotPort != *port) {
		t.Errorf("%s read as v2 (storage): host %q port %q (present %t), want host %q port %v", name, gotHost, gotPort, hasPort, host, describe(port))
	}
	asV1, err := dyn.Resource(v1GVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(asV1.Object, "hostPort"); got != hostPort {
		t.Errorf("%s read as v1 (through the webhook): hostPort %q, want %q", name, got, hostPort)
	}
	for _, f := range []string{"host", "port"} {
		if _, ok := asV1.Object[f]; ok {
			t.Errorf("%s read as v1 has v2's field %s: %v", name, f, asV1.Object)
		}
	}
}

func describe(s *string) string {
	if s == nil {
		return "absent"
	}
	return fmt.Sprintf("%q", *s)
}
