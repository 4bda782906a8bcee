#!/usr/bin/env bash
# make test-openshift-api: OpenShift's API test suites (OPENSHIFT_API_DIR, laid out like
# openshift/api: <group>/<version>/tests/<crd>/<Gate>.yaml, zz_generated.crd-manifests,
# zz_generated.featuregated-crd-manifests, payload-manifests/featuregates) on a stock
# kube-apiserver v1.37.1 with each feature set's CRD and on ours with the merged CRD of each
# type (featuregate-gen openshift) and the feature set's gate states set by
# `kubectl featuregates set`; every case's verdict and stored object are compared
# (test/openshiftapi). Then the undo test (TestOpenShiftUndo), when the folder has OpenShift's
# example group. OPENSHIFT_API_GROUPS="example route" runs some groups only;
# OPENSHIFT_API_PROFILE=Hypershift reads another cluster profile's gate states;
# OPENSHIFT_API_OURS=stock runs stock on both sides (the runner's self-check).
# OPENSHIFT_API_SUBSET_CHECK=1 also runs the test on a copy of the folder that holds only the
# example and route groups and the payload (another folder laid out the same way).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
dir=${OPENSHIFT_API_DIR:-/work/shared/third_party/openshift-api}
[[ -d $dir ]] || die "OPENSHIFT_API_DIR=$dir is not a directory (a checkout of openshift/api, or a folder laid out like it)"
dir=$(cd "$dir" && pwd)
stock="$ROOT/_output/stock/kube-apiserver"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v1.37.1 -X $pkg.gitMajor=1 -X $pkg.gitMinor=37 -X $pkg.gitTreeState=clean"
done
log "building the stock kube-apiserver v1.37.1 into $stock"
(cd hack/kind/node && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$stock" k8s.io/kubernetes/cmd/kube-apiserver)
out=_output/openshift-api
mkdir -p "$out"
run() { # run NAME DIR TESTS
  local name=$1 d=$2 tests=$3 start=$SECONDS
  log "OpenShift API suites: $name ($d)"
  OPENSHIFT_API_DIR="$d" E2E_BIN_DIR="$ROOT/_output/bin" OPENSHIFT_API_STOCK_APISERVER="$stock" OPENSHIFT_API_OUT="$ROOT/$out/$name" \
    go test -count=1 -timeout 40m -v -run "$tests" ./test/openshiftapi/ | tee "$out/$name.log" | grep -E '^(=== RUN|--- |PASS|FAIL|ok)|_featuregates_test.go'
  log "$name: $((SECONDS - start)) s; table: $out/$name/table.md, each case: $out/$name/cases.txt"
}
tests='^TestOpenShiftAPIDifferential$'
if [[ -d $dir/example/v1/tests && ${OPENSHIFT_API_OURS:-} != stock ]]; then
  tests='^(TestOpenShiftAPIDifferential|TestOpenShiftUndo)$'
fi
run main "$dir" "$tests"
if [[ ${OPENSHIFT_API_SUBSET_CHECK:-} == 1 ]]; then
  subset=$(mktemp -d)
  trap 'rm -rf "$subset"' EXIT
  cp -r "$dir/example" "$dir/route" "$dir/payload-manifests" "$subset/"
  OPENSHIFT_API_GROUPS= run subset "$subset" '^TestOpenShiftAPIDifferential$'
fi
