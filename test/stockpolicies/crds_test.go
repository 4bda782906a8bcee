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

// gateInfo is a gate of a CRD, its state as installed and a probe that shows whether the
// writes follow its current state.
type gateInfo struct {
	name string
	// initial is the gate's state as the CRD declares it (no enabled set).
	initial bool
	// parents are the gates of gated ancestors: the probe's field is live only while they
	// are enabled too.
	parents []string
	// probe is the content (top-level fields) of an object that sets a field of the gate,
	// sent as a dry-run create, or with status, as a dry-run merge patch of the status of
	// the probe object that install stores.
	probe  string
	status bool
	// observe says whether the probe's answer shows the gate's field live, and whether the
	// answer shows either state at all (false while the policies are not in force yet).
	observe func(p probeAnswer) (live, valid bool)
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
			{name: "ReplicasFeatureGate", probe: `{"spec":{"replicas":1}}`, observe: fieldIsSet("spec", "replicas")},
		},
	}
	databaseCRD = &crdInfo{
		file: "examples/feature-gates/nested/database-crd.yaml", name: "databases.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "databases", kind: "Database",
		gates: []gateInfo{
			{name: "BackupGate", probe: `{"spec":{"backup":{"schedule":"x"}}}`, observe: fieldIsSet("spec", "backup")},
			{name: "BackupEncryptionGate", initial: true, parents: []string{"BackupGate"},
				probe: `{"spec":{"backup":{"schedule":"x","encryption":{"keySecretName":"k"}}}}`, observe: fieldIsSet("spec", "backup", "encryption")},
		},
	}
	gatewayCRD = &crdInfo{
		file: "examples/feature-gates/list-map/gateway-crd.yaml", name: "gateways.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "gateways", kind: "Gateway",
		gates: []gateInfo{
			{name: "ListenerTLSGate", probe: `{"spec":{"listeners":[{"name":"a","tls":{"mode":"x"}}]}}`, observe: fieldIsSet("spec", "listeners", "0", "tls")},
		},
	}
	reportCRD = &crdInfo{
		file: "examples/feature-gates/deprecated/report-crd.yaml", name: "reports.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "reports", kind: "Report",
		gates: []gateInfo{
			{name: "UTCOffsetGate", initial: true, probe: `{"spec":{"utcOffset":"+01:00"}}`,
				observe: deprecatedFieldIsSet("spec.utcOffset is deprecated and will be removed in v2", "spec", "utcOffset")},
			{name: "LegacyFormatGate", probe: `{"spec":{"legacyFormat":"csv"}}`, observe: fieldIsSet("spec", "legacyFormat")},
		},
	}
	cacheCRD = &crdInfo{
		file: "examples/feature-gates/rules/cache-crd.yaml", name: "caches.gates.example.com",
		group: "gates.example.com", version: "v1", resource: "caches", kind: "Cache",
		gates: []gateInfo{
			{name: "ARCEviction", probe: `{"spec":{"evictionPolicy":"ARC"}}`, observe: accepted(false)},
			{name: "ManyZones", probe: `{"spec":{"zones":["a","b","c","d"]}}`, observe: accepted(false)},
			{name: "StrictKeyPrefix", probe: `{"spec":{"keyPrefix":"Bad"}}`, observe: accepted(true)},
		},
	}
	widgetCRD = &crdInfo{
		file: "test/stockpolicies/testdata/widget-crd.yaml", name: "widgets.stockpolicies.example.com",
		group: "stockpolicies.example.com", version: "v1", resource: "widgets", kind: "Widget",
		gates: []gateInfo{
			{name: "WidgetReplicasGate", probe: `{"spec":{"replicas":1}}`, observe: fieldIsSet("spec", "replicas")},
			{name: "TierGate", probe: `{"spec":{"tier":"gold"}}`, observe: fieldIsSet("spec", "tier")},
			{name: "StepRetryGate", probe: `{"spec":{"steps":[{"name":"a","retry":1}]}}`, observe: fieldIsSet("spec", "steps", "0", "retry")},
			{name: "ReadyGate", status: true, probe: `{"status":{"ready":1}}`, observe: fieldIsSet("status", "ready")},
		},
	}

	allCRDs = []*crdInfo{crontabCRD, databaseCRD, gatewayCRD, reportCRD, cacheCRD, widgetCRD}
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
