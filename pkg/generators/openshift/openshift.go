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

// Package openshift turns OpenShift's per-gate CRD manifests into one CRD per type with
// KEP-2608 gates. OpenShift generates each CRD once per feature set; its API repository also
// ships, for each group and version, the CRD as generated with no gate on
// (zz_generated.featuregated-crd-manifests/<crd>/AAA_ungated.yaml), with each of its gates on
// (<Gate>.yaml), and with some combinations of gates on (<GateA>+<GateB>.yaml). From those
// files, Merge writes one CRD in which every gate is declared in spec.customFeatureGates and
// every difference is guarded by its gate:
//
//   - a field that only some files have is marked with x-kubernetes-feature-gate (its gate,
//     or the combination gate of a +-joined file);
//   - a keyword that differs (enum values, bounds, pattern, format, required) becomes
//     x-kubernetes-feature-gated-validations entries: the node keeps the loosest form and the
//     entries hold the stricter forms for gate states, so no CEL cost is added;
//   - an x-kubernetes-validations rule that only some files have reads the gates
//     (`!featureGates.X || (rule)`).
//
// The merged CRD is checked by construction: for the state of every input file (no gate on,
// each gate on alone, each combination on) its effective keywords are those of the file; a
// difference that gates cannot express that way (a type, a default, a field or value that
// either of two gates adds, ...) is an error that names the CRD, the file and the path.
//
// A gate's stage comes from the payload's feature sets (payload-manifests/featuregates) for
// one cluster profile, at its highest major version: enabled in the Default feature set is
// beta, otherwise alpha; `enabled` is never written, so the stage's default applies. A
// +-joined file's gates are one combination gate, named by joining the sorted gate names with
// "With", at preRelease stable with `requires` listing them: it is on exactly when all of them
// are. All gates are declared with component "openshift".
package openshift

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/generators/crdmerge"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"
)

const (
	// manifestsDir is the per-gate folder of a group and version.
	manifestsDir = "zz_generated.featuregated-crd-manifests"
	// ungatedFile is the CRD as generated with no gate on.
	ungatedFile = "AAA_ungated.yaml"
	// Component is the component that every gate is declared with.
	Component = "openshift"
	// DefaultClusterProfile is the cluster profile whose feature sets give the stages.
	DefaultClusterProfile = "SelfManagedHA"
	// gateAnnotationPrefix is the annotation OpenShift's generator sets on each per-gate
	// file; the merged CRD does not carry it.
	gateAnnotationPrefix = "feature-gate.release.openshift.io/"
)

// Options say what Merge reads.
type Options struct {
	// Dir is the root of an openshift/api checkout, or of a folder laid out the same way.
	Dir string
	// Groups are the <group>/<version> folders to merge (config/v1); all when empty.
	Groups []string
	// ClusterProfile names the payload files whose feature sets give the stages and the
	// feature-set states (SelfManagedHA, Hypershift); DefaultClusterProfile when empty.
	ClusterProfile string
}

// File is one output file, by its path relative to the output folder.
type File struct {
	Name    string
	Content []byte
}

// GateRow is one declared gate of one merged CRD.
type GateRow struct {
	CRD, GroupVersion, Gate, PreRelease string
	// Requires are a combination gate's gates.
	Requires []string
	// RequiresAnyOf are the gates of which an any-of gate requires one.
	RequiresAnyOf []string
	// TopLevel is set for a gate without which OpenShift does not install the CRD at all.
	TopLevel bool
}

// Quirk is a keyword of a per-gate file that the merge took from elsewhere: from the CRD with
// no gate on, or, where FeatureSets are set, from the feature sets' CRDs. Keyword is the
// keyword's field name in JSONSchemaProps, or "field" for a whole field taken from the
// feature sets' CRDs.
type Quirk struct {
	CRD, File, Version, Path, Keyword string
	// FeatureSets are the files of the feature sets' CRDs that the keyword was taken from.
	FeatureSets []string
}

// FeatureSet is one feature set of the payload for the cluster profile: the gates it enables.
type FeatureSet struct {
	Name    string
	Enabled sets.Set[string]
}

// Result is what Merge produced. Errors are the CRDs that could not be merged (each error
// names the CRD, the file and the path); the other CRDs are in Files.
type Result struct {
	Files []File
	// Quirks are differences of per-gate files that the merge does not take as their gate's
	// (OpenShift's generator drops a feature-gate-aware enum or bound from the files of the
	// gates that do not change it; the per-gate files lack a keyword that every feature set's
	// CRD has); each is also a note.
	Quirks      []Quirk
	Gates       []GateRow
	FeatureSets []FeatureSet
	Notes       []string
	Errors      []error
}

