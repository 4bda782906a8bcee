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

package openshiftapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The layout of openshift/api that this package reads (see the folder's SOURCE.md):
//
//	<group>/<version>/tests/<crd name>/<suite>.yaml        test suites
//	<group>/<version>/zz_generated.crd-manifests/*.yaml   one CRD per feature set
//	payload-manifests/featuregates/*.yaml                 gate states per feature set and profile
const (
	featureSetAnnotation   = "release.openshift.io/feature-set"
	majorVersionAnnotation = "release.openshift.io/major-version"
	profilePrefix          = "include.release.openshift.io/"
	// customNoUpgrade is the feature set whose CRD holds every gated field; it has no
	// payload file, so every gate is on in it.
	customNoUpgrade = "CustomNoUpgrade"
)

// profiles are the cluster profiles by their short names, as the payload file names use them.
var profiles = map[string]string{
	"SelfManagedHA": profilePrefix + "self-managed-high-availability",
	"Hypershift":    profilePrefix + "ibm-cloud-managed",
	"SingleNode":    profilePrefix + "single-node-developer",
}

// Suite is one test suite file.
type Suite struct {
	// Path is the file's path below the directory; Group its first element, and Dir the
	// <group>/<version> folder.
	Path, Group, Dir string
	// Name, CRDName, FeatureGates and Version are the file's own fields. A gate named
	// "-Gate" must be off.
	Name         string   `json:"name"`
	CRDName      string   `json:"crdName"`
	FeatureGates []string `json:"featureGates"`
	Version      string   `json:"version"`
	Tests        struct {
		OnCreate []Case `json:"onCreate"`
		OnUpdate []Case `json:"onUpdate"`
	} `json:"tests"`
	// Ignored are the top-level keys that the format does not have (the suite runs as if
	// they were absent, as it does in OpenShift's own harness).
	Ignored []string `json:"-"`
}

// Case is one onCreate or onUpdate case.
type Case struct {
	Name                string  `json:"name"`
	InitialCRDPatches   []Patch `json:"initialCRDPatches"`
	Initial             string  `json:"initial"`
	Updated             string  `json:"updated"`
	Expected            string  `json:"expected"`
	ExpectedError       string  `json:"expectedError"`
	ExpectedStatusError string  `json:"expectedStatusError"`
}

// Patch is one JSON patch operation of initialCRDPatches.
type Patch struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	Value interface{} `json:"value,omitempty"`
}

// suiteKeys are the top-level keys of the format.
var suiteKeys = map[string]bool{"apiVersion": true, "name": true, "crdName": true, "featureGates": true, "version": true, "tests": true}

// CRDFile is one CRD of zz_generated.crd-manifests.
type CRDFile struct {
	Path string
	CRD  *apiextensionsv1.CustomResourceDefinition
	// FeatureSets are those of the annotation; none for a CRD that is the same in all.
	FeatureSets []string
}

// hasProfile says whether the CRD is installed with the cluster profile (a CRD that names
// no profile is installed with all).
func (f *CRDFile) hasProfile(profile string) bool {
	any := false
	for k, v := range f.CRD.Annotations {
		if strings.HasPrefix(k, profilePrefix) && v == "true" {
			any = true
			if k == profiles[profile] {
				return true
			}
		}
	}
	return !any
}

// Layout is what the test reads from one directory.
type Layout struct {
	Dir    string
	Suites []*Suite
	// CRDs by <group>/<version> folder.
	CRDs map[string][]*CRDFile
	// States are the gate states of each feature set of the profile.
	States map[string]map[string]bool
	// Profile is the cluster profile of States and of the CRDs used.
	Profile string
}

// LoadLayout reads the suites of the groups (all when groups is empty), their folders' CRDs
// and the payload's gate states for the profile.
func LoadLayout(dir string, groups []string, profile string) (*Layout, error) {
	if _, ok := profiles[profile]; !ok {
		return nil, fmt.Errorf("unknown cluster profile %q: want one of SelfManagedHA, Hypershift, SingleNode", profile)
	}
	l := &Layout{Dir: dir, CRDs: map[string][]*CRDFile{}, Profile: profile}
	var err error
	if l.States, err = loadStates(filepath.Join(dir, "payload-manifests", "featuregates"), profile); err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "tests", "*", "*.yaml"))
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, g := range groups {
		want[g] = true
	}
	seenGroups := map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(want) > 0 && !want[parts[0]] {
			continue
		}
		seenGroups[parts[0]] = true
		s, err := loadSuite(f)
		if err != nil {
			return nil, err
		}
		s.Path, s.Group, s.Dir = filepath.ToSlash(rel), parts[0], parts[0]+"/"+parts[1]
		if s.CRDName != parts[3] {
			return nil, fmt.Errorf("%s: crdName %q is not its folder's name %q", rel, s.CRDName, parts[3])
		}
		l.Suites = append(l.Suites, s)
		if _, ok := l.CRDs[s.Dir]; !ok {
			if l.CRDs[s.Dir], err = loadCRDFiles(filepath.Join(dir, s.Dir, "zz_generated.crd-manifests")); err != nil {
				return nil, err
			}
		}
	}
	for g := range want {
		if !seenGroups[g] {
			return nil, fmt.Errorf("group %q has no test suites under %s (<group>/<version>/tests/<crd>/*.yaml)", g, dir)
		}
	}
	if len(l.Suites) == 0 {
		return nil, fmt.Errorf("no test suites under %s (<group>/<version>/tests/<crd>/*.yaml)", dir)
	}
	sort.Slice(l.Suites, func(i, j int) bool { return l.Suites[i].Path < l.Suites[j].Path })
	return l, nil
}

