package webapp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"example.com/feature-gates-controller/webapp"
	"k8s.io/apiextensions-apiserver/controllers/envtestgates"
)

var (
	scheme = runtime.NewScheme()
	// cfg and k8s are those of the backend the running subtest uses (see useBackend); the
	// subtests run one after the other. k8s talks to the API server directly, never through
	// a cache.
	cfg *rest.Config
	k8s client.Client
	// backends are the servers the controller is tested on: this fork's kube-apiserver (the
	// gates in the CRD), and the stock kube-apiserver with the admission policies of
	// featuregate-gen policies (the gates in a CustomResourceFeatureGates object).
	backends []*backend
)

// backend is one kube-apiserver the controller runs against, and where its gates live.
type backend struct {
	name string
	cfg  *rest.Config
	k8s  client.Client
	// gatesObject is the object holding the gate states, and gatesPath the JSON pointer of
	// its gate list.
	gatesObject client.Object
	gatesPath   string
}

// useBackend points cfg and k8s at b.
func useBackend(b *backend) {
	cfg, k8s = b.cfg, b.k8s
}

// TestMain starts two envtest control planes: one from KUBEBUILDER_ASSETS, which must be the
// fork's envtest assets (make envtest-assets), a kube-apiserver with CRDFieldLevelVersioning
// on; and one with the stock kube-apiserver of STOCK_KUBE_APISERVER and the policies that
// FEATUREGATE_GEN generates. Without them the tests fail; they do not skip.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS is not set. These tests need the KEP-2608 fork's envtest assets "+
			"(kube-apiserver with CRDFieldLevelVersioning on): run `make envtest-assets` at the root of the fork and set "+
			"KUBEBUILDER_ASSETS to the path it prints, or run `make test-controllers` there.")
		return 1
	}
	log.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		panic(err)
	}

	env := &envtest.Environment{}
	native, err := startBackend("native", env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Starting envtest from KUBEBUILDER_ASSETS=%s: %v\n", os.Getenv("KUBEBUILDER_ASSETS"), err)
		return 1
	}
	defer stopEnv(env)
	// The CRD goes to the server as the file has it, with no Go type in between that could
	// drop its gates; Install fails, naming what is missing, if the server did not keep them
	// (a kube-apiserver without CRDFieldLevelVersioning, such as setup-envtest's).
	if _, err := envtestgates.Install(context.Background(), native.cfg, filepath.Join("..", "config", "webapp-crd.yaml")); err != nil {
		fmt.Fprintf(os.Stderr, "Installing the CRD on KUBEBUILDER_ASSETS=%s: %v\n", os.Getenv("KUBEBUILDER_ASSETS"), err)
		return 1
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := native.k8s.Get(context.Background(), client.ObjectKey{Name: webapp.CRDName}, crd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	native.gatesObject, native.gatesPath = crd, "/spec/customFeatureGates/featureGates"
	backends = append(backends, native)

	stock, stockEnv, err := startStock()
	if stockEnv != nil {
		defer stopEnv(stockEnv)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "The stock backend: %v\n", err)
		return 1
	}
	backends = append(backends, stock)
	return m.Run()
}

func startBackend(name string, env *envtest.Environment) (*backend, error) {
	c, err := env.Start()
	if err != nil {
		return nil, err
	}
	k, err := client.New(c, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	return &backend{name: name, cfg: c, k8s: k}, nil
}

func stopEnv(env *envtest.Environment) {
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "Stopping envtest: %v\n", err)
	}
}

