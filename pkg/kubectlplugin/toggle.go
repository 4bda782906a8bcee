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
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	applyv1 "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration/apiextensions/v1"
	apiextensionsv1client "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Method is how a gate's enabled is written.
type Method string

const (
	// MethodAuto picks MethodApply, or MethodPatch on a CRD that client-side apply manages.
	MethodAuto Method = "auto"
	// MethodApply is a server-side apply of the gate's name and enabled only, so the field
	// manager owns featureGates[name=GATE].enabled and nothing else.
	MethodApply Method = "apply"
	// MethodPatch is a JSON patch that tests the gate's name at its index before it sets
	// enabled there.
	MethodPatch Method = "patch"
)

// lastAppliedAnnotation is the annotation client-side kubectl apply keeps.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// maxPatchAttempts bounds the re-reads when a guarded JSON patch finds another gate at the
// index it read (the gates were reordered in between).
const maxPatchAttempts = 5

// ManagedByClientSideApply reports whether client-side `kubectl apply` manages the CRD: some
// Update field manager owns kubectl's last-applied-configuration annotation. It is the test
// kubectl itself uses (csaupgrade.FindFieldsOwners on that annotation) when it decides to
// migrate an object from client-side to server-side apply.
func ManagedByClientSideApply(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return managedByClientSideApply(crd.Annotations, crd.ManagedFields)
}

// managedByClientSideApply is ManagedByClientSideApply for any object, by its annotations
// and managed fields.
func managedByClientSideApply(annotations map[string]string, managed []metav1.ManagedFieldsEntry) bool {
	if _, ok := annotations[lastAppliedAnnotation]; !ok {
		return false
	}
	set := fieldpath.NewSet(fieldpath.MakePathOrDie("metadata", "annotations", lastAppliedAnnotation))
	return len(csaupgrade.FindFieldsOwners(managed, metav1.ManagedFieldsOperationUpdate, set)) > 0
}

// findGate returns the index of the gate named name, or an error that lists the declared
// gates.
func findGate(crd *apiextensionsv1.CustomResourceDefinition, name string) (int, error) {
	var names []string
	if crd.Spec.CustomFeatureGates != nil {
		for i, g := range crd.Spec.CustomFeatureGates.FeatureGates {
			if g.Name == name {
				return i, nil
			}
			names = append(names, g.Name)
		}
	}
	if len(names) == 0 {
		return -1, fmt.Errorf("customresourcedefinition %q declares no feature gates (spec.customFeatureGates is empty)", crd.Name)
	}
	sort.Strings(names)
	return -1, fmt.Errorf("customresourcedefinition %q declares no feature gate named %q; its gates are: %s", crd.Name, name, strings.Join(names, ", "))
}

// checkToggle says whether enabled=value may be written to the gate: it fails for an
// unknown gate and for disabling a stable gate. noop is true when nothing needs writing
// (enabling a stable gate, which is always enabled).
func checkToggle(crd *apiextensionsv1.CustomResourceDefinition, gate string, value bool) (noop bool, err error) {
	i, err := findGate(crd, gate)
	if err != nil {
		return false, err
	}
	g := crd.Spec.CustomFeatureGates.FeatureGates[i]
	if g.PreRelease == apiextensionsv1.CustomFeatureGateStable {
		if !value {
			return false, fmt.Errorf("feature gate %s of %s is stable: a stable gate is always enabled and cannot be disabled", gate, crd.Name)
		}
		return g.Enabled == nil || *g.Enabled, nil
	}
	return false, nil
}

// ApplyBody is the server-side apply configuration that sets enabled of one gate, as the
// field manager fieldManager, on crd as read from the server. It carries every field that
// manager already owns, with its current value (the extract/modify/apply workflow): an
// apply configuration is the manager's whole intent, so one that named only this gate
// would make the server remove the enabled of every other gate the manager had set (a
// second `enable` on the same CRD would turn the first gate off again).
func ApplyBody(crd *apiextensionsv1.CustomResourceDefinition, fieldManager, gate string, value bool) ([]byte, error) {
	ac, err := applyv1.ExtractCustomResourceDefinition(crd, fieldManager)
	if err != nil {
		return nil, fmt.Errorf("reading the fields field manager %q owns in %s: %w", fieldManager, crd.Name, err)
	}
	if ac.Spec == nil {
		ac.Spec = applyv1.CustomResourceDefinitionSpec()
	}
	if ac.Spec.CustomFeatureGates == nil {
		ac.Spec.CustomFeatureGates = applyv1.CustomResourceDefinitionFeatureGates()
	}
	gates := ac.Spec.CustomFeatureGates
	for i := range gates.FeatureGates {
		if g := &gates.FeatureGates[i]; g.Name != nil && *g.Name == gate {
			g.WithEnabled(value)
			return json.Marshal(ac)
		}
	}
	gates.WithFeatureGates(applyv1.CustomResourceDefinitionFeatureGate().WithName(gate).WithEnabled(value))
	return json.Marshal(ac)
}

