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

package stockpolicies

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// step is one thing a case does, the same on both backends.
type step struct {
	// name says what the step does; unique in its case.
	name string
	// verb is create (POST), update (GET, then PUT with the top-level fields of body
	// replaced), merge (merge patch), json (JSON patch), apply (server-side apply under the
	// field manager "applier"), get (a read), or gates (set gate states, nothing recorded).
	verb string
	// object is the object's name; "" is "obj".
	object string
	// sub is the subresource: "", "status" or "scale".
	sub  string
	body string
	// dryRun sends dryRun=All, and records whether the stored object stayed as it was.
	dryRun bool
	// gates are the states a gates step sets. For a gatedefs step, the gates' own states
	// that its edits leave (the gates left out keep theirs), by the rules of
	// docs/reference/semantics.md ("Is a gate on?").
	gates map[string]bool
	// edits (verb gatedefs) change gates' definitions in one patch of the object that holds
	// them, the CRD on ours, the parameter object on stock; restore puts back the gates as
	// installed first (and every gate's own state as declared). The step records the
	// answer to the patch and which fields the writes then keep.
	edits   []gateEdit
	restore bool
	// refusal (gatedefs) is the field below the gate list and the text of the error that
	// the patch must be refused with, e.g. "[4].enabled: a stable gate is locked on and
	// cannot be disabled"; "" if it must be accepted.
	refusal string
	// sameAs names an earlier step whose response and warnings this one's must equal (a
	// dry-run and the real write); recorded as a check, compared like the rest.
	sameAs string

	// What ours must do (checked on ours only; stock is compared with ours):
	// want is a JSON object of top-level fields the stored object has exactly ("none": no
	// object); wantCode the status (0: any 2xx); wantGen the generation (0: not checked);
	// wantWarnings the warnings in any order (nil: not checked; noWarnings: none).
	want         string
	wantCode     int
	wantGen      int64
	wantWarnings []string
}

// noWarnings is a wantWarnings of no warning at all.
var noWarnings = []string{}

// matrixCase is one case of the matrix.
type matrixCase struct {
	name string
	crd  *crdInfo
	// seeds are written in a first phase, before any case runs its steps, with seedGates
	// (nil: every gate of the CRD on), so that stored values exist for the updates.
	seedGates map[string]bool
	seeds     []step
	// gates are set before steps; a gate left out has its declared state.
	gates map[string]bool
	steps []step
}

// observation is what one step gave on one backend.
type observation struct {
	step       string
	code       int
	message    string                 // the error's message (not compared: texts differ)
	response   map[string]interface{} // the normalized object answered to a successful write
	stored     map[string]interface{} // the normalized object as stored afterwards; nil: none
	generation int64
	warnings   []string
	checks     map[string]string
}

// caseRun runs one case's steps on one backend.
type caseRun struct {
	t   *testing.T
	b   *backend
	c   *matrixCase
	ns  string
	obs []*observation
}

func (r *caseRun) fatalf(format string, args ...interface{}) {
	r.t.Helper()
	r.t.Fatalf("%s: %s: "+format, append([]interface{}{r.b.name, r.c.name}, args...)...)
}

