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

// Package featuregategen writes spec.customFeatureGates (KEP-2608) into the CRD manifests
// that controller-gen produced, from markers in the Go API types:
//
//	// Package level (doc.go) or on the kind's root type: declare a gate.
//	// +customfeaturegates:gate:name=BackupGate,preRelease=alpha
//	// +customfeaturegates:gate:name=OldGate,preRelease=deprecated,default=true,deprecationWarning="use spec.new"
//	// Package level: the gates' component (optional).
//	// +customfeaturegates:component=databases.example.com
//
//	// On a field: put the field's JSON path under a gate.
//	// +customfeaturegates:gatedBy=BackupGate
//	Backup *BackupSpec `json:"backup,omitempty"`
//
// Markers are read with controller-tools' markers and loader packages, and JSON names are
// resolved from `json` tags exactly as controller-gen does (inline and embedded fields,
// `-`, omitempty). Slices, arrays and maps add `[*]` to the path.
package featuregategen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
	"sigs.k8s.io/yaml"
)

// Marker names.
const (
	GateMarkerName      = "customfeaturegates:gate"
	ComponentMarkerName = "customfeaturegates:component"
	GatedByMarkerName   = "customfeaturegates:gatedBy"
)

// GateMarker is `+customfeaturegates:gate:name=...,preRelease=...[,default=...][,deprecationWarning=...]`.
type GateMarker struct {
	// Name is the gate's name (UpperCamelCase).
	Name string `marker:"name"`
	// PreRelease is alpha, beta, stable or deprecated.
	PreRelease string `marker:"preRelease"`
	// Default is the author's default; omitted when unset.
	Default *bool `marker:"default,optional"`
	// DeprecationWarning is fieldDeprecationWarning, for a deprecated gate.
	DeprecationWarning *string `marker:"deprecationWarning,optional"`
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
	ap, ok := g.byGV[group+"/"+version]
	if !ok {
		return nil, fmt.Errorf("no Go package declares +groupName=%s with version %s", group, version)
	}
	info, ok := ap.types[kind]
	if !ok {
		return nil, fmt.Errorf("package %s has no type %s", ap.pkg.PkgPath, kind)
	}
	w := &walker{g: g, out: map[string][]string{}, seen: map[string]bool{}, onStack: map[string]bool{}}
	w.onStack[ap.pkg.PkgPath+"."+kind] = true
	if err := w.walkStruct(ap.pkg, info, ""); err != nil {
		return nil, err
	}
	return w.out, nil
}

// skipPackage reports packages whose types never carry the generator's markers.
func skipPackage(path string) bool {
	return strings.HasPrefix(path, "k8s.io/apimachinery/") || strings.HasPrefix(path, "k8s.io/api/")
}

type walker struct {
	g       *Generator
	out     map[string][]string
	seen    map[string]bool
	onStack map[string]bool
}

