#!/usr/bin/env bash
# make test-integration: run the integration packages (upstream's and the fork's) once. If a
# package fails, and every failing test is a known upstream flake (hack/fork/known-flakes.txt), rerun
# just those top-level tests, at most twice. Everything else fails the run as it is.
#
# Usage: hack/fork/test-integration.sh <run-regexp> <timeout> [go test flags...] -- <packages...>
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

run=$1 timeout=$2
shift 2
flags=()
while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
pkgs=("$@")

log=$(mktemp -t fork-integration.XXXXXX)
trap 'rm -f "$log" "$log.next"' EXIT

source hack/fork/lib-flakes.sh

set +o errexit
go test "${flags[@]}" -timeout "$timeout" -run "$run" "${pkgs[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -o errexit
[[ $rc -eq 0 ]] && exit 0

for attempt in 1 2; do
  if ! tops=$(flaky_tops "$log") || [[ -z $tops ]] || ! only_known_packages "$log" "$tops"; then
    echo "[fork] integration: failures that are not known upstream flakes; not retrying" >&2
    exit "$rc"
  fi
  # One rerun per package, of only the failed top-level tests.
  : >"$log.next"
  rc=0
  while read -r pkg; do
    names=$(awk -v p="$pkg" '$1 == p { print $2 }' <<<"$tops" | sort -u | paste -sd'|')
    issues=$(awk -v p="$pkg" '$1 == p { print $3 }' <<<"$tops" | sort -u | paste -sd' ')
    echo "[fork] integration: retry $attempt of $pkg -run '^($names)\$' (known upstream flake: $issues)" >&2
    set +o errexit
    go test "${flags[@]}" -count=1 -timeout "$timeout" -run "^($names)\$" "$pkg" 2>&1 | tee -a "$log.next"
    prc=${PIPESTATUS[0]}
    set -o errexit
    [[ $prc -eq 0 ]] || rc=$prc
  done < <(awk '{ print $1 }' <<<"$tops" | sort -u)
  mv "$log.next" "$log"
  [[ $rc -eq 0 ]] && { echo "[fork] integration: passed after retrying known upstream flakes" >&2; exit 0; }
done
exit "$rc"
