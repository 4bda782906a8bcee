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

package stockpolicies

import (
	"fmt"
	"net/http"
	"strings"
)

// crdInfo is one gated CRD of the matrix: where its manifest is, how to address its objects,
// and its gates with a probe for each.
type crdInfo struct {
	file                           string // relative to the repository root
	name                           string // the CRD's name
	group, version, resource, kind string
	gates                          []gateInfo
}

// gateInfo is a gate of a CRD, its state as installed and the probes that show whether the
// writes follow its current state.
type gateInfo struct {
	name string
	// initial is the gate's state as the CRD declares it (no enabled set).
	initial bool
	// parents are the gates of gated ancestors: the probes' fields are live only while they
	// are enabled too.
	parents []string
	// requires and requiresAnyOf are the gate's own: it is enabled only while every gate of
	// requires is, and one of requiresAnyOf (if any).
	requires, requiresAnyOf []string
	// probes must all show the gate's current state. On stock, each policy that reads the
	// gate learns of a change through its own informer, so a gate that two policies read
	// (a mutating and a validating one) has a probe for each.
	probes []gateProbe
}

// gateProbe is a dry-run write that shows whether a gate's field is live.
type gateProbe struct {
	// sub is "" for a create of an object with body as its content (top-level fields), or
	// a subresource ("status", "scale") of the probe object that install stores, merge
	// patched with body.
	sub, body string
	// observe says whether the answer shows the gate's field live, and whether it shows
	// either state at all (false while the policies are not in force yet).
	observe func(p probeAnswer) (live, valid bool)
}

func createProbe(body string, observe func(probeAnswer) (bool, bool)) gateProbe {
	return gateProbe{body: body, observe: observe}
}

// probeAnswer is what the server said to a probe.
type probeAnswer struct {
	code     int
	obj      map[string]interface{}
	warnings []string
}

// fieldIsSet: the gate's field is live when the written object still has it.
func fieldIsSet(path ...string) func(probeAnswer) (bool, bool) {
	return func(p probeAnswer) (bool, bool) {
		if p.code != http.StatusCreated && p.code != http.StatusOK {
			return false, false
		}
		_, found := lookup(p.obj, path...)
		return found, true
	}
}

// deprecatedFieldIsSet: a field of a deprecated gate that is live is kept and draws the
// gate's warning; one that is not is dropped without it. A field kept without the warning
// means the warning policy is not in force yet.
func deprecatedFieldIsSet(warning string, path ...string) func(probeAnswer) (bool, bool) {
	return func(p probeAnswer) (bool, bool) {
		live, valid := fieldIsSet(path...)(p)
		warned := false
		for _, w := range p.warnings {
			warned = warned || strings.Contains(w, warning)
		}
		return live, valid && live == warned
	}
}

// scaled: a scale write to a live replicas path is applied; one to a disabled path is
// either answered with the stored replicas (ours) or refused (stock+policies).
func scaled(replicas float64) func(probeAnswer) (bool, bool) {
	return func(p probeAnswer) (bool, bool) {
		switch p.code {
		case http.StatusOK:
			v, _ := lookup(p.obj, "spec", "replicas")
			return v == replicas, true
		case http.StatusUnprocessableEntity:
			return false, true
		}
		return false, false
	}
}

// accepted: the gate is on when the value is accepted (a gated enum value, a gated bound),
// or, with strict, when it is rejected (a stricter rule).
func accepted(strict bool) func(probeAnswer) (bool, bool) {
	return func(p probeAnswer) (bool, bool) {
		switch p.code {
		case http.StatusCreated:
			return !strict, true
		case http.StatusUnprocessableEntity:
			return strict, true
		}
		return false, false
	}
}

