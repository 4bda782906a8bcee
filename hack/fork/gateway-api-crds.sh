#!/usr/bin/env bash
# Writes examples/gateway-api/crds: Gateway API's standard and experimental CRDs of one release
# (from the Go module proxy) merged into one gated CRD set by `featuregate-gen channels`.
# Usage: hack/fork/gateway-api-crds.sh [VERSION] (default: the version of the committed set)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
version=${1:-v1.4.0}
dir=$(module_dir "sigs.k8s.io/gateway-api@$version")/config/crd
log "gateway-api $version: merging $dir/standard and $dir/experimental"
go run ./cmd/featuregate-gen channels --standard "$dir/standard" --experimental "$dir/experimental" \
  --out examples/gateway-api/crds
