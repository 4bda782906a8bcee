#!/usr/bin/env bash
# Records the checksums of the upstream (non-generated) files as they are in the working
# tree, so that materialize.sh can tell later edits from materialized content.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$ROOT"
pristine=$(pristine_dir)
mkdir -p "$OUT"
upstream_files "$pristine" | while read -r f; do
  is_harness "$f" || is_generated "$f" || { [ -e "$f" ] && sha256sum "$f"; }
done >"$MATERIALIZED_SUMS.tmp"
mv "$MATERIALIZED_SUMS.tmp" "$MATERIALIZED_SUMS"
