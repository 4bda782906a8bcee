// Package webapp is the example controller of KEP-2608 field feature gates: it owns the
// gated field .spec.autoscaling of WebApps (config/webapp-crd.yaml), reconciles it only while
// the CRD's gate WebAppAutoscaling is enabled, and says in the WebApp's status why it does
// not otherwise. It watches the gate, so a cluster admin's flip takes effect at once, without
// a restart.
//
// What it reconciles is small on purpose: for a WebApp that sets .spec.autoscaling it keeps a
// ConfigMap <name>-autoscaling holding the bounds (a stand-in for a real autoscaler's object),
// and it copies .spec.replicas, which no gate guards, to .status.replicas.
package webapp

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"k8s.io/apiextensions-apiserver/controllers/featuregates"
)

const (
	// CRDName is the name of the CRD that declares WebApps and their gates.
	CRDName = "webapps.demo.example.com"
	// Version is the version the controller reads and writes.
	Version = "v1"
	// Gate is the custom feature gate that guards AutoscalingPath.
	Gate = "WebAppAutoscaling"
	// AutoscalingPath is the gated field the controller owns.
	AutoscalingPath = ".spec.autoscaling"

	// ConditionType is the status condition that tells whether .spec.autoscaling is acted on.
	ConditionType = "AutoscalingReconciled"
	// ReasonFeatureGateDisabled: the gate is off, so the controller leaves autoscaling alone
	// (condition False).
	ReasonFeatureGateDisabled = "FeatureGateDisabled"
	// ReasonReconciled: the gate is on and the ConfigMap holds the WebApp's bounds (True).
	ReasonReconciled = "Reconciled"
	// ReasonNotRequested: the gate is on and the WebApp sets no autoscaling (True).
	ReasonNotRequested = "NotRequested"

	// Keys of the ConfigMap the controller keeps for a WebApp with autoscaling.
	MinReplicasKey = "minReplicas"
	MaxReplicasKey = "maxReplicas"
)

// GroupVersionKind is the kind the controller reconciles.
var GroupVersionKind = schema.GroupVersionKind{Group: "demo.example.com", Version: Version, Kind: "WebApp"}

// New returns an empty WebApp, as an unstructured object: the example has no Go types.
func New() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(GroupVersionKind)
	return u
}

// ConfigMapName is the name of the ConfigMap the controller keeps for a WebApp.
func ConfigMapName(webApp string) string { return webApp + "-autoscaling" }

// Reconciler reconciles WebApps.
type Reconciler struct {
	Client client.Client
	Scheme *runtime.Scheme
	// Gates tracks the gates of CRDName. It must be added to the manager (mgr.Add).
	Gates *featuregates.Tracker
}

// SetupWithManager registers the controller: WebApps, the ConfigMaps it owns, and the gate,
// whose flips requeue every WebApp.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("webapp").
		For(New()).
		Owns(&corev1.ConfigMap{}).
		WatchesRawSource(r.Gates.Source(r.allWebApps, Gate)).
		Complete(r)
}

// allWebApps maps a flip of the gate to a request for every WebApp.
func (r *Reconciler) allWebApps(ctx context.Context) []reconcile.Request {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(GroupVersionKind.GroupVersion().WithKind("WebAppList"))
	if err := r.Client.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "Listing WebApps after a feature gate flip")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{
			Namespace: list.Items[i].GetNamespace(), Name: list.Items[i].GetName()}})
	}
	return reqs
}

// Reconcile acts on one WebApp.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	app := New()
	if err := r.Client.Get(ctx, req.NamespacedName, app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}

	cond := metav1.Condition{Type: ConditionType, ObservedGeneration: app.GetGeneration()}
	live, err := r.Gates.FieldEnabled(Version, AutoscalingPath)
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("asking whether %s of %s is enabled: %w", AutoscalingPath, CRDName, err)
	}
	if !live {
		// Hands off: the ConfigMap, if one was made while the gate was on, is neither
		// updated nor deleted, and a stored .spec.autoscaling stays as it is.
		cond.Status = metav1.ConditionFalse
		cond.Reason = ReasonFeatureGateDisabled
		cond.Message = fmt.Sprintf("feature gate %s of %s is disabled: %s is not reconciled", Gate, CRDName, AutoscalingPath)
	} else {
		cond.Status = metav1.ConditionTrue
		cond.Reason, cond.Message, err = r.reconcileAutoscaling(ctx, app)
		if err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, r.updateStatus(ctx, app, cond)
}

