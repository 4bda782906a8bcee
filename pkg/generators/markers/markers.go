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

// Package markers writes spec.customFeatureGates (KEP-2608) into the CRD manifests
// that controller-gen produced, from markers in the Go API types:
//
//	// Package level (doc.go) or on the kind's root type: declare a gate.
//	// +customfeaturegates:gate:name=BackupGate,preRelease=alpha
//	// +customfeaturegates:gate:name=OldGate,preRelease=deprecated,default=true,deprecationWarning="use spec.new"
//	// Package level: the gates' component (optional).
//	// +customfeaturegates:component=databases.example.com
//
//	// On a field: put the field under a gate.
//	// +customfeaturegates:gatedBy=BackupGate
//	Backup *BackupSpec `json:"backup,omitempty"`
//
// By default, the generator marks the schema node of each gated field with
// `x-kubernetes-feature-gate: <Gate>`, in the openAPIV3Schema of every version of the CRD
// whose Go package was loaded, from that package's markers; the gates are declared in
// spec.customFeatureGates without fieldPaths. With Generator.FieldPaths (the -field-paths
// flag) it writes instead, as it did before marks existed, each gate's fieldPaths: the gated
// fields' paths in the storage version, from the storage version's package; no version is
// marked.
//
// Markers are read with controller-tools' markers and loader packages, and JSON names are
// resolved from `json` tags exactly as controller-gen does (inline and embedded fields,
// `-`, omitempty). Slices, arrays and maps add `[*]` to the path; in the schema, a slice's
// or an array's `[*]` is items, a map's is additionalProperties.
package markers

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
)

// Marker names.
const (
	GateMarkerName      = "customfeaturegates:gate"
	ComponentMarkerName = "customfeaturegates:component"
	GatedByMarkerName   = "customfeaturegates:gatedBy"
)

// GateMarker is `+customfeaturegates:gate:name=...,preRelease=...[,default=...][,deprecationWarning=...][,requires=A;B][,requiresAnyOf=C;D]`.
type GateMarker struct {
	// Name is the gate's name (UpperCamelCase).
	Name string `marker:"name"`
	// PreRelease is alpha, beta, stable or deprecated.
	PreRelease string `marker:"preRelease"`
	// Default is the author's default; omitted when unset.
	Default *bool `marker:"default,optional"`
	// DeprecationWarning is fieldDeprecationWarning, for a deprecated gate.
	DeprecationWarning *string `marker:"deprecationWarning,optional"`
	// Requires names the other gates this one requires (requires=A;B): it is enabled only
	// while they are. Each must be declared for the same kind; a package gate that an
	// included gate requires is included too.
	Requires []string `marker:"requires,optional"`
	// RequiresAnyOf names other gates of which this one requires at least one
	// (requiresAnyOf=C;D): it is enabled only while one of them is. Declared and included as
	// Requires are.
	RequiresAnyOf []string `marker:"requiresAnyOf,optional"`
}

