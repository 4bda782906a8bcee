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

// Package channels turns the two channels a project ships (a "standard" and an
// "experimental" set of the same CRDs) into one set of CRDs with KEP-2608 gates: with every
// gate off a CRD validates and stores what the standard channel does, with every gate on what
// the experimental channel does, and turning gates off loses no stored value.
//
// For each CRD that both channels ship, the experimental CRD is the base, and every
// difference of a version's schema becomes gated:
//   - a field that only the experimental schema has is a gated path (a gate's fieldPaths,
//     in the storage version);
//   - a validation keyword that differs (enum values, required fields, the bounds maxItems,
//     maxLength, maxProperties, maximum, their minimums, pattern and format) becomes gated
//     keywords (x-kubernetes-feature-gated-validations on the node): an entry with the
//     standard channel's keyword that applies while the gate is off, one with the
//     experimental channel's while it is on. The node keeps the looser form (the looser
//     bound, no pattern or format, the union of the enums), which is what CEL cost
//     estimates read; the server compiles the applying entries into the node's keywords, so
//     a gated keyword costs what the keyword costs;
//   - an x-kubernetes-validations rule that only one channel has is kept as a rule that
//     reads the gate (featureGates.<Gate>): the standard channel's while the gate is off,
//     the experimental one's while it is on.
//
// One feature is one gate. A new field is a feature; an enum value that names a new field
// of the object that holds the enum (CORS, and cors), and a rule whose identifiers name new
// fields below its node (self.cors, or 'CORS'), up to case, belong to that field's gate. The
// same new field of one type used at several places (holding objects with the same schema
// in each channel) is one feature too, and so are the new fields that one rule or enum value
// of only one channel names together (see tieFeatures). A rule that names the fields of two
// gates fails the run only where --gates itself puts those fields in two gates; a --gates
// name that a generated name collides with fails it as well. Other differences get the gate of their
// node, or the --gates gate that covers it.
//
// A CRD, or a version, that only the experimental channel ships cannot be gated: it is
// copied as it is and reported; a version that both ship stays served as the experimental
// channel serves it, whatever the gates. Other differences (a type, a default, list
// semantics, a format that gives a value a CEL type, a keyword at the root or in metadata)
// are reported as notes, and the experimental schema's value is kept.
package channels

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"
)

// Config is the --gates file: gate names and the paths each gate groups, per CRD. A
// difference at or below a configured path belongs to that gate (the longest configured path
// wins), and so do the enum values and rules that name a field it covers; other differences
// get the gate of their feature, named after the kind and the path. A configured name must
// not be one that the generator gives to a path it does not cover.
type Config struct {
	CRDs map[string]CRDConfig `json:"crds"`
}

// CRDConfig are the gates of one CRD, by the CRD's name.
type CRDConfig struct {
	Gates []GateConfig `json:"gates"`
}

// GateConfig names a gate and the paths it groups (gate path syntax, .spec.a[*].b).
type GateConfig struct {
	Name string `json:"name"`
	// PreRelease is the gate's stage; alpha when empty.
	PreRelease string   `json:"preRelease,omitempty"`
	Paths      []string `json:"paths"`
}

// LoadConfig reads a --gates file.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, crd := range sortedCRDs(c.CRDs) {
		names := sets.New[string]()
		for _, g := range c.CRDs[crd].Gates {
			if !crdmerge.ValidGateName(g.Name) {
				return nil, fmt.Errorf("%s: crds[%s]: gate name %q is not UpperCamelCase ([A-Z][A-Za-z0-9]*, at most 63 characters)", path, crd, g.Name)
			}
			if len(g.Paths) == 0 {
				return nil, fmt.Errorf("%s: crds[%s]: gate %s has no paths", path, crd, g.Name)
			}
			if names.Has(g.Name) {
				return nil, fmt.Errorf("%s: crds[%s]: gate %s is listed twice; list all its paths under one entry", path, crd, g.Name)
			}
			names.Insert(g.Name)
		}
	}
	return &c, nil
}

func sortedCRDs(m map[string]CRDConfig) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MappingRow is one gated difference: which gate guards what, where.
type MappingRow struct {
	CRD, Version, Gate, Path string
	// What is "field" for a gated path, or the keyword whose check is gated ("enum",
	// "rule", "required", "maxItems", ...).
	What string
}

