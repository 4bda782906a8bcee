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
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	applyv1 "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// GateValue is one GATE=true|false argument of `set`.
type GateValue struct {
	Gate  string
	Value bool
}

// ParseGateValues reads GATE=true|false arguments. A gate named twice is an error.
func ParseGateValues(args []string) ([]GateValue, error) {
	seen := map[string]bool{}
	var out []GateValue
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("argument %q is not GATE=true or GATE=false", a)
		}
		v, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("argument %q: the value of gate %s must be true or false", a, name)
		}
		if seen[name] {
			return nil, fmt.Errorf("gate %s is named twice", name)
		}
		seen[name] = true
		out = append(out, GateValue{Gate: name, Value: v})
	}
	return out, nil
}

// SetResult says what SetGates did.
type SetResult struct {
	Method Method
	// Written are the gates whose enabled was written; Noop the stable gates asked to be
	// enabled, which always are.
	Written, Noop []string
	Attempts      int
	// Backend is where the gates were written: the CRD (native, also when empty) or its
	// CustomResourceFeatureGates object (policies).
	Backend Backend
	// CRD is the CRD after the write, as ToggleResult.CRD.
	CRD *apiextensionsv1.CustomResourceDefinition
}

// SetGates writes enabled of several gates of one CRD in one request: one server-side
// apply, or one JSON patch that tests every gate's name at its index. Either every gate is
// written or none is. Every gate is checked first, as Toggle checks one. The gates are
// written where Toggle writes them: in the CRD, or in its CustomResourceFeatureGates object.
func (t *Toggler) SetGates(ctx context.Context, crdName string, values []GateValue) (*SetResult, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("no GATE=true|false given for %s", crdName)
	}
	g, err := t.read(ctx, crdName)
	if err != nil {
		return nil, err
	}
	crd := g.CRD
	res := &SetResult{Method: t.Method, Backend: g.Backend}
	if res.Method == "" || res.Method == MethodAuto {
		res.Method = MethodApply
		if g.managedByClientSideApply() {
			res.Method = MethodPatch
		}
	}
	var write []GateValue
	for _, v := range values {
		noop, err := checkToggle(crd, v.Gate, v.Value)
		if err != nil {
			return nil, err
		}
		if noop {
			res.Noop = append(res.Noop, v.Gate)
			continue
		}
		write = append(write, v)
		res.Written = append(res.Written, v.Gate)
	}
	res.CRD = crd
	if len(write) == 0 {
		return res, nil
	}
	var dryRun []string
	if t.DryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	switch res.Method {
	case MethodApply:
		body, err := g.applyBody(t.FieldManager, write)
		if err != nil {
			return nil, err
		}
		force := t.ForceConflicts
		out, err := t.patch(ctx, g, types.ApplyPatchType, body,
			metav1.PatchOptions{FieldManager: t.FieldManager, Force: &force, DryRun: dryRun})
		if err != nil {
			if apierrors.IsConflict(err) {
				return nil, fmt.Errorf("server-side apply of gates %s of %s as field manager %q: %w\n(another field manager set one of these gates' enabled; add --force-conflicts to take it over)", strings.Join(res.Written, ", "), crdName, t.FieldManager, err)
			}
			return nil, fmt.Errorf("server-side apply of gates %s of %s as field manager %q: %w", strings.Join(res.Written, ", "), crdName, t.FieldManager, err)
		}
		res.CRD = out.CRD
		return res, nil
	case MethodPatch:
		for attempt := 1; ; attempt++ {
			patch, err := guardedPatchMany(crd, g.gatesPath(), write)
			if err != nil {
				return nil, err
			}
			out, err := t.patch(ctx, g, types.JSONPatchType, patch,
				metav1.PatchOptions{FieldManager: t.FieldManager, DryRun: dryRun})
			if err == nil {
				res.Attempts, res.CRD = attempt, out.CRD
				return res, nil
			}
			if !isPatchApplyFailure(err) {
				return nil, fmt.Errorf("JSON patch of gates %s of %s: %w", strings.Join(res.Written, ", "), crdName, err)
			}
			// Nothing changed. Retry only if a gate moved since crd was read.
			fresh, gerr := t.read(ctx, crdName)
			if gerr != nil {
				return nil, gerr
			}
			again, gerr := guardedPatchMany(fresh.CRD, fresh.gatesPath(), write)
			if gerr != nil {
				return nil, gerr
			}
			if string(again) == string(patch) {
				return nil, fmt.Errorf("JSON patch of gates %s of %s: the server could not apply %s: %w", strings.Join(res.Written, ", "), crdName, patch, err)
			}
			if attempt == maxPatchAttempts {
				return nil, fmt.Errorf("JSON patch of gates %s of %s: the gates moved in the list on each of %d attempts, nothing was changed", strings.Join(res.Written, ", "), crdName, attempt)
			}
			g, crd = fresh, fresh.CRD
		}
	default:
		return nil, fmt.Errorf("unknown --method %q: want auto, apply or patch", res.Method)
	}
}