// Registry returns the marker definitions the generator reads, plus controller-gen's
// +groupName and +versionName, which tie a Go package to a CRD's group and version.
func Registry() (*markers.Registry, error) {
	reg := &markers.Registry{}
	for _, d := range []struct {
		name   string
		target markers.TargetType
		out    interface{}
	}{
		{GateMarkerName, markers.DescribesPackage, GateMarker{}},
		{GateMarkerName, markers.DescribesType, GateMarker{}},
		{ComponentMarkerName, markers.DescribesPackage, ""},
		{GatedByMarkerName, markers.DescribesField, ""},
		{"groupName", markers.DescribesPackage, ""},
		{"versionName", markers.DescribesPackage, ""},
	} {
		def, err := markers.MakeDefinition(d.name, d.target, d.out)
		if err != nil {
			return nil, err
		}
		if err := reg.Register(def); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Options say what to read and where to write.
type Options struct {
	// Paths are Go package patterns of the API types, as for controller-gen's paths=.
	Paths []string
	// CRDDir holds the CRD manifests controller-gen wrote (*.yaml, *.yml).
	CRDDir string
	// FieldPaths writes each gate's fieldPaths in the storage version instead of
	// x-kubernetes-feature-gate marks in each version's schema (see Generator.FieldPaths).
	FieldPaths bool
}

// FileResult is what Generate did to one manifest.
type FileResult struct {
	Path    string
	Changed bool
	// Content is the new content (equal to the old one when !Changed).
	Content []byte
	// Notes explain documents that were left alone.
	Notes []string
}

// apiPackage is a loaded Go package with its group, version, gates and types.
type apiPackage struct {
	pkg       *loader.Package
	group     string
	version   string
	component string
	gates     []GateMarker
	types     map[string]*markers.TypeInfo
}

// Generator holds the loaded packages.
type Generator struct {
	// FieldPaths selects the output. When false (the default), every version of a CRD whose
	// Go package was loaded gets x-kubernetes-feature-gate on the schema node of each of its
	// gated fields, and the gates are declared without fieldPaths. When true, each gate lists
	// the paths of its fields in the storage version as fieldPaths, and no version is marked.
	// In both modes the generator owns the x-kubernetes-feature-gate marks of the versions
	// whose Go package was loaded: a mark that the markers do not call for is removed.
	FieldPaths bool

	col      *markers.Collector
	byGV     map[string]*apiPackage
	typeInfo map[string]map[string]*markers.TypeInfo // package path -> type name -> info
	roots    []*loader.Package
	checker  *loader.TypeChecker
}

// filterTypes selects what the type checker follows, as controller-gen's CRD generator
// does: struct types and the fields that are serialized (a json tag, or embedded).
func filterTypes(node ast.Node) bool {
	switch n := node.(type) {
	case *ast.InterfaceType:
		return false
	case *ast.Field:
		_, hasTag := loader.ParseAstTag(n.Tag).Lookup("json")
		return hasTag || n.Names == nil
	}
	return true
}

// packageError returns the first error that loading or parsing the package reported. Type
// errors are ignored, as controller-gen ignores them: with filters, the type checker leaves
// the types of unreferenced packages unloaded, and those errors are expected.
func packageError(pkg *loader.Package) error {
	for _, e := range pkg.Errors {
		if e.Kind == packages.TypeError {
			continue
		}
		return fmt.Errorf("package %s: %v", pkg.PkgPath, e)
	}
	return nil
}

// Load loads the API packages and reads their markers.
func Load(paths ...string) (*Generator, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no package paths given")
	}
	reg, err := Registry()
	if err != nil {
		return nil, err
	}
	roots, err := loader.LoadRoots(paths...)
	if err != nil {
		return nil, fmt.Errorf("loading %v: %w", paths, err)
	}
	g := &Generator{checker: &loader.TypeChecker{NodeFilters: []loader.NodeFilter{filterTypes}}, col: &markers.Collector{Registry: reg}, byGV: map[string]*apiPackage{}, typeInfo: map[string]map[string]*markers.TypeInfo{}, roots: roots}
	for _, pkg := range roots {
		if err := packageError(pkg); err != nil {
			return nil, err
		}
		pm, err := markers.PackageMarkers(g.col, pkg)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", pkg.PkgPath, err)
		}
		ap := &apiPackage{pkg: pkg, version: pkg.Name}
		if v, ok := pm.Get("groupName").(string); ok {
			ap.group = v
		}
		if v, ok := pm.Get("versionName").(string); ok && v != "" {
			ap.version = v
		}
		if v, ok := pm.Get(ComponentMarkerName).(string); ok {
			ap.component = v
		}
		for _, m := range pm[GateMarkerName] {
			ap.gates = append(ap.gates, m.(GateMarker))
		}
		infos, err := g.types(pkg)
		if err != nil {
			return nil, err
		}
		ap.types = infos
		if ap.group == "" {
			continue // not an API group package (no +groupName)
		}
		key := ap.group + "/" + ap.version
		if other, dup := g.byGV[key]; dup {
			return nil, fmt.Errorf("packages %s and %s both declare %s", other.pkg.PkgPath, pkg.PkgPath, key)
		}
		g.byGV[key] = ap
	}
	return g, nil
}

// types returns the type declarations of a package with their markers.
func (g *Generator) types(pkg *loader.Package) (map[string]*markers.TypeInfo, error) {
	if infos, ok := g.typeInfo[pkg.PkgPath]; ok {
		return infos, nil
	}
	infos := map[string]*markers.TypeInfo{}
	if err := markers.EachType(g.col, pkg, func(info *markers.TypeInfo) { infos[info.Name] = info }); err != nil {
		return nil, fmt.Errorf("package %s: %w", pkg.PkgPath, err)
	}
	// Type-check the package and the packages its fields refer to, as controller-gen does.
	g.checker.Check(pkg)
	if err := packageError(pkg); err != nil {
		return nil, err
	}
	g.typeInfo[pkg.PkgPath] = infos
	return infos, nil
}

// findPackage finds a loaded package by import path among the roots and their imports.
func (g *Generator) findPackage(path string) *loader.Package {
	seen := map[string]bool{}
	var visit func(p *loader.Package) *loader.Package
	visit = func(p *loader.Package) *loader.Package {
		if p.PkgPath == path {
			return p
		}
		if seen[p.PkgPath] {
			return nil
		}
		seen[p.PkgPath] = true
		for _, imp := range p.Imports() {
			if found := visit(imp); found != nil {
				return found
			}
		}
		return nil
	}
	for _, r := range g.roots {
		if p := visit(r); p != nil {
			return p
		}
	}
	return nil
}

