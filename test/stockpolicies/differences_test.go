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

// Why stock+policies may differ from ours. Each is a difference that featuregate-gen
// policies prints for the CRD, or that the policy language imposes.
const (
	noGatingWarning = "no dropped/kept warning: a mutating policy cannot send warnings (featuregate-gen lists it)"
	vapPrefix       = "the deprecation warning comes from a ValidatingAdmissionPolicy with the Warn action: the same text after the fixed prefix \"Validation failed for ValidatingAdmissionPolicy '<policy>' with binding '<binding>': \""
	scaleRefused    = "a scale write while the replicas path is disabled is refused (422) by the validating policy, so no Scale is answered; ours accepts it, keeps the stored replicas and warns (featuregate-gen lists it)"
	defaultOnWrite  = "a default below a gated path is applied by the mutating policy on writes while the path is live, not when an object stored earlier is read (featuregate-gen lists it)"
	ratchetText     = "a value that a gated rule lets pass because the update left it as stored draws the rule's message as a warning from the Warn policy, which cannot print the value: \"<path>: Invalid value: <message>\" after the policy prefix, where ours prints \"<path>: Invalid value: \\\"<value>\\\": <message>\""
)

// intendedDifferences are the differences between ours and stock+policies that are meant:
// case -> aspect (see aspects()) -> why. TestWriteMatrix fails on an observed difference
// that is not here, and on one here that it does not observe.
var intendedDifferences = func() map[string]map[string]string {
	m := map[string]map[string]string{}
	declare := func(aspect, why string, cases ...string) {
		for _, c := range cases {
			if m[c] == nil {
				m[c] = map[string]string{}
			}
			m[c][aspect] = why
		}
	}
	declare(aspectGating, noGatingWarning,
		"crontab: create, gate off: value dropped",
		"update, gate off: stored value changed: kept",
		"update, gate off: stored value removed: kept",
		"update, gate off: value added: dropped",
		"update, gate off: stored value changed with a live field",
		"merge patch, gate off: stored value kept",
		"merge patch, gate off: new value dropped",
		"JSON patch, gate off: stored value kept",
		"server-side apply: dropped, re-apply changes nothing, stored once on",
		"server-side apply, gate off: stored value kept",
		"dry-run create, gate off: same answer, nothing stored",
		"dry-run patch, gate off: same answer, nothing stored",
		"dry-run update, gate off: same answer, nothing stored",
		"generation: writes that touch only gated-off fields",
		"toggles: enable, disable, enable again",
		"nested: create, parent off: parent and child dropped",
		"nested: create, parent on, child off: child dropped",
		"nested: update, parent off disables the child: stored values kept",
		"nested: update, parent on, child off: child kept, sibling updated",
		"nested: merge patch with a null parent: stored values kept",
		"nested: child added under a stored parent, child off: dropped",
		"list-map: create, gate off: tls dropped from every item",
		"list-map: update, gate off: reordered items keep their tls",
		"list-map: update, gate off: items added and removed, tls changed",
		"list-map: update, gate off: tls added to an item without: dropped",
		"list-map: JSON patch removing an item's tls, gate off: kept",
		"deprecated: create with both fields",
		"deprecated: a disabled deprecated field keeps its stored value",
		"status subresource, gate off: gated status field dropped",
		"status subresource, gate off: stored status value kept",
		"scale subresource, gate off: stored replicas kept",
		"scale subresource, gate off: no stored replicas",
		"list without keys: create, gate off: dropped from every item",
		"list without keys: reordered items keep their values",
		"list without keys: inserted item gets no value",
		"list without keys: removed item takes its value",
		"list without keys: item edited in place keeps its value",
		"gated default, gate off: not applied; value dropped",
		"gate states: as declared, by stage and default",
		"gate states: enabled decides over default and stage; unset, the default again",
		"gate states: the author's default decides while enabled is unset",
		"gate states: requires: on only while every required gate is",
		"gate states: requiresAnyOf: on while one of the gates is",
		"gate states: a stable gate cannot be disabled",
	)
	declare(aspectPrefix, vapPrefix,
		"deprecated: create with both fields",
		"deprecated: update: warned only when the field changes",
		"deprecated: a disabled deprecated field keeps its stored value", // its seed
		"deprecated: default warning text of an enabled deprecated gate",
		"gate states: as declared, by stage and default",
		"gate states: enabled decides over default and stage; unset, the default again",
		"gate states: requires: on only while every required gate is",
		"gate states: requiresAnyOf: on while one of the gates is",
		"gate states: a stable gate cannot be disabled",
	)
	for _, a := range []string{aspectOthers, aspectPrefix} {
		declare(a, ratchetText,
			"rules: gated enum value",
			"rules: stricter rule once on, stored value ratcheted",
		)
	}
	for _, a := range []string{aspectCode, aspectResponse} {
		declare(a, scaleRefused,
			"scale subresource, gate off: stored replicas kept",
			"scale subresource, gate off: no stored replicas",
		)
	}
	for _, a := range []string{aspectResponse, aspectStored} {
		declare(a, defaultOnWrite, "gated default, gate turned on: objects stored while off")
	}
	return m
}()