// startStock starts the stock kube-apiserver (STOCK_KUBE_APISERVER) and installs what
// featuregate-gen policies (FEATUREGATE_GEN) generates from config/webapp-crd.yaml, as a
// cluster admin would: the stock CRDs, then the policies and the parameter object.
func startStock() (*backend, *envtest.Environment, error) {
	apiserver, gen := os.Getenv("STOCK_KUBE_APISERVER"), os.Getenv("FEATUREGATE_GEN")
	if apiserver == "" || gen == "" {
		return nil, nil, fmt.Errorf("STOCK_KUBE_APISERVER (a stock kube-apiserver v1.37.1) and FEATUREGATE_GEN (featuregate-gen) must be set: run `make test-controllers` at the root of the fork, which builds both")
	}
	dir, err := os.MkdirTemp("", "webapp-stock-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "generated")
	if b, err := exec.Command(gen, "policies", "--crds", filepath.Join("..", "config", "webapp-crd.yaml"), "--out", out).CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("featuregate-gen policies: %v\n%s", err, b)
	}
	env := &envtest.Environment{}
	env.ControlPlane.GetAPIServer().Path = apiserver
	b, err := startBackend("stock+policies", env)
	if err != nil {
		return nil, env, fmt.Errorf("starting %s: %w", apiserver, err)
	}
	kubectl := func(args ...string) error {
		stdout, stderr, err := env.ControlPlane.KubeCtl().Run(args...)
		if err != nil {
			o, _ := io.ReadAll(stdout)
			e, _ := io.ReadAll(stderr)
			return fmt.Errorf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, o, e)
		}
		return nil
	}
	for _, args := range [][]string{
		{"apply", "--server-side", "-f", filepath.Join(out, "crds")},
		{"wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"},
		{"apply", "--server-side", "-f", filepath.Join(out, "policies")},
	} {
		if err := kubectl(args...); err != nil {
			return nil, env, err
		}
	}
	param := &unstructured.Unstructured{}
	param.SetAPIVersion("featuregates.apiextensions.x-k8s.io/v1alpha1")
	param.SetKind("CustomResourceFeatureGates")
	param.SetName(webapp.CRDName)
	b.gatesObject, b.gatesPath = param, "/spec/featureGates"
	// Until the stock server publishes the CRD's schema, the policies refuse writes (they
	// fail closed). The probe sends a value at the gated-off autoscaling field, so that the
	// mutating policy's match condition holds and the mutation itself runs: a write without
	// one skips the mutation and passes before the server can apply it (503 "Resource kind
	// ... not found"). Wait until a dry-run create passes with the value dropped.
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for {
		probe := webapp.New()
		probe.SetNamespace("default")
		probe.SetName("probe")
		probe.Object["spec"] = map[string]interface{}{
			"replicas":    int64(1),
			"autoscaling": map[string]interface{}{"minReplicas": int64(1), "maxReplicas": int64(2)},
		}
		err := b.k8s.Create(ctx, probe, client.DryRunAll)
		if err == nil {
			if _, found, _ := unstructured.NestedFieldNoCopy(probe.Object, "spec", "autoscaling"); !found {
				break
			}
			err = fmt.Errorf("the dry-run create kept spec.autoscaling, whose gate WebAppAutoscaling is off")
		}
		if time.Now().After(deadline) {
			return nil, env, fmt.Errorf("a dry-run create of a WebApp still fails after 60s: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return b, env, nil
}

// TestWebAppFollowsItsGate runs the controller in a manager and turns WebAppAutoscaling on
// and off under it, as a cluster admin would, without restarting it.
func TestWebAppFollowsItsGate(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			useBackend(b)
			followsItsGate(t, b)
		})
	}
}