// quirkNote is the note that tells what the merge took where a per-gate file differs, and why.
func quirkNote(q Quirk) string {
	if len(q.FeatureSets) > 0 {
		return fmt.Sprintf("%s %s, %s: %s: %s as in %s: every feature set's CRD has it, alike, where the per-gate files do not and no gate changes it",
			q.CRD, q.Version, q.File, q.Path, q.Keyword, strings.Join(q.FeatureSets, ", "))
	}
	return fmt.Sprintf("%s %s, %s: %s: %s as in %s: OpenShift's generator leaves a feature-gate-aware %s out of the files of gates that do not change it",
		q.CRD, q.Version, q.File, q.Path, q.Keyword, ungatedFile, q.Keyword)
}

// StatesFile is the content of featuresets/<FeatureSet>.yaml: whether each gate of the
// merged CRDs is enabled in the feature set, for the cluster profile. Combination gates are
// not listed: they are stable, and on exactly when the gates they require are.
type StatesFile struct {
	FeatureSet     string          `json:"featureSet"`
	ClusterProfile string          `json:"clusterProfile"`
	Gates          map[string]bool `json:"gates"`
}

// Merge reads opts.Dir and merges every CRD of the selected groups.
func Merge(opts Options) (*Result, error) {
	if opts.ClusterProfile == "" {
		opts.ClusterProfile = DefaultClusterProfile
	}
	gvs, err := groupVersions(opts.Dir, opts.Groups)
	if err != nil {
		return nil, err
	}
	fsets, err := ReadFeatureSets(opts.Dir, opts.ClusterProfile)
	if err != nil {
		return nil, err
	}
	res := &Result{FeatureSets: fsets}
	if len(fsets) == 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("no payload feature sets for cluster profile %s under %s; every gate is alpha", opts.ClusterProfile, filepath.Join(opts.Dir, "payload-manifests", "featuregates")))
	}
	allGates := sets.New[string]()
	for _, gv := range gvs {
		infos, err := readInfo(filepath.Join(opts.Dir, gv, manifestsDir+".yaml"))
		if err != nil {
			return nil, err
		}
		entries, err := os.ReadDir(filepath.Join(opts.Dir, gv, manifestsDir))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			crdDir := filepath.Join(opts.Dir, gv, manifestsDir, e.Name())
			out, gates, quirks, err := mergeCRD(crdDir, e.Name(), infos[e.Name()], fsets, opts.ClusterProfile)
			for _, q := range quirks {
				res.Quirks = append(res.Quirks, q)
				res.Notes = append(res.Notes, quirkNote(q))
			}
			if err != nil {
				res.Errors = append(res.Errors, err)
				continue
			}
			content, err := crdmerge.MarshalCRD(out)
			if err != nil {
				res.Errors = append(res.Errors, fmt.Errorf("%s: %w", crdDir, err))
				continue
			}
			if errs, err := serverValidation(content); err != nil || len(errs) > 0 {
				if err == nil {
					err = errs.ToAggregate()
				}
				res.Errors = append(res.Errors, fmt.Errorf("%s %s: the API server's CRD validation rejects the merged CRD: %w", e.Name(), gv, err))
				continue
			}
			res.Files = append(res.Files, File{Name: filepath.ToSlash(filepath.Join(gv, e.Name()+".yaml")), Content: content})
			for _, g := range gates {
				g.GroupVersion = gv
				res.Gates = append(res.Gates, g)
				if len(g.Requires) == 0 && len(g.RequiresAnyOf) == 0 {
					allGates.Insert(g.Gate)
				}
			}
		}
	}
	for _, fs := range fsets {
		states := StatesFile{FeatureSet: fs.Name, ClusterProfile: opts.ClusterProfile, Gates: map[string]bool{}}
		for _, g := range sets.List(allGates) {
			states.Gates[g] = fs.Enabled.Has(g)
		}
		content, err := yaml.Marshal(states)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, File{Name: "featuresets/" + fs.Name + ".yaml", Content: content})
	}
	sort.Slice(res.Files, func(i, j int) bool { return res.Files[i].Name < res.Files[j].Name })
	return res, nil
}