// GuardedPatch is the JSON patch that sets enabled of the gate at index i, guarded by a
// test of the gate's name at that index: if the gates were reordered since i was read, the
// server rejects the whole patch instead of changing another gate.
func GuardedPatch(i int, gate string, value bool) []byte {
	return guardedPatchAt(nativeGatesPath, i, gate, value)
}

// guardedPatchAt is GuardedPatch for the gate list at the JSON pointer gatesPath.
func guardedPatchAt(gatesPath string, i int, gate string, value bool) []byte {
	base := fmt.Sprintf("%s/%d", gatesPath, i)
	ops := []map[string]interface{}{
		{"op": "test", "path": base + "/name", "value": gate},
		{"op": "add", "path": base + "/enabled", "value": value},
	}
	b, _ := json.Marshal(ops) // cannot fail
	return b
}

// isPatchApplyFailure reports whether err is how kube-apiserver answers a JSON patch that
// it could not apply to the object, such as one whose test op failed: a 422 Invalid built
// from the patch library's error, which carries only a generic message and no details
// (apiserver's patch handler, NewGenericServerResponse). Validation failures of the patched
// CRD are 422 Invalid too, but name the object in their details.
func isPatchApplyFailure(err error) bool {
	status, ok := err.(apierrors.APIStatus)
	if !ok || err == nil {
		return false
	}
	st := status.Status()
	if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid {
		return false
	}
	return st.Details == nil || (st.Details.Kind == "" && st.Details.Name == "" && len(st.Details.Causes) == 0)
}

// ToggleResult says what Toggle did.
type ToggleResult struct {
	Method Method
	// Noop is true when nothing was written (enabling a stable gate).
	Noop bool
	// Backend is where the gate was written: the CRD (native, also when empty) or its
	// CustomResourceFeatureGates object (policies).
	Backend Backend
	// Attempts is the number of guarded JSON patches sent (MethodPatch).
	Attempts int
	// CRD is the CRD as the server returned it after the write (or as read, for a noop); on
	// the policies backend, with the gates of the parameter object the server returned.
	CRD *apiextensionsv1.CustomResourceDefinition
}

// Toggler writes one gate's enabled.
type Toggler struct {
	Client apiextensionsv1client.CustomResourceDefinitionInterface
	// Params reads and writes the CustomResourceFeatureGates objects of the policies
	// backend; when nil, only the native backend is detected.
	Params         dynamic.Interface
	FieldManager   string
	Method         Method
	ForceConflicts bool
	DryRun         bool
}