func followsItsGate(t *testing.T, b *backend) {
	ctx, cancel := context.WithCancel(context.Background())
	opts := webapp.ManagerOptions()
	opts.Scheme = scheme
	opts.Metrics = metricsserver.Options{BindAddress: "0"}
	// One manager per backend, one after the other, in one process.
	skip := true
	opts.Controller.SkipNameValidation = &skip
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := webapp.Setup(mgr); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webapps-"}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns.Name, Name: "shop"}
	cmKey := types.NamespacedName{Namespace: ns.Name, Name: webapp.ConfigMapName(key.Name)}

	t.Run("gate off: the field is dropped and the controller leaves it alone", func(t *testing.T) {
		app := webapp.New()
		app.SetNamespace(key.Namespace)
		app.SetName(key.Name)
		app.Object["spec"] = map[string]interface{}{
			"replicas":    int64(2),
			"autoscaling": map[string]interface{}{"minReplicas": int64(2), "maxReplicas": int64(5)},
		}
		if err := k8s.Create(ctx, app); err != nil {
			t.Fatal(err)
		}
		if _, found := autoscaling(t, ctx, key); found {
			t.Fatalf(".spec.autoscaling was stored although %s is off", webapp.Gate)
		}
		cond := waitFor(t, ctx, key, 10*time.Second, "status.replicas 2 and reason "+webapp.ReasonFeatureGateDisabled,
			func(app *unstructured.Unstructured, c *metav1.Condition) bool {
				return statusReplicas(app) == 2 && c != nil && c.Reason == webapp.ReasonFeatureGateDisabled
			})
		if cond.Status != metav1.ConditionFalse || !strings.Contains(cond.Message, webapp.Gate) {
			t.Errorf("condition %s: got status %s, message %q; want False and a message naming %s", webapp.ConditionType, cond.Status, cond.Message, webapp.Gate)
		}
		assertNoConfigMap(t, ctx, cmKey)
	})

	t.Run("enable: the controller picks the gate up within a second", func(t *testing.T) {
		setGate(t, ctx, b, true)
		start := time.Now()
		cond := waitFor(t, ctx, key, time.Second, "the controller to leave "+webapp.ReasonFeatureGateDisabled,
			func(_ *unstructured.Unstructured, c *metav1.Condition) bool {
				return c != nil && c.Reason != webapp.ReasonFeatureGateDisabled
			})
		t.Logf("the controller acted %v after the gate was enabled", time.Since(start).Round(time.Millisecond))
		if cond.Status != metav1.ConditionTrue || cond.Reason != webapp.ReasonNotRequested {
			t.Errorf("condition %s: got %s/%s; want True/%s (the field was dropped on create)", webapp.ConditionType, cond.Status, cond.Reason, webapp.ReasonNotRequested)
		}

		// The API server applies the CRD's new revision within about a second of its own:
		// set the field until it is stored.
		want := map[string]interface{}{"minReplicas": int64(2), "maxReplicas": int64(5)}
		eventually(t, 10*time.Second, ".spec.autoscaling to be stored", func() (bool, error) {
			app := get(t, ctx, key)
			if err := unstructured.SetNestedMap(app.Object, want, "spec", "autoscaling"); err != nil {
				return false, err
			}
			if err := k8s.Update(ctx, app); err != nil {
				return false, ignoreConflict(err)
			}
			_, found := autoscaling(t, ctx, key)
			return found, nil
		})
		waitFor(t, ctx, key, 10*time.Second, "reason "+webapp.ReasonReconciled, func(_ *unstructured.Unstructured, c *metav1.Condition) bool {
			return c != nil && c.Reason == webapp.ReasonReconciled && c.Status == metav1.ConditionTrue
		})
		waitForConfigMap(t, ctx, cmKey, "5")

		// While the gate is on, the controller owns the ConfigMap: an edit is undone.
		editConfigMap(t, ctx, cmKey, "99")
		waitForConfigMap(t, ctx, cmKey, "5")
	})

	t.Run("disable: the stored value is kept and the controller stops acting on it", func(t *testing.T) {
		setGate(t, ctx, b, false)
		start := time.Now()
		cond := waitFor(t, ctx, key, time.Second, "reason "+webapp.ReasonFeatureGateDisabled,
			func(_ *unstructured.Unstructured, c *metav1.Condition) bool {
				return c != nil && c.Reason == webapp.ReasonFeatureGateDisabled
			})
		t.Logf("the controller stopped %v after the gate was disabled", time.Since(start).Round(time.Millisecond))
		if cond.Status != metav1.ConditionFalse {
			t.Errorf("condition %s: got status %s; want False", webapp.ConditionType, cond.Status)
		}

		// Once the API server has the new revision (a dry-run that removes the field keeps
		// it), an update that omits .spec.autoscaling keeps the stored value.
		eventually(t, 10*time.Second, "the API server to keep .spec.autoscaling", func() (bool, error) {
			app := get(t, ctx, key)
			unstructured.RemoveNestedField(app.Object, "spec", "autoscaling")
			if err := k8s.Update(ctx, app, client.DryRunAll); err != nil {
				return false, ignoreConflict(err)
			}
			_, found, err := unstructured.NestedMap(app.Object, "spec", "autoscaling")
			return found, err
		})
		editConfigMap(t, ctx, cmKey, "99")
		eventually(t, 10*time.Second, "an update of .spec.replicas", func() (bool, error) {
			app := get(t, ctx, key)
			unstructured.RemoveNestedField(app.Object, "spec", "autoscaling")
			if err := unstructured.SetNestedField(app.Object, int64(3), "spec", "replicas"); err != nil {
				return false, err
			}
			return true, ignoreConflict(k8s.Update(ctx, app))
		})
		got, found := autoscaling(t, ctx, key)
		if !found || got["minReplicas"] != int64(2) || got["maxReplicas"] != int64(5) {
			t.Errorf("stored .spec.autoscaling: got %v (found %v); want the value stored while the gate was on, {2 5}", got, found)
		}

		// The controller reconciles the update (status.replicas follows .spec.replicas, which
		// no gate guards) and leaves the edited ConfigMap as it is.
		waitFor(t, ctx, key, 10*time.Second, "status.replicas 3", func(app *unstructured.Unstructured, c *metav1.Condition) bool {
			return statusReplicas(app) == 3 && c != nil && c.Reason == webapp.ReasonFeatureGateDisabled
		})
		if got := configMapMax(t, ctx, cmKey); got != "99" {
			t.Errorf("ConfigMap %s: maxReplicas %q; want the edit %q kept, since the controller does not act on autoscaling while %s is off", cmKey, got, "99", webapp.Gate)
		}
	})

	t.Run("enable again: the controller acts on the stored value", func(t *testing.T) {
		setGate(t, ctx, b, true)
		waitForConfigMap(t, ctx, cmKey, "5")
	})
}

