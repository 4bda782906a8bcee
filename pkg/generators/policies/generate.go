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

package policies

import (
	"fmt"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

const generator = "featuregate-gen policies"

// gatedPath is one gated path of the storage version and the gates whose states decide
// whether it is live: its own and those of its gated ancestors.
type gatedPath struct {
	path  featuregates.Path
	gate  string
	chain []string
}

// gen holds what Generate works out for one CRD.
type gen struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	storage string
	schema  *structuralschema.Structural
	gates   []apiextensionsv1.CustomResourceDefinitionFeatureGate
	paths   []gatedPath
	walker  *walker
	res     *Result
	// defaults are the schema defaults taken out of the stock CRD, at storage paths; rules
	// and keywords the rules that read featureGates and the gated keywords.
	defaults []movedDefault
	rules    []movedRule
	keywords []movedKeywords
	// vapPairings are the pairing variables the validating policy's checks read.
	vapPairings []admissionregistrationv1.Variable
	// validations are the Deny checks; warnings the Warn checks.
	validations []admissionregistrationv1.Validation
	warnings    []admissionregistrationv1.Validation
	// scale is set when the scale subresource writes a gated path.
	scale *gatedPath
}

type movedDefault struct {
	path  featuregates.Path
	value string
	chain []string
}

// Generate returns what a stock kube-apiserver needs to serve crd's gates through admission
// policies. The input is not modified. It fails, naming the CRD, when crd declares no gates,
// has no structural storage-version schema, or uses gates in a way the policies cannot
// carry; behaviour the policies reproduce only in part is listed in Result.Differences.
// The same crd always gives the same result.
func Generate(crd *apiextensionsv1.CustomResourceDefinition) (*Result, error) {
	if crd.Spec.CustomFeatureGates == nil || len(crd.Spec.CustomFeatureGates.FeatureGates) == 0 {
		return nil, fmt.Errorf("CustomResourceDefinition %s declares no field feature gates (spec.customFeatureGates); there is nothing to generate", crd.Name)
	}
	// What our server refuses (a requires cycle, a gate that requires an undeclared one, a
	// path that does not resolve, ...) would give policies that a stock server refuses, or
	// worse, accepts in part: refuse it here, with the server's own errors.
	if errs, err := crdmerge.ServerValidation(crd); err != nil || len(errs) > 0 {
		if err == nil {
			err = errs.ToAggregate()
		}
		return nil, fmt.Errorf("CustomResourceDefinition %s is not valid (our kube-apiserver would refuse it), fix it and run again: %w", crd.Name, err)
	}
	g := &gen{crd: crd.DeepCopy(), res: &Result{}}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			g.storage = v.Name
		}
	}
	if g.storage == "" {
		return nil, fmt.Errorf("CustomResourceDefinition %s has no storage version", crd.Name)
	}
	for _, vs := range featuregates.StructuralSchemas(crd) {
		if vs.Version == g.storage {
			g.schema = vs.Schema
		}
	}
	if g.schema == nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: the schema of the storage version %s is missing or not structural", crd.Name, g.storage)
	}
	g.gates = crd.Spec.CustomFeatureGates.FeatureGates
	ix := featuregates.CompileCRDVersion(crd, g.storage, g.schema)
	for _, p := range ix.Paths() {
		g.paths = append(g.paths, gatedPath{path: p.Path, gate: p.Gate.Name})
	}
	sort.SliceStable(g.paths, func(i, j int) bool { return g.paths[i].path.String() < g.paths[j].path.String() })
	g.walker = &walker{schema: g.schema, heldBelow: g.heldBelow}
	for i := range g.paths {
		g.paths[i].chain = g.chainOf(g.paths[i].path.Steps(), true)
		g.walker.gated = append(g.walker.gated, livePath{path: g.paths[i].path, live: g.live(g.paths[i].chain)})
	}
	for _, name := range []string{g.policyName(), g.warningsPolicyName()} {
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return nil, fmt.Errorf("CustomResourceDefinition %s: the policy name %s is not valid: %s", crd.Name, name, strings.Join(errs, "; "))
		}
	}
	if err := g.stockCRD(); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
	}
	g.param()
	if err := g.mutating(); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
	}
	g.validating()
	g.generalDifferences()
	sort.SliceStable(g.res.Differences, func(i, j int) bool {
		a, b := g.res.Differences[i], g.res.Differences[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.What < b.What
	})
	return g.res, nil
}

