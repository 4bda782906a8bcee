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
	"sort"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/featuregates"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The validating policies check, in the storage version, what CRD validation checks on our
// server with the gate states: the gated keywords (x-kubernetes-feature-gated-validations),
// the rules that read featureGates, and a scale write to a disabled replicas path. Each
// check runs on every value at its node's path (the items of a list, the values of a map),
// as the value `self`; a rule sees its gates as `featureGates.<Name>`, a map of the gate
// states, so that its text is the CRD's. Like CRD validation ratcheting, a value left as
// stored is not judged again: a check passes where the value at its path, or the list or
// map that holds it, is unchanged by an update.

// validating writes the Deny and Warn policies and their bindings into the result.
func (g *gen) validating() {
	onScale := `request.?subResource.orValue("") == "scale"`
	for _, k := range g.keywords {
		g.keywordChecks(k, g.inVersions(onScale, k.versions))
	}
	for _, r := range g.rules {
		g.ruleCheck(r, g.inVersions(onScale, r.versions))
	}
	subs := g.subresources()
	// Checks of gated keywords and rules judge every write, so the policy gets the match
	// condition only when the checks added below (guard, ambiguity, scale) are all it has.
	hasValueChecks := len(g.validations) > 0
	scale := g.scaleCheck()
	g.ambiguityChecks(onScale)
	g.guardChecks(onScale)
	if len(g.validations) > 0 {
		g.res.Validating, g.res.ValidatingBinding = g.vap(g.policyName(), g.validations, admissionregistrationv1.Deny, subs)
		if !hasValueChecks {
			g.res.Validating.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "gated-values-changed", Expression: g.guardMatch(scale)}}
		}
	}
	g.deprecations()
	if len(g.warnings) > 0 {
		var statusOnly []string
		for _, s := range subs {
			if s == "status" {
				statusOnly = append(statusOnly, s)
			}
		}
		g.res.Warnings, g.res.WarningsBinding = g.vap(g.warningsPolicyName(), g.warnings, admissionregistrationv1.Warn, statusOnly)
	}
}

func (g *gen) subresources() []string {
	var subs []string
	if v := g.storageVersion(); v != nil && v.Subresources != nil {
		if v.Subresources.Status != nil {
			subs = append(subs, "status")
		}
		if v.Subresources.Scale != nil {
			subs = append(subs, "scale")
		}
	}
	return subs
}

func (g *gen) vap(name string, validations []admissionregistrationv1.Validation, action admissionregistrationv1.ValidationAction, subs []string) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
			ObjectMeta: g.meta(name),
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				ParamKind:        g.paramKind(),
				MatchConstraints: g.matchResources(subs...),
				Variables:        append(g.gateVariables(), g.vapPairings...),
				Validations:      validations,
				FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			},
		}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
			ObjectMeta: g.meta(name),
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        name,
				ParamRef:          g.paramRef(),
				ValidationActions: []admissionregistrationv1.ValidationAction{action},
			},
		}
}

// ratcheting says which values everyValue judges.
type ratcheting int

const (
	// judgeAll judges every value.
	judgeAll ratcheting = iota
	// skipUnchanged judges the values that the update changed: a value equal to its stored
	// counterpart, or held by a list or map equal to its stored counterpart, passes, as CRD
	// validation ratcheting lets it pass. A map value's counterpart is the stored value at its
	// key, a map-list item's the stored item with its keys; an item of another list has none
	// (upstream correlates only those), so only its whole list is compared.
	skipUnchanged
	// onlyUnchanged judges the values that skipUnchanged lets pass, for the warning that
	// ratcheting gives of the errors it lets pass.
	onlyUnchanged
)

