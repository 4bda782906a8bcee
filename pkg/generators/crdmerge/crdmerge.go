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

// Package crdmerge holds what the generators that merge several variants of one CRD into one
// gated CRD share (featuregate-gen channels and featuregate-gen openshift): reading CRD
// manifests, writing a CRD deterministically, and the gated-keyword helpers.
package crdmerge

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"
)

// SplitDocs splits a YAML stream at its "---" lines.
func SplitDocs(data []byte) [][]byte {
	var docs [][]byte
	var cur []byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Equal(bytes.TrimRight(line, " \r\n"), []byte("---")) {
			docs, cur = append(docs, cur), nil
			continue
		}
		cur = append(cur, line...)
	}
	return append(docs, cur)
}

// ReadCRDs returns the apiextensions.k8s.io/v1 CustomResourceDefinitions of a manifest (file
// names it in errors and notes), strictly decoded; other documents are skipped with a note.
func ReadCRDs(file string, data []byte) ([]*apiextensionsv1.CustomResourceDefinition, []string, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	var notes []string
	for i, body := range SplitDocs(data) {
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(body, &meta); err != nil {
			return nil, nil, fmt.Errorf("%s, document %d: %w", file, i+1, err)
		}
		if meta.Kind == "" && meta.APIVersion == "" {
			continue // empty document
		}
		if meta.APIVersion != "apiextensions.k8s.io/v1" || meta.Kind != "CustomResourceDefinition" {
			notes = append(notes, fmt.Sprintf("%s, document %d: %s %s is not a CRD; skipped", file, i+1, meta.APIVersion, meta.Kind))
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(body, crd); err != nil {
			return nil, nil, fmt.Errorf("%s, document %d: %w", file, i+1, err)
		}
		out = append(out, crd)
	}
	return out, notes, nil
}

// MarshalCRD writes a CRD without its status and without server-set metadata, with sorted
// keys: the same CRD always gives the same bytes.
func MarshalCRD(crd *apiextensionsv1.CustomResourceDefinition) ([]byte, error) {
	js, err := yaml.Marshal(crd)
	if err != nil {
		return nil, err
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(js, &obj); err != nil {
		return nil, err
	}
	delete(obj, "status")
	if meta, ok := obj["metadata"].(map[string]interface{}); ok {
		delete(meta, "creationTimestamp")
	}
	return yaml.Marshal(obj)
}

// CanGateKeywords reports whether the keywords of the node at path (a gate path, "" for the
// root) can be gated: not on the root, nor on or below metadata, apiVersion or kind.
func CanGateKeywords(path string) bool {
	if path == "" || path == "." {
		return false
	}
	for _, reserved := range []string{".metadata", ".apiVersion", ".kind"} {
		if path == reserved || strings.HasPrefix(path, reserved+".") || strings.HasPrefix(path, reserved+"[") {
			return false
		}
	}
	return true
}

// GatedEntry returns node e's x-kubernetes-feature-gated-validations entry for gate in state
// enabled, added on first use: the differences of one node that share a gate share its
// entries.
func GatedEntry(e *apiextensionsv1.JSONSchemaProps, gate string, enabled bool) *apiextensionsv1.FeatureGatedValidation {
	for i := range e.XFeatureGatedValidations {
		if g := &e.XFeatureGatedValidations[i]; g.FeatureGate == gate && g.Enabled == enabled {
			return g
		}
	}
	e.XFeatureGatedValidations = append(e.XFeatureGatedValidations, apiextensionsv1.FeatureGatedValidation{FeatureGate: gate, Enabled: enabled})
	return &e.XFeatureGatedValidations[len(e.XFeatureGatedValidations)-1]
}

// CELTypedFormats are the string formats that give a value another CEL type (bytes,
// duration, timestamp): taking one off a node would change the type that CEL rules see.
var CELTypedFormats = sets.New("byte", "duration", "date", "date-time", "datetime")

// EnumSet is the set of an enum's values, by their JSON text.
func EnumSet(values []apiextensionsv1.JSON) sets.Set[string] {
	out := sets.New[string]()
	for _, v := range values {
		out.Insert(string(v.Raw))
	}
	return out
}

// Looser returns the looser of two bounds (the larger maximum, the smaller minimum); nil
// (no bound) when either is nil.
func Looser(a, b *int64, max bool) *int64 {
	if a == nil || b == nil {
		return nil
	}
	v := *a
	if (max && *b > v) || (!max && *b < v) {
		v = *b
	}
	return &v
}

// ValidGateName reports whether n is a valid gate name: UpperCamelCase, [A-Z][A-Za-z0-9]*,
// at most 63 characters.
func ValidGateName(n string) bool {
	if n == "" || len(n) > 63 || n[0] < 'A' || n[0] > 'Z' {
		return false
	}
	for _, r := range n {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}