// chainOf returns the gates of the gated paths at or above steps (strictly above when
// inclusive is false), outermost first, each once.
func (g *gen) chainOf(steps []featuregates.Step, inclusive bool) []string {
	var chain []string
	seen := map[string]bool{}
	for _, p := range g.paths {
		ps := p.path.Steps()
		if len(ps) > len(steps) || (!inclusive && len(ps) == len(steps)) || !stepsHavePrefix(steps, ps) {
			continue
		}
		if !seen[p.gate] {
			seen[p.gate] = true
			chain = append(chain, p.gate)
		}
	}
	return chain
}

// live is the CEL condition under which every gate of chain is enabled.
func (g *gen) live(chain []string) string {
	if len(chain) == 0 {
		return "true"
	}
	parts := make([]string, len(chain))
	for i, c := range chain {
		parts[i] = g.gateVar(c)
	}
	return strings.Join(parts, " && ")
}

// gateVar is the CEL value of a gate's state: its variable where it needs other gates, else
// the lookup in gateStates itself (one variable per gate is one more CEL program evaluated on
// every write).
func (g *gen) gateVar(name string) string {
	for _, gate := range g.gates {
		if gate.Name == name && len(gate.Requires) == 0 && len(gate.RequiresAnyOf) == 0 {
			return ownState(gate)
		}
	}
	return "variables." + gateVarName(name)
}

// ownStateOf is the CEL state of the parameter object's gate entry g by KEP-2608's rules,
// before requires.
func ownStateOf(g string) string {
	return fmt.Sprintf(`%[1]s.preRelease == "stable" || (has(%[1]s.enabled) ? %[1]s.enabled : has(%[1]s.default) ? %[1]s.default : %[1]s.preRelease == "beta")`, g)
}

// ownState is the state of gate read from the parameter object, before requires: a gate
// missing from it is off, but a stable one, which cannot be turned off (our server refuses
// enabled: false on it) by deleting its entry either.
func ownState(gate apiextensionsv1.CustomResourceDefinitionFeatureGate) string {
	return fmt.Sprintf("variables.%s[?%s].orValue(%t)", statesVarName, celString(gate.Name), gate.PreRelease == apiextensionsv1.CustomFeatureGateStable)
}

func gateVarName(name string) string { return "gate_" + name }

// statesVarName is the variable that maps each gate of the parameter object to its own state
// (before requires).
const statesVarName = "gateStates"

func (g *gen) policyName() string { return "featuregates." + g.crd.Name }

func (g *gen) warningsPolicyName() string { return "featuregates-warnings." + g.crd.Name }

func (g *gen) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Annotations: map[string]string{GeneratedByAnnotation: generator}}
}

// gateVariables returns the variable old (the stored object; an empty object on create, so
// that optional selections on it find nothing) and one variable per gate, gate_<Name>: its state by KEP-2608's rules,
// read from the parameter object, and the states of the gates it requires, in an order
// where a variable only reads earlier ones.
func (g *gen) gateVariables() []admissionregistrationv1.Variable {
	byName := map[string]apiextensionsv1.CustomResourceDefinitionFeatureGate{}
	for _, gate := range g.gates {
		byName[gate.Name] = gate
	}
	var order []string
	done := map[string]bool{}
	var visit func(string)
	visit = func(n string) {
		if done[n] {
			return
		}
		done[n] = true
		gate, ok := byName[n]
		if !ok {
			return
		}
		for _, r := range append(append([]string(nil), gate.Requires...), gate.RequiresAnyOf...) {
			visit(r)
		}
		order = append(order, n)
	}
	names := make([]string, 0, len(g.gates))
	for _, gate := range g.gates {
		names = append(names, gate.Name)
	}
	sort.Strings(names)
	for _, n := range names {
		visit(n)
	}
	vars := make([]admissionregistrationv1.Variable, 0, len(order)+2)
	vars = append(vars, admissionregistrationv1.Variable{Name: "old", Expression: "oldObject != null ? oldObject : {}"},
		// One pass over the parameter object's gates (a map list keyed by name, so each name
		// once) gives every gate's own state by name: each gate variable is then one lookup,
		// and a write costs O(gates), not O(gates²).
		admissionregistrationv1.Variable{Name: statesVarName, Expression: fmt.Sprintf("params.spec.featureGates.transformMapEntry(i, g, {g.name: %s})", ownStateOf("g"))})
	for _, n := range order {
		gate := byName[n]
		if len(gate.Requires) == 0 && len(gate.RequiresAnyOf) == 0 {
			continue // read in place (gateVar)
		}
		expr := ownState(gate)
		for _, r := range gate.Requires {
			expr += " && " + g.gateVar(r)
		}
		if len(gate.RequiresAnyOf) > 0 {
			any := make([]string, len(gate.RequiresAnyOf))
			for i, r := range gate.RequiresAnyOf {
				any[i] = g.gateVar(r)
			}
			expr += " && (" + strings.Join(any, " || ") + ")"
		}
		vars = append(vars, admissionregistrationv1.Variable{Name: gateVarName(n), Expression: expr})
	}
	return vars
}