// GatedPaths returns, for the root type kind of the package of group/version, the field
// paths under each gate, in the order of the fields in the source.
func (g *Generator) GatedPaths(group, version, kind string) (map[string][]string, error) {
	_, fields, err := g.gatedFields(group, version, kind)
	if err != nil {
		return nil, err
	}
	return pathsByGate(fields), nil
}

// stepKind says how one step of a field's path goes down a schema.
type stepKind int

const (
	// propertyStep is a property of an object: properties[name].
	propertyStep stepKind = iota
	// itemsStep is every item of a slice or an array ([*]): items.
	itemsStep
	// valuesStep is every value of a map ([*]): additionalProperties.
	valuesStep
)

// pathStep is one step of a field's path.
type pathStep struct {
	kind stepKind
	// name is the property's JSON name, for a propertyStep.
	name string
}

// gatedField is a field with +customfeaturegates:gatedBy, reached from a kind's root type.
type gatedField struct {
	gate string
	// path is the field's path, such as .spec.items[*].name.
	path string
	// steps lead from the root of the kind's schema to the field's schema node.
	steps []pathStep
	// goField names the field as Type.Field, and pos is where it is declared.
	goField string
	pos     token.Position
}

// gatedFields returns the package of group/version and the gated fields of its root type
// kind, in the order of the fields in the source. A path is listed once.
func (g *Generator) gatedFields(group, version, kind string) (*apiPackage, []gatedField, error) {
	ap, ok := g.byGV[group+"/"+version]
	if !ok {
		return nil, nil, fmt.Errorf("no Go package declares +groupName=%s with version %s", group, version)
	}
	info, ok := ap.types[kind]
	if !ok {
		return nil, nil, fmt.Errorf("package %s has no type %s", ap.pkg.PkgPath, kind)
	}
	w := &walker{g: g, seen: map[string]bool{}, onStack: map[string]bool{}}
	w.onStack[ap.pkg.PkgPath+"."+kind] = true
	if err := w.walkStruct(ap.pkg, info, "", nil); err != nil {
		return nil, nil, err
	}
	return ap, w.out, nil
}

// pathsByGate returns the paths of fields under each gate, in the order of fields.
func pathsByGate(fields []gatedField) map[string][]string {
	out := map[string][]string{}
	for _, f := range fields {
		out[f.gate] = append(out[f.gate], f.path)
	}
	return out
}

// skipPackage reports packages whose types never carry the generator's markers.
func skipPackage(path string) bool {
	return strings.HasPrefix(path, "k8s.io/apimachinery/") || strings.HasPrefix(path, "k8s.io/api/")
}

type walker struct {
	g       *Generator
	out     []gatedField
	seen    map[string]bool
	onStack map[string]bool
}

// withStep returns steps with one more step, in a new slice: walks share their prefixes.
func withStep(steps []pathStep, step pathStep) []pathStep {
	return append(append(make([]pathStep, 0, len(steps)+1), steps...), step)
}

func (w *walker) walkStruct(pkg *loader.Package, info *markers.TypeInfo, prefix string, prefixSteps []pathStep) error {
	for _, f := range info.Fields {
		// As controller-gen: no json tag, no property; "-" is skipped; an empty name or
		// ",inline" makes the field's properties those of the parent.
		tag, hasTag := f.Tag.Lookup("json")
		if !hasTag {
			continue
		}
		opts := strings.Split(tag, ",")
		if len(opts) == 1 && opts[0] == "-" {
			continue
		}
		inline := opts[0] == ""
		for _, o := range opts[1:] {
			if o == "inline" {
				inline = true
			}
		}
		path, steps := prefix, prefixSteps
		if !inline {
			path = prefix + "." + opts[0]
			steps = withStep(prefixSteps, pathStep{kind: propertyStep, name: opts[0]})
		}
		if gate, ok := f.Markers.Get(GatedByMarkerName).(string); ok {
			if inline {
				return fmt.Errorf("%s: +%s on the inline field %s of %s: put +%s on the fields it brings in instead", pkg.Fset.Position(f.RawField.Pos()), GatedByMarkerName, fieldName(f), info.Name, GatedByMarkerName)
			}
			if gate == "" {
				return fmt.Errorf("%s: +%s needs a gate name", pkg.Fset.Position(f.RawField.Pos()), GatedByMarkerName)
			}
			if !w.seen[path] {
				w.seen[path] = true
				w.out = append(w.out, gatedField{
					gate: gate, path: path, steps: steps,
					goField: info.Name + "." + fieldName(f), pos: pkg.Fset.Position(f.RawField.Pos()),
				})
			}
		}
		t := pkg.TypesInfo.TypeOf(f.RawField.Type)
		if t == nil {
			return fmt.Errorf("%s: no type information for field %s of %s", pkg.Fset.Position(f.RawField.Pos()), fieldName(f), info.Name)
		}
		if err := w.walkType(t, path, steps); err != nil {
			return err
		}
	}
	return nil
}

