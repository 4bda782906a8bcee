#!/usr/bin/env bash
# Builds the stock kube-apiserver v1.37.1, as make _output/stock/kube-apiserver does (module
# hack/kind/node), with one proposed change to k8s.io/apiserver applied: a patch of ours for
# upstream, kept in hack/upstream, never part of our server. make bench-e2e-upstream-patch
# measures stock+policies on the result (docs/development/performance.md).
#
# Usage: hack/upstream/build-stock-apiserver.sh <patch> <output binary>
# STOCK_LDFLAGS: the -ldflags of the stock build (the Makefile passes its own).
#
# sourcing lib.sh sets errexit, nounset and pipefail.
# shellcheck source=../fork/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../fork/lib.sh"

[ $# -eq 2 ] || die "usage: $0 <patch> <output binary>"
[ -f "$1" ] || die "no patch at $1"
patch_file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
output=$2
case $output in /*) ;; *) output="$PWD/$output" ;; esac
work="$OUT/stock-patched/src"

cd "$ROOT/hack/kind/node"
# The version the build list selects, or the one a replace directive points at.
version=$(go list -m -f '{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}' k8s.io/apiserver)
[ -n "$version" ] || die "hack/kind/node's build list has no version of k8s.io/apiserver (replaced by a directory?)"
src=$(module_dir "k8s.io/apiserver@$version")

# A run stopped between the copy and the chmod leaves read-only directories behind.
[ ! -d "$work" ] || chmod -R u+w "$work"
rm -rf "$work"
mkdir -p "$work"
cp -r "$src" "$work/apiserver"
chmod -R u+w "$work/apiserver"
if ! (cd "$work/apiserver" && git apply -p1 "$patch_file"); then
  die "$patch_file does not apply to k8s.io/apiserver@$version; rebase it on that version"
fi
cp go.mod go.sum ./*.go "$work/"
cd "$work"
go mod edit -replace "k8s.io/apiserver=./apiserver"
log "building the stock kube-apiserver with k8s.io/apiserver@$version + $(basename "$patch_file")"
mkdir -p "$(dirname "$output")"
CGO_ENABLED=0 go build -trimpath -ldflags "${STOCK_LDFLAGS:-}" -o "$output" k8s.io/kubernetes/cmd/kube-apiserver
log "wrote $output"