// matchResources are the rules of the policies: the CRD's resource and its status, in the
// storage version (matchPolicy Equivalent converts every request to it).
func (g *gen) matchResources(subresources ...string) *admissionregistrationv1.MatchResources {
	resources := []string{g.crd.Spec.Names.Plural}
	for _, s := range subresources {
		resources = append(resources, g.crd.Spec.Names.Plural+"/"+s)
	}
	return &admissionregistrationv1.MatchResources{
		MatchPolicy: ptr.To(admissionregistrationv1.Equivalent),
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{
					APIGroups:   []string{g.crd.Spec.Group},
					APIVersions: []string{g.matchVersion()},
					Resources:   resources,
				},
			},
		}},
	}
}

// matchVersion is the version the policies match (with matchPolicy Equivalent, the version
// every request is converted to before they see it): the storage version, where it is
// served. A stock server does not publish the schema of a version that is not served, and a
// policy that matches such a version cannot be type-checked, so writes may be refused with
// 503; where conversion is None, objects differ between versions only in apiVersion, so the
// policies match the first served version instead, with the same (storage-version) paths.
// With a conversion webhook there is no such version: the difference is listed.
func (g *gen) matchVersion() string {
	v := g.storageVersion()
	if v == nil || v.Served {
		return g.storage
	}
	if c := g.crd.Spec.Conversion; c == nil || c.Strategy == "" || c.Strategy == apiextensionsv1.NoneConverter {
		for _, o := range g.crd.Spec.Versions {
			if o.Served {
				return o.Name
			}
		}
	}
	return g.storage
}

func (g *gen) paramRef() *admissionregistrationv1.ParamRef {
	return &admissionregistrationv1.ParamRef{
		Name:                    g.crd.Name,
		ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction),
	}
}

func (g *gen) paramKind() *admissionregistrationv1.ParamKind {
	return &admissionregistrationv1.ParamKind{APIVersion: ParamAPIVersion, Kind: ParamKind}
}

// param writes the parameter object: the CRD's gates, each with its storage-version paths
// (its fieldPaths and the paths the marks give it).
func (g *gen) param() {
	spec := g.crd.Spec.CustomFeatureGates.DeepCopy()
	for i := range spec.FeatureGates {
		var fp []string
		seen := map[string]bool{}
		for _, p := range g.paths {
			if p.gate == spec.FeatureGates[i].Name && !seen[p.path.String()] {
				seen[p.path.String()] = true
				fp = append(fp, p.path.String())
			}
		}
		sort.Strings(fp)
		spec.FeatureGates[i].FieldPaths = fp
	}
	g.res.Param = &Param{
		TypeMeta:   metav1.TypeMeta{APIVersion: ParamAPIVersion, Kind: ParamKind},
		ObjectMeta: g.meta(g.crd.Name),
		Spec:       *spec,
	}
}

