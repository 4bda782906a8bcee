# Helpers of hack/fork/test-integration.sh (sourced; run from the repository root). Tested by
# hack/fork/verify-flake-retry.sh.

# known_prefixes prints "package prefix issue" for every known flake.
known_prefixes() { grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' hack/fork/known-flakes.txt; }

# flaky_tops <log> prints "package top-level-test issue" for the failures in <log>, or fails
# when a failure is not a known flake (or the log shows a panic, a timeout or a build failure).
flaky_tops() {
  local log=$1 name ok pkg prefix issue
  if grep -q -e '^panic: ' -e '^FAIL.*\[build failed\]' -e '^FAIL.*\[setup failed\]' "$log"; then
    return 1
  fi
  local names
  names=$(sed -n 's/^[[:space:]]*--- FAIL: \([^[:space:]]*\).*/\1/p' "$log" | sort -u)
  [[ -n $names ]] || return 1
  while read -r name; do
    ok=
    while read -r pkg prefix issue; do
      if [[ $name == "$prefix"* || $name == "${prefix%%/*}" ]]; then
        ok=1
        [[ $name == */* ]] || echo "$pkg $name $issue"
      fi
    done < <(known_prefixes)
    [[ -n $ok ]] || return 1
  done <<<"$names"
}

# only_known_packages <log> <tops> fails when a package failed that has no known flake in <tops>
# (a failure outside any test, such as TestMain's, must not be retried away).
only_known_packages() {
  local pkg
  while read -r pkg; do
    [[ -z $pkg ]] && continue
    awk -v p="$pkg" '$1 == p { found = 1 } END { exit !found }' <<<"$2" || return 1
  done < <(sed -n 's/^FAIL[[:space:]]\{1,\}\([^[:space:]]\{1,\}\).*/\1/p' "$1" | sort -u)
}
