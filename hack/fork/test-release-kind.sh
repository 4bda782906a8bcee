#!/usr/bin/env bash
# make test-release-kind: the release's container image and kind node image, used as a kind
# user would use them. It builds the kube-apiserver parts of release VERSION (default
# v0.0.0-test; hack/fork/release.sh with RELEASE_TOOLS empty) into a temporary folder, checks
# that the image archive loads into Docker and reports the version, builds the release's kind
# node image (make release-kind-node) and removes it from Docker, then, from the release's
# files alone: `docker load` of kind-node_VERSION_linux_amd64.tar.gz, `kind create cluster
# --config kind-cluster.yaml`, `kind load image-archive` of the kube-apiserver image. It fails
# unless the cluster's kube-apiserver pod runs the release's image (not kubeadm's, no binary
# mounted over it) with CRDFieldLevelVersioning=true, the server reports
# v1.37.1+kep2608.VERSION, and a field whose gate is off is dropped on create. The cluster is
# deleted on every exit.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

version=${VERSION:-v0.0.0-test}
KBIN="$ROOT/_output/kind-node/bin"
KIND="$KBIN/kind"
KUBECTL="$KBIN/kubectl"
CLUSTER=kep2608-release
WORK="$ROOT/_output/test-release-kind"
KUBECONFIG_FILE="$WORK/kubeconfig"
BASE_NODE_IMAGE=${KIND_NODE_IMAGE:-kep2608.local/kind-node:v1.37.1}
fail() { echo "test-release-kind: FAIL: $*" >&2; exit 1; }
[ -x "$KIND" ] && [ -x "$KUBECTL" ] || fail "$KBIN has no kind or kubectl: run make kind-node-image"
rm -rf "$WORK"
mkdir -p "$WORK"
out="$WORK/release"

# Bad input first (each is refused before anything is built): versions that krew or Docker
# would refuse, or that would run as shell text, exit 2 and write nothing; a RELEASE_OUT that
# holds something other than an earlier release is not replaced.
for bad in 1.0 v1.0.0+meta v01.0.0 v1.0.0-01 v1.0.0-rc..1 "v1'; touch $WORK/injected; echo '" \
  "v1.0.0-$(printf 'a%.0s' $(seq 1 60))"; do
  rc=0
  said=$(VERSION="$bad" RELEASE_OUT="$WORK/bad" hack/fork/release.sh 2>&1) || rc=$?
  [ "$rc" = 2 ] && [[ $said == *"VERSION"* ]] || fail "release VERSION='$bad': exit $rc, want 2 with a VERSION error; said: $said"
  [ ! -e "$WORK/bad" ] && [ ! -e "$WORK/injected" ] || fail "release VERSION='$bad' wrote something"
done
mkdir -p "$WORK/keep" && echo mine >"$WORK/keep/notes.txt"
rc=0
said=$(VERSION=$version RELEASE_OUT="$WORK/keep" hack/fork/release.sh 2>&1) || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$WORK/keep/notes.txt")" = mine ] ||
  fail "release into a directory that holds no release: exit $rc, want 2 and the directory kept; said: $said"
log "test-release-kind: bad VERSIONs and a foreign RELEASE_OUT refused"

log "test-release-kind: the kube-apiserver parts of release $version"
VERSION=$version RELEASE_OUT="$out" RELEASE_TOOLS='' hack/fork/release.sh >"$WORK/release.log" 2>&1 ||
  { cat "$WORK/release.log"; fail "make release VERSION=$version failed"; }
image_archive="$out/kube-apiserver-image_${version}_linux_amd64.tar"
image=kep2608.local/kube-apiserver:v1.37.1-kep2608.${version#v}
node_image=kep2608.local/kind-node:v1.37.1-kep2608.${version#v}
want="v1.37.1+kep2608.${version#v}"

docker rmi "$image" >/dev/null 2>&1 || true
# Each command's output is read whole before it is searched (grep -q in a pipe would end the
# command with SIGPIPE, which pipefail turns into a failure).
loaded=$(docker load -i "$image_archive")
grep -qxF "Loaded image: $image" <<<"$loaded" || fail "docker load of $image_archive does not give $image"
got=$(docker run --rm "$image" --version)
docker rmi "$image" >/dev/null
[ "$got" = "Kubernetes $want" ] || fail "the image's kube-apiserver --version says '$got', want 'Kubernetes $want'"
log "test-release-kind: $image_archive loads as $image and reports $want"

VERSION=$version RELEASE_OUT="$out" KIND_NODE_IMAGE=$BASE_NODE_IMAGE hack/fork/release-kind-node.sh
(cd "$out" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match the files"
docker rmi "$node_image" >/dev/null

# shellcheck source=../kind/engine.sh
source hack/kind/engine.sh
# shellcheck source=../kind/cluster-lifecycle.sh
source hack/kind/cluster-lifecycle.sh
kind_cluster_lifecycle

log "test-release-kind: docker load, kind create cluster from the release's files"
loaded=$(docker load -i "$out/kind-node_${version}_linux_amd64.tar.gz")
grep -qxF "Loaded image: $node_image" <<<"$loaded" ||
  fail "docker load of the node archive does not give $node_image"
kind_engine_compat "$node_image" "$WORK/engine"
"$KIND" create cluster --name "$CLUSTER" --config "$out/kind-cluster.yaml" --kubeconfig "$KUBECONFIG_FILE" --wait 5m
"$KIND" load image-archive "$image_archive" --name "$CLUSTER"
k() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
k wait --for=condition=Ready node --all --timeout=5m
k -n kube-system wait --for=condition=Ready pod -l component=kube-apiserver --timeout=5m

pod=$(k -n kube-system get pod -l component=kube-apiserver -o json)
[ "$(jq -r '.items[0].spec.containers[0].image' <<<"$pod")" = "$image" ] ||
  fail "the kube-apiserver pod runs $(jq -r '.items[0].spec.containers[0].image' <<<"$pod"), want $image"
jq -e '.items[0].spec.containers[0].command | index("--feature-gates=CRDFieldLevelVersioning=true")' <<<"$pod" >/dev/null ||
  fail "kube-apiserver does not run with CRDFieldLevelVersioning=true"
jq -e '[.items[0].spec.volumes[] | select(.hostPath.path | startswith("/kep2608"))] | length == 0' <<<"$pod" >/dev/null ||
  fail "the kube-apiserver pod mounts a file from /kep2608: the image alone must be enough"
server=$(k version -o json | jq -r .serverVersion.gitVersion)
[ "$server" = "$want" ] || fail "the server reports $server, want $want"

k apply --server-side -f examples/feature-gates/crontab-crd.yaml >/dev/null
k wait --for=condition=Established crd/crontabs.stable.example.com --timeout=60s >/dev/null
created=$(k create -f examples/feature-gates/crontab.yaml -o json 2>"$WORK/create.err")
grep -q 'spec.replicas' "$WORK/create.err" || fail "creating a crontab with spec.replicas drew no warning: $(cat "$WORK/create.err")"
jq -e '.spec | has("replicas") | not' <<<"$created" >/dev/null ||
  fail "spec.replicas, whose gate is off, was stored: $(jq -c .spec <<<"$created")"
log "test-release-kind: OK: kind ran $image from $node_image ($server, CRDFieldLevelVersioning=true); a gated-off field was dropped"