// mutating writes the mutating policy: one mutation per gated path, ancestors first, then
// one per default taken out of the schema.
func (g *gen) mutating() error {
	var muts []admissionregistrationv1.Mutation
	root := anchor{newV: "object", oldV: oldRoot, ptr: rootPointer(), node: g.schema}
	// Paths without a wildcard share one mutation: the API server encodes and decodes the
	// whole object for each mutation, so one per path would cost that once per gate. A path
	// through a wildcard gets a mutation of its own: its expression walks every item of its
	// lists, and each expression has its own CEL cost limit (k8s.io/apiserver's PerCallLimit),
	// so the walks of several paths through large lists do not add up against one limit. A
	// path acts only where it is the outermost effectively disabled one (its gated ancestors
	// are live, its own gate is not): a disabled ancestor drops or restores the whole value,
	// and the ops of paths below it would act on values the patch already replaced. Restores
	// that need objects the new object lacks share them: each mutation first creates each such
	// object once, outermost first, then applies its paths' ops, which then never collide; a
	// later mutation reads the object the earlier ones left, so it does not create them again.
	type group struct{ parents, ops []string }
	var flat group
	var walks []group
	for _, p := range g.paths {
		steps := resolveSteps(p.path, g.schema)
		acts := fmt.Sprintf("%s && !%s", g.live(g.chainOf(p.path.Steps(), false)), g.gateVar(p.gate))
		gr := &flat
		if hasWildcard(p.path) {
			walks = append(walks, group{})
			gr = &walks[len(walks)-1]
		}
		if pe := g.walker.gateParents(root, steps); pe != "[]" {
			gr.parents = append(gr.parents, fmt.Sprintf("(%s ? %s : [])", acts, pe))
		}
		gr.ops = append(gr.ops, fmt.Sprintf("(%s ? %s : [])", acts, g.walker.gateLeafOps(root, steps)))
	}
	for _, gr := range append([]group{flat}, walks...) {
		if len(gr.ops) == 0 {
			continue
		}
		expr := strings.Join(gr.ops, " + ")
		if len(gr.parents) > 0 {
			expr = fmt.Sprintf("(%s).distinct().sort().map(p, JSONPatch{op: \"add\", path: string(p), value: {}}) + %s", strings.Join(gr.parents, " + "), expr)
		}
		muts = append(muts, jsonPatch(expr))
	}
	for _, d := range g.defaults {
		ops := g.walker.defaultOps(root, resolveSteps(d.path, g.schema), d.value)
		muts = append(muts, jsonPatch(fmt.Sprintf("%s ? (%s) : []", g.live(d.chain), ops)))
	}
	if len(muts) == 0 {
		// Gates that guard only values and rules: nothing to drop or keep, and a policy
		// without mutations is not valid.
		return nil
	}
	var sub []string
	if v := g.storageVersion(); v != nil && v.Subresources != nil && v.Subresources.Status != nil {
		sub = append(sub, "status")
	}
	var conds []admissionregistrationv1.MatchCondition
	if len(g.defaults) == 0 {
		conds = []admissionregistrationv1.MatchCondition{{Name: "gated-values-changed", Expression: g.gatedValuesChanged()}}
	}
	g.res.Mutating = &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: g.meta(g.policyName()),
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			ParamKind:          g.paramKind(),
			MatchConstraints:   g.matchResources(sub...),
			MatchConditions:    conds,
			Variables:          append(g.gateVariables(), g.walker.pairingVariables(root)...),
			Mutations:          muts,
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		},
	}
	g.res.MutatingBinding = &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: g.meta(g.policyName()),
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: g.policyName(),
			ParamRef:   g.paramRef(),
		},
	}
	return nil
}