// everyValue returns a CEL condition that holds when body (a condition on `self`) holds for
// every value at steps below base (a present value) that mode judges; oldBase is base's
// stored counterpart (an optional) and node its schema (nil where it does not say).
func everyValue(base, oldBase string, steps []featuregates.Step, body string, mode ratcheting, d int, node *structuralschema.Structural) string {
	var names []string
	rest := steps
	for len(rest) > 0 && !rest[0].Wildcard {
		names = append(names, rest[0].Field)
		if node != nil {
			node = childNode(node, rest[0].Field)
		}
		rest = rest[1:]
	}
	a := anchor{newV: base, oldV: oldBase, untyped: true}
	newV, oldV := a.newAt(names), a.oldAt(names)
	unchanged := fmt.Sprintf("%s == %s", oldV, newV)
	if len(rest) == 0 {
		all := fmt.Sprintf("[%s.value()].all(self, %s)", newV, body)
		switch mode {
		case skipUnchanged:
			return fmt.Sprintf("(!%s.hasValue() || %s || %s)", newV, unchanged, all)
		case onlyUnchanged:
			return fmt.Sprintf("(!%s.hasValue() || !(%s) || %s)", newV, unchanged, all)
		}
		return fmt.Sprintf("(!%s.hasValue() || %s)", newV, all)
	}
	k, v, ck, o := fmt.Sprintf("k%d", d), fmt.Sprintf("v%d", d), fmt.Sprintf("ck%d", d), fmt.Sprintf("o%d", d)
	var item *structuralschema.Structural
	if node != nil {
		if node.Items != nil {
			item = node.Items
		} else if node.AdditionalProperties != nil {
			item = node.AdditionalProperties.Structural
		}
	}
	each := func(m ratcheting) string {
		counterpart := "optional.none()"
		if m != judgeAll {
			ov := oldV + ".value()"
			switch {
			case isListMap(node):
				counterpart = fmt.Sprintf("%s.hasValue() && type(%s) == list ? (%s) : optional.none()", oldV, ov, storedByKeys(node, ov, k, v, o))
			case node != nil && node.Items == nil:
				counterpart = fmt.Sprintf("%s.hasValue() && type(%s) == map ? %s[?%s] : optional.none()", oldV, ov, ov, k)
			}
		}
		var inner string
		if len(rest) == 1 {
			all := fmt.Sprintf("[%s].all(self, %s)", v, body)
			switch m {
			case skipUnchanged:
				inner = fmt.Sprintf("%s == optional.of(%s) || %s", ck, v, all)
			case onlyUnchanged:
				inner = fmt.Sprintf("%s != optional.of(%s) || %s", ck, v, all)
			default:
				inner = all
			}
		} else {
			inner = everyValue(v, ck, rest[1:], body, m, d+1, item)
		}
		if m != judgeAll {
			inner = let(ck, counterpart, inner)
		}
		return fmt.Sprintf("(!(type(%s.value()) == list || type(%s.value()) == map) || %s.value().all(%s, %s, %s))", newV, newV, newV, k, v, inner)
	}
	switch mode {
	case skipUnchanged:
		return fmt.Sprintf("(!%s.hasValue() || %s || %s)", newV, unchanged, each(skipUnchanged))
	case onlyUnchanged:
		// A list or map left as stored lets every value in it pass: judge them all.
		return fmt.Sprintf("(!%s.hasValue() || (%s ? %s : %s))", newV, unchanged, each(judgeAll), each(onlyUnchanged))
	}
	return fmt.Sprintf("(!%s.hasValue() || %s)", newV, each(judgeAll))
}

// ratchetWarning returns the Warn check of a Deny check: where the update leaves a judged
// value as stored (so the Deny check lets it pass), a value that fails the check draws a
// warning, as CRD validation ratcheting warns of the errors it lets pass.
func ratchetWarning(guard, state string, steps []featuregates.Step, body, message string, schema *structuralschema.Structural) admissionregistrationv1.Validation {
	return admissionregistrationv1.Validation{
		Expression: fmt.Sprintf("%s || !(%s) || %s", guard, state, everyValue("object", oldRoot, steps, body, onlyUnchanged, 0, schema)),
		Message:    message,
	}
}

// displayPath is a path as API errors print it: spec.rules[*].name, without the leading dot.
func displayPath(steps []featuregates.Step) string {
	p := strings.TrimPrefix(pathString(steps), ".")
	if p == "" {
		return "<root>"
	}
	return p
}