// File is one output manifest.
type File struct {
	Name    string
	Content []byte
}

// Result is what a run produced.
type Result struct {
	Files   []File
	Mapping []MappingRow
	// Copied are CRDs (by name) or versions ("<crd> <version>") that only the experimental
	// channel ships; they are copied as they are.
	Copied []string
	// Notes are differences that could not be gated, and inputs that were skipped.
	Notes []string
}

// Merge reads the CRD manifests of the two directories and returns one CRD per kind.
func Merge(standardDir, experimentalDir string, cfg *Config) (*Result, error) {
	std, stdNotes, err := readDir(standardDir)
	if err != nil {
		return nil, err
	}
	exp, expNotes, err := readDir(experimentalDir)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = &Config{}
	}
	res := &Result{Notes: append(stdNotes, expNotes...)}
	names := sets.New[string]()
	for n := range std {
		names.Insert(n)
	}
	for n := range exp {
		names.Insert(n)
	}
	var errs []error
	for _, name := range sets.List(names) {
		s, e := std[name], exp[name]
		var out *apiextensionsv1.CustomResourceDefinition
		file := ""
		switch {
		case e == nil:
			out, file = s.crd, s.file
			res.Notes = append(res.Notes, fmt.Sprintf("%s: only in the standard channel; copied", name))
		case s == nil:
			out, file = e.crd, e.file
			res.Copied = append(res.Copied, name)
		default:
			m := &merger{name: name, kind: e.crd.Spec.Names.Kind, cfg: cfg.CRDs[name], res: res,
				gates: map[string]*apiextensionsv1.CustomResourceDefinitionFeatureGate{}, storagePaths: sets.New[string](),
				reported: sets.New[string]()}
			out, file = m.crd(s.crd, e.crd), e.file
			errs = append(errs, m.errs...)
		}
		content, err := crdmerge.MarshalCRD(out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		res.Files = append(res.Files, File{Name: file, Content: content})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Name < res.Files[j].Name })
	return res, nil
}

type sourceCRD struct {
	crd  *apiextensionsv1.CustomResourceDefinition
	file string
}

// readDir reads every apiextensions.k8s.io/v1 CustomResourceDefinition of the *.yaml and
// *.yml files of dir; other documents are skipped with a note.
func readDir(dir string) (map[string]*sourceCRD, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*sourceCRD{}
	var notes []string
	for _, entry := range entries {
		name := entry.Name()
		if entry.IsDir() || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, err
		}
		crds, skipped, err := crdmerge.ReadCRDs(filepath.Join(dir, name), data)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, skipped...)
		for _, crd := range crds {
			if prev, ok := out[crd.Name]; ok {
				return nil, nil, fmt.Errorf("%s: CRD %s is also in %s", filepath.Join(dir, name), crd.Name, prev.file)
			}
			out[crd.Name] = &sourceCRD{crd: crd, file: name}
		}
	}
	return out, notes, nil
}

// merger merges the two channels of one CRD.
type merger struct {
	name, kind string
	cfg        CRDConfig
	res        *Result
	// gates by name, and the default gate names already given to paths.
	gates        map[string]*apiextensionsv1.CustomResourceDefinitionFeatureGate
	defaultNames map[string]string
	// storagePaths are the gated fields of the storage version, which the merger visits first.
	storagePaths sets.Set[string]
	version      string
	storage      bool
	// newFields are the fields that only the experimental schema of the version being merged
	// has: the features that enum values and rules are grouped with.
	newFields []newField
	// typeFeature is the gate name of each new field that a type has at several places.
	typeFeature map[string]string
	// tied is the gate of each new field that a rule or an enum value of any version ties
	// to another feature (see tieFeatures); storageNew, only while tieFeatures runs, the
	// storage version's new fields.
	tied       map[string]tiedGate
	storageNew sets.Set[string]
	// split are the --gates gates that a tie group's fields are in, where there are several.
	split map[string][]string
	// errs are the differences that cannot be gated as they are (a rule that mixes two --gates
	// features, a --gates name that a generated name collides with); reported records the
	// ones already in errs.
	errs     []error
	reported sets.Set[string]
}

