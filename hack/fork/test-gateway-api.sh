#!/usr/bin/env bash
# make test-gateway-api: Gateway API v1.4.0's examples, invalid examples and CEL suite on a stock
# kube-apiserver v1.37.1 with each channel's CRDs and on ours with examples/gateway-api/crds
# (test/gatewayapi), then the per-gate judge (TestGatewayAPIPerGate: every gate off, each gate
# alone on, every gate on; each example and probe gets from ours the outcome one of the two
# stock channels gives it; about 30 s on 2 cores). The stock binary is built from
# k8s.io/kubernetes in the module hack/kind/node, with the flags of the kind node image, so the
# two builds share the cache.
# GATEWAY_API_VERSION=v1.3.0 tests another release: the test merges its channels itself.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
export GATEWAY_API_VERSION=${GATEWAY_API_VERSION:-v1.4.0}
out=_output/gateway-api/$GATEWAY_API_VERSION
mkdir -p "$out"
stock="$ROOT/_output/stock/kube-apiserver"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v1.37.1 -X $pkg.gitMajor=1 -X $pkg.gitMinor=37 -X $pkg.gitTreeState=clean"
done
log "building the stock kube-apiserver v1.37.1 into $stock"
(cd hack/kind/node && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$stock" k8s.io/kubernetes/cmd/kube-apiserver)
"$stock" --version
E2E_BIN_DIR="$ROOT/_output/bin" GATEWAY_API_STOCK_APISERVER="$stock" GATEWAY_API_OUT="$ROOT/$out" \
  go test -count=1 -timeout 60m -v ./test/gatewayapi/... | tee "$out/test.log" | grep -E '^(=== RUN|--- |PASS|FAIL|ok)|_featuregates_test.go'
log "tables: $out/table.md, $out/per-gate.md"
