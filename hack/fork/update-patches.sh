#!/usr/bin/env bash
# Rewrites the patch series from the working tree: one patch per upstream file that differs
# from the pristine module, and no patch for files that are pristine again.
# Generated files are skipped: code generation owns them.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$ROOT"
pristine=$(pristine_dir)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

written=0 removed=0
while read -r f; do
  is_harness "$f" && continue
  is_generated "$f" && continue
  patch=$(patch_for "$f")
  if [ ! -e "$f" ]; then
    die "$f is missing from the working tree; run 'make materialize' first"
  fi
  if cmp -s "$pristine/$f" "$f"; then
    if [ -f "$patch" ]; then rm -f "$patch"; removed=$((removed + 1)); fi
    continue
  fi
  # Diff a/<path> against b/<path> so that the patch applies with 'git apply' at the root.
  rm -rf "$work/a" "$work/b"
  mkdir -p "$work/a/$(dirname "$f")" "$work/b/$(dirname "$f")"
  cp "$pristine/$f" "$work/a/$f"
  cp "$f" "$work/b/$f"
  mkdir -p "$(dirname "$patch")"
  (cd "$work" && git diff --no-index --binary --no-prefix --full-index "a/$f" "b/$f" >"$work/new.patch") || true
  [ -s "$work/new.patch" ] || die "git diff produced no patch for $f"
  if [ ! -f "$patch" ] || ! cmp -s "$work/new.patch" "$patch"; then
    cp "$work/new.patch" "$patch"
    written=$((written + 1))
  fi
done < <(upstream_files "$pristine")

find "$PATCH_DIR" -type d -empty -delete 2>/dev/null || true
mkdir -p "$PATCH_DIR"
# The new patches describe the working tree exactly: record it as materialized.
"$(dirname "${BASH_SOURCE[0]}")/record-sums.sh"
log "update-patches: $written patch(es) written, $removed removed, $(find "$PATCH_DIR" -name '*.patch' | wc -l) in the series"