// groupVersions lists the <group>/<version> folders of dir that hold per-gate manifests, or
// checks the ones asked for.
func groupVersions(dir string, only []string) ([]string, error) {
	if len(only) > 0 {
		var out []string
		for _, gv := range only {
			gv = strings.Trim(filepath.ToSlash(strings.TrimSpace(gv)), "/")
			if gv == "" {
				continue
			}
			if st, err := os.Stat(filepath.Join(dir, gv, manifestsDir)); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("group %s: %s has no folder %s; give a <group>/<version> of %s, such as config/v1", gv, filepath.Join(dir, gv), manifestsDir, dir)
			}
			out = append(out, gv)
		}
		sort.Strings(out)
		return out, nil
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*", "*", manifestsDir))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			rel, err := filepath.Rel(dir, filepath.Dir(m))
			if err != nil {
				return nil, err
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no <group>/<version>/%s folder; give the root of an openshift/api checkout", dir, manifestsDir)
	}
	sort.Strings(out)
	return out, nil
}

// crdInfo is what zz_generated.featuregated-crd-manifests.yaml says of one CRD.
type crdInfo struct {
	FeatureGates         []string `json:"FeatureGates"`
	TopLevelFeatureGates []string `json:"TopLevelFeatureGates"`
}

func readInfo(path string) (map[string]crdInfo, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]crdInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]crdInfo{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ReadFeatureSets reads payload-manifests/featuregates/featureGate-<major>-<profile>-<set>.yaml
// for the cluster profile, at the highest major version that the files list
// (release.openshift.io/major-version), sorted by name. A missing folder gives none.
func ReadFeatureSets(dir, profile string) ([]FeatureSet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "payload-manifests", "featuregates", "featureGate-*.yaml"))
	if err != nil {
		return nil, err
	}
	type parsed struct {
		file   string
		name   string
		majors sets.Set[int]
		on     sets.Set[string]
	}
	var all []parsed
	highest := -1
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".yaml"), "-")
		if len(parts) < 3 || parts[len(parts)-2] != profile {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var fg struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Status struct {
				FeatureGates []struct {
					Enabled []struct {
						Name string `json:"name"`
					} `json:"enabled"`
				} `json:"featureGates"`
			} `json:"status"`
		}
		if err := yaml.Unmarshal(data, &fg); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		p := parsed{file: f, name: fg.Metadata.Annotations["release.openshift.io/feature-set"], majors: sets.New[int](), on: sets.New[string]()}
		if p.name == "" {
			p.name = parts[len(parts)-1]
		}
		for _, m := range strings.Split(fg.Metadata.Annotations["release.openshift.io/major-version"], ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(m)); err == nil {
				p.majors.Insert(n)
				if n > highest {
					highest = n
				}
			}
		}
		for _, s := range fg.Status.FeatureGates {
			for _, e := range s.Enabled {
				p.on.Insert(e.Name)
			}
		}
		all = append(all, p)
	}
	byName := map[string]parsed{}
	for _, p := range all {
		if p.majors.Len() > 0 && !p.majors.Has(highest) {
			continue
		}
		if prev, ok := byName[p.name]; ok {
			return nil, fmt.Errorf("feature set %s of cluster profile %s is in both %s and %s for major version %d", p.name, profile, prev.file, p.file, highest)
		}
		byName[p.name] = p
	}
	var out []FeatureSet
	for _, p := range byName {
		out = append(out, FeatureSet{Name: p.name, Enabled: p.on})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Stage is a gate's stage by the feature sets: beta (on by default) when the Default feature
// set enables it, alpha otherwise.
func Stage(gate string, fsets []FeatureSet) apiextensionsv1.CustomFeatureGatePreRelease {
	for _, fs := range fsets {
		if fs.Name == "Default" && fs.Enabled.Has(gate) {
			return apiextensionsv1.CustomFeatureGateBeta
		}
	}
	return apiextensionsv1.CustomFeatureGateAlpha
}

// CombinationName is the gate of a +-joined file: its gates sorted and joined with "With"
// (ExampleWithExample2). A name longer than 63 characters keeps its first 55 and ends with 8
// hexadecimal digits of a hash of the full name.
func CombinationName(gates []string) string {
	sorted := append([]string(nil), gates...)
	sort.Strings(sorted)
	return shortName(strings.Join(sorted, "With"))
}

// shortName is name when it is at most 63 characters, else its first 55 and a hash of the
// whole in 8 hexadecimal digits.
func shortName(name string) string {
	if len(name) > 63 {
		h := fnv.New32a()
		h.Write([]byte(name))
		name = name[:55] + fmt.Sprintf("%08X", h.Sum32())
	}
	return name
}

// AnyOfName is the name of the gate that requires any of gates: their names, sorted, joined
// by "Or" (ExternalOIDCOrExternalOIDCWithUpstreamParity); a name over 63 characters is cut
// to 55 and ends with a hash of the whole, as CombinationName does.
func AnyOfName(gates []string) string {
	sorted := append([]string(nil), gates...)
	sort.Strings(sorted)
	return shortName(strings.Join(sorted, "Or"))
}

// variant is one input file of a CRD: the CRD with the gates of gates on.
type variant struct {
	file  string
	gates sets.Set[string]
	crd   *apiextensionsv1.CustomResourceDefinition
}

// mergeCRD merges the files of one CRD's folder.
func mergeCRD(dir, name string, info crdInfo, fsets []FeatureSet, profile string) (*apiextensionsv1.CustomResourceDefinition, []GateRow, []Quirk, error) {
	out, rows, m, err := mergeCRDFiles(dir, name, info, fsets, profile)
	if m == nil {
		return out, rows, nil, err
	}
	return out, rows, m.quirks, err
}

func mergeCRDFiles(dir, name string, info crdInfo, fsets []FeatureSet, profile string) (*apiextensionsv1.CustomResourceDefinition, []GateRow, *merger, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	topLevel := sets.New(info.TopLevelFeatureGates...)
	var base *variant
	var others []*variant
	// The CRD's gates; the list names a combination as its file does (Example+Example2).
	declared := sets.New[string]()
	for _, g := range info.FeatureGates {
		declared.Insert(strings.Split(g, "+")...)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, nil, err
		}
		crds, _, err := crdmerge.ReadCRDs(path, data)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(crds) != 1 {
			return nil, nil, nil, fmt.Errorf("%s: holds %d CRDs; a per-gate file holds one", path, len(crds))
		}
		if crds[0].Name != name {
			return nil, nil, nil, fmt.Errorf("%s: holds CRD %s, not %s as its folder says", path, crds[0].Name, name)
		}
		v := &variant{file: e.Name(), gates: sets.New[string](), crd: crds[0]}
		if e.Name() != ungatedFile {
			for _, g := range strings.Split(strings.TrimSuffix(e.Name(), ".yaml"), "+") {
				if !crdmerge.ValidGateName(g) {
					return nil, nil, nil, fmt.Errorf("%s: %q is not a gate name (UpperCamelCase, [A-Z][A-Za-z0-9]*, at most 63 characters)", path, g)
				}
				declared.Insert(g)
				if !topLevel.Has(g) {
					v.gates.Insert(g)
				}
			}
		}
		switch {
		case e.Name() == ungatedFile, v.gates.Len() == 0 && base == nil:
			if base != nil {
				return nil, nil, nil, fmt.Errorf("%s: both %s and %s are the CRD with none of its gates on", dir, base.file, v.file)
			}
			base = v
		case v.gates.Len() == 0:
			// a top-level gate's own file beside AAA_ungated.yaml: the CRD is the same.
			others = append(others, v)
		default:
			others = append(others, v)
		}
	}
	if base == nil {
		return nil, nil, nil, fmt.Errorf("%s: no %s and no file of the CRD's top-level gates (%s); cannot tell the CRD with no gate on", dir, ungatedFile, strings.Join(sets.List(topLevel), ", "))
	}
	sort.SliceStable(others, func(i, j int) bool {
		if others[i].gates.Len() != others[j].gates.Len() {
			return others[i].gates.Len() < others[j].gates.Len()
		}
		return others[i].file < others[j].file
	})
	m := &merger{crd: name, dir: dir, variants: append([]*variant{base}, others...), combos: map[string][]string{}, anyCombos: map[string][]string{}}
	for _, fs := range fsets {
		crd, file, err := FeatureSetCRD(filepath.Join(filepath.Dir(filepath.Dir(dir)), "zz_generated.crd-manifests"), name, fs.Name, profile)
		if err != nil {
			return nil, nil, nil, err
		}
		if crd == nil {
			continue
		}
		// the feature set's state: its gates of this CRD; the top-level gates are on in every file.
		m.featureSets = append(m.featureSets, &variant{file: file, gates: fs.Enabled.Intersection(declared).Difference(topLevel), crd: crd})
	}
	out := m.merge()
	if len(m.errs) > 0 {
		return nil, nil, m, errors.Join(m.errs...)
	}
	// The gates of the merged CRD: every gate of the CRD, and the combinations used.
	component := Component
	cfg := &apiextensionsv1.CustomResourceDefinitionFeatureGates{Component: &component}
	var rows []GateRow
	for _, g := range sets.List(declared) {
		stage := Stage(g, fsets)
		cfg.FeatureGates = append(cfg.FeatureGates, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: g, PreRelease: stage})
		rows = append(rows, GateRow{CRD: name, Gate: g, PreRelease: string(stage), TopLevel: topLevel.Has(g)})
	}
	used := sets.New[string]()
	for _, v := range out.Spec.Versions {
		if v.Schema != nil {
			gatesUsed(v.Schema.OpenAPIV3Schema, used)
		}
	}
	// An any-of gate that a mark or entry names needs the gates it requires any of declared.
	for _, a := range sortedKeys(m.anyCombos) {
		if !used.Has(a) {
			continue
		}
		if declared.Has(a) {
			return nil, nil, m, fmt.Errorf("%s: the gate that requires any of %s is named %s, which is also a gate of the CRD", dir, strings.Join(m.anyCombos[a], ", "), a)
		}
		used.Insert(m.anyCombos[a]...)
		cfg.FeatureGates = append(cfg.FeatureGates, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: a, PreRelease: apiextensionsv1.CustomFeatureGateStable, RequiresAnyOf: m.anyCombos[a]})
		rows = append(rows, GateRow{CRD: name, Gate: a, PreRelease: string(apiextensionsv1.CustomFeatureGateStable), RequiresAnyOf: m.anyCombos[a]})
	}
	for _, c := range sortedKeys(m.combos) {
		if !used.Has(c) {
			continue // tried while merging, but no mark or entry names it
		}
		if declared.Has(c) {
			return nil, nil, m, fmt.Errorf("%s: the combination gate of %s is named %s, which is also a gate of the CRD", dir, strings.Join(m.combos[c], "+"), c)
		}
		cfg.FeatureGates = append(cfg.FeatureGates, apiextensionsv1.CustomResourceDefinitionFeatureGate{Name: c, PreRelease: apiextensionsv1.CustomFeatureGateStable, Requires: m.combos[c]})
		rows = append(rows, GateRow{CRD: name, Gate: c, PreRelease: string(apiextensionsv1.CustomFeatureGateStable), Requires: m.combos[c]})
	}
	sort.Slice(cfg.FeatureGates, func(i, j int) bool { return cfg.FeatureGates[i].Name < cfg.FeatureGates[j].Name })
	sort.Slice(rows, func(i, j int) bool { return rows[i].Gate < rows[j].Gate })
	if len(cfg.FeatureGates) > 0 {
		out.Spec.CustomFeatureGates = cfg
	}
	return out, rows, m, nil
}