// gatedValuesChanged is the mutating policy's match condition: the write sends a value at a
// gated path that may be disabled (on create), or changes what the stored object holds at
// such a path (on update), where a path through a wildcard counts as the whole list or map at
// its first wildcard. Every op of the mutations drops a value sent at a disabled path or puts
// back a stored one the write changed, so where this is false they have nothing to do: the
// policy is skipped, and with it the API server's encoding and decoding of the object for the
// patch, on the writes that leave such fields alone and on the policy's own second run
// (reinvocation) after it dropped what was sent. A path whose gates need other gates counts
// as disabled; a CRD with defaults below gated paths gets no condition (a default applies to a
// value the write did not send).
//
// The gate states are read only where a value was sent or changed, and then by one pass over
// the parameter object's gates that stops at the first disabled gate of a path that changed:
// each gate's own state is computed only if a path it guards changed. A declared gate missing
// from the parameter object (disabled, unless stable) makes the condition hold, which is never
// wrong, only slower: the mutations then decide.
func (g *gen) gatedValuesChanged() string {
	a := anchor{newV: "object", oldV: "oldObject", node: g.schema}
	byName := map[string]apiextensionsv1.CustomResourceDefinitionFeatureGate{}
	for _, gate := range g.gates {
		byName[gate.Name] = gate
	}
	add := func(list []string, x string) []string {
		for _, y := range list {
			if y == x {
				return list
			}
		}
		return append(list, x)
	}
	// sent and changed hold every path's test; sentBy and changedBy each gate's paths' tests
	// (a path counts for every gate of its chain); the req ones the paths whose chain has a
	// gate that needs others, which count as disabled whatever the states.
	var sent, changed, sentReq, changedReq, order []string
	sentBy, changedBy := map[string][]string{}, map[string][]string{}
	for _, p := range g.paths {
		names, _ := splitRun(resolveSteps(p.path, g.schema))
		has := a.newAt(names) + ".hasValue()"
		diff := fmt.Sprintf("%s != %s", a.newAt(names), a.oldAt(names))
		sent, changed = add(sent, has), add(changed, diff)
		requires := false
		for _, n := range p.chain {
			gate := byName[n]
			requires = requires || len(gate.Requires) > 0 || len(gate.RequiresAnyOf) > 0
		}
		if requires {
			sentReq, changedReq = add(sentReq, has), add(changedReq, diff)
			continue
		}
		for _, n := range p.chain {
			if _, seen := sentBy[n]; !seen {
				order = append(order, n)
			}
			sentBy[n], changedBy[n] = add(sentBy[n], has), add(changedBy[n], diff)
		}
	}
	// off is the condition that a test of req holds, or that a gate whose tests in by hold is
	// disabled or missing from the parameter object.
	off := func(req []string, by map[string][]string) string {
		var parts []string
		if len(req) > 0 {
			parts = append(parts, strings.Join(req, " || "))
		}
		if len(order) > 0 {
			entries := make([]string, len(order))
			for i, n := range order {
				entries[i] = fmt.Sprintf("%s: %s", celString(n), strings.Join(by[n], " || "))
			}
			parts = append(parts, fmt.Sprintf("[{%s}].exists(c, params.spec.featureGates.exists(g, c[?g.name].orValue(false) && !(%s)) || params.spec.featureGates.filter(g, g.name in c).size() < %d)",
				strings.Join(entries, ", "), ownStateOf("g"), len(order)))
		}
		return strings.Join(parts, " || ")
	}
	return fmt.Sprintf("oldObject == null ? (%s) && (%s) : (%s) && (%s)",
		strings.Join(sent, " || "), off(sentReq, sentBy), strings.Join(changed, " || "), off(changedReq, changedBy))
}

func hasWildcard(p featuregates.Path) bool {
	for _, st := range p.Steps() {
		if st.Wildcard {
			return true
		}
	}
	return false
}

func jsonPatch(expr string) admissionregistrationv1.Mutation {
	return admissionregistrationv1.Mutation{
		PatchType: admissionregistrationv1.PatchTypeJSONPatch,
		JSONPatch: &admissionregistrationv1.JSONPatch{Expression: expr},
	}
}

func (g *gen) storageVersion() *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range g.crd.Spec.Versions {
		if g.crd.Spec.Versions[i].Storage {
			return &g.crd.Spec.Versions[i]
		}
	}
	return nil
}

func (g *gen) differ(path, gate, what string) {
	g.res.Differences = append(g.res.Differences, Difference{Path: path, Gate: gate, What: what})
}

// namedKeyDifferences lists the maps inside the items of a list without keys that have both a
// named key and their [*] gated, where our server has gaps (docs/reference/api.md): the
// policies compare such items as it does, and differ where it refuses or drops.
func (g *gen) namedKeyDifferences() {
	for _, p := range g.walker.pairings {
		g.walker.relTree(appendWildcard(p.prefix)).visit(pathString(p.prefix)+"[*]", func(at string, t *tree) {
			if t.wildcard != nil && len(t.fields) > 0 {
				g.differ(at, "", "this map's named keys and [*] are both gated: while both are off, a write that only moves items of the list without keys above it, sent without their stored values, pairs them in place (the older rule), where our server refuses it (422); a write that leaves the map out keeps the [*]'s stored values at a named key, which our server drops")
			}
		})
	}
}

