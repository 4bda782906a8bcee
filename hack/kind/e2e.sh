#!/usr/bin/env bash
# make test-kind-e2e: Kubernetes' own e2e specs for CRDs (e2e.test from k8s.io/kubernetes
# v1.37.1, built by make kind-node-image) against two kind clusters on the same offline node
# image, one after the other, run the same way:
#   stock  the node image as it is: kubeadm's stock kube-apiserver v1.37.1 (no field gating);
#   ours   hack/kind/cluster.yaml: our kube-apiserver with CRDFieldLevelVersioning=true.
# Then it writes the table (spec, stock, ours) to _output/kind-e2e/table.md and fails if a
# spec that passed on stock did not pass on ours. docs/development/conformance.md holds the last table.
#
# E2E_FOCUS / E2E_SKIP override the specs (ginkgo regular expressions); E2E_VARIANTS="ours"
# runs one side only (no table then).
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
log() { printf '[kind-e2e] %s\n' "$*" >&2; }
die() { printf '[kind-e2e] error: %s\n' "$*" >&2; exit 1; }

# [sig-api-machinery] CustomResource* (definitions, conversion webhook, OpenAPI publishing,
# validation rules, field selectors), FieldValidation, and the admission webhook specs that
# touch custom resources or CRDs.
FOCUS=${E2E_FOCUS:-'\[sig-api-machinery\] (CustomResource|FieldValidation|AdmissionWebhook .*(custom resource|CRD|crd))'}
SKIP=${E2E_SKIP:-}
VARIANTS=${E2E_VARIANTS:-stock ours}
NODE_IMAGE=${KIND_NODE_IMAGE:-kep2608.local/kind-node:v1.37.1}
KBIN="$ROOT/_output/kind-node/bin"
WORK="$ROOT/_output/kind-e2e"
for b in kind kubectl e2e.test; do [ -x "$KBIN/$b" ] || die "$KBIN/$b is missing: run make kind-node-image"; done
docker image inspect "$NODE_IMAGE" >/dev/null 2>&1 || die "no image $NODE_IMAGE: run make kind-node-image"
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"
# The node image preloads the e2e images these specs run; e2e.test must name the same.
agnhost=$(grep '/agnhost:' "$ROOT/_output/kind-node/preloaded-images.txt")
"$KBIN/e2e.test" --list-images 2>/dev/null | grep -qxF "$agnhost" ||
  die "the node image preloads $agnhost, which e2e.test --list-images does not name"
mkdir -p "$WORK"
# shellcheck source=engine.sh
source hack/kind/engine.sh
kind_engine_compat "$NODE_IMAGE" "$WORK/engine"

current=
cleanup() {
  [ -z "$current" ] || "$KIND_CLI" delete cluster --name "$current" >/dev/null 2>&1 || true
}
KIND_CLI="$KBIN/kind"
trap cleanup EXIT
trap 'exit 130' INT TERM

run_variant() { # run_variant stock|ours
  local variant=$1 dir="$WORK/$1" kubeconfig="$WORK/$1/kubeconfig" name rc=0
  rm -rf "$dir"; mkdir -p "$dir"
  case $variant in
    stock) name=kep2608-stock
           "$KIND_CLI" delete cluster --name "$name" >/dev/null 2>&1 || true
           current=$name
           "$KIND_CLI" create cluster --name "$name" --image "$NODE_IMAGE" --kubeconfig "$kubeconfig" --wait 5m ;;
    ours)  name=$(sed -n 's/^name: *//p' hack/kind/cluster.yaml)
           [ -x _output/bin/kube-apiserver ] || die "_output/bin/kube-apiserver is missing: run make kube-apiserver"
           "$KIND_CLI" delete cluster --name "$name" >/dev/null 2>&1 || true
           current=$name
           "$KIND_CLI" create cluster --config hack/kind/cluster.yaml --image "$NODE_IMAGE" --kubeconfig "$kubeconfig" --wait 5m ;;
    *) die "unknown variant $variant" ;;
  esac
  "$KBIN/kubectl" --kubeconfig "$kubeconfig" -n kube-system wait --for=condition=Ready pod --all --timeout=5m
  "$KBIN/kubectl" --kubeconfig "$kubeconfig" version -o json | jq -r '.serverVersion.gitVersion' >"$dir/server-version"
  log "$variant: kube-apiserver $(cat "$dir/server-version"); running e2e.test --ginkgo.focus='$FOCUS'"
  local start=$SECONDS
  "$KBIN/e2e.test" --kubeconfig="$kubeconfig" --provider=skeleton --kubectl-path="$KBIN/kubectl" \
    --ginkgo.focus="$FOCUS" ${SKIP:+--ginkgo.skip="$SKIP"} --ginkgo.no-color --ginkgo.timeout=3h \
    --ginkgo.json-report="$dir/report.json" --report-dir="$dir" >"$dir/e2e.log" 2>&1 || rc=$?
  echo $((SECONDS - start)) >"$dir/seconds"
  log "$variant: e2e.test exit $rc after $(cat "$dir/seconds") s (log: $dir/e2e.log)"
  [ -s "$dir/report.json" ] || die "$variant: e2e.test wrote no report"
  # spec <TAB> state, for every spec the focus selected
  jq -r '.[].SpecReports[]? | select(.LeafNodeType == "It" and .State != "skipped")
         | [((.ContainerHierarchyTexts + [.LeafNodeText]) | join(" ")), .State] | @tsv' \
    "$dir/report.json" | sort >"$dir/results.tsv"
  log "$variant: $(cut -f2 "$dir/results.tsv" | sort | uniq -c | tr '\n' ' ')"
  "$KIND_CLI" delete cluster --name "$name" >/dev/null 2>&1 || true
  current=
}

for v in $VARIANTS; do run_variant "$v"; done
[ "$VARIANTS" = "stock ours" ] || exit 0

# The table: every spec either side ran, with its state on each.
table="$WORK/table.md"
{
  echo "| Spec | stock | ours |"
  echo "|---|---|---|"
  join -t $'\t' -a 1 -a 2 -e missing -o 0,1.2,2.2 "$WORK/stock/results.tsv" "$WORK/ours/results.tsv" |
    awk -F '\t' '{ gsub(/\|/, "\\|", $1); printf "| %s | %s | %s |\n", $1, $2, $3 }'
} >"$table"
count() { awk -F '\t' -v s="$2" '$2 == s' "$WORK/$1/results.tsv" | wc -l; }
summary="stock: $(count stock passed) passed, $(count stock failed) failed of $(wc -l <"$WORK/stock/results.tsv") ($(cat "$WORK/stock/seconds") s); ours: $(count ours passed) passed, $(count ours failed) failed of $(wc -l <"$WORK/ours/results.tsv") ($(cat "$WORK/ours/seconds") s)"
echo "$summary" >"$WORK/summary.txt"
log "$summary; table: $table"
regressions=$(join -t $'\t' -a 1 -e missing -o 0,1.2,2.2 "$WORK/stock/results.tsv" "$WORK/ours/results.tsv" |
  awk -F '\t' '$2 == "passed" && $3 != "passed" { print $1 " (" $3 ")" }')
[ -z "$regressions" ] || die "passed on stock but not on ours:
$regressions"
log "every spec that passed on stock passed on ours"