// Toggle sets enabled=value on the CRD's gate named gate, in the object that holds its gate
// states: the CRD, or on the policies backend its CustomResourceFeatureGates object.
func (t *Toggler) Toggle(ctx context.Context, crdName, gate string, value bool) (*ToggleResult, error) {
	g, err := t.read(ctx, crdName)
	if err != nil {
		return nil, err
	}
	crd := g.CRD
	noop, err := checkToggle(crd, gate, value)
	if err != nil {
		return nil, err
	}
	method := t.Method
	if method == "" || method == MethodAuto {
		method = MethodApply
		if g.managedByClientSideApply() {
			method = MethodPatch
		}
	}
	if noop {
		return &ToggleResult{Method: method, Noop: true, Backend: g.Backend, CRD: crd}, nil
	}
	var dryRun []string
	if t.DryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	switch method {
	case MethodApply:
		force := t.ForceConflicts
		body, err := g.applyBody(t.FieldManager, []GateValue{{gate, value}})
		if err != nil {
			return nil, err
		}
		out, err := t.patch(ctx, g, types.ApplyPatchType, body,
			metav1.PatchOptions{FieldManager: t.FieldManager, Force: &force, DryRun: dryRun})
		if err != nil {
			if apierrors.IsConflict(err) {
				return nil, fmt.Errorf("server-side apply of %s %s as field manager %q: %w\n(another field manager set this gate's enabled; add --force-conflicts to take it over)", crdName, gate, t.FieldManager, err)
			}
			return nil, fmt.Errorf("server-side apply of %s %s as field manager %q: %w", crdName, gate, t.FieldManager, err)
		}
		return &ToggleResult{Method: method, Backend: g.Backend, CRD: out.CRD}, nil
	case MethodPatch:
		for attempt := 1; ; attempt++ {
			i, err := findGate(crd, gate)
			if err != nil {
				return nil, err
			}
			if _, err := checkToggle(crd, gate, value); err != nil {
				return nil, err
			}
			out, err := t.patch(ctx, g, types.JSONPatchType, guardedPatchAt(g.gatesPath(), i, gate, value),
				metav1.PatchOptions{FieldManager: t.FieldManager, DryRun: dryRun})
			if err == nil {
				return &ToggleResult{Method: method, Attempts: attempt, Backend: g.Backend, CRD: out.CRD}, nil
			}
			if !isPatchApplyFailure(err) {
				return nil, fmt.Errorf("JSON patch of %s %s: %w", crdName, gate, err)
			}
			// The server could not apply the patch, so nothing changed. The server does not
			// say which operation failed; read the CRD again: if the gate is no longer at
			// index i, the gates were reordered since crd was read and the test op saved us
			// from changing another gate, so retry at the new index.
			sent := guardedPatchAt(g.gatesPath(), i, gate, value)
			fresh, rerr := t.read(ctx, crdName)
			if rerr != nil {
				return nil, rerr
			}
			g, crd = fresh, fresh.CRD
			j, ferr := findGate(crd, gate)
			if ferr != nil {
				return nil, ferr
			}
			if j == i {
				return nil, fmt.Errorf("JSON patch of %s %s: the server could not apply %s: %w", crdName, gate, sent, err)
			}
			if attempt == maxPatchAttempts {
				return nil, fmt.Errorf("JSON patch of %s %s: gate %s moved in the list on each of %d attempts, nothing was changed", crdName, gate, gate, attempt)
			}
		}
	default:
		return nil, fmt.Errorf("unknown --method %q: want auto, apply or patch", method)
	}
}

// gateState is the gate's state after a write, from the server's rules (a gate that requires
// a disabled gate is disabled): "enabled", "disabled", or "unknown" for an undeclared gate.
func gateState(crd *apiextensionsv1.CustomResourceDefinition, gate string) string {
	enabled, found := apihelpers.IsCustomFeatureGateEnabled(crd, gate)
	if !found {
		return "unknown"
	}
	return stateWord(enabled)
}

func newToggleCommand(o *Options, value bool) *cobra.Command {
	verb := "disable"
	if value {
		verb = "enable"
	}
	t := &Toggler{FieldManager: DefaultFieldManager, Method: MethodAuto}
	var method string
	var skipUsage bool
	long := fmt.Sprintf(`Set enabled: %v on the feature gate named GATE of the CRD: in its
spec.customFeatureGates, or, when the CRD's gates live in the CustomResourceFeatureGates
object named like it (a stock kube-apiserver with generated admission policies), in that
object, the same way; the CRD is then not changed.

By default (--method=auto) this is a server-side apply of just that gate's name and
enabled, under the field manager given by --field-manager: that manager then owns
featureGates[name=GATE].enabled, and the CRD author's later "kubectl apply --server-side"
of the full CRD leaves it alone.

If client-side "kubectl apply" manages the CRD (a field manager with operation Update owns
the kubectl.kubernetes.io/last-applied-configuration annotation, which is the test kubectl
itself uses), a JSON patch is sent instead. It sets enabled at the gate's index and is guarded
by a "test" of the gate's name at that index, so if the gates are reordered concurrently the
server rejects it and the plugin reads the CRD again, rather than changing another gate.
--method=apply or --method=patch forces one way.`, value)
	if !value {
		long += `

Before it acts, disable counts the stored objects that hold values at the gate's fields in
the storage version, as "kubectl featuregates usage CRD GATE" does (values that schema
defaults put there when the server reads an object are not counted), and prints the count:
those values are kept, and writes can no longer change them. The count lists every object
of the CRD; --skip-usage skips it. If the count fails, nothing is changed.`
	}
	cmd := &cobra.Command{
		Use:     verb + " CRD GATE",
		Short:   fmt.Sprintf("%s a feature gate of a CRD, by name", strings.ToUpper(verb[:1])+verb[1:]),
		Long:    long,
		Example: fmt.Sprintf("  kubectl featuregates %s databases.gates.example.com BackupGate", verb),
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t.Method = Method(method)
			switch t.Method {
			case MethodAuto, MethodApply, MethodPatch:
			default:
				return fmt.Errorf("invalid --method %q: want auto, apply or patch", method)
			}
			if t.FieldManager == "" {
				return fmt.Errorf("--field-manager must not be empty")
			}
			r, err := o.gateReader()
			if err != nil {
				return err
			}
			t.Client, t.Params = r.crds, r.params
			if !value && !skipUsage {
				if err := o.printDisableUsage(cmd.Context(), r, args[0], args[1]); err != nil {
					return err
				}
			}
			res, err := t.Toggle(cmd.Context(), args[0], args[1], value)
			if err != nil {
				return err
			}
			return printToggle(o.Streams.Out, args[0], args[1], verb, t, res)
		},
	}
	cmd.Flags().StringVar(&t.FieldManager, "field-manager", DefaultFieldManager, "Field manager that owns the gate's enabled.")
	cmd.Flags().StringVar(&method, "method", string(MethodAuto), "How to write: auto, apply (server-side apply) or patch (JSON patch guarded by a test of the gate's name).")
	cmd.Flags().BoolVar(&t.ForceConflicts, "force-conflicts", false, "With server-side apply, take the gate's enabled over from another field manager.")
	cmd.Flags().BoolVar(&t.DryRun, "dry-run", false, "Send the write as a server-side dry run: nothing is stored.")
	if !value {
		cmd.Flags().BoolVar(&skipUsage, "skip-usage", false, "Do not count the objects that hold values at the gate's fields first (it lists every object of the CRD).")
	}
	return cmd
}

