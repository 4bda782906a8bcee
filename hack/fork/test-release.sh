#!/usr/bin/env bash
# make test-release: builds the release artifacts twice (VERSION, default v0.0.0-test, into two
# folders) and fails unless every byte is the same; validates the krew manifest with krew's own
# validator; installs the plugin with krew from the local archive, offline, into a temporary
# KREW_ROOT; starts a control plane on the release's kube-apiserver (as make run does), checks
# the version it reports, installs a gated CRD, and runs the krew-installed
# `kubectl featuregates list` and `enable` against it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

version=${VERSION:-v0.0.0-test}
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "test-release: FAIL: $*" >&2
  exit 1
}

for run in a b; do
  log "test-release: release $version, build $run"
  VERSION=$version RELEASE_OUT="$work/$run" hack/fork/release.sh >"$work/release-$run.log" 2>&1 ||
    { cat "$work/release-$run.log"; fail "make release VERSION=$version failed"; }
done
if ! diff -r "$work/a" "$work/b" >/dev/null; then
  diff "$work/a/SHA256SUMS" "$work/b/SHA256SUMS" || true
  fail "two builds of release $version differ"
fi
(cd "$work/a" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match the files"
log "test-release: two builds identical ($(wc -l <"$work/a/SHA256SUMS") files)"

log "test-release: krew from hack/release/tools"
(cd hack/release/tools && go build -o "$work/tools/" sigs.k8s.io/krew/cmd/krew sigs.k8s.io/krew/cmd/validate-krew-manifest)
"$work/tools/validate-krew-manifest" -manifest "$work/a/featuregates.yaml" -skip-install ||
  fail "krew's validator refuses featuregates.yaml"

export KREW_ROOT="$work/krew" KREW_NO_UPGRADE_CHECK=1
archive="$work/a/kubectl-featuregates_${version}_linux_amd64.tar.gz"
"$work/tools/krew" install --manifest="$work/a/featuregates.yaml" --archive="$archive" ||
  fail "krew install from $archive"
plugin="$KREW_ROOT/bin/kubectl-featuregates"
[ -x "$plugin" ] || fail "krew installed no $plugin"
got=$("$plugin" --version)
[[ $got == "kubectl-featuregates $version "* ]] || fail "the installed plugin says '$got', want kubectl-featuregates $version"

log "test-release: a control plane on the release's kube-apiserver"
mkdir -p "$work/bin"
tar -xzf "$work/a/kube-apiserver_${version}_linux_amd64.tar.gz" -C "$work/bin" kube-apiserver
ln -s "$ROOT/_output/bin/etcd" "$work/bin/etcd"
ln -s "$ROOT/_output/bin/kubectl" "$work/bin/kubectl"
_output/bin/local-up --dir "$work/up" --bin-dir "$work/bin" --etcd-port 23379 --etcd-peer-port 23380 --port 27443 \
  >"$work/local-up.log" 2>&1 &
pid=$!
kubeconfig="$work/up/kubeconfig"
for _ in $(seq 120); do
  if [ -f "$kubeconfig" ] && "$work/bin/kubectl" --kubeconfig "$kubeconfig" get --raw /readyz >/dev/null 2>&1; then
    break
  fi
  kill -0 "$pid" 2>/dev/null || { cat "$work/local-up.log"; fail "local-up exited"; }
  sleep 1
done
# kubectl refuses flags before a plugin's name: the kubeconfig goes by KUBECONFIG.
kubectl() { KUBECONFIG="$kubeconfig" PATH="$KREW_ROOT/bin:$PATH" "$work/bin/kubectl" "$@"; }
server=$(kubectl version -o json | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | tail -1)
[ "$server" = "v1.37.1+kep2608.${version#v}" ] || fail "the server reports $server, want v1.37.1+kep2608.${version#v}"
kubectl apply --server-side -f examples/feature-gates/crontab-crd.yaml >/dev/null
kubectl wait --for=condition=Established crd/crontabs.stable.example.com --timeout=60s >/dev/null
kubectl featuregates list crontabs.stable.example.com | tee "$work/list.txt"
grep -q "ReplicasFeatureGate" "$work/list.txt" || fail "kubectl featuregates list shows no ReplicasFeatureGate"
kubectl featuregates enable crontabs.stable.example.com ReplicasFeatureGate
listed=$(kubectl featuregates list crontabs.stable.example.com -o json)
grep -q '"enabled": true' <<<"$listed" ||
  fail "kubectl featuregates enable did not enable ReplicasFeatureGate"
log "test-release: OK: $version built twice alike, krew's validator and krew install pass, the plugin works on the release's kube-apiserver ($server)"
