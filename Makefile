# The fork of k8s.io/apiextensions-apiserver that implements KEP-2608 (CRD field feature gates).
#
# `make` materializes the tree (pinned upstream module + the fork's patches), runs code
# generation and builds. Every step is guarded by a stamp, so a warm `make` does nothing.
# See README.md for the layout and the workflow.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -o errexit -o nounset -o pipefail -c
.DEFAULT_GOAL := all

OUT     := _output
STAMPS  := $(OUT)/stamps
STAGING := staging/k8s.io/apiextensions-apiserver

# Inputs of each step. The lists are read when make starts; on a fresh clone they hold
# only the fork's own files, and the stamps order the steps.
STAGING_FILES := $(shell find $(STAGING) -type f 2>/dev/null)
FORK_SCRIPTS  := $(wildcard hack/fork/*.sh)
# Code generation reads the API packages (and pkg/apiserver/schema, for deepcopy).
API_PACKAGES  := pkg/apis/apiextensions pkg/apis/apiextensions/v1 pkg/apis/apiextensions/v1beta1 pkg/apiserver/schema
API_SOURCES   := $(filter-out %_test.go %/generated.pb.go,$(filter-out $(foreach d,$(API_PACKAGES),$(d)/zz_generated.%),\
                   $(wildcard $(addsuffix /*.go,$(API_PACKAGES))))) \
                 $(wildcard hack/fork/api-rules/*)
# Nested modules (controllers/, examples/feature-gates-controller/) are not part of the binaries.
GO_SOURCES    := $(shell find . -path ./_output -prune -o -path ./.git -prune -o -path ./controllers -prune \
                   -o -path ./examples/feature-gates-controller -prune -o -name '*.go' ! -name '*_test.go' -print 2>/dev/null)

# Tests: everything the fork adds or patches lives under ./pkg, and upstream's unit suite
# for ./pkg takes under two minutes, so CI runs all of it.
UNIT_PKGS ?= ./pkg/... ./hack/fork/benchratio/... ./hack/fork/docs/... ./test/benche2e/... ./test/featuregatetest/... ./cmd/featuregate-gen/...
# Integration tests (upstream's suite and the fork's) run the in-process apiextensions server
# against a real etcd, which each test binary starts itself (embedded go.etcd.io/etcd/server/v3)
# unless KUBE_INTEGRATION_ETCD_URL names one. Upstream's suite takes about 8 minutes here,
# so the default 10-minute go test timeout is raised. Two upstream conversion tests flake
# upstream too (kubernetes/kubernetes#141909); hack/fork/test-integration.sh reruns only tests listed
# in hack/fork/known-flakes.txt, and only when nothing else failed.
INTEGRATION_RUN     ?= .
INTEGRATION_TIMEOUT ?= 30m
GOTESTFLAGS ?=
FUZZTIME ?= 1m
# make fuzz-writes: how many writes the model-based write fuzzer sends.
FUZZ_WRITES ?= 100000
# make bench: rounds of the micro benchmarks (each round runs every setup once, in turn).
BENCH_ROUNDS ?= 5
# make bench-e2e / bench-rss: extra flags of test/benche2e (go run ./test/benche2e -help).
BENCH_E2E_FLAGS ?=

# Binaries: our kube-apiserver (k8s.io/kubernetes v1.37.1 compiled against the fork), etcd
# (go.etcd.io/etcd/server/v3), kubectl (k8s.io/kubectl v0.37.1), the local-up runner and the
# kubectl plugin kubectl-featuregates (put _output/bin on PATH: `kubectl featuregates`) and
# featuregate-gen (markers in Go API types -> spec.customFeatureGates in CRD manifests).
# All statically linked. `go build` is incremental; the touch keeps a warm make a no-op.
BIN          := $(OUT)/bin
KUBE_VERSION := v1.37.1
BINARIES     := $(BIN)/kube-apiserver $(BIN)/etcd $(BIN)/kubectl $(BIN)/local-up $(BIN)/kubectl-featuregates \
                $(BIN)/featuregate-gen
GO_STATIC    := CGO_ENABLED=0 go build -trimpath
VERSION_LDFLAGS = -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 \
                  -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.gitVersion=$(1)

# make run: ports on 127.0.0.1 (none is a standard etcd or kube-apiserver port).
ETCD_PORT      ?= 22379
ETCD_PEER_PORT ?= 22380
APISERVER_PORT ?= 26443
# make run-stock: the stock kube-apiserver, on ports of its own so that both can run at once.
STOCK_ETCD_PORT      ?= 23379
STOCK_ETCD_PEER_PORT ?= 23380
STOCK_APISERVER_PORT ?= 27443

# The stock kube-apiserver v1.37.1 (k8s.io/kubernetes with the stock apiextensions-apiserver,
# from hack/kind/node's module), as make test-gateway-api and make test-openshift-api build it.
STOCK_APISERVER := $(OUT)/stock/kube-apiserver
STOCK_LDFLAGS   := -s -w $(foreach p,k8s.io/component-base/version k8s.io/client-go/pkg/version,-X $(p).gitVersion=$(KUBE_VERSION) -X $(p).gitMajor=1 -X $(p).gitMinor=37 -X $(p).gitTreeState=clean)

# A built file takes the time its build started, not the time it ended: a source saved while
# the compiler runs is then newer than the file, and the next make builds it again.
BUILD_STARTS = @mkdir -p $(@D) && touch $@.started
BUILD_DONE   = @touch -r $@.started $@ && rm -f $@.started

.PHONY: all
all: $(STAMPS)/build $(BINARIES) ## Materialize, generate and build everything (a no-op when nothing changed).

$(STAMPS)/materialize: $(STAGING_FILES) hack/fork/lib.sh hack/fork/materialize.sh go.mod
	hack/fork/materialize.sh
	@mkdir -p $(@D) && touch $@

$(STAMPS)/codegen: $(STAMPS)/materialize $(API_SOURCES) hack/fork/codegen.sh hack/fork/protobuf.sh
	hack/fork/codegen.sh
	@mkdir -p $(@D) && touch $@

$(STAMPS)/build: $(STAMPS)/codegen $(GO_SOURCES) go.mod go.sum
	$(BUILD_STARTS)
	go build ./...
	$(BUILD_DONE)

$(BIN)/kube-apiserver: $(STAMPS)/codegen $(GO_SOURCES) go.mod go.sum
	$(BUILD_STARTS)
	$(GO_STATIC) -ldflags '-s -w $(call VERSION_LDFLAGS,$(KUBE_VERSION)+kep2608)' -o $@ ./cmd/kube-apiserver
	$(BUILD_DONE)

$(BIN)/kubectl: $(STAMPS)/codegen go.mod go.sum cmd/kubectl/main.go
	$(BUILD_STARTS)
	$(GO_STATIC) -ldflags '-s -w $(call VERSION_LDFLAGS,$(KUBE_VERSION))' -o $@ ./cmd/kubectl
	$(BUILD_DONE)

$(BIN)/etcd: go.mod go.sum cmd/etcd/main.go
	$(BUILD_STARTS)
	$(GO_STATIC) -ldflags '-s -w' -o $@ ./cmd/etcd
	$(BUILD_DONE)

$(BIN)/local-up: $(STAMPS)/codegen go.mod go.sum $(wildcard cmd/local-up/*.go test/localup/*.go)
	$(BUILD_STARTS)
	$(GO_STATIC) -o $@ ./cmd/local-up
	$(BUILD_DONE)

# featuregate-gen reads API types with sigs.k8s.io/controller-tools (markers, loader).
$(BIN)/featuregate-gen: $(STAMPS)/codegen go.mod go.sum $(wildcard cmd/featuregate-gen/*.go pkg/generators/*/*.go pkg/buildinfo/*.go)
	$(BUILD_STARTS)
	$(GO_STATIC) -ldflags '-s -w' -o $@ ./cmd/featuregate-gen
	$(BUILD_DONE)

# The plugin also compiles the server's gate rules and the generated clientset; GO_SOURCES
# covers them (and every other non-test Go file, as for kube-apiserver).
$(BIN)/kubectl-featuregates: $(STAMPS)/codegen $(GO_SOURCES) go.mod go.sum
	$(BUILD_STARTS)
	$(GO_STATIC) -ldflags '-s -w' -o $@ ./cmd/kubectl-featuregates
	$(BUILD_DONE)

.PHONY: binaries kube-apiserver kubectl etcd kubectl-featuregates featuregate-gen
binaries: $(BINARIES) ## Build kube-apiserver, etcd, kubectl, local-up, kubectl-featuregates and featuregate-gen into _output/bin.
kube-apiserver: $(BIN)/kube-apiserver ## Build our kube-apiserver (static) into _output/bin.
kubectl: $(BIN)/kubectl ## Build kubectl from k8s.io/kubectl v0.37.1 into _output/bin.
etcd: $(BIN)/etcd ## Build etcd from go.etcd.io/etcd/server/v3 into _output/bin.
kubectl-featuregates: $(BIN)/kubectl-featuregates ## Build the kubectl plugin (kubectl featuregates) into _output/bin.
featuregate-gen: $(BIN)/featuregate-gen ## Build featuregate-gen into _output/bin: markers (Go types -> gated CRDs), channels, openshift (feature sets -> one gated CRD), policies (a stock server).

.PHONY: run
run: $(BINARIES) ## Run a local control plane (etcd + our kube-apiserver, feature on) until Ctrl-C.
	exec $(BIN)/local-up --dir $(OUT)/local-up --bin-dir $(BIN) \
	  --etcd-port $(ETCD_PORT) --etcd-peer-port $(ETCD_PEER_PORT) --port $(APISERVER_PORT)

.PHONY: run-stock
run-stock: $(STOCK_APISERVER) $(BIN)/etcd $(BIN)/kubectl $(BIN)/local-up ## Run etcd + the stock kube-apiserver v1.37.1 as make run does (_output/local-up-stock/kubeconfig) until Ctrl-C.
	exec $(BIN)/local-up --dir $(OUT)/local-up-stock --bin-dir $(BIN) --kube-apiserver $(STOCK_APISERVER) --feature-gates '' \
	  --etcd-port $(STOCK_ETCD_PORT) --etcd-peer-port $(STOCK_ETCD_PEER_PORT) --port $(STOCK_APISERVER_PORT)

$(STOCK_APISERVER): hack/kind/node/go.mod hack/kind/node/go.sum
	@mkdir -p $(@D)
	cd hack/kind/node && CGO_ENABLED=0 go build -trimpath -ldflags '$(STOCK_LDFLAGS)' -o $(abspath $@) k8s.io/kubernetes/cmd/kube-apiserver

.PHONY: materialize
materialize: $(STAMPS)/materialize ## Lay the pinned upstream module into the tree and apply the patches.

.PHONY: codegen
codegen: $(STAMPS)/codegen ## Run every code generator.

.PHONY: update-patches
update-patches: ## Rewrite the patch series from the edits to upstream files in the working tree.
	hack/fork/update-patches.sh
	@touch $(STAMPS)/materialize 2>/dev/null || true

.PHONY: verify-patches
verify-patches: ## Fast, read-only: every upstream file is exactly pristine + its patch.
	hack/fork/verify-patches.sh

.PHONY: verify
verify: $(STAMPS)/build $(BIN)/kubectl-featuregates $(BIN)/featuregate-gen ## Patches, code generation, tracked files, gofmt, go vet; the known-flake retry rules; the docs' links, anchors and make targets, and the CLI reference against --help.
	hack/fork/verify.sh
	hack/fork/verify-flake-retry.sh
	go run ./hack/fork/docs check $$(git ls-files '*.md')
	go run ./hack/fork/docs cli $(BIN)

.PHONY: update-docs
update-docs: $(BIN)/kubectl-featuregates $(BIN)/featuregate-gen ## Write the CLI reference (docs/reference/kubectl-featuregates.md, featuregate-gen.md) from the tools' --help.
	go run ./hack/fork/docs cli --write $(BIN)

.PHONY: test-unit
test-unit: $(STAMPS)/build ## Unit tests: the fork's packages and upstream's unit suite under ./pkg; featuregate-gen openshift also on OPENSHIFT_API_DIR.
	$(if $(wildcard $(OPENSHIFT_API_DIR)/payload-manifests),OPENSHIFT_API_DIR='$(OPENSHIFT_API_DIR)') go test $(GOTESTFLAGS) $(UNIT_PKGS)

.PHONY: test-integration
test-integration: $(STAMPS)/build ## Integration tests, upstream's and the fork's (real etcd, in-process server). INTEGRATION_RUN=^TestFieldGates for the fork's only.
	hack/fork/test-integration.sh '$(INTEGRATION_RUN)' $(INTEGRATION_TIMEOUT) $(GOTESTFLAGS) -- ./test/integration/...

.PHONY: test-upstream
test-upstream: $(STAMPS)/build ## Upstream's own unit (./pkg/...) and integration (./test/integration/...) suites on the fork.
	go test $(GOTESTFLAGS) -timeout $(INTEGRATION_TIMEOUT) ./pkg/... ./test/integration/...

# make release VERSION=v0.1.0: RELEASE_BASE_URL is where the archives will be published (the
# krew manifest names them there); RELEASE_APISERVER_ARCHES the kube-apiserver's (amd64).
# VERSION reaches the scripts through the environment (make exports a variable set on its
# command line), never through the recipe's shell text.
.PHONY: release
release: $(STAMPS)/codegen ## Release artifacts in _output/release/VERSION (VERSION=v0.1.0): the plugin and featuregate-gen for linux/darwin amd64/arm64, our kube-apiserver and its container image, a krew manifest, SHA256SUMS; offline, the same bytes every time.
	hack/fork/release.sh

.PHONY: test-release
test-release: $(STAMPS)/codegen $(BIN)/etcd $(BIN)/kubectl $(BIN)/local-up ## make release twice (same bytes), krew's validator on the manifest, krew install from the archive offline, the plugin on the release's kube-apiserver. Not in make test (about 10 minutes).
	hack/fork/test-release.sh

.PHONY: release-kind-node
release-kind-node: kind-node-image ## After make release VERSION=...: add the kind node image running the release's kube-apiserver image (kind-node_VERSION_linux_amd64.tar.gz) and its kind-cluster.yaml. Not byte-reproducible.
	KIND_NODE_IMAGE=$(KIND_NODE_IMAGE_OFFLINE) hack/fork/release-kind-node.sh

.PHONY: test-release-kind
test-release-kind: $(STAMPS)/codegen kind-node-image ## The release's kube-apiserver image and kind node image: docker load, kind create cluster from the release's files, kind load; the pod runs the image and gates work (about 3 minutes once the node image is built).
	KIND_NODE_IMAGE=$(KIND_NODE_IMAGE_OFFLINE) hack/fork/test-release-kind.sh

.PHONY: bench
bench: $(STAMPS)/build ## Micro benchmarks (strategy, validation, index memory): ratios against upstream in the same run.
	hack/fork/bench.sh $(BENCH_ROUNDS) $(OUT)/bench

.PHONY: bench-e2e
bench-e2e: $(BINARIES) $(STOCK_APISERVER) ## End-to-end write benchmark: ours with CRDFieldLevelVersioning on (A) vs off (B); then upstream vs ours vs stock+policies at 0, 5 and 50 gates.
	@mkdir -p $(OUT)/bench
	go run ./test/benche2e -bin-dir $(BIN) -stock-apiserver $(STOCK_APISERVER) -out $(OUT)/bench/e2e-report.md $(BENCH_E2E_FLAGS)

UPSTREAM_PATCH ?= hack/upstream/apiserver-params-from-content.patch
.PHONY: bench-e2e-upstream-patch
bench-e2e-upstream-patch: $(BINARIES) ## bench-e2e's comparison at 50 gates, 3 rounds, on a stock kube-apiserver built with UPSTREAM_PATCH, a change we propose to k8s.io/apiserver (performance.md).
	STOCK_LDFLAGS='$(STOCK_LDFLAGS)' hack/upstream/build-stock-apiserver.sh $(UPSTREAM_PATCH) $(OUT)/stock-patched/kube-apiserver
	@mkdir -p $(OUT)/bench
	go run ./test/benche2e -bin-dir $(BIN) -stock-apiserver $(OUT)/stock-patched/kube-apiserver -rounds 0 -compare-rounds 3 -compare-gates 50 \
	  -out $(OUT)/bench/e2e-upstream-patch-report.md $(BENCH_E2E_FLAGS)

.PHONY: bench-rss
bench-rss: $(BINARIES) ## kube-apiserver memory with 1000 CRDs x 50 gates vs 1000 CRDs without gates (BENCH_E2E_FLAGS=-crds=200 for less).
	@mkdir -p $(OUT)/bench
	go run ./test/benche2e -bin-dir $(BIN) -mode rss -out $(OUT)/bench/rss-report.md $(BENCH_E2E_FLAGS)

.PHONY: test-e2e
test-e2e: $(BINARIES) $(STOCK_APISERVER) ## End to end: our etcd + kube-apiserver binaries driven with our kubectl (and make run-stock's); the kind recipe, offline.
	E2E_BIN_DIR=$(CURDIR)/$(BIN) E2E_STOCK_APISERVER=$(abspath $(STOCK_APISERVER)) go test $(GOTESTFLAGS) ./test/e2e/... ./hack/kind/...

.PHONY: test-stock-policies
test-stock-policies: $(STOCK_APISERVER) $(BINARIES) ## KEP-2608's write matrix on ours vs the stock kube-apiserver with featuregate-gen policies' output; _output/stock-policies/report.md (STOCK_POLICIES_REPORT=... for another path).
	STOCK_POLICIES_BIN_DIR=$(CURDIR)/$(BIN) STOCK_POLICIES_APISERVER=$(abspath $(STOCK_APISERVER)) \
	  go test ./test/stockpolicies -count=1 -timeout 20m -v

# envtest assets: a directory that controller-runtime's envtest takes as KUBEBUILDER_ASSETS,
# as it takes the one setup-envtest prepares. kube-apiserver there is hack/envtest/kube-apiserver.sh,
# which runs our server (kube-apiserver.real) with CRDFieldLevelVersioning on before the
# caller's flags. From another project's Makefile (see examples/feature-gates-controller/README.md):
#   KUBEBUILDER_ASSETS ?= $(shell $(MAKE) -s --no-print-directory -C <this repo> envtest-assets-path)
ENVTEST_ASSETS_DIR ?= $(OUT)/envtest-assets
ENVTEST_ASSETS     := $(addprefix $(ENVTEST_ASSETS_DIR)/,kube-apiserver kube-apiserver.real etcd kubectl)
# Nested modules whose tests run on the envtest assets (each has its own go.mod).
CONTROLLER_MODULES ?= controllers examples/feature-gates-controller test/envtest-upstream

$(ENVTEST_ASSETS_DIR)/kube-apiserver: hack/envtest/kube-apiserver.sh
	@mkdir -p $(@D) && install -m 0755 $< $@
$(ENVTEST_ASSETS_DIR)/kube-apiserver.real: $(BIN)/kube-apiserver
	@mkdir -p $(@D) && install -m 0755 $< $@
$(ENVTEST_ASSETS_DIR)/etcd $(ENVTEST_ASSETS_DIR)/kubectl: $(ENVTEST_ASSETS_DIR)/%: $(BIN)/%
	@mkdir -p $(@D) && install -m 0755 $< $@

.PHONY: envtest-assets
envtest-assets: $(ENVTEST_ASSETS) ## envtest's KUBEBUILDER_ASSETS (kube-apiserver with CRDFieldLevelVersioning on, etcd, kubectl); prints the path.
	@echo "KUBEBUILDER_ASSETS=$(abspath $(ENVTEST_ASSETS_DIR))"

.PHONY: envtest-assets-path
envtest-assets-path: ## Build the envtest assets quietly (output to stderr) and print only their path, for $(shell ...).
	@$(MAKE) --no-print-directory envtest-assets >&2
	@echo "$(abspath $(ENVTEST_ASSETS_DIR))"

.PHONY: test-controllers
test-controllers: $(STAMPS)/codegen $(ENVTEST_ASSETS) $(STOCK_APISERVER) $(BIN)/featuregate-gen ## The nested modules' tests (controllers/, examples/feature-gates-controller) on the envtest assets; the tracker's policies backend on the stock kube-apiserver.
	@for m in $(CONTROLLER_MODULES); do \
	  echo "[test-controllers] $$m"; \
	  (cd $$m && go vet ./... && KUBEBUILDER_ASSETS=$(abspath $(ENVTEST_ASSETS_DIR)) \
	    STOCK_KUBE_APISERVER=$(abspath $(STOCK_APISERVER)) FEATUREGATE_GEN=$(abspath $(BIN)/featuregate-gen) \
	    go test $(GOTESTFLAGS) ./...) || exit 1; \
	done

.PHONY: kind-up
kind-up: $(BIN)/kube-apiserver ## Create a kind cluster running our kube-apiserver (needs kind and Docker; KIND_NODE_IMAGE=... for another node image).
	hack/kind/up.sh $(if $(KIND_NODE_IMAGE),--image $(KIND_NODE_IMAGE))

# kind with a node image built here (Debian's packages and the Go module proxy only; see
# hack/kind/node/build.sh). The recipe stays hack/kind/cluster.yaml with kindest/node:v1.37.1;
# these targets pass the image built here with --image.
KIND_NODE_IMAGE_OFFLINE ?= kep2608.local/kind-node:v1.37.1

.PHONY: kind-node-image
kind-node-image: $(BIN)/etcd ## Build the kind node image offline (kubelet, kubeadm, containerd, all control-plane images preloaded) and kind, e2e.test.
	KIND_NODE_IMAGE=$(KIND_NODE_IMAGE_OFFLINE) hack/kind/node/build.sh

.PHONY: test-kind
test-kind: kind-node-image $(BIN)/kube-apiserver $(BIN)/kubectl $(BIN)/kubectl-featuregates ## The kind recipe in a real cluster: README flow, a conversion webhook pod; deletes the cluster.
	KIND_NODE_IMAGE=$(KIND_NODE_IMAGE_OFFLINE) hack/kind/test-kind.sh

.PHONY: test-kind-e2e
test-kind-e2e: $(BIN)/etcd $(BIN)/kube-apiserver ## Kubernetes' e2e specs for CRDs on kind, stock kube-apiserver vs ours: _output/kind-e2e/table.md.
	KIND_NODE_IMAGE=$(KIND_NODE_IMAGE_OFFLINE) BUILD_E2E_TEST=1 hack/kind/node/build.sh
	KIND_NODE_IMAGE=$(KIND_NODE_IMAGE_OFFLINE) hack/kind/e2e.sh

.PHONY: test
test: verify test-unit test-integration test-e2e test-controllers test-kind test-release-kind test-gateway-api test-stock-policies ## Everything CI checks (.ci/run calls exactly this).

.PHONY: test-kind-ha
test-kind-ha: kind-node-image $(BIN)/kube-apiserver ## Three control-plane nodes in kind: stock -> ours -> stock under load, gates with a stock server, propagation; _output/kind-ha/report.md. Not in make test (about 15 minutes).
	hack/kind/ha/test-kind-ha.sh

.PHONY: test-gateway-api
test-gateway-api: $(BIN)/kube-apiserver $(BIN)/etcd $(BIN)/kubectl ## Gateway API v1.4.0 and v1.6.3: examples, invalid examples and CEL suite on a stock kube-apiserver with each channel vs ours with the gated set vs stock + its generated policies, and the per-gate judge on ours and on stock + policies (GATEWAY_API_VERSION=v1.3.0 for one other release).
	hack/fork/test-gateway-api.sh

# Every Gateway API release from v1.0.0 to the newest the module proxy serves to this Go,
# merged without --gates (gatewayAPIReleases in pkg/generators/channels, whose test checks this list), judged one by one.
GATEWAY_API_RELEASES ?= v1.0.0 v1.1.0 v1.1.1 v1.2.0 v1.2.1 v1.3.0 v1.4.0 v1.4.1 v1.5.0 v1.5.1 v1.6.0 v1.6.1 v1.6.2 v1.6.3

.PHONY: test-gateway-api-releases
test-gateway-api-releases: $(BIN)/kube-apiserver $(BIN)/etcd $(BIN)/kubectl ## make test-gateway-api on every Gateway API release from v1.0.0 (GATEWAY_API_RELEASES); not in make test (about 1.5 hours on 2 cores).
	GATEWAY_API_VERSIONS='$(GATEWAY_API_RELEASES)' hack/fork/test-gateway-api.sh

# OpenShift's API test suites: a folder laid out like openshift/api (a full clone works too).
# OPENSHIFT_API_GROUPS="example route" runs some groups only.
OPENSHIFT_API_DIR ?= $(abspath $(CURDIR)/../shared/third_party/openshift-api)

.PHONY: test-openshift-api
test-openshift-api: $(BIN)/kube-apiserver $(BIN)/etcd $(BIN)/kubectl $(BIN)/kubectl-featuregates $(BIN)/featuregate-gen ## OpenShift's API test suites (OPENSHIFT_API_DIR): stock kube-apiserver with each feature set's CRD vs ours with the merged CRD and the feature set's gate states; the undo test.
	OPENSHIFT_API_DIR='$(OPENSHIFT_API_DIR)' hack/fork/test-openshift-api.sh

.PHONY: gateway-api-crds
gateway-api-crds: ## Regenerate examples/gateway-api/crds: Gateway API v1.4.0's two channels as one gated CRD set (featuregate-gen channels).
	hack/fork/gateway-api-crds.sh

.PHONY: fuzz
fuzz: $(STAMPS)/build ## Run every fuzz target for FUZZTIME each (default 1m).
	hack/fork/fuzz.sh $(FUZZTIME)

.PHONY: fuzz-writes
fuzz-writes: $(STAMPS)/build ## The model-based write fuzzer on a real etcd and server: FUZZ_WRITES writes (default 100000; make test runs 300), FUZZ_SEED to replay, FUZZ_KEEP_GOING=1 to count every failure.
	FUZZ_WRITES=$(FUZZ_WRITES) go test $(GOTESTFLAGS) -count=1 -timeout 6h -v -run '^TestFieldGatesWritesAgainstModel$$' ./test/integration/ 2>&1 | grep -vE '^([WIE][0-9]{4} |\{"level")'; exit $${PIPESTATUS[0]}

BOTH_BACKENDS_WRITES ?= 3000
.PHONY: fuzz-both-backends
fuzz-both-backends: $(STOCK_APISERVER) $(BINARIES) ## The differential write fuzzer on our server and stock + policies: BOTH_BACKENDS_WRITES writes (default 3000; make test runs 120), BOTH_BACKENDS_SEED to replay.
	STOCK_POLICIES_BIN_DIR=$(CURDIR)/$(BIN) STOCK_POLICIES_APISERVER=$(abspath $(STOCK_APISERVER)) BOTH_BACKENDS_WRITES=$(BOTH_BACKENDS_WRITES) \
	  go test ./test/stockpolicies -count=1 -timeout 3h -v -run '^TestWritesOnBothBackends$$'

.PHONY: clean
clean: ## Remove build output and stamps (upstream files stay; `git clean -xfd` removes them).
	rm -rf $(OUT)

.PHONY: help
help:
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18
