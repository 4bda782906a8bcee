#!/usr/bin/env bash
# make test-kind: the kind recipe (hack/kind/cluster.yaml) end to end, in a real cluster with
# a node, on the node image of make kind-node-image (or KIND_NODE_IMAGE):
#   1. create the cluster with the recipe and wait for the node and kube-system to be Ready,
#      and check that the API server answering is ours (version +kep2608, feature on);
#   2. run the README's kubectl flow against it (test/e2e TestReadmeQuickStart with
#      E2E_README_KUBECONFIG): gated CRD, drop warning, plugin, the KEP's guarded patch, re-apply;
#   3. run agnhost's conversion webhook as a pod behind a Service for a gated CRD and show
#      that gating acts on the storage version (test/kind);
#   4. delete the cluster, also when a step fails, and check no node container is left.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"   # kind resolves the recipe's relative hostPaths against the working directory
log() { printf '[test-kind] %s\n' "$*" >&2; }
die() { printf '[test-kind] error: %s\n' "$*" >&2; exit 1; }

NODE_IMAGE=${KIND_NODE_IMAGE:-kep2608.local/kind-node:v1.37.1}
KBIN="$ROOT/_output/kind-node/bin"
KIND="$KBIN/kind"
KUBECTL="$KBIN/kubectl"
CLUSTER=$(sed -n 's/^name: *//p' hack/kind/cluster.yaml)
WORK="$ROOT/_output/kind-test"
KUBECONFIG_FILE="$WORK/kubeconfig"
[ -n "$CLUSTER" ] || die "hack/kind/cluster.yaml names no cluster"
[ -x "$KIND" ] && [ -x "$KUBECTL" ] || die "$KBIN has no kind or kubectl: run make kind-node-image"
docker image inspect "$NODE_IMAGE" >/dev/null 2>&1 || die "no image $NODE_IMAGE: run make kind-node-image"
[ -x _output/bin/kube-apiserver ] || die "_output/bin/kube-apiserver is missing: run make kube-apiserver"
mkdir -p "$WORK"
# shellcheck source=engine.sh
source hack/kind/engine.sh
kind_engine_compat "$NODE_IMAGE" "$WORK/engine"

# shellcheck source=cluster-lifecycle.sh
source hack/kind/cluster-lifecycle.sh
kind_cluster_lifecycle

log "creating cluster $CLUSTER from hack/kind/cluster.yaml with $NODE_IMAGE"
"$KIND" create cluster --config hack/kind/cluster.yaml --image "$NODE_IMAGE" \
  --kubeconfig "$KUBECONFIG_FILE" --wait 5m
k() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
k wait --for=condition=Ready node --all --timeout=5m
k -n kube-system wait --for=condition=Ready pod --all --timeout=5m
version=$(k version -o json | jq -r .serverVersion.gitVersion)
[[ "$version" == *+kep2608 ]] || die "the API server reports $version, not our kube-apiserver (+kep2608)"
k -n kube-system get pod -l component=kube-apiserver -o jsonpath='{.items[0].spec.containers[0].command}' |
  grep -q 'CRDFieldLevelVersioning=true' || die "kube-apiserver does not run with CRDFieldLevelVersioning=true"
log "node Ready; kube-apiserver $version with CRDFieldLevelVersioning=true; kube-system Ready ($SECONDS s)"

run_go_test() { # run_go_test NAME PKG RUN: go test -v, which must report RUN as passed
  local name=$1 pkg=$2 run=$3 out="$WORK/$1.log" rc=0
  log "$name: go test $pkg -run '$run'"
  go test -count=1 -v -timeout 15m "$pkg" -run "$run" >"$out" 2>&1 || rc=$?
  grep -E '^(=== RUN|--- |    --- |PASS|FAIL|ok)' "$out" >&2 || true
  [ $rc -eq 0 ] || { tail -n 60 "$out" >&2; die "$name failed (log: $out)"; }
  grep -q -- '--- SKIP' "$out" && die "$name skipped a test (log: $out)"
  grep -q -- '--- PASS' "$out" || die "$name ran no test (log: $out)"
}
E2E_README_KUBECONFIG="$KUBECONFIG_FILE" E2E_BIN_DIR="$ROOT/_output/bin" \
  run_go_test readme ./test/e2e '^TestReadmeQuickStart$'
KIND_KUBECONFIG="$KUBECONFIG_FILE" KIND_AGNHOST_IMAGE=$(grep '/agnhost:' "$ROOT/_output/kind-node/preloaded-images.txt") \
  run_go_test conversion-webhook ./test/kind '.'
log "passed"