func (r *caseRun) run(s step) {
	r.t.Helper()
	c, b := r.c.crd, r.b
	if s.verb == "gates" {
		if err := b.setGates(c, s.gates); err != nil {
			if _, ok := err.(*probeTimeout); ok {
				r.t.Errorf("%s: %v", r.c.name, err)
				return
			}
			r.fatalf("%v", err)
		}
		return
	}
	if s.verb == "gatedefs" {
		r.editGates(s)
		return
	}
	name := s.object
	if name == "" {
		name = "obj"
	}
	before, err := b.get(c, r.ns, name)
	if err != nil {
		r.fatalf("%v", err)
	}
	query := map[string]string{}
	if s.dryRun {
		query["dryRun"] = "All"
	}
	var a answer
	switch s.verb {
	case "create":
		a = b.request(http.MethodPost, objectPath(c, r.ns, "", ""), query, "application/json", object(c, r.ns, name, s.body))
	case "update":
		current := deepCopy(before) // before is compared below
		if s.sub != "" {
			var err error
			if current, err = r.read(objectPath(c, r.ns, name, s.sub)); err != nil {
				r.fatalf("%v", err)
			}
		}
		if current == nil {
			r.fatalf("step %q: no object %s to update", s.name, name)
		}
		var fields map[string]interface{}
		if err := json.Unmarshal([]byte(s.body), &fields); err != nil {
			r.fatalf("step %q: %v", s.name, err)
		}
		for k, v := range fields {
			current[k] = v
		}
		body, _ := json.Marshal(current)
		a = b.request(http.MethodPut, objectPath(c, r.ns, name, s.sub), query, "application/json", body)
	case "merge":
		a = b.request(http.MethodPatch, objectPath(c, r.ns, name, s.sub), query, "application/merge-patch+json", []byte(s.body))
	case "json":
		a = b.request(http.MethodPatch, objectPath(c, r.ns, name, s.sub), query, "application/json-patch+json", []byte(s.body))
	case "apply":
		query["fieldManager"], query["force"] = "applier", "true"
		a = b.request(http.MethodPatch, objectPath(c, r.ns, name, s.sub), query, "application/apply-patch+yaml", object(c, r.ns, name, s.body))
	case "get":
		a = b.request(http.MethodGet, objectPath(c, r.ns, name, s.sub), nil, "", nil)
	default:
		r.fatalf("step %q: unknown verb %q", s.name, s.verb)
	}
	if a.err != nil {
		r.fatalf("step %q: %v", s.name, a.err)
	}
	o := &observation{step: s.name, code: a.code, warnings: a.warnings, checks: map[string]string{}}
	if a.code >= 200 && a.code < 300 {
		o.response = normalize(a.obj)
	} else if a.obj != nil {
		o.message, _ = a.obj["message"].(string)
	} else {
		o.message = string(a.body)
	}
	after, err := b.get(c, r.ns, name)
	if err != nil {
		r.fatalf("%v", err)
	}
	if after != nil {
		g, _ := lookup(after, "metadata", "generation")
		if f, ok := g.(float64); ok {
			o.generation = int64(f)
		}
	}
	o.stored = normalize(after)
	if s.dryRun {
		o.checks["the dry run stored nothing"] = yesNo(reflect.DeepEqual(normalize(before), o.stored))
	}
	if s.sameAs != "" {
		other := r.find(s.sameAs)
		same := reflect.DeepEqual(other.response, o.response) && other.code == o.code &&
			reflect.DeepEqual(sorted(other.warnings), sorted(o.warnings))
		o.checks["same response and warnings as "+s.sameAs] = yesNo(same)
	}
	r.obs = append(r.obs, o)
	if b.name == backendOurs {
		r.expect(s, o)
	}
}

// editGates runs a gatedefs step: the patch, then, if it was accepted, a wait until every
// probe of the CRD follows the new states. It records the answer, whether the refusal is
// the one expected, and which gates' fields the writes keep.
func (r *caseRun) editGates(s step) {
	r.t.Helper()
	c, b := r.c.crd, r.b
	a, err := b.editGates(c, s.edits, s.restore)
	if err != nil {
		r.fatalf("step %q: %v", s.name, err)
	}
	o := &observation{step: s.name, code: a.code, warnings: a.warnings, checks: map[string]string{}}
	if a.code < 200 || a.code > 299 {
		o.message = string(a.body)
		if a.obj != nil {
			o.message, _ = a.obj["message"].(string)
		}
	}
	if s.refusal != "" {
		o.checks["refused: "+s.refusal] = yesNo(refusedWith(a, s.refusal))
	}
	if a.code >= 200 && a.code <= 299 {
		if s.restore {
			for _, g := range c.gates {
				b.states[c.name][g.name] = g.initial
			}
		}
		for g, on := range s.gates {
			c.gate(g) // panics on a typo
			b.states[c.name][g] = on
		}
		if err := b.waitForGates(c, gateChangeTimeout); err != nil {
			if _, ok := err.(*probeTimeout); !ok {
				r.fatalf("step %q: %v", s.name, err)
			}
			r.t.Errorf("%s: step %q: %v", r.c.name, s.name, err)
		}
	}
	// Which gates' fields a create keeps now, by the probes (compared between backends).
	var live []string
	for i := range c.gates {
		g := &c.gates[i]
		p := b.probe(c, g, g.probes[0])
		on, valid := g.probes[0].observe(p)
		switch {
		case !valid:
			live = append(live, g.name+"=?")
		case on:
			live = append(live, g.name+"=on")
		default:
			live = append(live, g.name+"=off")
		}
	}
	o.checks["gates whose fields a create keeps"] = strings.Join(live, " ")
	r.obs = append(r.obs, o)
	if b.name == backendOurs {
		switch {
		case s.refusal == "" && (a.code < 200 || a.code > 299):
			r.t.Errorf("%s: step %q: HTTP %d (%s), want success", r.c.name, s.name, a.code, o.message)
		case s.refusal != "" && a.code != http.StatusUnprocessableEntity:
			r.t.Errorf("%s: step %q: HTTP %d (%s), want 422", r.c.name, s.name, a.code, o.message)
		}
		for what, v := range o.checks {
			if strings.HasPrefix(what, "refused: ") && v != "yes" {
				r.t.Errorf("%s: step %q: not %s: %s", r.c.name, s.name, what, o.message)
			}
		}
	}
}

