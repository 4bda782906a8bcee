#!/usr/bin/env bash
# make test-kind-ha: a kind cluster with three control-plane nodes (hack/kind/ha/cluster.yaml),
# a stacked etcd of three members and kind's external load balancer, all from images built
# here; then test/kindha: a rolling upgrade from the stock kube-apiserver to ours and back under
# bounded load, what a stock server does to gates, and gate propagation. The figures go to
# _output/kind-ha/report.md. The cluster is deleted at the end, and no container is left.
#
# The load balancer: kind (the pinned sigs.k8s.io/kind) runs the image it names in
# pkg/cluster/internal/loadbalancer (envoy) and configures it through files. hack/kind/ha/lb
# builds an image under that name with haproxy from Debian's packages and a small `envoy`
# command that turns kind's files into haproxy's configuration. The tag is local; a real envoy
# image of that name, if any, is replaced on this engine.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$ROOT"   # kind resolves the config's relative hostPaths against the working directory
# shellcheck source=../../fork/lib.sh
source hack/fork/lib.sh
log() { printf '[test-kind-ha] %s\n' "$*" >&2; }
die() { printf '[test-kind-ha] error: %s\n' "$*" >&2; exit 1; }

NODE_IMAGE=${KIND_NODE_IMAGE:-kep2608.local/kind-node:v1.37.1}
ROOTFS_IMAGE=${KIND_ROOTFS_IMAGE:-kep2608.local/kind-rootfs:bookworm}
KBIN="$ROOT/_output/kind-node/bin"
KIND="$KBIN/kind"
CONFIG=hack/kind/ha/cluster.yaml
CLUSTER=$(sed -n 's/^name: *//p' "$CONFIG")
WORK="$ROOT/_output/kind-ha"
KUBECONFIG_FILE="$WORK/kubeconfig"
[ -x "$KIND" ] || die "$KBIN has no kind: run make kind-node-image"
docker image inspect "$NODE_IMAGE" >/dev/null 2>&1 || die "no image $NODE_IMAGE: run make kind-node-image"
docker image inspect "$ROOTFS_IMAGE" >/dev/null 2>&1 || die "no image $ROOTFS_IMAGE: run make kind-node-image"
[ -x _output/bin/kube-apiserver ] || die "_output/bin/kube-apiserver is missing: run make"
mkdir -p "$WORK"
source hack/kind/engine.sh
kind_engine_compat "$NODE_IMAGE" "$WORK/engine"

KIND_VERSION=$(go list -m -f '{{.Version}}' sigs.k8s.io/kind)
KIND_DIR=$(module_dir "sigs.k8s.io/kind@$KIND_VERSION")
LB_IMAGE=$(sed -n 's/^const Image = "\(.*\)"$/\1/p' "$KIND_DIR/pkg/cluster/internal/loadbalancer/const.go")
[ -n "$LB_IMAGE" ] || die "cannot read the load balancer image of kind $KIND_VERSION"
log "load balancer image $LB_IMAGE: haproxy from Debian's packages (hack/kind/ha/lb)"
docker build -q --build-arg BASE="$ROOTFS_IMAGE" -t "$LB_IMAGE" hack/kind/ha/lb >/dev/null

# shellcheck source=../cluster-lifecycle.sh
source hack/kind/cluster-lifecycle.sh
kind_cluster_lifecycle

log "creating cluster $CLUSTER (3 control-plane nodes, stock kube-apiserver) from $CONFIG"
"$KIND" create cluster --config "$CONFIG" --image "$NODE_IMAGE" --kubeconfig "$KUBECONFIG_FILE" --wait 5m
log "cluster ready ($SECONDS s)"

nodes=$(docker ps --filter "label=io.x-k8s.kind.cluster=$CLUSTER" --filter "label=io.x-k8s.kind.role=control-plane" \
  --format '{{.Names}}' | sort | while read -r n; do
    printf '%s=%s,' "$n" "$(docker port "$n" 6443/tcp | sed -n 's/^127\.0\.0\.1:\([0-9]*\)$/\1/p' | grep -E '^2444[1-3]$' | head -n 1)"
  done)
nodes=${nodes%,}
log "servers: $nodes"
rm -f "$WORK/report.md"
KIND_HA_KUBECONFIG="$KUBECONFIG_FILE" KIND_HA_NODES="$nodes" KIND_HA_REPORT="$WORK/report.md" \
  go test -count=1 -v -timeout 30m ./test/kindha -run '^TestRollingUpgradeAndRollback$' 2>&1 | tee "$WORK/test.log" |
  grep -E '^(=== RUN|--- |PASS|FAIL|ok)|ha_test.go' >&2
grep -q '^--- PASS: TestRollingUpgradeAndRollback' "$WORK/test.log" || die "test/kindha failed (log: $WORK/test.log)"
log "report: $WORK/report.md"
cat "$WORK/report.md" >&2
