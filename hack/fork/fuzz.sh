#!/usr/bin/env bash
# Runs every fuzz target of the fork's own test files for FUZZTIME each (default 1m).
# Usage: fuzz.sh [FUZZTIME]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
fuzztime=${1:-1m}
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*_test.go' | xargs grep -l '^func Fuzz' || true)
[ "${#files[@]}" -gt 0 ] || die "no fuzz targets found"
for f in "${files[@]}"; do
  pkg="./$(dirname "$f")"
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
    log "fuzz: $target in $pkg for $fuzztime"
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime"
  done
done