// refusedWith is whether a is a 422 with a cause at a field ending in the part of want before
// ": " and a message ending in the rest.
func refusedWith(a answer, want string) bool {
	fieldSuffix, text, _ := strings.Cut(want, ": ")
	if a.code != http.StatusUnprocessableEntity {
		return false
	}
	causes, _ := lookup(a.obj, "details", "causes")
	list, _ := causes.([]interface{})
	for _, cause := range list {
		f, _ := lookup(cause, "field")
		m, _ := lookup(cause, "message")
		fs, _ := f.(string)
		ms, _ := m.(string)
		if strings.HasSuffix(fs, fieldSuffix) && strings.HasSuffix(ms, text) {
			return true
		}
	}
	return false
}

// read GETs any path of the backend as an object.
func (r *caseRun) read(p string) (map[string]interface{}, error) {
	a := r.b.request(http.MethodGet, p, nil, "", nil)
	if a.err != nil || a.code != http.StatusOK || a.obj == nil {
		return nil, fmt.Errorf("%s: GET %s: HTTP %d %v: %s", r.b.name, p, a.code, a.err, a.body)
	}
	return a.obj, nil
}

func (r *caseRun) find(name string) *observation {
	for _, o := range r.obs {
		if o.step == name {
			return o
		}
	}
	r.fatalf("no earlier step %q", name)
	return nil
}

// expect checks ours against what the contract (docs/reference/semantics.md) says, so
// that the reference of the comparison is right.
func (r *caseRun) expect(s step, o *observation) {
	r.t.Helper()
	switch {
	case s.wantCode == 0 && (o.code < 200 || o.code > 299):
		r.t.Errorf("%s: step %q: HTTP %d (%s), want success", r.c.name, s.name, o.code, o.message)
	case s.wantCode != 0 && o.code != s.wantCode:
		r.t.Errorf("%s: step %q: HTTP %d (%s), want %d", r.c.name, s.name, o.code, o.message, s.wantCode)
	}
	if s.want == "none" {
		if o.stored != nil {
			r.t.Errorf("%s: step %q: an object is stored: %s", r.c.name, s.name, compact(o.stored))
		}
	} else if s.want != "" {
		var want map[string]interface{}
		if err := json.Unmarshal([]byte(s.want), &want); err != nil {
			r.fatalf("step %q: bad want: %v", s.name, err)
		}
		for k, v := range want {
			if got := o.stored[k]; !reflect.DeepEqual(got, v) {
				r.t.Errorf("%s: step %q: stored %s = %s, want %s", r.c.name, s.name, k, compact(got), compact(v))
			}
		}
	}
	if s.wantGen != 0 && o.generation != s.wantGen {
		r.t.Errorf("%s: step %q: generation %d, want %d", r.c.name, s.name, o.generation, s.wantGen)
	}
	if s.wantWarnings != nil && !reflect.DeepEqual(sorted(s.wantWarnings), sorted(o.warnings)) {
		r.t.Errorf("%s: step %q: warnings %q, want %q", r.c.name, s.name, o.warnings, s.wantWarnings)
	}
	for what, v := range o.checks {
		if v != "yes" {
			r.t.Errorf("%s: step %q: %s: %s", r.c.name, s.name, what, v)
		}
	}
}