func (m *merger) fail(format string, args ...interface{}) {
	msg := fmt.Sprintf("%s %s: ", m.name, m.version) + fmt.Sprintf(format, args...)
	if !m.reported.Has(msg) {
		m.reported.Insert(msg)
		m.errs = append(m.errs, errors.New(msg))
	}
}

func (m *merger) note(format string, args ...interface{}) {
	m.res.Notes = append(m.res.Notes, fmt.Sprintf("%s %s: ", m.name, m.version)+fmt.Sprintf(format, args...))
}

func (m *merger) crd(s, e *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	out := e.DeepCopy()
	// With every gate off the CRD is the standard channel's: its metadata (labels, and
	// annotations such as a channel annotation) are the standard CRD's.
	out.ObjectMeta = *s.ObjectMeta.DeepCopy()
	stdVersions := map[string]*apiextensionsv1.CustomResourceDefinitionVersion{}
	for i := range s.Spec.Versions {
		stdVersions[s.Spec.Versions[i].Name] = &s.Spec.Versions[i]
	}
	seen := sets.New[string]()
	// The storage version first: gated paths are paths in its schema.
	order := make([]int, 0, len(out.Spec.Versions))
	for i, v := range out.Spec.Versions {
		if v.Storage {
			order = append([]int{i}, order...)
		} else {
			order = append(order, i)
		}
	}
	// The features that a difference of any version ties together, before any gate is named.
	var pairs [][2]*apiextensionsv1.JSONSchemaProps
	storageFirst := false
	for n, i := range order {
		v := &out.Spec.Versions[i]
		sv, ok := stdVersions[v.Name]
		if ok && sv.Schema != nil && v.Schema != nil && sv.Schema.OpenAPIV3Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			if n == 0 && v.Storage {
				storageFirst = true
			}
			pairs = append(pairs, [2]*apiextensionsv1.JSONSchemaProps{sv.Schema.OpenAPIV3Schema, v.Schema.OpenAPIV3Schema})
		}
	}
	m.tieFeatures(pairs, storageFirst)
	for _, i := range order {
		v := &out.Spec.Versions[i]
		seen.Insert(v.Name)
		sv, ok := stdVersions[v.Name]
		if !ok {
			m.res.Copied = append(m.res.Copied, m.name+" "+v.Name)
			continue
		}
		m.version, m.storage = v.Name, v.Storage
		m.newFields, m.typeFeature = nil, nil
		if sv.Schema != nil && v.Schema != nil && sv.Schema.OpenAPIV3Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			m.collectNewFields(sv.Schema.OpenAPIV3Schema, v.Schema.OpenAPIV3Schema)
		}
		if sv.Storage != v.Storage || sv.Served != v.Served {
			m.note("served or storage differs between the channels; the experimental channel's is kept")
		}
		if sv.Schema == nil || v.Schema == nil || sv.Schema.OpenAPIV3Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		m.schema(sv.Schema.OpenAPIV3Schema, v.Schema.OpenAPIV3Schema, "")
	}
	for _, sv := range s.Spec.Versions {
		if !seen.Has(sv.Name) {
			m.res.Notes = append(m.res.Notes, fmt.Sprintf("%s %s: only in the standard channel; copied", m.name, sv.Name))
			out.Spec.Versions = append(out.Spec.Versions, *sv.DeepCopy())
		}
	}
	if len(m.gates) > 0 {
		names := make([]string, 0, len(m.gates))
		for n := range m.gates {
			names = append(names, n)
		}
		sort.Strings(names)
		cfg := &apiextensionsv1.CustomResourceDefinitionFeatureGates{}
		if e.Spec.CustomFeatureGates != nil {
			cfg = e.Spec.CustomFeatureGates.DeepCopy()
		}
		for _, n := range names {
			g := m.gates[n]
			sort.Strings(g.FieldPaths)
			cfg.FeatureGates = append(cfg.FeatureGates, *g)
		}
		out.Spec.CustomFeatureGates = cfg
	}
	return out
}