// setGate sets the gate's enabled with a JSON patch guarded by a test of its name, as
// `kubectl featuregates enable|disable` does on an object that was not installed by
// server-side apply: the CRD on the native backend, the parameter object on stock.
func setGate(t *testing.T, ctx context.Context, b *backend, enabled bool) {
	t.Helper()
	obj := b.gatesObject.DeepCopyObject().(client.Object)
	if err := k8s.Get(ctx, client.ObjectKey{Name: webapp.CRDName}, obj); err != nil {
		t.Fatal(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Split(strings.TrimPrefix(b.gatesPath, "/"), "/")
	gates, _, _ := unstructured.NestedSlice(u, fields...)
	index := -1
	for i, g := range gates {
		if m, ok := g.(map[string]interface{}); ok && m["name"] == webapp.Gate {
			index = i
		}
	}
	if index < 0 {
		t.Fatalf("%s %s does not declare %s", obj.GetObjectKind().GroupVersionKind().Kind, webapp.CRDName, webapp.Gate)
	}
	path := fmt.Sprintf("%s/%d", b.gatesPath, index)
	patch, err := json.Marshal([]map[string]interface{}{
		{"op": "test", "path": path + "/name", "value": webapp.Gate},
		{"op": "add", "path": path + "/enabled", "value": enabled},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := k8s.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		t.Fatalf("enabled=%v on %s of %s: %v", enabled, webapp.Gate, webapp.CRDName, err)
	}
}

// waitFor polls the WebApp until ok holds, and fails the test after timeout.
func waitFor(t *testing.T, ctx context.Context, key types.NamespacedName, timeout time.Duration, what string,
	ok func(*unstructured.Unstructured, *metav1.Condition) bool) *metav1.Condition {
	t.Helper()
	var cond *metav1.Condition
	var app *unstructured.Unstructured
	eventually(t, timeout, what, func() (bool, error) {
		app = get(t, ctx, key)
		var err error
		cond, err = webapp.Condition(app)
		return err == nil && ok(app, cond), err
	})
	return cond
}

// eventually calls f every 10 ms until it returns true, and fails the test after timeout
// or on an error.
func eventually(t *testing.T, timeout time.Duration, what string, f func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := f()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func get(t *testing.T, ctx context.Context, key types.NamespacedName) *unstructured.Unstructured {
	t.Helper()
	app := webapp.New()
	if err := k8s.Get(ctx, key, app); err != nil {
		t.Fatal(err)
	}
	return app
}

func autoscaling(t *testing.T, ctx context.Context, key types.NamespacedName) (map[string]interface{}, bool) {
	t.Helper()
	m, found, err := unstructured.NestedMap(get(t, ctx, key).Object, "spec", "autoscaling")
	if err != nil {
		t.Fatal(err)
	}
	return m, found
}

func statusReplicas(app *unstructured.Unstructured) int64 {
	n, _, _ := unstructured.NestedInt64(app.Object, "status", "replicas")
	return n
}

func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}

func assertNoConfigMap(t *testing.T, ctx context.Context, key types.NamespacedName) {
	t.Helper()
	err := k8s.Get(ctx, key, &corev1.ConfigMap{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("ConfigMap %s: got error %v; want NotFound, since the controller must not act while %s is off", key, err, webapp.Gate)
	}
}

func configMapMax(t *testing.T, ctx context.Context, key types.NamespacedName) string {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, key, cm); err != nil {
		t.Fatal(err)
	}
	return cm.Data[webapp.MaxReplicasKey]
}

func waitForConfigMap(t *testing.T, ctx context.Context, key types.NamespacedName, maxReplicas string) {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("ConfigMap %s with maxReplicas %s", key, maxReplicas), func() (bool, error) {
		cm := &corev1.ConfigMap{}
		err := k8s.Get(ctx, key, cm)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && cm.Data[webapp.MaxReplicasKey] == maxReplicas, err
	})
}

func editConfigMap(t *testing.T, ctx context.Context, key types.NamespacedName, maxReplicas string) {
	t.Helper()
	eventually(t, 10*time.Second, "an edit of ConfigMap "+key.String(), func() (bool, error) {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, key, cm); err != nil {
			return false, err
		}
		cm.Data[webapp.MaxReplicasKey] = maxReplicas
		err := k8s.Update(ctx, cm)
		if errors.Is(err, context.Canceled) {
			return false, err
		}
		return err == nil, ignoreConflict(err)
	})
}
