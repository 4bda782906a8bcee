#!/usr/bin/env bash
# hack/fork/image.sh BINARY LICENSE REF ARCH OUT: writes OUT, a container image of BINARY in
# the archive format of `docker save` (manifest.json, the image config and one uncompressed
# layer), without a Docker engine and without a registry: `docker load -i OUT`,
# `kind load image-archive OUT` and `ctr images import OUT` all read it.
#
# The image is FROM scratch: BINARY at /usr/local/bin/kube-apiserver (a static binary needs
# nothing else), LICENSE at /LICENSE, PATH set so that kubeadm's static pod command
# (`kube-apiserver --flags`) finds it, tagged REF, for linux/ARCH. Every time and owner is
# fixed and every file is written in name order, so the same inputs give the same bytes.
set -o errexit -o nounset -o pipefail
if [ $# -ne 5 ]; then
  echo "usage: $0 BINARY LICENSE REF ARCH OUT" >&2
  exit 2
fi
binary=$1 license=$2 ref=$3 arch=$4 out=$5
case $ref in
  */*:*) ;;
  *) echo "image.sh: REF must be REPOSITORY:TAG with a registry or namespace, not '$ref'" >&2; exit 2 ;;
esac
[ -f "$binary" ] || { echo "image.sh: no binary $binary" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
epoch=1970-01-01T00:00:00Z
tarflags=(--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu)

# The layer: the root filesystem as one uncompressed tar.
root="$work/root"
mkdir -p "$root/usr/local/bin"
install -m 0755 "$binary" "$root/usr/local/bin/kube-apiserver"
install -m 0644 "$license" "$root/LICENSE"
find "$root" -type d -exec chmod 0755 {} +
tar "${tarflags[@]}" -C "$root" -cf "$work/layer.tar" LICENSE usr
layer=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)

version=${ref##*:}
printf '%s' "{\"architecture\":\"$arch\",\"os\":\"linux\",\"created\":\"$epoch\",\
\"config\":{\"Env\":[\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\"],\
\"Entrypoint\":[\"/usr/local/bin/kube-apiserver\"],\
\"Labels\":{\"org.opencontainers.image.licenses\":\"Apache-2.0\",\
\"org.opencontainers.image.title\":\"kube-apiserver with KEP-2608 field feature gates\",\
\"org.opencontainers.image.version\":\"$version\"}},\
\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:$layer\"]},\
\"history\":[{\"created\":\"$epoch\",\"created_by\":\"hack/fork/image.sh\"}]}" >"$work/config.json"
config=$(sha256sum "$work/config.json" | cut -d' ' -f1)

img="$work/image"
mkdir -p "$img/blobs/sha256"
mv "$work/layer.tar" "$img/blobs/sha256/$layer"
mv "$work/config.json" "$img/blobs/sha256/$config"
printf '%s\n' "[{\"Config\":\"blobs/sha256/$config\",\"RepoTags\":[\"$ref\"],\"Layers\":[\"blobs/sha256/$layer\"]}]" \
  >"$img/manifest.json"
find "$img" -type d -exec chmod 0755 {} +
find "$img" -type f -exec chmod 0644 {} +
tar "${tarflags[@]}" -C "$img" -cf "$out" blobs manifest.json