var (
	crontabCRD = &crdInfo{
		file: "examples/feature-gates/crontab-crd.yaml", name: "crontabs.stable.example.com",
		group: "stable.example.com", version: "v1", resource: "crontabs", kind: "CronTab",
		gates: []gateInfo{
			{name: "ReplicasFeatureGate", probes: []gateProbe{createProbe(`{"spec":{"replicas":1}}`, fieldIsSet("spec", "replicas"))}},
		},
	}
	databaseCRD = &crdInfo{
		file: "examples/feature-gates/nested/database-crd.yaml", name: "databases.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "databases", kind: "Database",
		gates: []gateInfo{
			{name: "BackupGate", probes: []gateProbe{createProbe(`{"spec":{"backup":{"schedule":"x"}}}`, fieldIsSet("spec", "backup"))}},
			{name: "BackupEncryptionGate", initial: true, parents: []string{"BackupGate"},
				probes: []gateProbe{createProbe(`{"spec":{"backup":{"schedule":"x","encryption":{"keySecretName":"k"}}}}`, fieldIsSet("spec", "backup", "encryption"))}},
		},
	}
	gatewayCRD = &crdInfo{
		file: "examples/feature-gates/list-map/gateway-crd.yaml", name: "gateways.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "gateways", kind: "Gateway",
		gates: []gateInfo{
			{name: "ListenerTLSGate", probes: []gateProbe{createProbe(`{"spec":{"listeners":[{"name":"a","tls":{"mode":"x"}}]}}`, fieldIsSet("spec", "listeners", "0", "tls"))}},
		},
	}
	reportCRD = &crdInfo{
		file: "examples/feature-gates/deprecated/report-crd.yaml", name: "reports.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "reports", kind: "Report",
		gates: []gateInfo{
			{name: "UTCOffsetGate", initial: true, probes: []gateProbe{createProbe(`{"spec":{"utcOffset":"+01:00"}}`,
				deprecatedFieldIsSet("spec.utcOffset is deprecated and will be removed in v2", "spec", "utcOffset"))}},
			{name: "LegacyFormatGate", probes: []gateProbe{createProbe(`{"spec":{"legacyFormat":"csv"}}`,
				deprecatedFieldIsSet("legacyFormat is deprecated", "spec", "legacyFormat"))}},
		},
	}
	cacheCRD = &crdInfo{
		file: "examples/feature-gates/rules/cache-crd.yaml", name: "caches.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "caches", kind: "Cache",
		gates: []gateInfo{
			{name: "ARCEviction", probes: []gateProbe{createProbe(`{"spec":{"evictionPolicy":"ARC"}}`, accepted(false))}},
			{name: "ManyZones", probes: []gateProbe{createProbe(`{"spec":{"zones":["a","b","c","d"]}}`, accepted(false))}},
			{name: "StrictKeyPrefix", probes: []gateProbe{createProbe(`{"spec":{"keyPrefix":"Bad"}}`, accepted(true))}},
		},
	}
	widgetCRD = &crdInfo{
		file: "test/stockpolicies/testdata/widget-crd.yaml", name: "widgets.stockpolicies.example.com",
		group: "stockpolicies.example.com", version: "v1", resource: "widgets", kind: "Widget",
		gates: []gateInfo{
			{name: "WidgetReplicasGate", probes: []gateProbe{
				createProbe(`{"spec":{"replicas":1}}`, fieldIsSet("spec", "replicas")),
				{sub: "scale", body: `{"spec":{"replicas":7}}`, observe: scaled(7)},
			}},
			{name: "TierGate", probes: []gateProbe{createProbe(`{"spec":{"tier":"gold"}}`, fieldIsSet("spec", "tier"))}},
			{name: "StepRetryGate", probes: []gateProbe{createProbe(`{"spec":{"steps":[{"name":"a","retry":1}]}}`, fieldIsSet("spec", "steps", "0", "retry"))}},
			{name: "ReadyGate", probes: []gateProbe{{sub: "status", body: `{"status":{"ready":1}}`, observe: fieldIsSet("status", "ready")}}},
		},
	}

	gadgetCRD = &crdInfo{
		file: "test/stockpolicies/testdata/gadget-crd.yaml", name: "gadgets.stockpolicies.example.com",
		group: "stockpolicies.example.com", version: "v1", resource: "gadgets", kind: "Gadget",
		gates: []gateInfo{
			gadgetGate("AlphaGate", "alpha", false),
			gadgetGate("AlphaDefaultGate", "alphaDefault", false),
			gadgetGate("BetaGate", "beta", true),
			gadgetGate("BetaDefaultOffGate", "betaDefaultOff", false),
			gadgetGate("StableGate", "stable", true),
			gadgetGate("DeprecatedGate", "deprecated", true),
			withRequires(gadgetGate("NeedsAlphaGate", "needsAlpha", true), []string{"AlphaGate"}, nil),
			withRequires(gadgetGate("AnyOfGate", "anyOf", true), nil, []string{"AlphaGate", "AlphaDefaultGate"}),
		},
	}

	allCRDs = []*crdInfo{crontabCRD, databaseCRD, gatewayCRD, reportCRD, cacheCRD, widgetCRD, gadgetCRD}
)

// apiVersion is the group/version of the CRD's objects.
func (c *crdInfo) apiVersion() string { return c.group + "/" + c.version }

// gate returns the named gate of the CRD.
func (c *crdInfo) gate(name string) *gateInfo {
	for i := range c.gates {
		if c.gates[i].name == name {
			return &c.gates[i]
		}
	}
	panic("no gate " + name + " in " + c.name)
}

// lookup walks an unstructured object by map keys and list indexes ("0", "1", ...).
func lookup(obj interface{}, path ...string) (interface{}, bool) {
	cur := obj
	for _, p := range path {
		switch c := cur.(type) {
		case map[string]interface{}:
			v, ok := c[p]
			if !ok {
				return nil, false
			}
			cur = v
		case []interface{}:
			i := 0
			for _, r := range p {
				if r < '0' || r > '9' {
					return nil, false
				}
				i = i*10 + int(r-'0')
			}
			if p == "" || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// gadgetGate is a gate of testdata/gadget-crd.yaml: one string field under spec, and its
// own state as declared.
func gadgetGate(name, fieldName string, initial bool) gateInfo {
	return gateInfo{name: name, initial: initial,
		probes: []gateProbe{createProbe(fmt.Sprintf(`{"spec":{%q:"x"}}`, fieldName), fieldIsSet("spec", fieldName))}}
}

func withRequires(g gateInfo, requires, anyOf []string) gateInfo {
	g.requires, g.requiresAnyOf = requires, anyOf
	return g
}
