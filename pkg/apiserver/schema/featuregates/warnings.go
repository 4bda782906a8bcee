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
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// maxWarningRunes bounds every warning text; each is sent in an HTTP Warning header.
const maxWarningRunes = 512

// Warning is the text sent to the client for a change: it names the path, the gate and the
// gate's stage.
func (c Change) Warning() string {
	cache := c.Path.warnings
	if cache == nil {
		return c.warningText()
	}
	slot := &cache.dropped
	if c.Kind == NotApplied {
		slot = &cache.notApplied
	}
	if w := slot.Load(); w != nil {
		return *w
	}
	w := c.warningText()
	slot.Store(&w)
	return w
}

// warningTexts holds the warnings of one gated path, built once; concurrent requests may both
// build a text, and then store the same one.
type warningTexts struct {
	dropped, notApplied atomic.Pointer[string]
}

func (c Change) warningText() string {
	g := c.Path.Gate
	state := "disabled"
	if g.Enabled {
		state = "enabled, but a gated parent field is not live"
	} else if len(g.Unmet) > 0 || len(g.UnmetAnyOf) > 0 {
		state = "disabled: " + UnmetText(g.Unmet, g.UnmetAnyOf)
	}
	switch c.Kind {
	case NotApplied:
		return headerSafe(fmt.Sprintf("%s was not updated: feature gate %s (%s) is %s; the stored value was kept", c.Path.Path.String(), g.Name, g.PreRelease, state))
	default:
		return headerSafe(fmt.Sprintf("%s was dropped: feature gate %s (%s) is %s", c.Path.Path.String(), g.Name, g.PreRelease, state))
	}
}

// UnmetText says why a gate whose own state is enabled is disabled, naming the gates it
// requires that are disabled (GateState.Unmet) and, when none of the gates of its
// requiresAnyOf is enabled, those (GateState.UnmetAnyOf): "requires B, which is disabled",
// "requires A and B, which are disabled", "requires C or D, which are disabled", or both
// parts joined by "; ". It is "" when both are empty.
func UnmetText(unmet, unmetAnyOf []string) string {
	var parts []string
	if len(unmet) > 0 {
		parts = append(parts, requiresText(unmet, "and"))
	}
	if len(unmetAnyOf) > 0 {
		parts = append(parts, requiresText(unmetAnyOf, "or"))
	}
	return strings.Join(parts, "; ")
}

// requiresText is "requires A, which is disabled" or "requires A, B <conj> C, which are
// disabled"; names is not empty.
func requiresText(names []string, conj string) string {
	if len(names) == 1 {
		return "requires " + names[0] + ", which is disabled"
	}
	return "requires " + strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1] + ", which are disabled"
}

// DeprecationWarnings returns the warnings for fields of deprecated gates that a write sets:
// present in newObj on create (oldObj nil), or set or changed by an update, at a place where
// oldObj does not hold the same value (see setAt: items of lists without keys are followed
// through reorders, so a reorder warns of nothing, and a value moved to another item warns).
// A value removed draws none. A gate's custom text is used when it has one.
func (ix *Index) DeprecationWarnings(newObj, oldObj map[string]interface{}, scope Scope) []string {
	if !ix.HasDeprecated() || newObj == nil {
		return nil
	}
	var warnings []string
	seen := map[string]bool{}
	for i, p := range ix.deprecated {
		if !scope.includes(p.Path.Root()) {
			continue
		}
		if !setAt(newObj, oldObj, oldObj != nil, p.Path.steps, ix.deprecatedKeys[i]) {
			continue
		}
		w := p.Gate.DeprecationWarning
		if w == "" {
			w = fmt.Sprintf("%s is deprecated (feature gate %s)", p.Path.String(), p.Gate.Name)
		}
		w = headerSafe(w)
		if !seen[w] {
			seen[w] = true
			warnings = append(warnings, w)
		}
	}
	return warnings
}

// Printable makes a text valid UTF-8 without control characters, for a warning header or an
// audit annotation: invalid bytes become '?', control characters spaces.
func Printable(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// headerSafe makes a text fit an HTTP Warning header: valid UTF-8, no control characters,
// bounded. Validation already demands this of the texts a CRD declares; this is a second line.
func headerSafe(s string) string {
	s = Printable(s)
	if utf8.RuneCountInString(s) > maxWarningRunes {
		s = string([]rune(s)[:maxWarningRunes-3]) + "..."
	}
	return s
}