// keywordChecks adds one check per gated-keyword entry of a node.
func (g *gen) keywordChecks(k movedKeywords, guard string) {
	at := displayPath(k.steps)
	for _, e := range k.entries {
		var conds, what []string
		str := func(c string) string { return "type(self) != string || " + c }
		num := func(c string) string { return "!(type(self) == int || type(self) == double) || " + c }
		if len(e.Enum) > 0 {
			lits := make([]string, 0, len(e.Enum))
			for _, v := range e.Enum {
				l, err := jsonLiteral(v.Raw)
				if err != nil {
					g.differ(pathString(k.steps), e.FeatureGate, fmt.Sprintf("gated enum value %s has no CEL form and is not checked", string(v.Raw)))
					continue
				}
				lits = append(lits, l)
			}
			conds = append(conds, fmt.Sprintf("self in [%s]", strings.Join(lits, ", ")))
			vals := make([]string, len(e.Enum))
			for i, v := range e.Enum {
				vals[i] = string(v.Raw)
			}
			what = append(what, "supported values: "+strings.Join(vals, ", "))
		}
		if e.Pattern != "" {
			conds = append(conds, str(fmt.Sprintf("self.matches(%s)", celString(e.Pattern))))
			what = append(what, "should match "+strconv.Quote(e.Pattern))
		}
		bound := func(p *int64, op, sizeOf, kind, desc string) {
			if p != nil {
				conds = append(conds, kind+fmt.Sprintf("size(self) %s %d", op, *p))
				what = append(what, fmt.Sprintf("%s %d", desc, *p))
			}
		}
		bound(e.MaxLength, "<=", "", "type(self) != string || ", "may not be longer than")
		bound(e.MinLength, ">=", "", "type(self) != string || ", "should be at least")
		bound(e.MaxItems, "<=", "", "type(self) != list || ", "must have at most items:")
		bound(e.MinItems, ">=", "", "type(self) != list || ", "should have at least items:")
		bound(e.MaxProperties, "<=", "", "type(self) != map || ", "must have at most properties:")
		bound(e.MinProperties, ">=", "", "type(self) != map || ", "should have at least properties:")
		if e.Maximum != nil {
			op := "<="
			if e.ExclusiveMaximum {
				op = "<"
			}
			lit, _ := celDouble(*e.Maximum)
			conds = append(conds, num(fmt.Sprintf("double(self) %s %s", op, lit)))
			what = append(what, fmt.Sprintf("must be %s %v", op, *e.Maximum))
		}
		if e.Minimum != nil {
			op := ">="
			if e.ExclusiveMinimum {
				op = ">"
			}
			lit, _ := celDouble(*e.Minimum)
			conds = append(conds, num(fmt.Sprintf("double(self) %s %s", op, lit)))
			what = append(what, fmt.Sprintf("must be %s %v", op, *e.Minimum))
		}
		if e.MultipleOf != nil {
			m := *e.MultipleOf
			if m == float64(int64(m)) && m > 0 {
				conds = append(conds, fmt.Sprintf("type(self) != int || self %% %d == 0", int64(m)))
				what = append(what, fmt.Sprintf("must be a multiple of %v", m))
			} else {
				g.differ(pathString(k.steps), e.FeatureGate, fmt.Sprintf("gated multipleOf %v (not a positive integer) is not checked", m))
			}
		}
		for _, r := range e.Required {
			conds = append(conds, fmt.Sprintf("type(self) != map || %s in self", celString(r)))
			what = append(what, "requires "+r)
		}
		if e.Format != "" {
			g.differ(pathString(k.steps), e.FeatureGate, fmt.Sprintf("gated format %q is not checked: a policy has no format check of the schema's kind", e.Format))
		}
		if len(conds) == 0 {
			continue
		}
		for i := range conds {
			conds[i] = "(" + conds[i] + ")"
		}
		state := g.gateVar(e.FeatureGate)
		if !e.Enabled {
			state = "!" + state
		}
		msg := fmt.Sprintf("%s: Invalid value: %s (while feature gate %s is %s)", at, strings.Join(what, "; "), e.FeatureGate, onOff(e.Enabled))
		body := strings.Join(conds, " && ")
		g.validations = append(g.validations, admissionregistrationv1.Validation{
			Expression: fmt.Sprintf("%s || !(%s) || %s", guard, state, everyValue("object", oldRoot, k.steps, body, skipUnchanged, 0, g.schema)),
			Message:    msg,
			Reason:     ptr.To(metav1.StatusReasonInvalid),
		})
		g.warnings = append(g.warnings, ratchetWarning(guard, state, k.steps, body, msg, g.schema))
	}
}

