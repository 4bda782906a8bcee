#!/usr/bin/env bash
# make test-gateway-api: for each Gateway API release of GATEWAY_API_VERSIONS (default
# "v1.4.0 v1.6.3"), its examples, invalid examples and CEL suite on a stock kube-apiserver
# v1.37.1 with each channel's CRDs and on ours with the gated CRD set (test/gatewayapi), then
# the per-gate judge (TestGatewayAPIPerGate: every gate off, each gate alone on, every gate
# on; each example and probe gets from ours the outcome one of the two stock channels gives
# it, and then the same outcome from the stock kube-apiserver with the set's generated
# admission policies, toggled in the CustomResourceFeatureGates objects). v1.4.0 is the
# committed set, examples/gateway-api/crds; the test merges the channels of any other release
# itself, as `make gateway-api-crds` would. v1.6.3 is the newest release this Go fetches, and its
# experimental channel adds the header value pattern that our server checks as a gated
# keyword; its CEL suite is not in the module the Go module proxy serves (it moved to the
# module sigs.k8s.io/gateway-api/tests), so only its examples, invalid examples and the judge
# run. On 2 cores, once built (2026-11-27, first run on the machine, so the CEL suite was
# compiled in it): v1.4.0 about 10.5 minutes, v1.6.3 about 5 minutes more. The stock binary
# is built from k8s.io/kubernetes in the module hack/kind/node, with the flags of the kind node
# image, so the two builds share the cache.
# GATEWAY_API_VERSION=v1.3.0 tests that release alone; make test-gateway-api-releases every
# release from v1.0.0.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
versions=${GATEWAY_API_VERSIONS:-${GATEWAY_API_VERSION:-v1.4.0 v1.6.3}}
stock="$ROOT/_output/stock/kube-apiserver"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v1.37.1 -X $pkg.gitMajor=1 -X $pkg.gitMinor=37 -X $pkg.gitTreeState=clean"
done
log "building the stock kube-apiserver v1.37.1 into $stock"
(cd hack/kind/node && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$stock" k8s.io/kubernetes/cmd/kube-apiserver)
"$stock" --version
for version in $versions; do
  out=_output/gateway-api/$version
  mkdir -p "$out"
  log "Gateway API $version"
  start=$SECONDS
  GATEWAY_API_VERSION=$version E2E_BIN_DIR="$ROOT/_output/bin" GATEWAY_API_STOCK_APISERVER="$stock" GATEWAY_API_OUT="$ROOT/$out" \
    go test -count=1 -timeout 60m -v ./test/gatewayapi/... | tee "$out/test.log" | grep -E '^(=== RUN|--- |PASS|FAIL|ok)|_featuregates_test.go'
  log "Gateway API $version: $((SECONDS - start)) s; tables: $out/table.md, $out/per-gate.md"
done