// reconcileAutoscaling makes the WebApp's ConfigMap match .spec.autoscaling: it creates or
// updates it when the field is set, and deletes it when not.
func (r *Reconciler) reconcileAutoscaling(ctx context.Context, app *unstructured.Unstructured) (reason, message string, err error) {
	minReplicas, foundMin, err := unstructured.NestedInt64(app.Object, "spec", "autoscaling", "minReplicas")
	if err != nil {
		return "", "", err
	}
	maxReplicas, foundMax, err := unstructured.NestedInt64(app.Object, "spec", "autoscaling", "maxReplicas")
	if err != nil {
		return "", "", err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: app.GetNamespace(), Name: ConfigMapName(app.GetName())}}
	if !foundMin || !foundMax {
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm); err == nil && metav1.IsControlledBy(cm, app) {
			if err := r.Client.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
				return "", "", err
			}
		} else if err != nil && !apierrors.IsNotFound(err) {
			return "", "", err
		}
		return ReasonNotRequested, AutoscalingPath + " is not set", nil
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{
			MinReplicasKey: strconv.FormatInt(minReplicas, 10),
			MaxReplicasKey: strconv.FormatInt(maxReplicas, 10),
		}
		return controllerutil.SetControllerReference(app, cm, r.Scheme)
	}); err != nil {
		return "", "", err
	}
	return ReasonReconciled, fmt.Sprintf("ConfigMap %s holds replicas %d to %d", cm.Name, minReplicas, maxReplicas), nil
}

// updateStatus records .spec.replicas and the condition, and writes the status only when
// something changed.
func (r *Reconciler) updateStatus(ctx context.Context, app *unstructured.Unstructured, cond metav1.Condition) error {
	conditions, err := conditionsOf(app)
	if err != nil {
		return err
	}
	before := append([]metav1.Condition(nil), conditions...)
	meta.SetStatusCondition(&conditions, cond)

	replicas, hasReplicas, err := unstructured.NestedInt64(app.Object, "spec", "replicas")
	if err != nil {
		return err
	}
	statusReplicas, hasStatusReplicas, err := unstructured.NestedInt64(app.Object, "status", "replicas")
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(before, conditions) && hasReplicas == hasStatusReplicas && replicas == statusReplicas {
		return nil
	}

	if hasReplicas {
		if err := unstructured.SetNestedField(app.Object, replicas, "status", "replicas"); err != nil {
			return err
		}
	} else {
		unstructured.RemoveNestedField(app.Object, "status", "replicas")
	}
	list := make([]interface{}, 0, len(conditions))
	for i := range conditions {
		c, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conditions[i])
		if err != nil {
			return err
		}
		list = append(list, c)
	}
	if err := unstructured.SetNestedSlice(app.Object, list, "status", "conditions"); err != nil {
		return err
	}
	return r.Client.Status().Update(ctx, app)
}

// conditionsOf reads .status.conditions.
func conditionsOf(app *unstructured.Unstructured) ([]metav1.Condition, error) {
	raw, _, err := unstructured.NestedSlice(app.Object, "status", "conditions")
	if err != nil {
		return nil, err
	}
	conditions := make([]metav1.Condition, 0, len(raw))
	for _, item := range raw {
		m, ok := item.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("status.conditions holds a %T, not an object", item)
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err != nil {
			return nil, err
		}
		conditions = append(conditions, c)
	}
	return conditions, nil
}

// Condition returns the WebApp's AutoscalingReconciled condition, or nil.
func Condition(app *unstructured.Unstructured) (*metav1.Condition, error) {
	conditions, err := conditionsOf(app)
	if err != nil {
		return nil, err
	}
	return meta.FindStatusCondition(conditions, ConditionType), nil
}

// ManagerOptions are the manager options the controller expects: WebApps, which it reads
// as unstructured objects, come from the manager's cache like every other object.
func ManagerOptions() ctrl.Options {
	return ctrl.Options{Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}}}
}

// Setup adds the tracker of CRDName's feature gates and the WebApp controller to mgr.
func Setup(mgr ctrl.Manager) error {
	gates, err := featuregates.NewTracker(mgr.GetConfig(), CRDName)
	if err != nil {
		return err
	}
	if err := mgr.Add(gates); err != nil {
		return err
	}
	r := &Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Gates: gates}
	return r.SetupWithManager(mgr)
}
