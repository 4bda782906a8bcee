# Shared definitions for the fork's scripts. Source it; do not run it.
#
# The repository root is the fork of k8s.io/apiextensions-apiserver. Upstream files are
# never tracked: they are copied from the pinned module in the Go module cache, and the
# fork's edits to them are carried as one patch per file under $PATCH_DIR.

set -o errexit
set -o nounset
set -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STAGING="$ROOT/staging/k8s.io/apiextensions-apiserver"
PATCH_DIR="$STAGING/patches"
UPSTREAM_MODULE=k8s.io/apiextensions-apiserver
OUT="$ROOT/_output"
STAMPS="$OUT/stamps"
MATERIALIZED_SUMS="$OUT/materialized.sha256"
TOOLS_BIN="$OUT/tools"

# Files of the upstream module that the fork owns itself (tracked harness files).
HARNESS_FILES=(go.mod go.sum README.md)

log() { printf '[fork] %s\n' "$*" >&2; }
die() { printf '[fork] error: %s\n' "$*" >&2; exit 1; }

upstream_version() {
  tr -d ' \n' <"$STAGING/VERSION"
}

# module_dir MODULE[@VERSION] prints MODULE's directory in the Go module cache, downloading
# it first: `go list -m -f {{.Dir}}` prints nothing for a module that is not cached yet, so a
# warm cache would hide a missing download. Without @VERSION, the version is the one the
# build list of the current directory's module selects. Fails naming the module when the
# proxy refuses it.
module_dir() {
  local json dir err
  if ! json=$(go mod download -json "$1"); then
    err=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' | head -n 1)
    die "cannot download module $1 from $(go env GOPROXY)${err:+: $err}"
  fi
  dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] && [ -d "$dir" ] || die "module $1 was downloaded, but go reports no directory for it"
  printf '%s\n' "$dir"
}

# apt_install PKG... installs the Debian packages that are not installed yet, through apt
# (with sudo when not root). The build installs what it needs itself; nothing else is fetched.
apt_install() {
  local missing=() p sudo=""
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || die "${missing[*]} missing and apt-get is not available; install them"
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "${missing[*]} missing; run as root or install them"
    sudo="sudo"
  fi
  log "installing ${missing[*]} (apt)"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || log "apt-get update failed; trying the install anyway"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# pristine_dir prints the module-cache directory of the pinned upstream module,
# downloading it if needed.
pristine_dir() {
  module_dir "$UPSTREAM_MODULE@$(upstream_version)"
}

# is_harness PATH: the upstream file is replaced by a tracked file of the fork.
is_harness() {
  local f
  for f in "${HARNESS_FILES[@]}"; do [ "$1" = "$f" ] && return 0; done
  return 1
}

# is_generated PATH: the file is written by code generation, never patched or tracked.
is_generated() {
  case "$1" in
    */zz_generated.*.go | zz_generated.*.go) return 0 ;;
    */generated.pb.go | */generated.proto) return 0 ;;
    pkg/client/*) return 0 ;;
  esac
  return 1
}

# upstream_files lists the module's files relative to its root, sorted.
upstream_files() {
  (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
}

patch_for() { printf '%s/%s.patch\n' "$PATCH_DIR" "$1"; }

# expected_file PRISTINE PATH DEST writes pristine+patch for PATH to DEST.
expected_file() {
  local pristine=$1 path=$2 dest=$3 patch tmp
  patch=$(patch_for "$path")
  if [ ! -f "$patch" ]; then
    cp "$pristine/$path" "$dest"
    chmod u+w "$dest"
    return
  fi
  tmp=$(mktemp -d)
  mkdir -p "$tmp/$(dirname "$path")"
  cp "$pristine/$path" "$tmp/$path"
  chmod u+w "$tmp/$path"
  if ! (cd "$tmp" && git apply --whitespace=nowarn "$patch"); then
    rm -rf "$tmp"
    die "patch $(basename "$patch") does not apply to $path at $(upstream_version); fix it (see README, 'Bumping upstream')"
  fi
  cp "$tmp/$path" "$dest"
  rm -rf "$tmp"
}

# write_exclude lists every upstream path in .git/info/exclude, between markers.
write_exclude() {
  local list=$1 gitdir exclude
  gitdir=$(cd "$ROOT" && git rev-parse --git-dir 2>/dev/null) || return 0
  case "$gitdir" in /*) ;; *) gitdir="$ROOT/$gitdir" ;; esac
  exclude="$gitdir/info/exclude"
  mkdir -p "$(dirname "$exclude")"
  touch "$exclude"
  {
    sed '/^# BEGIN fork upstream files/,/^# END fork upstream files/d' "$exclude"
    echo "# BEGIN fork upstream files (written by hack/fork/materialize.sh)"
    sed 's|^|/|' "$list"
    echo "# END fork upstream files"
  } >"$exclude.tmp"
  mv "$exclude.tmp" "$exclude"
}

# release_version_error VERSION: empty when VERSION can name a release, else why not. A
# release version is a semantic version (semver.org 2.0.0, without build metadata) with a
# leading v: no leading zeros, no empty pre-release identifiers, at most 64 characters, so
# that krew's manifest validation accepts it and the image tag v1.37.1-kep2608.X.Y.Z stays
# within Docker's 128 characters.
release_version_error() {
  local num='(0|[1-9][0-9]*)' ident='(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)'
  local re="^v$num\.$num\.$num(-$ident(\.$ident)*)?\$"
  if ! [[ $1 =~ $re ]]; then
    echo "VERSION must be a semantic version with a leading v and no leading zeros (VERSION=v0.1.0, v1.2.0-rc.1), not '$1'"
  elif [ "${#1}" -gt 64 ]; then
    echo "VERSION is ${#1} characters long; a release version has at most 64"
  fi
}

# source_state: the commit and the edits of the tracked files, so that a build can tell
# whether the tree it built from changed under it.
source_state() {
  { git -C "$ROOT" rev-parse HEAD; git -C "$ROOT" diff HEAD; } 2>/dev/null | sha256sum | cut -c1-16
}
