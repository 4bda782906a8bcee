#!/usr/bin/env bash
# make release VERSION=vX.Y.Z: the artifacts of a release in _output/release/VERSION, offline and
# deterministic (the same checkout and Go give the same bytes):
#   kubectl-featuregates_VERSION_OS_ARCH.tar.gz and featuregate-gen_VERSION_OS_ARCH.tar.gz for
#     linux and darwin, amd64 and arm64: a static binary and LICENSE;
#   kube-apiserver_VERSION_linux_ARCH.tar.gz for RELEASE_APISERVER_ARCHES (default amd64): our
#     kube-apiserver, reporting v1.37.1+kep2608.VERSION (without the "v") to `kubectl version`;
#   kube-apiserver-image_VERSION_linux_ARCH.tar: the same binary as a container image,
#     RELEASE_IMAGE_REPOSITORY:v1.37.1-kep2608.VERSION (default repository
#     kep2608.local/kube-apiserver), in `docker save`'s format (hack/fork/image.sh), for
#     `docker load`, `kind load image-archive` and make release-kind-node;
#   featuregates.yaml: the krew plugin manifest of kubectl-featuregates, whose archives it
#     names under RELEASE_BASE_URL/VERSION/ with their SHA-256;
#   SHA256SUMS of every file above.
# Every binary prints VERSION: `--version` for the two tools. RELEASE_TOOLS= (empty) builds the
# kube-apiserver parts only (make test-release-kind).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

version=${VERSION:-}
version_error=$(release_version_error "$version")
if [ -n "$version_error" ]; then
  echo "make release: $version_error" >&2
  exit 2
fi
if [ -z "${RELEASE_BASE_URL:-}" ]; then
  log "release $version: RELEASE_BASE_URL is not set; the krew manifest names the archives under the placeholder https://downloads.example.com/kep2608-apiextensions-apiserver (set it to where you will publish them)"
fi
base_url=${RELEASE_BASE_URL:-https://downloads.example.com/kep2608-apiextensions-apiserver}
apiserver_arches=${RELEASE_APISERVER_ARCHES:-amd64}
image_repository=${RELEASE_IMAGE_REPOSITORY:-kep2608.local/kube-apiserver}
tools=${RELEASE_TOOLS-kubectl-featuregates featuregate-gen}
out=${RELEASE_OUT:-$ROOT/_output/release/$version}
# Only an earlier release (it has SHA256SUMS) or an empty directory is replaced.
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -f "$out/SHA256SUMS" ]; then
  echo "make release: $out exists and holds no earlier release (no SHA256SUMS); set RELEASE_OUT to a new or empty directory" >&2
  exit 2
fi
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  log "release $version: the tracked files have uncommitted changes; the release is built from them, and no commit names it"
fi
source_before=$(source_state)
rm -rf "$out"
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# archive NAME FILE...: NAME.tar.gz of the files, flat, with fixed owners, modes and times, in
# name order, and gzip without a name or time.
archive() {
  local name=$1
  shift
  local dir="$stage/$name"
  mkdir -p "$dir"
  cp "$@" "$dir/"
  chmod 0644 "$dir"/*
  for f in "$@"; do
    if [ -x "$f" ]; then chmod 0755 "$dir/$(basename "$f")"; fi
  done
  # Members by their names (kube-apiserver, not ./kube-apiserver), so that
  # `tar -xzf ARCHIVE kube-apiserver` finds them.
  local members
  mapfile -t members < <(cd "$dir" && LC_ALL=C ls)
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu \
    -C "$dir" -cf - "${members[@]}" | gzip -n -9 >"$out/$name.tar.gz"
}

ldflags_tools="-s -w -buildid= -X k8s.io/apiextensions-apiserver/pkg/buildinfo.Version=$version"
for os in linux darwin; do
  for arch in amd64 arm64; do
    for tool in $tools; do
      log "release $version: $tool $os/$arch"
      mkdir -p "$stage/bin/$os-$arch"
      CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags_tools" \
        -o "$stage/bin/$os-$arch/$tool" "./cmd/$tool"
      archive "${tool}_${version}_${os}_${arch}" "$stage/bin/$os-$arch/$tool" LICENSE
    done
  done
done

git_version="v1.37.1+kep2608.${version#v}"
ldflags_apiserver="-s -w -buildid="
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags_apiserver+=" -X $pkg.gitVersion=$git_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=37 -X $pkg.gitTreeState=clean"
done
for arch in $apiserver_arches; do
  log "release $version: kube-apiserver linux/$arch ($git_version)"
  mkdir -p "$stage/bin/apiserver-$arch"
  CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags_apiserver" \
    -o "$stage/bin/apiserver-$arch/kube-apiserver" ./cmd/kube-apiserver
  archive "kube-apiserver_${version}_linux_${arch}" "$stage/bin/apiserver-$arch/kube-apiserver" LICENSE
  hack/fork/image.sh "$stage/bin/apiserver-$arch/kube-apiserver" LICENSE \
    "$image_repository:v1.37.1-kep2608.${version#v}" "$arch" "$out/kube-apiserver-image_${version}_linux_${arch}.tar"
done

# The krew manifest: one platform per OS and architecture.
if [[ " $tools " == *" kubectl-featuregates "* ]]; then
{
  cat <<EOF
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: featuregates
spec:
  version: $version
  homepage: $base_url
  shortDescription: List, enable and disable the field feature gates of CRDs
  description: |
    Field feature gates (KEP-2608) let a CustomResourceDefinition put some of its fields
    behind gates that a cluster admin turns on and off. This plugin lists the gates of every
    CRD, enables and disables them by name, shows which fields of a CRD are live, and counts
    the stored objects that hold values at a gate's fields before one is turned off. It works
    with the KEP-2608 kube-apiserver and with a stock one that enforces the gates through the
    admission policies of featuregate-gen.
  platforms:
EOF
  for os in darwin linux; do
    for arch in amd64 arm64; do
      name="kubectl-featuregates_${version}_${os}_${arch}.tar.gz"
      cat <<EOF
  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $base_url/$version/$name
    sha256: $(sha256sum "$out/$name" | cut -d' ' -f1)
    bin: kubectl-featuregates
    files:
    - from: kubectl-featuregates
      to: .
    - from: LICENSE
      to: .
EOF
    done
  done
} >"$out/featuregates.yaml"
fi

if [ "$(source_state)" != "$source_before" ]; then
  rm -rf "$out"
  echo "make release: the source changed while the release was built (a commit, or an edit of a tracked file), so its files could come from two versions; nothing was kept. Run it again on a tree nobody changes meanwhile." >&2
  exit 1
fi
(cd "$out" && LC_ALL=C ls | grep -v '^SHA256SUMS$' | xargs sha256sum >SHA256SUMS)
log "release $version: $(ls "$out" | wc -l) files in $out"
cat "$out/SHA256SUMS"
