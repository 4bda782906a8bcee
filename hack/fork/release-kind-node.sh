#!/usr/bin/env bash
# make release-kind-node VERSION=vX.Y.Z: adds to the release in _output/release/VERSION (or
# RELEASE_OUT) what a kind user needs to run our kube-apiserver without building anything:
#   kind-node_VERSION_linux_amd64.tar.gz: a kind node image for Kubernetes v1.37.1,
#     RELEASE_NODE_IMAGE_REPOSITORY:v1.37.1-kep2608.VERSION (default kep2608.local/kind-node),
#     in `docker save`'s format: make kind-node-image's node (built offline) with the release's
#     kube-apiserver image imported into its containerd and the kubeadm patch
#     hack/release/kind/kube-apiserver0+json.yaml at /kep2608/patches;
#   kind-cluster.yaml: the kind config that uses it (hack/release/kind/kind-cluster.yaml);
# and writes SHA256SUMS again over every file. The node image archive is the one artifact that
# is not the same bytes on every run (a committed container records when it was made).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../kind/node/import.sh
source "$(dirname "${BASH_SOURCE[0]}")/../kind/node/import.sh"
cd "$ROOT"
die() { echo "make release-kind-node: $*" >&2; exit 1; }

version=${VERSION:-}
version_error=$(release_version_error "$version")
[ -z "$version_error" ] || die "$version_error"
out=${RELEASE_OUT:-$ROOT/_output/release/$version}
image_archive="$out/kube-apiserver-image_${version}_linux_amd64.tar"
[ -f "$image_archive" ] || die "no $image_archive: run make release VERSION=$version first"
base=${KIND_NODE_IMAGE:-kep2608.local/kind-node:v1.37.1}
docker image inspect "$base" >/dev/null 2>&1 || die "no node image $base: run make kind-node-image"
node_image=${RELEASE_NODE_IMAGE_REPOSITORY:-kep2608.local/kind-node}:v1.37.1-kep2608.${version#v}

# The apiserver image's name, as the archive's manifest gives it.
image=$(tar -xOf "$image_archive" manifest.json | sed -n 's/.*"RepoTags":\["\([^"]*\)"\].*/\1/p')
[ -n "$image" ] || die "$image_archive names no image in its manifest.json"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/files/kep2608/patches"
sed "s#@IMAGE@#$image#" hack/release/kind/kube-apiserver0+json.yaml >"$work/files/kep2608/patches/kube-apiserver0+json.yaml"
log "release $version: importing $image into $base's containerd"
node_import_images "$base" "$node_image" "$image_archive" \
  "LABEL org.opencontainers.image.version=v1.37.1-kep2608.${version#v}" "$work/files" "$image"

log "release $version: saving $node_image"
docker save "$node_image" | gzip -n -1 >"$out/kind-node_${version}_linux_amd64.tar.gz"
sed -e "s#@VERSION@#$version#g" -e "s#@IMAGE@#$image#g" -e "s#@NODE_IMAGE@#$node_image#g" \
  hack/release/kind/kind-cluster.yaml >"$out/kind-cluster.yaml"
(cd "$out" && LC_ALL=C ls | grep -v '^SHA256SUMS$' | xargs sha256sum >SHA256SUMS)
log "release $version: $node_image in $out/kind-node_${version}_linux_amd64.tar.gz ($(du -h "$out/kind-node_${version}_linux_amd64.tar.gz" | cut -f1)), kind-cluster.yaml"
