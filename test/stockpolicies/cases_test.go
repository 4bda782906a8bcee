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

import "encoding/json"

// The matrix: the write paths of test/integration/featuregates_test.go and the KEP's 8-case
// update matrix, on the example CRDs (and testdata/widget-crd.yaml for the subresources, a
// list without keys and a gated default; testdata/gadget-crd.yaml for whether a gate is
// enabled). The expectations (want...) are our server's, by docs/reference/semantics.md;
// stock+policies is compared with what ours did.

// Warnings of our server.
const (
	replicasDropped = ".spec.replicas was dropped: feature gate ReplicasFeatureGate (alpha) is disabled"
	replicasKept    = ".spec.replicas was not updated: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value was kept"

	backupDropped     = ".spec.backup was dropped: feature gate BackupGate (alpha) is disabled"
	backupKept        = ".spec.backup was not updated: feature gate BackupGate (alpha) is disabled; the stored value was kept"
	encryptionDropped = ".spec.backup.encryption was dropped: feature gate BackupEncryptionGate (beta) is disabled"
	encryptionKept    = ".spec.backup.encryption was not updated: feature gate BackupEncryptionGate (beta) is disabled; the stored value was kept"

	tlsDropped = ".spec.listeners[*].tls was dropped: feature gate ListenerTLSGate (alpha) is disabled"
	tlsKept    = ".spec.listeners[*].tls was not updated: feature gate ListenerTLSGate (alpha) is disabled; the stored value was kept"

	utcOffsetWarning   = "spec.utcOffset is deprecated and will be removed in v2; set spec.timeZone instead"
	legacyDeprecated   = ".spec.legacyFormat is deprecated (feature gate LegacyFormatGate)"
	legacyDropped      = ".spec.legacyFormat was dropped: feature gate LegacyFormatGate (deprecated) is disabled"
	legacyKept         = ".spec.legacyFormat was not updated: feature gate LegacyFormatGate (deprecated) is disabled; the stored value was kept"
	readyDropped       = ".status.ready was dropped: feature gate ReadyGate (alpha) is disabled"
	readyKept          = ".status.ready was not updated: feature gate ReadyGate (alpha) is disabled; the stored value was kept"
	widgetReplicasKept = ".spec.replicas was not updated: feature gate WidgetReplicasGate (alpha) is disabled; the stored value was kept"
	retryDropped       = ".spec.steps[*].retry was dropped: feature gate StepRetryGate (alpha) is disabled"
	retryKept          = ".spec.steps[*].retry was not updated: feature gate StepRetryGate (alpha) is disabled; the stored value was kept"
	tierDropped        = ".spec.tier was dropped: feature gate TierGate (alpha) is disabled"
)

const (
	cronFull   = `{"spec":{"cronSpec":"* * * * */5","image":"my-awesome-cron-image","replicas":3}}`
	cronNoRepl = `{"spec":{"cronSpec":"* * * * */5","image":"my-awesome-cron-image"}}`

	databaseFull     = `{"spec":{"engine":"postgres","storageGiB":20,"backup":{"schedule":"0 3 * * *","retentionDays":7,"encryption":{"keySecretName":"orders-backup-key"}}}}`
	databaseNoBackup = `{"spec":{"engine":"postgres","storageGiB":20}}`

	gatewayExample  = `{"spec":{"listeners":[{"name":"http","port":80,"protocol":"HTTP"},{"name":"https","port":443,"protocol":"HTTPS","tls":{"mode":"Terminate","certificateSecretName":"edge-cert"}}]}}`
	gatewayNoTLS    = `{"spec":{"listeners":[{"name":"http","port":80,"protocol":"HTTP"},{"name":"https","port":443,"protocol":"HTTPS"}]}}`
	gatewayThree    = `{"spec":{"listeners":[{"name":"http","port":80},{"name":"https","port":443,"tls":{"mode":"Terminate"}},{"name":"admin","port":8443,"tls":{"mode":"Passthrough"}}]}}`
	reportExample   = `{"spec":{"schedule":"0 6 * * 1","utcOffset":"+02:00","legacyFormat":"csv"}}`
	widgetSteps     = `{"spec":{"image":"a","steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c"}]}}`
	widgetStepsSent = `{"spec":{"image":"a","steps":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`
)