func onOff(b bool) string {
	if b {
		return "enabled"
	}
	return "disabled"
}

// ruleCheck adds the check of one rule that reads featureGates.
func (g *gen) ruleCheck(r movedRule, guard string) {
	at := pathString(r.steps)
	body, err := policyRule(r.rule.Rule)
	if err != nil {
		g.differ(at, "", fmt.Sprintf("rule %q is not checked: %v", r.rule.Rule, err))
		return
	}
	if r.formats {
		g.differ(at, "", fmt.Sprintf("rule %q reads a value whose format (duration, date-time, date or byte) CRD validation types for CEL; the policy reads it as a string", r.rule.Rule))
	}
	if strings.Contains(r.rule.Rule, "oldSelf") {
		g.differ(at, "", fmt.Sprintf("transition rule %q (it reads oldSelf) is not checked by the policy", r.rule.Rule))
		return
	}
	if r.rule.MessageExpression != "" {
		g.differ(at, "", fmt.Sprintf("rule %q: its messageExpression is not used; the policy's message is the rule's message", r.rule.Rule))
	}
	names := make([]string, 0, len(g.gates))
	for _, gate := range g.gates {
		names = append(names, gate.Name)
	}
	sort.Strings(names)
	entries := make([]string, len(names))
	for i, n := range names {
		entries[i] = celString(n) + ": " + g.gateVar(n)
	}
	// featureGates is bound as the variable of a one-item comprehension, as self is.
	body = fmt.Sprintf("[{%s}].all(featureGates, %s)", strings.Join(entries, ", "), body)
	msg := r.rule.Message
	if msg == "" {
		msg = "failed rule: " + r.rule.Rule
	}
	fp := displayPath(r.steps)
	if r.rule.FieldPath != "" {
		fp += r.rule.FieldPath
	}
	v := admissionregistrationv1.Validation{
		Expression: fmt.Sprintf("%s || %s", guard, everyValue("object", oldRoot, r.steps, body, skipUnchanged, 0, g.schema)),
		Message:    fmt.Sprintf("%s: Invalid value: %s", fp, msg),
		Reason:     ptr.To(metav1.StatusReasonInvalid),
	}
	g.warnings = append(g.warnings, ratchetWarning(guard, "true", r.steps, body, v.Message, g.schema))
	if r.rule.Reason != nil {
		switch *r.rule.Reason {
		case apiextensionsv1.FieldValueForbidden:
			v.Reason = ptr.To(metav1.StatusReasonForbidden)
		}
	}
	g.validations = append(g.validations, v)
}

// scaleCheck refuses a scale write that would change a gated replicas path while it is
// disabled. (Our server accepts it, does not apply it and warns; a scale write cannot be
// mutated into a no-op on a stock server, since a Scale always carries replicas.)
func (g *gen) scaleCheck() bool {
	v := g.storageVersion()
	if v == nil || v.Subresources == nil || v.Subresources.Scale == nil {
		return false
	}
	p, err := featuregates.ParsePath(v.Subresources.Scale.SpecReplicasPath)
	if err != nil {
		return false
	}
	chain := g.chainOf(p.Steps(), true)
	if len(chain) == 0 {
		return false
	}
	// On the scale subresource, admission sees autoscaling/v1 Scale objects, whatever the
	// CRD's replicas path: their spec.replicas is the replicas.
	g.validations = append(g.validations, admissionregistrationv1.Validation{
		Expression: fmt.Sprintf(`request.?subResource.orValue("") != "scale" || (%s) || (oldObject != null && object.spec.replicas == oldObject.spec.replicas && oldObject.spec.replicas != 0)`, g.live(chain)),
		Message:    fmt.Sprintf("%s cannot be scaled: feature gate %s is disabled", p.String(), strings.Join(chain, ", ")),
		Reason:     ptr.To(metav1.StatusReasonInvalid),
	})
	g.differ(p.String(), chain[len(chain)-1], "a scale write while the replicas path is disabled is refused (422); our server accepts it, leaves replicas as stored and warns")
	return true
}

