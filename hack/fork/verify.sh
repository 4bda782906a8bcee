#!/usr/bin/env bash
# make verify: proves the fork's hygiene.
#  1. every patch applies to the pristine module, and the working tree is pristine + patches;
#  2. no upstream file and no generated file is tracked;
#  3. code generation, run again on a copy of the tree, reproduces the generated files the
#     build uses, with no file more and none less;
#  4. gofmt and go vet are clean on the fork's own files and on the packages it patches.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

"$ROOT/hack/fork/verify-patches.sh"

pristine=$(pristine_dir)
failed=0
fail() { printf '[fork] verify: %s\n' "$*" >&2; failed=1; }

# 2. Tracked files.
while read -r f; do
  if is_generated "$f"; then
    fail "generated file is tracked: $f"
  elif ! is_harness "$f" && [ -f "$pristine/$f" ]; then
    fail "upstream file is tracked (carry edits as a patch): $f"
  fi
done < <(git ls-files)

# 3. Code generation is reproducible.
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
tar -C "$ROOT" --exclude=./_output --exclude=./.git -cf - . | tar -C "$copy" -xf -
log "verify: regenerating code in a copy of the tree"
if ! "$ROOT/hack/fork/codegen.sh" "$copy" >"$copy.log" 2>&1; then
  cat "$copy.log" >&2
  fail "code generation failed on a copy of the tree"
fi
rm -f "$copy.log"
list_generated() {
  (cd "$1" && find . -path ./_output -prune -o -type f -print | sed 's|^\./||' | while read -r f; do
    is_generated "$f" && echo "$f"
  done | LC_ALL=C sort)
}
if ! diff <(list_generated "$ROOT") <(list_generated "$copy") >/dev/null; then
  fail "the set of generated files differs from a fresh generation:"
  diff <(list_generated "$ROOT") <(list_generated "$copy") >&2 || true
fi
while read -r f; do
  [ -f "$copy/$f" ] && ! cmp -s "$f" "$copy/$f" && fail "generated file is stale (run make codegen): $f"
done < <(list_generated "$ROOT")

# 4. gofmt and go vet.
mapfile -t fork_go < <(git ls-files '*.go')
mapfile -t patched_go < <(cd "$PATCH_DIR" && find . -name '*.go.patch' | sed 's|^\./||; s|\.patch$||')
if [ "${#fork_go[@]}" -gt 0 ] || [ "${#patched_go[@]}" -gt 0 ]; then
  unformatted=$(gofmt -l "${fork_go[@]}" "${patched_go[@]}")
  [ -z "$unformatted" ] || fail "gofmt: $unformatted"
  mapfile -t vet_pkgs < <(printf '%s\n' "${fork_go[@]}" "${patched_go[@]}" | xargs -n1 dirname | LC_ALL=C sort -u | sed 's|^|./|')
  # Nested modules (hack/kind/node, which only pins tools) are not packages of this one.
  mapfile -t nested < <(git ls-files '*/go.mod' | xargs -r -n1 dirname | sed 's|^|./|')
  for m in "${nested[@]}"; do
    mapfile -t vet_pkgs < <(printf '%s\n' "${vet_pkgs[@]}" | grep -v -e "^$m\$" -e "^$m/")
  done
  go vet "${vet_pkgs[@]}" || fail "go vet reported problems"
fi

[ "$failed" = 0 ] || exit 1
log "verify: OK"
