#!/usr/bin/env bash
# Read-only: fails, naming the files, when an upstream file in the working tree is not
# exactly pristine + its patch (or pristine, when it has no patch).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$ROOT"
pristine=$(pristine_dir)
expected=$(mktemp)
trap 'rm -f "$expected"' EXIT

bad=()
missing=0
while read -r f; do
  is_harness "$f" && continue
  is_generated "$f" && continue
  if [ ! -e "$f" ]; then
    missing=$((missing + 1))
    continue
  fi
  patch=$(patch_for "$f")
  if [ -f "$patch" ]; then
    expected_file "$pristine" "$f" "$expected"
    cmp -s "$expected" "$f" || bad+=("$f")
  else
    cmp -s "$pristine/$f" "$f" || bad+=("$f")
  fi
done < <(upstream_files "$pristine")

if [ "$missing" -gt 0 ]; then
  die "$missing upstream file(s) are not materialized; run 'make materialize'"
fi
if [ "${#bad[@]}" -gt 0 ]; then
  printf '[fork] these upstream files differ from pristine + patch (run make update-patches):\n' >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
log "verify-patches: every upstream file is pristine + its patch"