// guardMatch is the validating policy's match condition where its checks are only the last
// guard, the ambiguity checks and the scale check, not gated keywords or rules: the mutating
// policy's gatedValuesChanged, and every scale write if the CRD has a scale check. Each of those
// checks can refuse a write only where the result holds, at a path that is not live, a value
// other than the stored one at its place (the guard), or changed a list without keys that holds
// a value at such a path (the ambiguity checks); either way the value at that path's first
// wildcard, or at the path, differs from the stored one, with a gate of the path disabled, which
// is what gatedValuesChanged tests. Where it is false the API server skips the policy: one
// evaluation of this condition instead of one per check, and one conversion of the parameter
// object for CEL instead of two (the checks and their messages). Keywords and rules judge
// values at paths that are not gated, whatever the gates, so with them there is no condition.
func (g *gen) guardMatch(scale bool) string {
	cond := g.gatedValuesChanged()
	if scale {
		cond = `request.?subResource.orValue("") == "scale" || (` + cond + ")"
	}
	return cond
}

// deprecations adds one Warn check per gated path of a deprecated gate: the path is live and
// the write sets or changes a value there.
func (g *gen) deprecations() {
	byName := map[string]apiextensionsv1.CustomResourceDefinitionFeatureGate{}
	for _, gate := range g.gates {
		byName[gate.Name] = gate
	}
	for _, p := range g.paths {
		gate := byName[p.gate]
		if gate.PreRelease != apiextensionsv1.CustomFeatureGateDeprecated {
			continue
		}
		msg := fmt.Sprintf("%s is deprecated (feature gate %s)", p.path.String(), p.gate)
		if gate.FieldDeprecationWarning != nil && *gate.FieldDeprecationWarning != "" {
			msg = *gate.FieldDeprecationWarning
		}
		g.warnings = append(g.warnings, admissionregistrationv1.Validation{
			Expression: fmt.Sprintf("!(%s) || %s", g.live(p.chain), everyValue("object", oldRoot, p.path.Steps(), "false", skipUnchanged, 0, g.schema)),
			Message:    msg,
		})
	}
}