func (w *walker) walkStruct(pkg *loader.Package, info *markers.TypeInfo, prefix string) error {
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
		path := prefix
		if !inline {
			path = prefix + "." + opts[0]
		}
		if gate, ok := f.Markers.Get(GatedByMarkerName).(string); ok {
			if inline {
				return fmt.Errorf("%s: +%s on the inline field %s of %s: mark the fields it brings in instead", pkg.Fset.Position(f.RawField.Pos()), GatedByMarkerName, fieldName(f), info.Name)
			}
			if gate == "" {
				return fmt.Errorf("%s: +%s needs a gate name", pkg.Fset.Position(f.RawField.Pos()), GatedByMarkerName)
			}
			if !w.seen[path] {
				w.seen[path] = true
				w.out[gate] = append(w.out[gate], path)
			}
		}
		t := pkg.TypesInfo.TypeOf(f.RawField.Type)
		if t == nil {
			return fmt.Errorf("%s: no type information for field %s of %s", pkg.Fset.Position(f.RawField.Pos()), fieldName(f), info.Name)
		}
		if err := w.walkType(t, path); err != nil {
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

func (w *walker) walkType(t types.Type, path string) error {
	switch u := types.Unalias(t).(type) {
	case *types.Pointer:
		return w.walkType(u.Elem(), path)
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return nil // []byte is a base64 string
		}
		return w.walkType(u.Elem(), path+"[*]")
	case *types.Array:
		return w.walkType(u.Elem(), path+"[*]")
	case *types.Map:
		return w.walkType(u.Elem(), path+"[*]")
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
			return w.walkType(u.Underlying(), path)
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
		return w.walkStruct(pkg, info, path)
	}
	return nil
}

// gatesFor returns the gates of the CRD for kind in group/version: the gates declared on
// the kind's type, and the package's gates that a field of the kind uses.
func (g *Generator) gatesFor(group, version, kind string) ([]GateMarker, string, map[string][]string, error) {
	paths, err := g.GatedPaths(group, version, kind)
	if err != nil {
		return nil, "", nil, err
	}
	ap := g.byGV[group+"/"+version]
	var gates []GateMarker
	declared := map[string]bool{}
	add := func(m GateMarker, always bool) error {
		if m.Name == "" {
			return fmt.Errorf("+%s in %s without a name", GateMarkerName, ap.pkg.PkgPath)
		}
		if declared[m.Name] {
			return fmt.Errorf("gate %s is declared twice for %s in %s", m.Name, kind, ap.pkg.PkgPath)
		}
		declared[m.Name] = true
		if always || len(paths[m.Name]) > 0 {
			gates = append(gates, m)
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
		if !declared[name] {
			undeclared = append(undeclared, name)
		}
	}
	if len(undeclared) > 0 {
		sort.Strings(undeclared)
		return nil, "", nil, fmt.Errorf("%s %s/%s: fields are gated by %s, which no +%s declares in package %s or on type %s",
			kind, group, version, strings.Join(undeclared, ", "), GateMarkerName, ap.pkg.PkgPath, kind)
	}
	return gates, ap.component, paths, nil
}

// Generate rewrites the CRD manifests in opts.CRDDir. It returns what it did to each file,
// and writes only the files that changed.
func Generate(opts Options) ([]FileResult, error) {
	g, err := Load(opts.Paths...)
	if err != nil {
		return nil, err
	}
	results, err := g.Process(opts.CRDDir)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		if r.Changed {
			if err := os.WriteFile(r.Path, r.Content, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return results, nil
}

// Process computes the new content of every manifest in dir, without writing.
func (g *Generator) Process(dir string) ([]FileResult, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var results []FileResult
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		old, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		content, notes, err := g.ProcessManifest(old)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		results = append(results, FileResult{Path: path, Changed: !bytes.Equal(old, content), Content: content, Notes: notes})
	}
	return results, nil
}

// ProcessManifest returns the manifest with spec.customFeatureGates written into each CRD
// whose storage version's Go types were loaded. Other documents are kept byte for byte.
func (g *Generator) ProcessManifest(in []byte) ([]byte, []string, error) {
	docs := splitDocs(in)
	var notes []string
	for i, d := range docs {
		if len(bytes.TrimSpace(d.body)) == 0 {
			continue
		}
		out, note, err := g.processCRD(d.body)
		if err != nil {
			return nil, nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		docs[i].body = out
	}
	var buf bytes.Buffer
	for _, d := range docs {
		buf.Write(d.sep)
		buf.Write(d.body)
	}
	return buf.Bytes(), notes, nil
}

type doc struct{ sep, body []byte }

// splitDocs splits a YAML stream at its `---` lines, keeping the separators.
func splitDocs(in []byte) []doc {
	var docs []doc
	cur := doc{}
	for _, line := range bytes.SplitAfter(in, []byte("\n")) {
		if t := bytes.TrimRight(line, " \r\n"); bytes.Equal(t, []byte("---")) {
			docs = append(docs, cur)
			cur = doc{sep: line}
			continue
		}
		cur.body = append(cur.body, line...)
	}
	return append(docs, cur)
}

func (g *Generator) processCRD(body []byte) ([]byte, string, error) {
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, "", err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return body, "", nil // not an object: leave it
	}
	if obj["kind"] != "CustomResourceDefinition" || !strings.HasPrefix(fmt.Sprint(obj["apiVersion"]), "apiextensions.k8s.io/") {
		return body, "", nil
	}
	spec, _ := obj["spec"].(map[string]interface{})
	name, _ := nested(obj, "metadata", "name").(string)
	group, _ := spec["group"].(string)
	kind, _ := nested(spec, "names", "kind").(string)
	version := ""
	versions, _ := spec["versions"].([]interface{})
	for _, v := range versions {
		vm, _ := v.(map[string]interface{})
		if vm["storage"] == true {
			version, _ = vm["name"].(string)
		}
	}
	if _, ok := g.byGV[group+"/"+version]; !ok || version == "" {
		return body, fmt.Sprintf("%s: no loaded package declares group %s version %s; left alone", name, group, version), nil
	}
	gates, component, paths, err := g.gatesFor(group, version, kind)
	if err != nil {
		return nil, "", err
	}
	enabled := map[string]interface{}{}
	if cfg, ok := spec["customFeatureGates"].(map[string]interface{}); ok {
		list, _ := cfg["featureGates"].([]interface{})
		for _, it := range list {
			m, _ := it.(map[string]interface{})
			if e, ok := m["enabled"]; ok {
				if n, ok := m["name"].(string); ok {
					enabled[n] = e
				}
			}
		}
	}
	if len(gates) == 0 {
		if _, had := spec["customFeatureGates"]; !had {
			return body, "", nil
		}
		delete(spec, "customFeatureGates")
	} else {
		var list []interface{}
		for _, m := range gates {
			gm := map[string]interface{}{"name": m.Name, "preRelease": m.PreRelease, "fieldPaths": nonNil(paths[m.Name])}
			if m.Default != nil {
				gm["default"] = *m.Default
			}
			if m.DeprecationWarning != nil {
				gm["fieldDeprecationWarning"] = *m.DeprecationWarning
			}
			if e, ok := enabled[m.Name]; ok {
				gm["enabled"] = e // the cluster admin's choice is never the generator's
			}
			list = append(list, gm)
		}
		cfg := map[string]interface{}{"featureGates": list}
		if component != "" {
			cfg["component"] = component
		}
		spec["customFeatureGates"] = cfg
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return nil, "", err
	}
	return out, "", nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nested(m map[string]interface{}, keys ...string) interface{} {
	var cur interface{} = m
	for _, k := range keys {
		mm, ok := cur.(map[string]interface{})
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}