// printDisableUsage prints, before disable acts, how many stored objects hold values at the
// fields of the gate. A gate that cannot be disabled fails here, before any object is
// listed; so does a failed count, before anything is changed.
func (o *Options) printDisableUsage(ctx context.Context, r *gateReader, crdName, gate string) error {
	g, err := r.get(ctx, crdName)
	if err != nil {
		return err
	}
	crd := g.CRD
	if _, err := checkToggle(crd, gate, false); err != nil {
		return err
	}
	report, err := newUsageReport(crd, []string{gate})
	if err == nil && len(report.Gates[0].FieldPaths) > 0 {
		var dc dynamic.Interface
		if dc, err = o.dynamic(); err == nil {
			report, err = ScanUsage(ctx, dc, crd, []string{gate}, UsageOptions{ChunkSize: DefaultChunkSize, Examples: DefaultExamples})
		}
	}
	if err != nil {
		return fmt.Errorf("cannot count the objects that hold values at the fields of %s, so nothing was changed (--skip-usage disables without counting): %w", gate, err)
	}
	_, err = fmt.Fprintln(o.Streams.Out, usageLine(report.Gates[0], report.Version))
	return err
}

func printToggle(w io.Writer, crd, gate, verb string, t *Toggler, res *ToggleResult) error {
	ref := objectRef(res.Backend, crd)
	unmet, unmetAnyOf := unmetRequires(res.CRD, gate)
	if res.Noop {
		if g := apihelpers.FindCustomFeatureGate(res.CRD, gate); g != nil && (len(g.Requires) > 0 || len(g.RequiresAnyOf) > 0) {
			_, err := fmt.Fprintf(w, "%s: feature gate %s is stable, so enabled only by the gates it requires (%s); nothing to change; state: %s\n",
				ref, gate, requiredGates(g.Requires, g.RequiresAnyOf), stateText(gateState(res.CRD, gate), unmet, unmetAnyOf))
			return err
		}
		_, err := fmt.Fprintf(w, "%s: feature gate %s is stable and always enabled; nothing to change\n", ref, gate)
		return err
	}
	how := fmt.Sprintf("server-side apply, field manager %s", t.FieldManager)
	if res.Method == MethodPatch {
		how = fmt.Sprintf("JSON patch guarded by the gate's name, field manager %s", t.FieldManager)
	}
	dry := ""
	if t.DryRun {
		dry = " (server dry run)"
	}
	if _, err := fmt.Fprintf(w, "%s: feature gate %s %sd (%s); state: %s%s\n",
		ref, gate, verb, how, stateText(gateState(res.CRD, gate), unmet, unmetAnyOf), dry); err != nil {
		return err
	}
	if verb == "enable" && len(unmet) > 0 {
		_, err := fmt.Fprintf(w, "feature gate %s stays disabled until %s %s enabled\n", gate, strings.Join(unmet, " and "), isAre(len(unmet)))
		return err
	}
	return nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