func on(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// noTier seeds widgets without the gated default of .spec.tier, which would otherwise be
// stored in every seed and kept (with a warning) by every update that does not send it.
var noTier = map[string]bool{"TierGate": false}

func gates(m map[string]bool) step { return step{name: "set gates", verb: "gates", gates: m} }

var matrix = []matrixCase{
	// The crontab of examples/feature-gates/crontab-crd.yaml: ReplicasFeatureGate, alpha, off.
	{name: "crontab: create, gate off: value dropped", crd: crontabCRD, steps: []step{
		{name: "create", verb: "create", body: cronFull, want: cronNoRepl, wantGen: 1, wantWarnings: []string{replicasDropped}},
	}},
	{name: "crontab: create, gate on: value stored", crd: crontabCRD, gates: on("ReplicasFeatureGate"), steps: []step{
		{name: "create", verb: "create", body: cronFull, want: cronFull, wantGen: 1, wantWarnings: noWarnings},
	}},

	// The KEP's update matrix: gate on or off, stored value or not, new value or not.
	{name: "update, gate on: stored value changed", crd: crontabCRD, gates: on("ReplicasFeatureGate"),
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"replicas":2,"image":"a"}}`, want: `{"spec":{"replicas":2,"image":"a"}}`, wantGen: 2, wantWarnings: noWarnings}}},
	{name: "update, gate on: stored value removed", crd: crontabCRD, gates: on("ReplicasFeatureGate"),
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"image":"a"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 2, wantWarnings: noWarnings}}},
	{name: "update, gate on: value added", crd: crontabCRD, gates: on("ReplicasFeatureGate"),
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"replicas":2,"image":"a"}}`, want: `{"spec":{"replicas":2,"image":"a"}}`, wantGen: 2, wantWarnings: noWarnings}}},
	{name: "update, gate on: no value before or after", crd: crontabCRD, gates: on("ReplicasFeatureGate"),
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"image":"b"}}`, want: `{"spec":{"image":"b"}}`, wantGen: 2, wantWarnings: noWarnings}}},
	{name: "update, gate off: stored value sent unchanged", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"replicas":1,"image":"b"}}`, want: `{"spec":{"replicas":1,"image":"b"}}`, wantGen: 2, wantWarnings: noWarnings}}},
	{name: "update, gate off: stored value changed: kept", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"replicas":2,"image":"a"}}`, want: `{"spec":{"replicas":1,"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasKept}}}},
	{name: "update, gate off: stored value removed: kept", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"image":"a"}}`, want: `{"spec":{"replicas":1,"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasKept}}}},
	{name: "update, gate off: value added: dropped", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"replicas":2,"image":"a"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasDropped}}}},
	{name: "update, gate off: no value before or after", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"image":"b"}}`, want: `{"spec":{"image":"b"}}`, wantGen: 2, wantWarnings: noWarnings}}},
	{name: "update, gate off: stored value changed with a live field", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`}},
		steps: []step{{name: "update", verb: "update", body: `{"spec":{"replicas":2,"image":"b"}}`, want: `{"spec":{"replicas":1,"image":"b"}}`, wantGen: 2, wantWarnings: []string{replicasKept}}}},

	// Every kind of write.
	{name: "merge patch, gate off: stored value kept", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":2,"image":"a"}}`}},
		steps: []step{
			{name: "patch replicas 7", verb: "merge", body: `{"spec":{"replicas":7}}`, want: `{"spec":{"replicas":2,"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasKept}},
			{name: "patch replicas null", verb: "merge", body: `{"spec":{"replicas":null}}`, want: `{"spec":{"replicas":2,"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasKept}},
			{name: "patch spec null", verb: "merge", body: `{"spec":null}`, want: `{"spec":{"replicas":2}}`, wantGen: 2, wantWarnings: []string{replicasKept}},
		}},
	{name: "merge patch, gate off: new value dropped", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{{name: "patch replicas 7", verb: "merge", body: `{"spec":{"replicas":7}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasDropped}}}},
	{name: "JSON patch, gate off: stored value kept", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":2,"image":"a"}}`}},
		steps: []step{
			{name: "remove replicas, replace image", verb: "json", body: `[{"op":"remove","path":"/spec/replicas"},{"op":"replace","path":"/spec/image","value":"b"}]`,
				want: `{"spec":{"replicas":2,"image":"b"}}`, wantGen: 2, wantWarnings: []string{replicasKept}},
			{name: "replace replicas", verb: "json", body: `[{"op":"replace","path":"/spec/replicas","value":5}]`,
				want: `{"spec":{"replicas":2,"image":"b"}}`, wantGen: 2, wantWarnings: []string{replicasKept}},
		}},
	{name: "server-side apply: dropped, re-apply changes nothing, stored once on", crd: crontabCRD, steps: []step{
		{name: "apply", verb: "apply", body: `{"spec":{"replicas":4,"image":"a"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasDropped}},
		{name: "re-apply", verb: "apply", body: `{"spec":{"replicas":4,"image":"a"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1},
		gates(on("ReplicasFeatureGate")),
		{name: "apply, gate on", verb: "apply", body: `{"spec":{"replicas":4,"image":"a"}}`, want: `{"spec":{"replicas":4,"image":"a"}}`, wantGen: 2, wantWarnings: noWarnings},
	}},
	{name: "server-side apply, gate off: stored value kept", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "apply", body: `{"spec":{"replicas":2,"image":"a"}}`}},
		steps: []step{
			{name: "apply replicas 5", verb: "apply", body: `{"spec":{"replicas":5,"image":"a"}}`, want: `{"spec":{"replicas":2,"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasKept}},
			{name: "apply without replicas", verb: "apply", body: `{"spec":{"image":"b"}}`, want: `{"spec":{"replicas":2,"image":"b"}}`, wantGen: 2},
		}},
	{name: "dry-run create, gate off: same answer, nothing stored", crd: crontabCRD, steps: []step{
		{name: "dry-run create", verb: "create", dryRun: true, body: cronFull, want: "none", wantWarnings: []string{replicasDropped}},
		{name: "create", verb: "create", body: cronFull, sameAs: "dry-run create", want: cronNoRepl, wantGen: 1, wantWarnings: []string{replicasDropped}},
	}},
	{name: "dry-run patch, gate off: same answer, nothing stored", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":2,"image":"a"}}`}},
		steps: []step{
			{name: "dry-run patch", verb: "merge", dryRun: true, body: `{"spec":{"replicas":9,"image":"c"}}`, want: `{"spec":{"replicas":2,"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasKept}},
			{name: "patch", verb: "merge", body: `{"spec":{"replicas":9,"image":"c"}}`, sameAs: "dry-run patch", want: `{"spec":{"replicas":2,"image":"c"}}`, wantGen: 2, wantWarnings: []string{replicasKept}},
		}},
	{name: "dry-run update, gate off: same answer, nothing stored", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{
			{name: "dry-run update", verb: "update", dryRun: true, body: `{"spec":{"replicas":9,"image":"c"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasDropped}},
		}},
	{name: "generation: writes that touch only gated-off fields", crd: crontabCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"replicas":5,"image":"a"}}`, want: `{"spec":{"replicas":1,"image":"a"}}`, wantGen: 1},
			{name: "merge patch", verb: "merge", body: `{"spec":{"replicas":6}}`, want: `{"spec":{"replicas":1,"image":"a"}}`, wantGen: 1},
			{name: "JSON patch", verb: "json", body: `[{"op":"remove","path":"/spec/replicas"}]`, want: `{"spec":{"replicas":1,"image":"a"}}`, wantGen: 1},
			{name: "label", verb: "merge", body: `{"metadata":{"labels":{"x":"y"}}}`, want: `{"spec":{"replicas":1,"image":"a"}}`, wantGen: 1, wantWarnings: noWarnings},
		}},
	{name: "toggles: enable, disable, enable again", crd: crontabCRD, steps: []step{
		{name: "create, off", verb: "create", body: `{"spec":{"replicas":1,"image":"a"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1, wantWarnings: []string{replicasDropped}},
		gates(on("ReplicasFeatureGate")),
		{name: "patch replicas 5, on", verb: "merge", body: `{"spec":{"replicas":5}}`, want: `{"spec":{"replicas":5,"image":"a"}}`, wantGen: 2, wantWarnings: noWarnings},
		gates(map[string]bool{"ReplicasFeatureGate": false}),
		{name: "read, off", verb: "get", want: `{"spec":{"replicas":5,"image":"a"}}`, wantGen: 2},
		{name: "patch replicas 7, off", verb: "merge", body: `{"spec":{"replicas":7}}`, want: `{"spec":{"replicas":5,"image":"a"}}`, wantGen: 2, wantWarnings: []string{replicasKept}},
		gates(on("ReplicasFeatureGate")),
		{name: "read, on again", verb: "get", want: `{"spec":{"replicas":5,"image":"a"}}`, wantGen: 2},
		{name: "patch image, on again", verb: "merge", body: `{"spec":{"image":"b"}}`, want: `{"spec":{"replicas":5,"image":"b"}}`, wantGen: 3, wantWarnings: noWarnings},
	}},

	// Nested gates (examples/feature-gates/nested): BackupGate alpha off, BackupEncryptionGate
	// beta (on) below it.
	{name: "nested: create, parent off: parent and child dropped", crd: databaseCRD, steps: []step{
		{name: "create", verb: "create", body: databaseFull, want: databaseNoBackup, wantGen: 1, wantWarnings: []string{backupDropped}},
	}},
	{name: "nested: create, parent on, child on: all stored", crd: databaseCRD, gates: on("BackupGate"), steps: []step{
		{name: "create", verb: "create", body: databaseFull, want: databaseFull, wantGen: 1, wantWarnings: noWarnings},
	}},
	{name: "nested: create, parent on, child off: child dropped", crd: databaseCRD, gates: map[string]bool{"BackupGate": true, "BackupEncryptionGate": false}, steps: []step{
		{name: "create", verb: "create", body: databaseFull, want: `{"spec":{"engine":"postgres","storageGiB":20,"backup":{"schedule":"0 3 * * *","retentionDays":7}}}`, wantGen: 1, wantWarnings: []string{encryptionDropped}},
	}},
	{name: "nested: update, parent off disables the child: stored values kept", crd: databaseCRD,
		seeds: []step{{name: "seed", verb: "create", body: databaseFull}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"engine":"mysql","storageGiB":20,"backup":{"schedule":"0 4 * * *","encryption":{"keySecretName":"other"}}}}`,
				want: `{"spec":{"engine":"mysql","storageGiB":20,"backup":{"schedule":"0 3 * * *","retentionDays":7,"encryption":{"keySecretName":"orders-backup-key"}}}}`, wantGen: 2, wantWarnings: []string{backupKept}},
		}},
	{name: "nested: update, parent on, child off: child kept, sibling updated", crd: databaseCRD, gates: map[string]bool{"BackupGate": true, "BackupEncryptionGate": false},
		seeds: []step{{name: "seed", verb: "create", body: databaseFull}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"engine":"postgres","storageGiB":20,"backup":{"schedule":"0 4 * * *","encryption":{"keySecretName":"other"}}}}`,
				want: `{"spec":{"engine":"postgres","storageGiB":20,"backup":{"schedule":"0 4 * * *","encryption":{"keySecretName":"orders-backup-key"}}}}`, wantGen: 2, wantWarnings: []string{encryptionKept}},
		}},
	{name: "nested: merge patch with a null parent: stored values kept", crd: databaseCRD,
		seeds: []step{{name: "seed", verb: "create", body: databaseFull}},
		steps: []step{
			{name: "patch backup null", verb: "merge", body: `{"spec":{"backup":null}}`, want: databaseFull, wantGen: 1, wantWarnings: []string{backupKept}},
		}},
	{name: "nested: child added under a stored parent, child off: dropped", crd: databaseCRD, gates: map[string]bool{"BackupGate": true, "BackupEncryptionGate": false},
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"engine":"postgres","backup":{"schedule":"s"}}}`}},
		steps: []step{
			{name: "patch encryption", verb: "merge", body: `{"spec":{"backup":{"encryption":{"keySecretName":"k"}}}}`, want: `{"spec":{"engine":"postgres","backup":{"schedule":"s"}}}`, wantGen: 1, wantWarnings: []string{encryptionDropped}},
		}},

	// [*] in a map list (examples/feature-gates/list-map): ListenerTLSGate alpha off.
	{name: "list-map: create, gate off: tls dropped from every item", crd: gatewayCRD, steps: []step{
		{name: "create", verb: "create", body: gatewayExample, want: gatewayNoTLS, wantGen: 1, wantWarnings: []string{tlsDropped}},
	}},
	{name: "list-map: update, gate off: reordered items keep their tls", crd: gatewayCRD,
		seeds: []step{{name: "seed", verb: "create", body: gatewayThree}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"listeners":[{"name":"admin","port":8443},{"name":"http","port":80},{"name":"https","port":443}]}}`,
				want: `{"spec":{"listeners":[{"name":"admin","port":8443,"tls":{"mode":"Passthrough"}},{"name":"http","port":80},{"name":"https","port":443,"tls":{"mode":"Terminate"}}]}}`, wantGen: 2, wantWarnings: []string{tlsKept}},
		}},
	{name: "list-map: update, gate off: items added and removed, tls changed", crd: gatewayCRD,
		seeds: []step{{name: "seed", verb: "create", body: gatewayThree}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"listeners":[{"name":"new","port":9000,"tls":{"mode":"Terminate"}},{"name":"https","port":444,"tls":{"mode":"Passthrough"}}]}}`,
				want: `{"spec":{"listeners":[{"name":"new","port":9000},{"name":"https","port":444,"tls":{"mode":"Terminate"}}]}}`, wantGen: 2, wantWarnings: []string{tlsKept}},
		}},
	{name: "list-map: update, gate off: tls added to an item without: dropped", crd: gatewayCRD,
		seeds: []step{{name: "seed", verb: "create", body: gatewayThree}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"listeners":[{"name":"http","port":80,"tls":{"mode":"Terminate"}},{"name":"https","port":443,"tls":{"mode":"Terminate"}},{"name":"admin","port":8443,"tls":{"mode":"Passthrough"}}]}}`,
				want: gatewayThree, wantGen: 1, wantWarnings: []string{tlsDropped}},
		}},
	{name: "list-map: JSON patch removing an item's tls, gate off: kept", crd: gatewayCRD,
		seeds: []step{{name: "seed", verb: "create", body: gatewayThree}},
		steps: []step{
			{name: "remove tls", verb: "json", body: `[{"op":"remove","path":"/spec/listeners/1/tls"}]`, want: gatewayThree, wantGen: 1, wantWarnings: []string{tlsKept}},
			{name: "remove the item", verb: "json", body: `[{"op":"remove","path":"/spec/listeners/1"}]`,
				want: `{"spec":{"listeners":[{"name":"http","port":80},{"name":"admin","port":8443,"tls":{"mode":"Passthrough"}}]}}`, wantGen: 2, wantWarnings: noWarnings},
		}},

	// Deprecated gates (examples/feature-gates/deprecated): UTCOffsetGate on with its own
	// warning text, LegacyFormatGate off.
	{name: "deprecated: create with both fields", crd: reportCRD, steps: []step{
		{name: "create", verb: "create", body: reportExample, want: `{"spec":{"schedule":"0 6 * * 1","utcOffset":"+02:00"}}`, wantGen: 1, wantWarnings: []string{legacyDropped, utcOffsetWarning}},
	}},
	{name: "deprecated: update: warned only when the field changes", crd: reportCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"schedule":"a","utcOffset":"+02:00"}}`}},
		steps: []step{
			{name: "update, unchanged", verb: "update", body: `{"spec":{"schedule":"b","utcOffset":"+02:00"}}`, want: `{"spec":{"schedule":"b","utcOffset":"+02:00"}}`, wantGen: 2, wantWarnings: noWarnings},
			{name: "update, changed", verb: "update", body: `{"spec":{"schedule":"b","utcOffset":"+03:00"}}`, want: `{"spec":{"schedule":"b","utcOffset":"+03:00"}}`, wantGen: 3, wantWarnings: []string{utcOffsetWarning}},
			{name: "update, removed", verb: "update", body: `{"spec":{"schedule":"b"}}`, want: `{"spec":{"schedule":"b"}}`, wantGen: 4},
		}},
	{name: "deprecated: a disabled deprecated field keeps its stored value", crd: reportCRD,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"schedule":"a","legacyFormat":"csv"}}`}},
		steps: []step{
			{name: "patch", verb: "merge", body: `{"spec":{"legacyFormat":"json"}}`, want: `{"spec":{"schedule":"a","legacyFormat":"csv"}}`, wantGen: 1, wantWarnings: []string{legacyKept}},
		}},
	{name: "deprecated: default warning text of an enabled deprecated gate", crd: reportCRD, gates: on("LegacyFormatGate"), steps: []step{
		{name: "create", verb: "create", body: `{"spec":{"schedule":"a","legacyFormat":"csv"}}`, want: `{"spec":{"schedule":"a","legacyFormat":"csv"}}`, wantGen: 1, wantWarnings: []string{legacyDeprecated}},
	}},

	// Gates read by CEL rules (examples/feature-gates/rules): all alpha, off.
	{name: "rules: gated enum value", crd: cacheCRD,
		seeds: []step{{name: "seed ARC", verb: "create", object: "arc", body: `{"spec":{"sizeMiB":512,"evictionPolicy":"ARC"}}`}},
		steps: []step{
			{name: "create ARC, off", verb: "create", body: `{"spec":{"sizeMiB":512,"evictionPolicy":"ARC"}}`, wantCode: 422, want: "none"},
			{name: "create LRU, off", verb: "create", body: `{"spec":{"sizeMiB":512,"evictionPolicy":"LRU"}}`, want: `{"spec":{"sizeMiB":512,"evictionPolicy":"LRU"}}`},
			{name: "patch LRU to ARC, off", verb: "merge", body: `{"spec":{"evictionPolicy":"ARC"}}`, wantCode: 422, want: `{"spec":{"sizeMiB":512,"evictionPolicy":"LRU"}}`},
			{name: "patch stored ARC's size, off (ratcheting)", verb: "merge", object: "arc", body: `{"spec":{"sizeMiB":1024}}`, want: `{"spec":{"sizeMiB":1024,"evictionPolicy":"ARC"}}`, wantGen: 2},
			gates(on("ARCEviction")),
			{name: "patch LRU to ARC, on", verb: "merge", body: `{"spec":{"evictionPolicy":"ARC"}}`, want: `{"spec":{"sizeMiB":512,"evictionPolicy":"ARC"}}`, wantGen: 2},
		}},
	{name: "rules: gated maxItems", crd: cacheCRD, steps: []step{
		{name: "create 4 zones, off", verb: "create", body: `{"spec":{"zones":["a","b","c","d"]}}`, wantCode: 422, want: "none"},
		gates(on("ManyZones")),
		{name: "create 4 zones, on", verb: "create", body: `{"spec":{"zones":["a","b","c","d"]}}`, want: `{"spec":{"zones":["a","b","c","d"]}}`},
	}},
	{name: "rules: stricter rule once on, stored value ratcheted", crd: cacheCRD, seedGates: map[string]bool{"StrictKeyPrefix": false},
		seeds: []step{{name: "seed", verb: "create", object: "legacy", body: `{"spec":{"sizeMiB":256,"keyPrefix":"Legacy_Keys"}}`}},
		gates: on("StrictKeyPrefix"),
		steps: []step{
			{name: "create Legacy_Keys, on", verb: "create", body: `{"spec":{"keyPrefix":"Legacy_Keys"}}`, wantCode: 422, want: "none"},
			{name: "create cache/, on", verb: "create", body: `{"spec":{"keyPrefix":"cache/"}}`, want: `{"spec":{"keyPrefix":"cache/"}}`},
			{name: "patch stored object's size, on (ratcheting)", verb: "merge", object: "legacy", body: `{"spec":{"sizeMiB":512}}`, want: `{"spec":{"sizeMiB":512,"keyPrefix":"Legacy_Keys"}}`, wantGen: 2},
		}},

	// testdata/widget-crd.yaml: the status and scale subresources.
	{name: "status subresource, gate off: gated status field dropped", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{
			{name: "patch status", verb: "merge", sub: "status", body: `{"status":{"ready":1,"phase":"Running"}}`, want: `{"status":{"phase":"Running"}}`, wantGen: 1, wantWarnings: []string{readyDropped}},
		}},
	{name: "status subresource, gate off: stored status value kept", crd: widgetCRD, seedGates: noTier,
		seeds: []step{
			{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`},
			{name: "seed status", verb: "merge", sub: "status", body: `{"status":{"ready":2,"phase":"Pending"}}`},
		},
		steps: []step{
			{name: "patch status", verb: "merge", sub: "status", body: `{"status":{"ready":5,"phase":"Running"}}`, want: `{"status":{"ready":2,"phase":"Running"}}`, wantGen: 1, wantWarnings: []string{readyKept}},
			{name: "update status", verb: "update", sub: "status", body: `{"status":{"phase":"Done"}}`, want: `{"status":{"ready":2,"phase":"Done"}}`, wantGen: 1, wantWarnings: []string{readyKept}},
			{name: "write status through the main resource", verb: "merge", body: `{"status":{"ready":9,"phase":"Main"}}`, want: `{"status":{"ready":2,"phase":"Done"}}`, wantGen: 1},
		}},
	{name: "scale subresource, gate off: stored replicas kept", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a","replicas":2}}`}},
		steps: []step{
			{name: "read scale", verb: "get", sub: "scale", want: `{"spec":{"image":"a","replicas":2}}`},
			{name: "patch scale", verb: "merge", sub: "scale", body: `{"spec":{"replicas":5}}`, want: `{"spec":{"image":"a","replicas":2}}`, wantGen: 1, wantWarnings: []string{widgetReplicasKept}},
			{name: "update scale", verb: "update", sub: "scale", body: `{"spec":{"replicas":6}}`, want: `{"spec":{"image":"a","replicas":2}}`, wantGen: 1, wantWarnings: []string{widgetReplicasKept}},
		}},
	{name: "scale subresource, gate off: no stored replicas", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a"}}`}},
		steps: []step{
			{name: "patch scale", verb: "merge", sub: "scale", body: `{"spec":{"replicas":3}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1},
		}},
	{name: "scale subresource, gate on: replicas applied", crd: widgetCRD, gates: on("WidgetReplicasGate"), seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: `{"spec":{"image":"a","replicas":2}}`}},
		steps: []step{
			{name: "patch scale", verb: "merge", sub: "scale", body: `{"spec":{"replicas":5}}`, want: `{"spec":{"image":"a","replicas":5}}`, wantGen: 2, wantWarnings: noWarnings},
		}},

	// [*] in a list without keys: StepRetryGate alpha off.
	{name: "list without keys: create, gate off: dropped from every item", crd: widgetCRD, steps: []step{
		{name: "create", verb: "create", body: `{"spec":{"steps":[{"name":"a","retry":1},{"name":"b"},{"name":"c","retry":2}]}}`,
			want: `{"spec":{"steps":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`, wantGen: 1, wantWarnings: []string{retryDropped}},
	}},
	{name: "list without keys: reordered items keep their values", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: widgetSteps}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"image":"a","steps":[{"name":"c"},{"name":"b"},{"name":"a"}]}}`,
				want: `{"spec":{"image":"a","steps":[{"name":"c"},{"name":"b","retry":2},{"name":"a","retry":1}]}}`, wantGen: 2, wantWarnings: []string{retryKept}},
		}},
	{name: "list without keys: inserted item gets no value", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: widgetSteps}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"image":"a","steps":[{"name":"a","retry":1},{"name":"x","retry":9},{"name":"b","retry":2},{"name":"c"}]}}`,
				want: `{"spec":{"image":"a","steps":[{"name":"a","retry":1},{"name":"x"},{"name":"b","retry":2},{"name":"c"}]}}`, wantGen: 2, wantWarnings: []string{retryDropped}},
		}},
	{name: "list without keys: removed item takes its value", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: widgetSteps}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"image":"a","steps":[{"name":"a"},{"name":"c"}]}}`,
				want: `{"spec":{"image":"a","steps":[{"name":"a","retry":1},{"name":"c"}]}}`, wantGen: 2, wantWarnings: []string{retryKept}},
		}},
	{name: "list without keys: item edited in place keeps its value", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: widgetSteps}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"image":"a","steps":[{"name":"a2"},{"name":"b"},{"name":"c"}]}}`,
				want: `{"spec":{"image":"a","steps":[{"name":"a2","retry":1},{"name":"b","retry":2},{"name":"c"}]}}`, wantGen: 2, wantWarnings: []string{retryKept}},
		}},
	{name: "list without keys: reorder and edit at once: refused", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: widgetSteps}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"image":"a","steps":[{"name":"c"},{"name":"b2"},{"name":"a"}]}}`, wantCode: 422, want: widgetSteps, wantGen: 1},
		}},
	{name: "list without keys: values sent unchanged", crd: widgetCRD, seedGates: noTier,
		seeds: []step{{name: "seed", verb: "create", body: widgetSteps}},
		steps: []step{
			{name: "update", verb: "update", body: `{"spec":{"image":"b","steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c"}]}}`,
				want: `{"spec":{"image":"b","steps":[{"name":"a","retry":1},{"name":"b","retry":2},{"name":"c"}]}}`, wantGen: 2, wantWarnings: noWarnings},
		}},

	// A gated field with a schema default, gated by a mark: TierGate alpha off.
	{name: "gated default, gate off: not applied; value dropped", crd: widgetCRD, steps: []step{
		{name: "create without tier", verb: "create", object: "plain", body: `{"spec":{"image":"a"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1, wantWarnings: noWarnings},
		{name: "create with tier", verb: "create", body: `{"spec":{"image":"a","tier":"gold"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1, wantWarnings: []string{tierDropped}},
	}},
	{name: "gated default, gate on: applied on create", crd: widgetCRD, gates: on("TierGate"), steps: []step{
		{name: "create without tier", verb: "create", body: `{"spec":{"image":"a"}}`, want: `{"spec":{"image":"a","tier":"standard"}}`, wantGen: 1, wantWarnings: noWarnings},
	}},
	{name: "gated default, gate turned on: objects stored while off", crd: widgetCRD, steps: []step{
		{name: "create, off", verb: "create", body: `{"spec":{"image":"a"}}`, want: `{"spec":{"image":"a"}}`, wantGen: 1},
		gates(on("TierGate")),
		{name: "read, on", verb: "get", want: `{"spec":{"image":"a","tier":"standard"}}`, wantGen: 1},
		{name: "patch image, on", verb: "merge", body: `{"spec":{"image":"b"}}`, want: `{"spec":{"image":"b","tier":"standard"}}`, wantGen: 2},
	}},

	// Whether a gate is enabled (the KEP's first integration test): testdata/gadget-crd.yaml
	// has one field per gate; a create with every field shows which gates are enabled.
	{name: "gate states: as declared, by stage and default", crd: gadgetCRD, steps: []step{
		{name: "create", verb: "create", body: gadgetAll, want: gadget("beta", "stable", "deprecated"), wantGen: 1},
	}},
	{name: "gate states: enabled decides over default and stage; unset, the default again", crd: gadgetCRD, steps: []step{
		gates(map[string]bool{"AlphaDefaultGate": true, "BetaGate": false, "BetaDefaultOffGate": true, "DeprecatedGate": false}),
		{name: "create, enabled set", verb: "create", body: gadgetAll, want: gadget("alphaDefault", "betaDefaultOff", "stable", "anyOf"), wantGen: 1},
		{name: "enabled unset", verb: "gatedefs", edits: []gateEdit{
			{gate: "AlphaDefaultGate", field: "enabled"}, {gate: "BetaGate", field: "enabled"},
			{gate: "BetaDefaultOffGate", field: "enabled"}, {gate: "DeprecatedGate", field: "enabled"},
		}, gates: map[string]bool{"AlphaDefaultGate": false, "BetaGate": true, "BetaDefaultOffGate": false, "DeprecatedGate": true}},
		{name: "create, enabled unset", verb: "create", object: "again", body: gadgetAll, want: gadget("beta", "stable", "deprecated"), wantGen: 1},
		{name: "restore", verb: "gatedefs", restore: true},
	}},
	{name: "gate states: the author's default decides while enabled is unset", crd: gadgetCRD, steps: []step{
		{name: "defaults changed", verb: "gatedefs", edits: []gateEdit{
			{gate: "BetaGate", field: "default", value: false}, {gate: "BetaDefaultOffGate", field: "default", value: true},
			{gate: "DeprecatedGate", field: "default", value: false},
		}, gates: map[string]bool{"BetaGate": false, "BetaDefaultOffGate": true, "DeprecatedGate": false}},
		{name: "create", verb: "create", body: gadgetAll, want: gadget("betaDefaultOff", "stable"), wantGen: 1},
		{name: "restore", verb: "gatedefs", restore: true},
	}},
	{name: "gate states: requires: on only while every required gate is", crd: gadgetCRD, steps: []step{
		gates(on("AlphaGate")),
		{name: "create, required gate on", verb: "create", body: gadgetAll, want: gadget("alpha", "beta", "stable", "deprecated", "needsAlpha", "anyOf"), wantGen: 1},
		gates(map[string]bool{"NeedsAlphaGate": false}),
		{name: "create, own state off", verb: "create", object: "own-off", body: gadgetAll, want: gadget("alpha", "beta", "stable", "deprecated", "anyOf"), wantGen: 1},
		gates(map[string]bool{"AlphaGate": false, "NeedsAlphaGate": true}),
		{name: "create, required gate off", verb: "create", object: "required-off", body: gadgetAll, want: gadget("beta", "stable", "deprecated"), wantGen: 1},
	}},
	{name: "gate states: requiresAnyOf: on while one of the gates is", crd: gadgetCRD, steps: []step{
		gates(on("AlphaDefaultGate")),
		{name: "create, second gate on", verb: "create", body: gadgetAll, want: gadget("alphaDefault", "beta", "stable", "deprecated", "anyOf"), wantGen: 1},
		gates(map[string]bool{"AlphaDefaultGate": false}),
		{name: "create, none on", verb: "create", object: "none-on", body: gadgetAll, want: gadget("beta", "stable", "deprecated"), wantGen: 1},
	}},
	{name: "gate states: a stable gate cannot be disabled", crd: gadgetCRD, steps: []step{
		{name: "disable the stable gate", verb: "gatedefs", edits: []gateEdit{{gate: "StableGate", field: "enabled", value: false}},
			refusal: "[4].enabled: a stable gate is locked on and cannot be disabled"},
		{name: "create", verb: "create", body: gadgetAll, want: gadget("beta", "stable", "deprecated"), wantGen: 1},
	}},
	{name: "gate states: a default the stage forbids is refused", crd: gadgetCRD, steps: []step{
		{name: "alpha default true", verb: "gatedefs", edits: []gateEdit{{gate: "AlphaGate", field: "default", value: true}},
			refusal: "[0].default: must be false for an alpha gate"},
		{name: "stable default false", verb: "gatedefs", edits: []gateEdit{{gate: "StableGate", field: "default", value: false}},
			refusal: "[4].default: must be true for a stable gate"},
		{name: "deprecated default unset", verb: "gatedefs", edits: []gateEdit{{gate: "DeprecatedGate", field: "default"}},
			refusal: "[5].default: a deprecated gate must set its default"},
		{name: "warning on a beta gate", verb: "gatedefs", edits: []gateEdit{{gate: "BetaGate", field: "fieldDeprecationWarning", value: "use .spec.other"}},
			refusal: "[2].fieldDeprecationWarning: may only be set when preRelease is deprecated"},
	}},
}

// gadgetAll is a gadget with every gated field of testdata/gadget-crd.yaml set.
var gadgetAll = gadget("alpha", "alphaDefault", "beta", "betaDefaultOff", "stable", "deprecated", "needsAlpha", "anyOf")

// gadget is a gadget's spec with a name and the given fields set to "x".
func gadget(fields ...string) string {
	spec := map[string]string{"name": "g"}
	for _, f := range fields {
		spec[f] = "x"
	}
	b, _ := json.Marshal(map[string]interface{}{"spec": spec})
	return string(b)
}
