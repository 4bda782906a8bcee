#!/usr/bin/env bash
# Lays the pinned upstream module into the working tree and applies the fork's patches.
#
# For every file of the upstream module that the fork does not track itself:
#   - generated files are copied only when missing (code generation rewrites them);
#   - other files are brought to "pristine + patch" when they differ from it.
# A file whose content changed since the last materialization, and that differs from
# pristine + patch, holds edits that are not yet a patch: it is never overwritten, and the
# script stops and says so.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$ROOT"
pristine=$(pristine_dir)
log "materializing $UPSTREAM_MODULE@$(upstream_version) from $pristine"

tracked=$(mktemp)
list=$(mktemp)
expected=$(mktemp)
newsums=$(mktemp)
trap 'rm -f "$tracked" "$list" "$expected" "$newsums"' EXIT

git ls-files 2>/dev/null | LC_ALL=C sort >"$tracked" || true
upstream_files "$pristine" | while read -r f; do is_harness "$f" || echo "$f"; done >"$list"

# A fork file must never take the path of an upstream file.
collisions=$(LC_ALL=C comm -12 "$tracked" "$list")
[ -z "$collisions" ] || die "tracked files have the path of an upstream file (carry edits as patches instead):
$collisions"

# Every patch must belong to an upstream file.
if [ -d "$PATCH_DIR" ]; then
  (cd "$PATCH_DIR" && find . -name '*.patch' -type f | sed 's|^\./||; s|\.patch$||') | while read -r p; do
    grep -qxF "$p" "$list" || die "patch for $p, which is not a file of the upstream module"
    ! is_generated "$p" || die "patch for generated file $p: generated files are never patched"
  done
fi

declare -A recorded=()
if [ -f "$MATERIALIZED_SUMS" ]; then
  while read -r sum f; do recorded["$f"]=$sum; done <"$MATERIALIZED_SUMS"
fi

copied=0
while read -r f; do
  if is_generated "$f"; then
    if [ ! -e "$f" ]; then
      mkdir -p "$(dirname "$f")"
      cp "$pristine/$f" "$f"
      chmod u+w "$f"
      copied=$((copied + 1))
    fi
    continue
  fi
  expected_file "$pristine" "$f" "$expected"
  if [ -e "$f" ] && cmp -s "$expected" "$f"; then
    sha256sum "$f" >>"$newsums"
    continue
  fi
  if [ -e "$f" ]; then
    current=$(sha256sum "$f" | cut -d' ' -f1)
    if [ "${recorded[$f]:-}" != "$current" ]; then
      die "$f has edits that no patch carries; run 'make update-patches' first (or delete the file to discard them)"
    fi
  fi
  mkdir -p "$(dirname "$f")"
  cp "$expected" "$f"
  sha256sum "$f" >>"$newsums"
  copied=$((copied + 1))
done <"$list"

mkdir -p "$OUT"
mv "$newsums" "$MATERIALIZED_SUMS"
write_exclude "$list"
log "materialized: $copied file(s) written, $(wc -l <"$list") upstream file(s) in place"