func fieldName(f markers.FieldInfo) string {
	if f.Name != "" {
		return f.Name
	}
	return types.ExprString(f.RawField.Type)
}

func (w *walker) walkType(t types.Type, path string, steps []pathStep) error {
	switch u := types.Unalias(t).(type) {
	case *types.Pointer:
		return w.walkType(u.Elem(), path, steps)
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return nil // []byte is a base64 string
		}
		return w.walkType(u.Elem(), path+"[*]", withStep(steps, pathStep{kind: itemsStep}))
	case *types.Array:
		return w.walkType(u.Elem(), path+"[*]", withStep(steps, pathStep{kind: itemsStep}))
	case *types.Map:
		return w.walkType(u.Elem(), path+"[*]", withStep(steps, pathStep{kind: valuesStep}))
	case *types.Named:
		obj := u.Obj()
		if obj.Pkg() == nil || skipPackage(obj.Pkg().Path()) {
			return nil
		}
		key := obj.Pkg().Path() + "." + obj.Name()
		if w.onStack[key] {
			return nil // a recursive type: its markers were seen on the way in
		}
		w.onStack[key] = true
		defer delete(w.onStack, key)
		if _, isStruct := u.Underlying().(*types.Struct); !isStruct {
			return w.walkType(u.Underlying(), path, steps)
		}
		pkg := w.g.findPackage(obj.Pkg().Path())
		if pkg == nil {
			return nil
		}
		infos, err := w.g.types(pkg)
		if err != nil {
			return err
		}
		info, ok := infos[obj.Name()]
		if !ok {
			return nil
		}
		return w.walkStruct(pkg, info, path, steps)
	}
	return nil
}

// gatesFor returns the gates of the CRD for kind in group/version: the gates declared on
// the kind's type, and the package's gates that a field of the kind uses; with the
// package's component and the kind's gated fields.
func (g *Generator) gatesFor(group, version, kind string) ([]GateMarker, string, []gatedField, error) {
	ap, fields, err := g.gatedFields(group, version, kind)
	if err != nil {
		return nil, "", nil, err
	}
	paths := pathsByGate(fields)
	var all []GateMarker
	declared := map[string]int{}
	included := map[string]bool{}
	add := func(m GateMarker, always bool) error {
		if m.Name == "" {
			return fmt.Errorf("+%s in %s without a name", GateMarkerName, ap.pkg.PkgPath)
		}
		if _, dup := declared[m.Name]; dup {
			return fmt.Errorf("gate %s is declared twice for %s in %s", m.Name, kind, ap.pkg.PkgPath)
		}
		declared[m.Name] = len(all)
		all = append(all, m)
		if always || len(paths[m.Name]) > 0 {
			included[m.Name] = true
		}
		return nil
	}
	for _, m := range ap.gates {
		if err := add(m, false); err != nil {
			return nil, "", nil, err
		}
	}
	for _, m := range ap.types[kind].Markers[GateMarkerName] {
		if err := add(m.(GateMarker), true); err != nil {
			return nil, "", nil, err
		}
	}
	var undeclared []string
	for name := range paths {
		if _, ok := declared[name]; !ok {
			undeclared = append(undeclared, name)
		}
	}
	// A gate that an included gate requires goes into the CRD too, so that requires names
	// only declared gates; the closure visits each gate once.
	queue := make([]string, 0, len(included))
	for _, m := range all {
		if included[m.Name] {
			queue = append(queue, m.Name)
		}
	}
	for len(queue) > 0 {
		m := all[declared[queue[0]]]
		queue = queue[1:]
		for _, r := range append(append([]string{}, m.Requires...), m.RequiresAnyOf...) {
			if _, ok := declared[r]; !ok {
				return nil, "", nil, fmt.Errorf("%s %s/%s: gate %s requires %s, which no +%s declares in package %s or on type %s",
					kind, group, version, m.Name, r, GateMarkerName, ap.pkg.PkgPath, kind)
			}
			if !included[r] {
				included[r] = true
				queue = append(queue, r)
			}
		}
	}
	var gates []GateMarker
	for _, m := range all {
		if included[m.Name] {
			gates = append(gates, m)
		}
	}
	if len(undeclared) > 0 {
		sort.Strings(undeclared)
		return nil, "", nil, fmt.Errorf("%s %s/%s: fields are gated by %s, which no +%s declares in package %s or on type %s",
			kind, group, version, strings.Join(undeclared, ", "), GateMarkerName, ap.pkg.PkgPath, kind)
	}
	return gates, ap.component, fields, nil
}
