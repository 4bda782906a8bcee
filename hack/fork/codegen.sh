#!/usr/bin/env bash
# Runs every code generator the fork needs, all from k8s.io/code-generator at the version
# go.mod pins (and kube-openapi at the version code-generator pins):
#   deepcopy, defaulter, conversion (kube_codegen.sh gen_helpers), prerelease-lifecycle,
#   openapi with model names, the clientset with listers, informers and apply
#   configurations, and protobuf (go-to-protobuf + protoc-gen-gogo + protoc).
# It mirrors upstream's hack/update-codegen.sh and Kubernetes' protobuf and
# prerelease-lifecycle steps, so that a pristine tree regenerates byte for byte.
#
# Usage: codegen.sh [ROOT]   (ROOT defaults to the repository root)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GEN_ROOT=$(cd "${1:-$ROOT}" && pwd)
THIS_PKG=k8s.io/apiextensions-apiserver
BOILERPLATE="$GEN_ROOT/hack/boilerplate.go.txt"

"$ROOT/hack/fork/install-protoc.sh"

mkdir -p "$TOOLS_BIN"
export GOBIN="$TOOLS_BIN"
export PATH="$TOOLS_BIN:$PATH"

cd "$GEN_ROOT"
CODEGEN_PKG=$(module_dir k8s.io/code-generator)
# kube_codegen.sh runs 'go install' from inside the read-only module directory.
source "$CODEGEN_PKG/kube_codegen.sh"

log "codegen: helpers (deepcopy, defaulter, conversion)"
kube::codegen::gen_helpers \
  --boilerplate "$BOILERPLATE" \
  --lint-rules known-tags-only,require-explicit-disablement \
  "$GEN_ROOT/pkg"

log "codegen: prerelease-lifecycle"
(cd "$CODEGEN_PKG" && go install k8s.io/code-generator/cmd/prerelease-lifecycle-gen)
mapfile -t lifecycle_dirs < <(grep -rl --include=doc.go '+k8s:prerelease-lifecycle-gen=true' pkg | xargs -n1 dirname | LC_ALL=C sort -u)
find pkg -name zz_generated.prerelease-lifecycle.go -delete
"$TOOLS_BIN/prerelease-lifecycle-gen" \
  -v "${KUBE_VERBOSE:-0}" \
  --go-header-file "$BOILERPLATE" \
  --output-file zz_generated.prerelease-lifecycle.go \
  --lint-rules=known-tags-only,require-explicit-disablement \
  "${lifecycle_dirs[@]/#/./}"

log "codegen: openapi"
# openapi-gen's API-rule report is compared with a fork-owned list of known violations
# (upstream keeps its list in k8s.io/kubernetes). A new violation fails the build;
# UPDATE_API_KNOWN_VIOLATIONS=true rewrites the list.
known_violations="$ROOT/hack/fork/api-rules/violation_exceptions.list"
update_report=()
[ "${UPDATE_API_KNOWN_VIOLATIONS:-}" = true ] && update_report=(--update-report)
kube::codegen::gen_openapi \
  --extra-pkgs k8s.io/api/autoscaling/v1 \
  --output-dir "$GEN_ROOT/pkg/generated/openapi" \
  --output-pkg "$THIS_PKG/pkg/generated/openapi" \
  --report-filename "$known_violations" \
  --output-model-name-file zz_generated.model_name.go \
  ${update_report[@]+"${update_report[@]}"} \
  --boilerplate "$BOILERPLATE" \
  "$GEN_ROOT/pkg"

log "codegen: clientset, listers, informers, apply configurations"
schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
go run "$THIS_PKG/pkg/generated/openapi/cmd/models-schema" >"$schema"
kube::codegen::gen_client \
  --with-watch \
  --with-applyconfig \
  --applyconfig-openapi-schema "$schema" \
  --output-dir "$GEN_ROOT/pkg/client" \
  --output-pkg "$THIS_PKG/pkg/client" \
  --versioned-name clientset \
  --boilerplate "$BOILERPLATE" \
  --prefers-protobuf \
  --lint-rules known-tags-only,require-explicit-disablement \
  "$GEN_ROOT/pkg/apis"

log "codegen: protobuf"
"$ROOT/hack/fork/protobuf.sh" "$GEN_ROOT"
log "codegen: done"