// gateField gates the new field at path: its gate (see fieldGate) is declared on first use,
// and path is added to its fieldPaths, in the storage version only. A field of another
// version that the storage version does not have is reported, and gets no gate.
func (m *merger) gateField(path string) {
	if !m.storage && !m.storagePaths.Has(path) {
		// Gate paths are paths in the storage version: a field that only this version has
		// cannot be one.
		m.note("%s: only in the experimental channel, but not in the storage version's schema; not gated in this version", path)
		return
	}
	name, stage := m.fieldGate(path)
	m.declare(name, stage, path, "field")
}

// configured returns the --gates gate whose paths cover path (the longest path wins), or "".
func (m *merger) configured(path string) (name, stage string) {
	best := -1
	for _, g := range m.cfg.Gates {
		for _, p := range g.Paths {
			if (path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")) && len(p) > best {
				name, stage, best = g.Name, g.PreRelease, len(p)
			}
		}
	}
	if name != "" && stage == "" {
		stage = "alpha"
	}
	return name, stage
}

// nameOf is the gate of path by its own place: the configured gate that covers it, else the
// name generated from the kind and the path. A generated name that a --gates gate already
// has is an error, not a merge of two gates.
func (m *merger) nameOf(path string) (name, stage string) {
	if name, stage := m.configured(path); name != "" {
		return name, stage
	}
	name = m.defaultName(path)
	m.checkGenerated(name, path)
	return name, "alpha"
}

// checkGenerated fails when name, generated for path, is the name of a --gates gate.
func (m *merger) checkGenerated(name, path string) {
	for _, g := range m.cfg.Gates {
		if g.Name == name {
			m.fail("gate %s of --gates (paths %s) is also the name generated for %s, which none of its paths covers; rename the gate, or add %s to its paths",
				name, strings.Join(g.Paths, ", "), path, path)
		}
	}
}

// declare declares gate name on first use and records a difference of kind what at path in
// the mapping. A gated field (what == "field") in the storage version adds path to the
// gate's fieldPaths.
func (m *merger) declare(name, stage, path, what string) {
	g, ok := m.gates[name]
	if !ok {
		g = &apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: name, PreRelease: apiextensionsv1.CustomFeatureGatePreRelease(stage)}
		m.gates[name] = g
	}
	if what == "field" && m.storage {
		g.FieldPaths = append(g.FieldPaths, path)
		m.storagePaths.Insert(path)
	}
	m.res.Mapping = append(m.res.Mapping, MappingRow{CRD: m.name, Version: m.version, Gate: name, Path: path, What: what})
}

// defaultName is the gate name of a path no configured gate covers: the kind and the
// path's field names in UpperCamelCase, without a leading .spec. (HTTPRouteRulesTimeouts).
// A name longer than 63 characters is cut, with a hash of the path to keep it unique.
func (m *merger) defaultName(path string) string {
	if m.defaultNames == nil {
		m.defaultNames = map[string]string{}
	}
	if n, ok := m.defaultNames[path]; ok {
		return n
	}
	var b strings.Builder
	b.WriteString(m.kind)
	trimmed := path
	if strings.HasPrefix(path, ".spec.") || strings.HasPrefix(path, ".spec[") {
		trimmed = strings.TrimPrefix(path, ".spec")
	}
	for _, seg := range strings.FieldsFunc(trimmed, func(r rune) bool { return r == '.' || r == '[' || r == ']' || r == '*' }) {
		first := true
		for _, r := range seg {
			if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
				continue
			}
			if first {
				r = unicode.ToUpper(r)
				first = false
			}
			b.WriteRune(r)
		}
	}
	name := b.String()
	if name == "" || !unicode.IsUpper(rune(name[0])) {
		name = "Gate" + name
	}
	if len(name) > 63 {
		h := fnv.New32a()
		h.Write([]byte(path))
		suffix := fmt.Sprintf("%08X", h.Sum32())
		name = name[:63-len(suffix)] + suffix
	}
	// Two paths can give one name (.spec.a-b and .spec.ab): the later one gets a number.
	taken := func(n string) bool {
		for p, other := range m.defaultNames {
			if other == n && p != path {
				return true
			}
		}
		return false
	}
	base := name
	for i := 2; taken(name); i++ {
		suffix := strconv.Itoa(i)
		if len(base)+len(suffix) > 63 {
			base = base[:63-len(suffix)]
		}
		name = base + suffix
	}
	m.defaultNames[path] = name
	return name
}