func loadSuite(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &Suite{}
	if err := yaml.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("test suite %s: %w", path, err)
	}
	var top map[string]json.RawMessage
	if err := yaml.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("test suite %s: %w", path, err)
	}
	for k := range top {
		if !suiteKeys[k] {
			s.Ignored = append(s.Ignored, k)
		}
	}
	sort.Strings(s.Ignored)
	if s.CRDName == "" {
		return nil, fmt.Errorf("test suite %s has no crdName", path)
	}
	for _, c := range append(append([]Case{}, s.Tests.OnCreate...), s.Tests.OnUpdate...) {
		if strings.TrimSpace(c.Initial) == "" {
			return nil, fmt.Errorf("test suite %s: case %q has no initial object", path, c.Name)
		}
	}
	for _, c := range s.Tests.OnUpdate {
		if strings.TrimSpace(c.Updated) == "" {
			return nil, fmt.Errorf("test suite %s: onUpdate case %q has no updated object", path, c.Name)
		}
	}
	return s, nil
}

func loadCRDFiles(dir string) ([]*CRDFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the CRDs of a suite's folder: %w", err)
	}
	var out []*CRDFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil || crd.Kind != "CustomResourceDefinition" {
			continue // not a CRD
		}
		f := &CRDFile{Path: p, CRD: crd}
		if a := crd.Annotations[featureSetAnnotation]; a != "" {
			f.FeatureSets = strings.Split(a, ",")
		}
		out = append(out, f)
	}
	return out, nil
}

// payloadFeatureGate is the part of a payload FeatureGate that gives the gate states.
type payloadFeatureGate struct {
	Metadata struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Status struct {
		FeatureGates []struct {
			Enabled  []struct{ Name string } `json:"enabled"`
			Disabled []struct{ Name string } `json:"disabled"`
		} `json:"featureGates"`
	} `json:"status"`
}

// loadStates reads the gate states of each feature set of the profile. CustomNoUpgrade,
// which has no payload file, gets every gate known to the others, on.
func loadStates(dir, profile string) (map[string]map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fg := &payloadFeatureGate{}
		if err := yaml.Unmarshal(data, fg); err != nil {
			return nil, fmt.Errorf("payload feature gate %s: %w", f, err)
		}
		a := fg.Metadata.Annotations
		if _, ok := a[profiles[profile]]; !ok || len(fg.Status.FeatureGates) == 0 {
			continue
		}
		set := a[featureSetAnnotation]
		if set == "" {
			return nil, fmt.Errorf("payload feature gate %s has no %s annotation", f, featureSetAnnotation)
		}
		if _, dup := out[set]; dup {
			return nil, fmt.Errorf("two payload feature gates of profile %s for feature set %s (%s); the test reads one major version", profile, set, f)
		}
		states := map[string]bool{}
		for _, g := range fg.Status.FeatureGates[0].Enabled {
			states[g.Name] = true
		}
		for _, g := range fg.Status.FeatureGates[0].Disabled {
			states[g.Name] = false
		}
		out[set] = states
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no payload feature gates for cluster profile %s in %s", profile, dir)
	}
	all := map[string]bool{}
	for _, states := range out {
		for g := range states {
			all[g] = true
		}
	}
	out[customNoUpgrade] = all
	return out, nil
}

// suiteApplies says whether a feature set's gate states meet the suite's featureGates, or
// why it cannot tell (a gate the payload does not know).
func suiteApplies(s *Suite, states map[string]bool) (bool, error) {
	for _, g := range s.FeatureGates {
		name, wantOn := strings.TrimPrefix(g, "-"), !strings.HasPrefix(g, "-")
		on, ok := states[name]
		if !ok {
			return false, fmt.Errorf("%s: feature gate %s is in no payload feature set", s.Path, name)
		}
		if on != wantOn {
			return false, nil
		}
	}
	return true, nil
}