// gatesUsed adds the gates that marks and gated keywords of s name to used.
func gatesUsed(s *apiextensionsv1.JSONSchemaProps, used sets.Set[string]) {
	if s == nil {
		return
	}
	if s.XFeatureGate != nil {
		used.Insert(*s.XFeatureGate)
	}
	for _, e := range s.XFeatureGatedValidations {
		used.Insert(e.FeatureGate)
	}
	for _, p := range s.Properties {
		gatesUsed(&p, used)
	}
	if s.Items != nil {
		gatesUsed(s.Items.Schema, used)
	}
	if s.AdditionalProperties != nil {
		gatesUsed(s.AdditionalProperties.Schema, used)
	}
}

// ProfileAnnotations are the annotations that include a CRD manifest in a cluster profile.
var ProfileAnnotations = map[string]string{
	"SelfManagedHA": "include.release.openshift.io/self-managed-high-availability",
	"Hypershift":    "include.release.openshift.io/ibm-cloud-managed",
}

// FeatureSetCRD is the CRD named name that OpenShift installs for the feature set and the
// cluster profile, from a zz_generated.crd-manifests folder, and its file; nil when there is
// none (or no such folder).
func FeatureSetCRD(dir, name, featureSet, profile string) (*apiextensionsv1.CustomResourceDefinition, string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, "", err
	}
	var found *apiextensionsv1.CustomResourceDefinition
	foundFile := ""
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, "", err
		}
		if !strings.Contains(string(data), name) {
			continue
		}
		crds, _, err := crdmerge.ReadCRDs(f, data)
		if err != nil {
			return nil, "", err
		}
		for _, c := range crds {
			if c.Name != name || c.Annotations[ProfileAnnotations[profile]] != "true" {
				continue
			}
			if fs, ok := c.Annotations["release.openshift.io/feature-set"]; ok && !sets.New(strings.Split(fs, ",")...).Has(featureSet) {
				continue
			}
			if found != nil {
				return nil, "", fmt.Errorf("%s: both %s and %s are CRD %s for feature set %s and cluster profile %s", dir, foundFile, filepath.Base(f), name, featureSet, profile)
			}
			found, foundFile = c, filepath.Base(f)
		}
	}
	return found, foundFile, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