// generalDifferences lists what every CRD's policies do differently from our server.
func (g *gen) generalDifferences() {
	if g.res.Mutating != nil {
		g.differ("", "", "no warning says that a value was dropped or that a stored value was kept: a mutating policy cannot send warnings")
		g.differ("", "", "the fields a mutating policy removes or puts back are not reflected in managedFields (server-side apply tracks the request as sent)")
	}
	if len(g.paths) > 0 {
		g.differ("", "", "a value at a disabled path that another mutating policy or webhook sets after this policy's last run is refused (422) by the validating policy's last guard; our server gates after all admission and stores the write without the value")
	}
	if len(g.rules) > 0 || len(g.keywords) > 0 {
		g.differ("", "", "a gated rule or keyword refuses a write with the validating policy's message (\"ValidatingAdmissionPolicy '…' with binding '…' denied request: <path>: Invalid value: <message>\"), and a value it lets pass because the update left it as stored draws that message as a warning with the policy's prefix, without the value")
	}
	g.pairingBounds()
	if len(g.walker.pairings) > 0 {
		g.differ("", "", "a write to a list without keys that our server refuses as ambiguous is refused by the validating policy, with a message that names the list and the gated paths but not the item")
		g.namedKeyDifferences()
		g.differ("", "", "the items of a list without keys are paired with the stored items by an older rule than our server's: a move or swap of items edited beside their stored values, neighbours edited without them, a removal beside an insertion, or a changed number of items equal outside their gated fields can move or drop a stored value, and a holder removed beside an item edited in place is refused (422) where our server accepts it")
	}
	if len(g.defaults) > 0 {
		g.differ("", "", "the defaults at or below gated paths are applied by the mutating policy on writes while the path is live, not when an object is read")
	}
	if v := g.storageVersion(); v != nil && !v.Served && g.matchVersion() == g.storage {
		g.differ("", "", fmt.Sprintf("the storage version %s is not served and the CRD converts with a webhook: the policies match %s, whose schema a stock server does not publish, so writes may be refused (503); serve the storage version", g.storage, g.storage))
	}
	g.differ("", "", "the gates, their stages and the paths they guard are fixed when the policies are generated: a gate added to the parameter object guards nothing; the parameter object's preRelease, default and enabled are read on every write")
	if g.res.Mutating != nil {
		for _, p := range g.paths {
			if mayHoldInteger(g.schema, p.path) {
				g.differ(p.path.String(), p.gate, "an integer beyond ±2^53 stored at or below this path cannot be put back by the mutating policy (CEL hands it to the JSON patch as a string): while the path is disabled, a write that changes or leaves out such a stored value is refused (422), where our server keeps it; nothing is lost")
			}
		}
	}
}

// mayHoldInteger reports whether the value at p in schema s, or a value below it, may be an
// integer: a node of type integer, x-kubernetes-int-or-string, or a node whose schema does not
// say (x-kubernetes-preserve-unknown-fields, or no schema at all).
func mayHoldInteger(s *structuralschema.Structural, p featuregates.Path) bool {
	steps := resolveSteps(p, s)
	if len(steps) == 0 {
		return false
	}
	return holdsInteger(steps[len(steps)-1].node)
}

// holdsInteger reports whether a value of schema n, or a value below it, may be an integer
// (see mayHoldInteger). A structural schema is a tree: the walk ends.
func holdsInteger(n *structuralschema.Structural) bool {
	switch {
	case n == nil || n.XPreserveUnknownFields || n.XIntOrString || n.Type == "integer":
		return true
	case n.Items != nil && holdsInteger(n.Items):
		return true
	case n.AdditionalProperties != nil && n.AdditionalProperties.Structural != nil && holdsInteger(n.AdditionalProperties.Structural):
		return true
	}
	for _, child := range n.Properties {
		if holdsInteger(&child) {
			return true
		}
	}
	return false
}
