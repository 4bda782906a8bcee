#!/usr/bin/env bash
# Checks hack/fork/lib-flakes.sh: only failures that are all known upstream flakes are retried.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source hack/fork/lib-flakes.sh

dir=$(mktemp -d -t fork-flakes.XXXXXX)
trap 'rm -rf "$dir"' EXIT
conv=k8s.io/apiextensions-apiserver/test/integration/conversion
integ=k8s.io/apiextensions-apiserver/test/integration

flake_log() {
  printf '%s\n' \
    '--- FAIL: TestWebhookConverterWithoutWatchCache (9.95s)' \
    '    --- FAIL: TestWebhookConverterWithoutWatchCache/failure-message-v1beta1 (0.12s)' \
    '        --- FAIL: TestWebhookConverterWithoutWatchCache/failure-message-v1beta1/check-0 (0.09s)' \
    '            --- FAIL: TestWebhookConverterWithoutWatchCache/failure-message-v1beta1/check-0/get (0.01s)' \
    'FAIL' \
    "FAIL	$conv	90.1s"
}

failures=0
# expect <name> <retry|no-retry> [expected tops]: classify $dir/<name>.log.
expect() {
  local name=$1 want=$2 tops got
  if tops=$(flaky_tops "$dir/$name.log") && [[ -n $tops ]] && only_known_packages "$dir/$name.log" "$tops"; then
    got=retry
  else
    got=no-retry
  fi
  if [[ $got != "$want" ]]; then
    echo "FAIL: $name: got $got, want $want" >&2; failures=$((failures + 1)); return
  fi
  if [[ $want == retry && $tops != "$3" ]]; then
    echo "FAIL: $name: retries [$tops], want [$3]" >&2; failures=$((failures + 1)); return
  fi
  echo "ok: $name -> $got"
}

{ flake_log; echo "ok  	$integ	481s"; } >"$dir/known.log"
expect known retry "$conv TestWebhookConverterWithoutWatchCache https://github.com/kubernetes/kubernetes/issues/141909"

{ flake_log; echo "FAIL	$integ	3.0s"; } >"$dir/other-package-failed.log"
expect other-package-failed no-retry

flake_log | sed 's#failure-message-v1beta1/check-0 #nontrivial-converter/check-0 #' >"$dir/other-subtest.log"
expect other-subtest no-retry

{ flake_log; echo '--- FAIL: TestFieldGatesCreate (1.00s)'; } >"$dir/fork-test.log"
expect fork-test no-retry

{ flake_log; echo 'panic: test timed out after 30m0s'; } >"$dir/panic.log"
expect panic no-retry

printf 'FAIL\t%s [build failed]\n' "$conv" >"$dir/build.log"
expect build no-retry

[[ $failures -eq 0 ]] || { echo "$failures case(s) failed" >&2; exit 1; }