// applyBodyMany is ApplyBody for several gates: the fields the manager owns, with enabled
// set on each gate of values.
func applyBodyMany(crd *apiextensionsv1.CustomResourceDefinition, fieldManager string, values []GateValue) ([]byte, error) {
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
	for _, v := range values {
		found := false
		for i := range gates.FeatureGates {
			if g := &gates.FeatureGates[i]; g.Name != nil && *g.Name == v.Gate {
				g.WithEnabled(v.Value)
				found = true
				break
			}
		}
		if !found {
			gates.WithFeatureGates(applyv1.CustomResourceDefinitionFeatureGate().WithName(v.Gate).WithEnabled(v.Value))
		}
	}
	return json.Marshal(ac)
}

// guardedPatchMany is one JSON patch that, for each gate, tests its name at its index in
// crd and sets enabled there, in the gate list at the JSON pointer gatesPath.
func guardedPatchMany(crd *apiextensionsv1.CustomResourceDefinition, gatesPath string, values []GateValue) ([]byte, error) {
	var ops []map[string]interface{}
	for _, v := range values {
		i, err := findGate(crd, v.Gate)
		if err != nil {
			return nil, err
		}
		base := fmt.Sprintf("%s/%d", gatesPath, i)
		ops = append(ops,
			map[string]interface{}{"op": "test", "path": base + "/name", "value": v.Gate},
			map[string]interface{}{"op": "add", "path": base + "/enabled", "value": v.Value})
	}
	return json.Marshal(ops)
}

func newSetCommand(o *Options) *cobra.Command {
	t := &Toggler{FieldManager: DefaultFieldManager, Method: MethodAuto}
	var method string
	cmd := &cobra.Command{
		Use:   "set CRD GATE=true|false...",
		Short: "Enable and disable several feature gates of a CRD in one write",
		Long: `Set enabled on several feature gates of the CRD at once, in one request: either
every gate named is written or none is. This is how a tool moves a CRD from one set of gate
states to another (for example every gate of an OpenShift feature set).

The write works as in enable and disable, in the CRD or in its CustomResourceFeatureGates
object: by default (--method=auto) a server-side apply of
the gates' names and enabled under --field-manager, or, on a CRD that client-side
"kubectl apply" manages, one JSON patch that tests each gate's name at its index. Enabling
a stable gate is a no-op; disabling one is an error, and then nothing is written. Unlike
disable, set does not count the stored objects that hold values at the gates' fields
(use "kubectl featuregates usage CRD GATE..." for that).`,
		Example: "  kubectl featuregates set databases.gates.example.com BackupGate=true BackupEncryptionGate=false",
		Args:    cobra.MinimumNArgs(2),
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
			values, err := ParseGateValues(args[1:])
			if err != nil {
				return err
			}
			r, err := o.gateReader()
			if err != nil {
				return err
			}
			t.Client, t.Params = r.crds, r.params
			res, err := t.SetGates(cmd.Context(), args[0], values)
			if err != nil {
				return err
			}
			return printSet(o, args[0], t, res)
		},
	}
	cmd.Flags().StringVar(&t.FieldManager, "field-manager", DefaultFieldManager, "Field manager that owns the gates' enabled.")
	cmd.Flags().StringVar(&method, "method", string(MethodAuto), "How to write: auto, apply (server-side apply) or patch (JSON patch guarded by the gates' names).")
	cmd.Flags().BoolVar(&t.ForceConflicts, "force-conflicts", false, "With server-side apply, take the gates' enabled over from another field manager.")
	cmd.Flags().BoolVar(&t.DryRun, "dry-run", false, "Send the write as a server-side dry run: nothing is stored.")
	return cmd
}

func printSet(o *Options, crd string, t *Toggler, res *SetResult) error {
	how := fmt.Sprintf("server-side apply, field manager %s", t.FieldManager)
	if res.Method == MethodPatch {
		how = fmt.Sprintf("JSON patch guarded by the gates' names, field manager %s", t.FieldManager)
	}
	dry := ""
	if t.DryRun {
		dry = " (server dry run)"
	}
	names := append(append([]string{}, res.Written...), res.Noop...)
	sort.Strings(names)
	var states []string
	for _, g := range names {
		states = append(states, g+"="+gateState(res.CRD, g))
		if unmet, anyOf := unmetRequires(res.CRD, g); len(unmet) > 0 || len(anyOf) > 0 {
			states[len(states)-1] += "(requires " + requiresText(unmet, anyOf) + ")"
		}
	}
	written := "nothing written, every gate named is stable and always enabled"
	if len(res.Written) > 0 {
		written = fmt.Sprintf("%d gates set (%s)", len(res.Written), how)
	}
	_, err := fmt.Fprintf(o.Streams.Out, "%s: %s; state: %s%s\n", objectRef(res.Backend, crd), written, strings.Join(states, " "), dry)
	return err
}