// suiteVersion is the CRD version the suite tests: its own version, or the one version of
// its CRDs.
func suiteVersion(s *Suite, files []*CRDFile) (string, error) {
	if s.Version != "" {
		return s.Version, nil
	}
	v := ""
	for _, f := range files {
		if len(f.CRD.Spec.Versions) != 1 {
			return "", fmt.Errorf("%s: CRD %s has %d versions; the suite must name one (version:)", s.Path, f.Path, len(f.CRD.Spec.Versions))
		}
		if v != "" && v != f.CRD.Spec.Versions[0].Name {
			return "", fmt.Errorf("%s: its CRDs have versions %s and %s; the suite must name one (version:)", s.Path, v, f.CRD.Spec.Versions[0].Name)
		}
		v = f.CRD.Spec.Versions[0].Name
	}
	return v, nil
}

// onlyVersion returns a copy of crd that serves and stores only the version, as the suite
// tests it.
func onlyVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensionsv1.CustomResourceDefinition, error) {
	out := crd.DeepCopy()
	out.Spec.Versions = nil
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			v = *v.DeepCopy()
			v.Served, v.Storage = true, true
			out.Spec.Versions = append(out.Spec.Versions, v)
		}
	}
	if len(out.Spec.Versions) == 0 {
		return nil, fmt.Errorf("CRD %s has no version %s", crd.Name, version)
	}
	out.ObjectMeta = metav1.ObjectMeta{Name: crd.Name, Annotations: crd.Annotations, Labels: crd.Labels}
	out.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	return out, nil
}

// Unit is one installation of a CRD on each side and the suites run on it: the stock CRD of
// one or more feature sets, and on ours the merged CRD with those feature sets' gate states
// (feature sets that give the same stock CRD and the same gate states share a unit).
type Unit struct {
	ID          string
	CRDName     string
	Dir         string
	Version     string
	FeatureSets []string
	StockFile   *CRDFile
	Suites      []*Suite
	// Gates are the gate states to set on ours (filled in when the merged CRDs are read).
	Gates map[string]bool
}

// Skip is a suite and feature set that the plan leaves out, and why.
type Skip struct{ Suite, FeatureSet, Reason string }

// Plan groups the suites into units. gateKey, if set, gives the key of a feature set's gate
// states on ours for a CRD, so that feature sets that differ only in gates the CRD does not
// have share a unit.
func (l *Layout) Plan(gateKey func(dir, crdName, featureSet string) string) ([]*Unit, []Skip, error) {
	var skips []Skip
	units := map[string]*Unit{}
	var order []string
	featureSets := make([]string, 0, len(l.States))
	for fs := range l.States {
		featureSets = append(featureSets, fs)
	}
	sort.Strings(featureSets)
	for _, s := range l.Suites {
		var files []*CRDFile
		for _, f := range l.CRDs[s.Dir] {
			if f.CRD.Name == s.CRDName && f.hasProfile(l.Profile) {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("%s: no CRD %s of cluster profile %s in %s/zz_generated.crd-manifests", s.Path, s.CRDName, l.Profile, s.Dir)
		}
		version, err := suiteVersion(s, files)
		if err != nil {
			return nil, nil, err
		}
		for _, fs := range featureSets {
			var file *CRDFile
			for _, f := range files {
				if len(f.FeatureSets) == 0 || contains(f.FeatureSets, fs) {
					file = f
					break
				}
			}
			if file == nil {
				skips = append(skips, Skip{s.Path, fs, "OpenShift installs no " + s.CRDName + " in this feature set"})
				continue
			}
			ok, err := suiteApplies(s, l.States[fs])
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				continue
			}
			key := ""
			if gateKey != nil {
				key = gateKey(s.Dir, s.CRDName, fs)
			}
			id := s.Dir + "/" + s.CRDName + "@" + filepath.Base(file.Path)
			if key != "" {
				id += "#" + key
			}
			u, ok := units[id]
			if !ok {
				u = &Unit{ID: id, CRDName: s.CRDName, Dir: s.Dir, Version: version, StockFile: file}
				units[id] = u
				order = append(order, id)
			}
			if u.Version != version {
				return nil, nil, fmt.Errorf("%s tests version %s of %s, another suite of the same CRD file version %s", s.Path, version, s.CRDName, u.Version)
			}
			if !contains(u.FeatureSets, fs) {
				u.FeatureSets = append(u.FeatureSets, fs)
			}
			if len(u.Suites) == 0 || u.Suites[len(u.Suites)-1] != s {
				u.Suites = append(u.Suites, s)
			}
		}
	}
	out := make([]*Unit, 0, len(order))
	for _, id := range order {
		out = append(out, units[id])
	}
	return out, skips, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// caseCount is the number of cases of a suite.
func caseCount(s *Suite) int { return len(s.Tests.OnCreate) + len(s.Tests.OnUpdate) }

// itoa is strconv.Itoa.
func itoa(i int) string { return strconv.Itoa(i) }
