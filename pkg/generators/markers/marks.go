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

package markers

import (
	"fmt"
	"strconv"
	"strings"
)

// MarkExtension is the schema extension that marks a node of one version's schema as
// guarded by the gate it names (featuregates.MarkExtension of the API server).
const MarkExtension = "x-kubernetes-feature-gate"

// writeMarks marks, in every version of c whose Go types were loaded, the schema node of
// each gated field of that version's types, after removing the marks the generator owns
// there, and writes the gates of those versions into c without fieldPaths. Versions whose Go
// types were not loaded are left alone. It reports whether c is to be written.
func (g *Generator) writeMarks(c *crd) (bool, []string, error) {
	// The storage version first, then the others in the CRD's order: its gates come first
	// in spec.customFeatureGates, as with fieldPaths.
	var loaded, notLoaded []map[string]interface{}
	for _, vm := range c.versions {
		name, _ := vm["name"].(string)
		switch {
		case name == "" || g.byGV[c.group+"/"+name] == nil:
			notLoaded = append(notLoaded, vm)
		case name == c.storage:
			loaded = append([]map[string]interface{}{vm}, loaded...)
		default:
			loaded = append(loaded, vm)
		}
	}
	var notes []string
	if len(loaded) == 0 {
		return false, []string{fmt.Sprintf("%s: no loaded package declares group %s with any of its versions (%s); left alone", c.name, c.group, versionNames(c.versions))}, nil
	}
	for _, vm := range notLoaded {
		notes = append(notes, fmt.Sprintf("%s: no loaded package declares group %s version %s; that version's schema is left alone", c.name, c.group, vm["name"]))
	}

	type declaration struct {
		gate GateMarker
		pkg  string
	}
	changed := false
	var gates []GateMarker
	declared := map[string]declaration{} // gate name -> its first declaration
	component, componentPkg := "", ""
	for _, vm := range loaded {
		version, _ := vm["name"].(string)
		vGates, vComponent, fields, err := g.gatesFor(c.group, version, c.kind)
		if err != nil {
			return false, nil, err
		}
		pkgPath := g.byGV[c.group+"/"+version].pkg.PkgPath
		for _, m := range vGates {
			first, seen := declared[m.Name]
			switch {
			case !seen:
				declared[m.Name] = declaration{gate: m, pkg: pkgPath}
				gates = append(gates, m)
			case !sameGate(first.gate, m):
				return false, nil, fmt.Errorf("%s: gate %s is declared as %s in package %s and as %s in package %s; the versions of a CRD share its gates, so declare it the same way in both",
					c.name, m.Name, describeGate(first.gate), first.pkg, describeGate(m), pkgPath)
			}
		}
		if vComponent != "" {
			if component != "" && component != vComponent {
				return false, nil, fmt.Errorf("%s: package %s declares the component %q and package %s the component %q; the versions of a CRD share its component",
					c.name, componentPkg, component, pkgPath, vComponent)
			}
			component, componentPkg = vComponent, pkgPath
		}

		schema := versionSchema(vm)
		if removeMarks(schema) {
			changed = true
		}
		for _, f := range fields {
			node, err := schemaNode(schema, f.steps)
			if err != nil {
				return false, nil, fmt.Errorf("%s: field %s (+%s=%s): cannot mark %s in version %s of %s: %v",
					f.pos, f.goField, GatedByMarkerName, f.gate, f.path, version, c.name, err)
			}
			node[MarkExtension] = f.gate
			changed = true
		}
	}
	if writeGates(c.spec, gates, component, nil) {
		changed = true
	}
	return changed, notes, nil
}

// versionSchema returns the openAPIV3Schema of a version of a CRD, or nil.
func versionSchema(version map[string]interface{}) map[string]interface{} {
	s, _ := nested(version, "schema", "openAPIV3Schema").(map[string]interface{})
	return s
}

// schemaNode returns the node of schema that steps lead to: a property step goes through
// properties, a list's [*] through items and a map's [*] through additionalProperties. A
// mark must not be at or below metadata, apiVersion or kind, so a path there is an error.
func schemaNode(schema map[string]interface{}, steps []pathStep) (map[string]interface{}, error) {
	if schema == nil {
		return nil, fmt.Errorf("the version has no schema.openAPIV3Schema")
	}
	if len(steps) > 0 && steps[0].kind == propertyStep {
		switch steps[0].name {
		case "metadata", "apiVersion", "kind":
			return nil, fmt.Errorf("%s must not be on or below metadata, apiVersion or kind", MarkExtension)
		}
	}
	node := schema
	at := ""
	for _, st := range steps {
		var next interface{}
		switch st.kind {
		case propertyStep:
			props, _ := node["properties"].(map[string]interface{})
			next = props[st.name]
			if next == nil {
				return nil, fmt.Errorf("the schema has no property %s at %s", st.name, pathOrRoot(at))
			}
			at += "." + st.name
		case itemsStep:
			next = node["items"]
			if next == nil {
				return nil, fmt.Errorf("the schema has no items at %s", pathOrRoot(at))
			}
			at += "[*]"
		case valuesStep:
			next = node["additionalProperties"]
			if next == nil {
				return nil, fmt.Errorf("the schema has no additionalProperties at %s", pathOrRoot(at))
			}
			at += "[*]"
		}
		m, ok := next.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("the schema at %s is not a schema object", at)
		}
		node = m
	}
	return node, nil
}

func pathOrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// removeMarks removes x-kubernetes-feature-gate from schema and from every node below it
// that the generator marks: properties, items and additionalProperties, recursively. It
// reports whether it removed any.
func removeMarks(schema map[string]interface{}) bool {
	if schema == nil {
		return false
	}
	removed := false
	if _, ok := schema[MarkExtension]; ok {
		delete(schema, MarkExtension)
		removed = true
	}
	if props, ok := schema["properties"].(map[string]interface{}); ok {
		for _, p := range props {
			if m, ok := p.(map[string]interface{}); ok && removeMarks(m) {
				removed = true
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if m, ok := schema[key].(map[string]interface{}); ok && removeMarks(m) {
			removed = true
		}
	}
	return removed
}

// sameGate reports whether two gate markers declare the same gate.
func sameGate(a, b GateMarker) bool {
	return a.Name == b.Name && a.PreRelease == b.PreRelease &&
		equalPtr(a.Default, b.Default) && equalPtr(a.DeprecationWarning, b.DeprecationWarning)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// describeGate returns a gate marker's arguments, as they are written in the marker.
func describeGate(m GateMarker) string {
	s := "preRelease=" + m.PreRelease
	if m.Default != nil {
		s += ",default=" + strconv.FormatBool(*m.Default)
	}
	if m.DeprecationWarning != nil {
		s += ",deprecationWarning=" + strconv.Quote(*m.DeprecationWarning)
	}
	return s
}

// versionNames returns the names of the versions, comma-separated.
func versionNames(versions []map[string]interface{}) string {
	var names []string
	for _, vm := range versions {
		names = append(names, fmt.Sprint(vm["name"]))
	}
	return strings.Join(names, ", ")
}
