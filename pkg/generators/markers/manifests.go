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
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Generate rewrites the CRD manifests in opts.CRDDir. It returns what it did to each file,
// and writes only the files that changed.
func Generate(opts Options) ([]FileResult, error) {
	g, err := Load(opts.Paths...)
	if err != nil {
		return nil, err
	}
	g.FieldPaths = opts.FieldPaths
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

// ProcessManifest returns the manifest with the gates written into each CRD: by default,
// spec.customFeatureGates and the marks of every version whose Go types were loaded; with
// FieldPaths, spec.customFeatureGates with fieldPaths, for a CRD whose storage version's Go
// types were loaded. Other documents are kept byte for byte.
func (g *Generator) ProcessManifest(in []byte) ([]byte, []string, error) {
	docs := splitDocs(in)
	var notes []string
	for i, d := range docs {
		if len(bytes.TrimSpace(d.body)) == 0 {
			continue
		}
		out, docNotes, err := g.processCRD(d.body)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, docNotes...)
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

// crd is a CRD document, decoded.
type crd struct {
	obj               map[string]interface{}
	spec              map[string]interface{}
	name, group, kind string
	storage           string
	versions          []map[string]interface{}
}

func (g *Generator) processCRD(body []byte) ([]byte, []string, error) {
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return body, nil, nil // not an object: leave it
	}
	if obj["kind"] != "CustomResourceDefinition" || !strings.HasPrefix(fmt.Sprint(obj["apiVersion"]), "apiextensions.k8s.io/") {
		return body, nil, nil
	}
	c := &crd{obj: obj}
	c.spec, _ = obj["spec"].(map[string]interface{})
	c.name, _ = nested(obj, "metadata", "name").(string)
	c.group, _ = c.spec["group"].(string)
	c.kind, _ = nested(c.spec, "names", "kind").(string)
	versions, _ := c.spec["versions"].([]interface{})
	for _, v := range versions {
		vm, _ := v.(map[string]interface{})
		if vm == nil {
			vm = map[string]interface{}{}
		}
		c.versions = append(c.versions, vm)
		if vm["storage"] == true {
			c.storage, _ = vm["name"].(string)
		}
	}
	var changed bool
	var notes []string
	if g.FieldPaths {
		changed, notes, err = g.writeFieldPaths(c)
	} else {
		changed, notes, err = g.writeMarks(c)
	}
	if err != nil || !changed {
		return body, notes, err
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	return out, notes, nil
}

// writeFieldPaths writes the gates of the storage version's Go types, with fieldPaths, into
// c, and removes the marks of the versions whose Go types were loaded. It reports whether c
// is to be written.
func (g *Generator) writeFieldPaths(c *crd) (bool, []string, error) {
	if _, ok := g.byGV[c.group+"/"+c.storage]; !ok || c.storage == "" {
		return false, []string{fmt.Sprintf("%s: no loaded package declares group %s version %s; left alone", c.name, c.group, c.storage)}, nil
	}
	gates, component, fields, err := g.gatesFor(c.group, c.storage, c.kind)
	if err != nil {
		return false, nil, err
	}
	unmarked := false
	for _, vm := range c.versions {
		if name, _ := vm["name"].(string); g.byGV[c.group+"/"+name] != nil {
			if removeMarks(versionSchema(vm)) {
				unmarked = true
			}
		}
	}
	return writeGates(c.spec, gates, component, pathsByGate(fields)) || unmarked, nil, nil
}

// writeGates sets spec.customFeatureGates to gates, with their fieldPaths from paths when
// paths is not nil, keeping the enabled of each gate that has one. It reports whether spec
// is to be written: it has gates, or had some.
func writeGates(spec map[string]interface{}, gates []GateMarker, component string, paths map[string][]string) bool {
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
			return false
		}
		delete(spec, "customFeatureGates")
		return true
	}
	var list []interface{}
	for _, m := range gates {
		gm := map[string]interface{}{"name": m.Name, "preRelease": m.PreRelease}
		if paths != nil {
			gm["fieldPaths"] = nonNil(paths[m.Name])
		}
		if m.Default != nil {
			gm["default"] = *m.Default
		}
		if m.DeprecationWarning != nil {
			gm["fieldDeprecationWarning"] = *m.DeprecationWarning
		}
		if len(m.Requires) > 0 {
			gm["requires"] = m.Requires
		}
		if len(m.RequiresAnyOf) > 0 {
			gm["requiresAnyOf"] = m.RequiresAnyOf
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
	return true
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
