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

package featuregates

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// StageNote is the one-line note that the published OpenAPI puts at the start of the
// description of a gated field, so that kubectl explain shows it. It names the gate's stage,
// the gate and whether the field is effectively enabled, for example
//
//	Alpha (feature gate ReplicasFeatureGate, disabled).
//
// A field whose own gate is enabled but a gated ancestor's is not reads
// "enabled, but a gated parent field is not live", as the warnings of a write do; one whose
// own gate is disabled only because a gate it requires is says so:
// "disabled: requires B, which is disabled" (UnmetText).
func (p GatedPath) StageNote() string {
	g := p.Gate
	state := "disabled"
	switch {
	case p.EffectivelyEnabled:
		state = "enabled"
	case g.Enabled:
		state = "enabled, but a gated parent field is not live"
	case len(g.Unmet) > 0 || len(g.UnmetAnyOf) > 0:
		state = "disabled: " + UnmetText(g.Unmet, g.UnmetAnyOf)
	}
	return fmt.Sprintf("%s (feature gate %s, %s).", stageTitle(g.PreRelease), g.Name, state)
}

// stageTitle is the stage with an upper-case first letter: Alpha, Beta, Stable, Deprecated.
func stageTitle(preRelease string) string {
	r, size := utf8.DecodeRuneInString(preRelease)
	if size == 0 {
		return preRelease
	}
	return string(unicode.ToUpper(r)) + preRelease[size:]
}