// ambiguityChecks adds, per list without keys that holds gated paths below its items, the
// Deny check that refuses the writes our server refuses as ambiguous (see ambiguous): the
// mutating policy cannot refuse a write, and without this check such a write would lose the
// stored value it cannot place. The check reads the object the mutating policy left, whose
// items pair with the stored ones as the request's do (the mutations change gated paths
// only, which pairing leaves out).
func (g *gen) ambiguityChecks(guard string) {
	if len(g.walker.pairings) == 0 {
		return
	}
	vw := &walker{schema: g.schema, gated: g.walker.gated, heldBelow: g.heldBelow}
	root := anchor{newV: "object", oldV: oldRoot, ptr: rootPointer(), node: g.schema}
	for _, p := range g.walker.pairings {
		prefix := appendWildcard(p.prefix)
		var below []gatedPath
		for _, gp := range g.paths {
			st := gp.path.Steps()
			if len(st) > len(prefix) && stepsHavePrefix(st, prefix) {
				below = append(below, gp)
			}
		}
		if len(below) == 0 {
			continue
		}
		held := func(x string) string { return g.heldBelow(prefix, x) }
		t := vw.relTree(prefix)
		expr := vw.descend(root, p.steps, 0, nil, 0, "", storedOps|toList, func(a anchor, names []string, rest []step, here []featuregates.Step, d int, idx string) string {
			nv, sc, nl, ol := fmt.Sprintf("nv%d", d), fmt.Sprintf("sc%d", d), fmt.Sprintf("nl%d", d), fmt.Sprintf("ol%d", d)
			// A list left as stored, or without a stored item that holds a value at a path
			// that is not live, cannot lose one.
			h := fmt.Sprintf("hh%d", d)
			return let(sc, a.oldAt(names), let(nv, a.newAt(names), fmt.Sprintf("%s.hasValue() && type(%s.value()) == list && %s.hasValue() && type(%s.value()) == list && %s.value() != %s.value() && %s.value().exists(%s, %s) ? %s : []",
				nv, nv, sc, sc, nv, sc, sc, h, held(h), let(nl, nv+".value()", let(ol, sc+".value()", correlate(nl, ol, t, d, shortcuts{
					// Every item in place or edited in place: nothing is ambiguous. No item equal
					// to a stored one:
					// the list is one gap, ambiguous where it has new items, its size changed, and
					// a stored item holds a value at a path that is not live.
					inPlace:   "[]",
					noneEqual: fmt.Sprintf("size(%s) > 0 && size(%s) != size(%s) && %s.exists(hx%d, %s) ? [true] : []", nl, nl, ol, ol, d, held(fmt.Sprintf("hx%d", d))),
				}, func(c corr) string {
					return fmt.Sprintf("(%s) ? [true] : []", ambiguous(c, held))
				}))))))
		})
		var paths, gates []string
		seen := map[string]bool{}
		for _, gp := range below {
			paths = append(paths, gp.path.String())
			if !seen[gp.gate] {
				seen[gp.gate] = true
				gates = append(gates, gp.gate)
			}
		}
		// With every gate below the list live, no stored item holds a value at a disabled
		// path, and nothing can be ambiguous: the pairing is not computed.
		var off []string
		for _, gp := range below {
			off = append(off, fmt.Sprintf("!(%s)", g.live(gp.chain)))
		}
		g.validations = append(g.validations, admissionregistrationv1.Validation{
			Expression: fmt.Sprintf("%s || !(%s) || size(%s) == 0", guard, strings.Join(off, " || "), expr),
			Message: fmt.Sprintf("%s: Invalid value: a stored item holds a value at %s, which a disabled feature gate (%s) guards, and the write changed the list so that the item cannot be told apart in it; keep such items in place while you change others, or enable the gate first",
				displayPath(p.prefix), strings.Join(paths, ", "), strings.Join(gates, ", ")),
			Reason: ptr.To(metav1.StatusReasonInvalid),
		})
	}
	g.vapPairings = vw.pairingVariables(root)
}

// heldBelow returns the CEL condition that x, an item of the list or map at prefix (a path
// ending in a wildcard), holds a value at a gated path below it that is not live; false where
// no gated path is below it.
func (g *gen) heldBelow(prefix []featuregates.Step, x string) string {
	var any []string
	for _, gp := range g.paths {
		st := gp.path.Steps()
		if len(st) > len(prefix) && stepsHavePrefix(st, prefix) {
			any = append(any, fmt.Sprintf("(!(%s) && %s)", g.live(gp.chain), hasAt(x, st[len(prefix):], 0)))
		}
	}
	if len(any) == 0 {
		return "false"
	}
	return strings.Join(any, " || ")
}

// hasAt returns the CEL condition that x has a value at the relative path steps (through
// every item or value at a wildcard).
func hasAt(x string, steps []featuregates.Step, d int) string {
	e := "optional.of(" + x + ")"
	for i, st := range steps {
		if st.Wildcard {
			c, k, v := fmt.Sprintf("hc%d", d), fmt.Sprintf("hk%d", d), fmt.Sprintf("hv%d", d)
			inner := "true"
			if i+1 < len(steps) {
				inner = hasAt(v, steps[i+1:], d+1)
			}
			return fmt.Sprintf("[%s].exists(%s, %s.hasValue() && (type(%s.value()) == list || type(%s.value()) == map) && %s.value().exists(%s, %s, %s))", e, c, c, c, c, c, k, v, inner)
		}
		e = optField(e, st.Field)
	}
	return e + ".hasValue()"
}