// normalize drops what differs between any two servers (uid, resourceVersion,
// creationTimestamp, managedFields) and the generation (recorded on its own).
func normalize(obj map[string]interface{}) map[string]interface{} {
	if obj == nil {
		return nil
	}
	out := deepCopy(obj)
	if md, ok := out["metadata"].(map[string]interface{}); ok {
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"} {
			delete(md, k)
		}
	}
	return out
}

func deepCopy(obj map[string]interface{}) map[string]interface{} {
	if obj == nil {
		return nil
	}
	var out map[string]interface{}
	b, _ := json.Marshal(obj)
	_ = json.Unmarshal(b, &out)
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func sorted(in []string) []string {
	out := append([]string{}, in...)
	sort.Strings(out)
	return out
}

// compact is v as compact JSON.
func compact(v interface{}) string {
	if v == nil {
		return "none"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// content is the stored object without apiVersion, kind and metadata, as compact JSON.
func content(obj map[string]interface{}) string {
	if obj == nil {
		return "none"
	}
	rest := map[string]interface{}{}
	for k, v := range obj {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			rest[k] = v
		}
	}
	return compact(rest)
}

// vapWarningPrefix starts every warning of a ValidatingAdmissionPolicy with the Warn action.
const vapWarningPrefix = "Validation failed for ValidatingAdmissionPolicy '"

// splitWarnings sorts a step's warnings into the dropped/kept warnings of our server's
// gating, and the others with a ValidatingAdmissionPolicy's fixed prefix taken off; prefixed
// says whether any had it.
func splitWarnings(ws []string) (gating, others []string, prefixed bool) {
	for _, w := range ws {
		if strings.Contains(w, " was dropped: feature gate ") || strings.Contains(w, " was not updated: feature gate ") {
			gating = append(gating, w)
			continue
		}
		if rest, ok := strings.CutPrefix(w, vapWarningPrefix); ok {
			prefixed = true
			// "<policy>' with binding '<binding>': <message>"
			if _, afterPolicy, ok := strings.Cut(rest, "' with binding '"); ok {
				if _, msg, ok := strings.Cut(afterPolicy, "': "); ok {
					rest = msg
				}
			}
			w = rest
		}
		others = append(others, w)
	}
	return sorted(gating), sorted(others), prefixed
}

// Aspects of an observation that are compared between the backends.
const (
	aspectCode       = "status code"
	aspectResponse   = "response body"
	aspectStored     = "stored object"
	aspectGeneration = "generation"
	aspectGating     = "dropped/kept warnings"
	aspectOthers     = "other warnings (VAP prefix taken off)"
	aspectPrefix     = "warnings with the VAP prefix"
	aspectCheck      = "check: "
)

// aspects are the compared values of an observation.
func (o *observation) aspects() map[string]string {
	gating, others, prefixed := splitWarnings(o.warnings)
	a := map[string]string{
		aspectCode:       fmt.Sprint(o.code),
		aspectResponse:   compact(o.response),
		aspectStored:     compact(o.stored),
		aspectGeneration: fmt.Sprint(o.generation),
		aspectGating:     compact(gating),
		aspectOthers:     compact(others),
		aspectPrefix:     yesNo(prefixed),
	}
	for k, v := range o.checks {
		a[aspectCheck+k] = v
	}
	return a
}

// difference is one aspect of one step that the backends answered differently.
type difference struct {
	step, aspect, ours, stock string
}

// compareCase lists the differences between the two backends' observations of a case.
func compareCase(ours, stock []*observation) []difference {
	var out []difference
	for i := 0; i < len(ours) || i < len(stock); i++ {
		if i >= len(ours) || i >= len(stock) || ours[i].step != stock[i].step {
			out = append(out, difference{step: fmt.Sprintf("#%d", i+1), aspect: "steps run", ours: stepNames(ours), stock: stepNames(stock)})
			break
		}
		a, b := ours[i].aspects(), stock[i].aspects()
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range b {
			keys[k] = true
		}
		var names []string
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if a[k] != b[k] {
				out = append(out, difference{step: ours[i].step, aspect: k, ours: a[k], stock: b[k]})
			}
		}
	}
	return out
}

func stepNames(obs []*observation) string {
	var names []string
	for _, o := range obs {
		names = append(names, o.step)
	}
	return strings.Join(names, ", ")
}
