#!/usr/bin/env bash
# make kind-node-image: a kind node image for Kubernetes v1.37.1 built offline, from Debian's
# packages and the Go module proxy only (no container registry is reached, none is needed).
#
# It follows kind's own recipe (sigs.k8s.io/kind's images/base/Dockerfile and `kind build
# node-image`) with the same parts at the same versions, read from the pinned kind module:
#   1. a Debian root filesystem (debootstrap) with systemd, iptables, conntrack and the rest of
#      what kind's node entrypoint and the kubelet run;
#   2. containerd, runc, crictl and the CNI plugins at the versions kind's base image pins, and
#      kind's own node files (entrypoint, systemd units, containerd config) from the kind module;
#   3. kubelet, kubeadm and kubectl v1.37.1 from k8s.io/kubernetes (module hack/kind/node);
#   4. every image kubeadm v1.37.1 and kind start, built here and imported into the node's
#      containerd under the exact names kubeadm asks for (`kubeadm config images list`), as
#      `kind build node-image` does: kube-apiserver (stock), kube-controller-manager,
#      kube-scheduler, kube-proxy, etcd, pause, CoreDNS, plus a CNI and the e2e image agnhost.
# Outputs: the image $KIND_NODE_IMAGE, and in _output/kind-node/bin the kind CLI, kubectl and
# the other binaries (and e2e.test with BUILD_E2E_TEST=1, as make test-kind-e2e asks). Each step is stamped; a second run with nothing changed
# only checks the stamps.
set -o errexit -o nounset -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$ROOT"
# shellcheck source=../../fork/lib.sh
source hack/fork/lib.sh
# shellcheck source=import.sh
source hack/kind/node/import.sh
log() { printf '[kind-node] %s\n' "$*" >&2; }
die() { printf '[kind-node] error: %s\n' "$*" >&2; exit 1; }

NODE_IMAGE=${KIND_NODE_IMAGE:-kep2608.local/kind-node:v1.37.1}
KUBE_VERSION=v1.37.1
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NODE_DIR="$ROOT/hack/kind/node"
KN="$OUT/kind-node"
KBIN="$KN/bin"
KSTAMPS="$KN/stamps"
CTX="$KN/context"
mkdir -p "$KBIN" "$KSTAMPS" "$CTX"
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw"

need() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing${2:+ ($2)}"; }
need docker
docker info >/dev/null 2>&1 || die "the Docker engine does not answer ('docker info' fails)"

# The build installs its own tools (apt_install in hack/fork/lib.sh).
apt_install debootstrap libseccomp-dev gcc libc6-dev

# stamp NAME INPUT...: true when step NAME already ran with these inputs (a hash of them).
stamp_ok() { [ -f "$KSTAMPS/$1" ] && [ "$(cat "$KSTAMPS/$1")" = "$2" ]; }
stamp_set() { printf '%s' "$2" >"$KSTAMPS/$1"; }
hash_of() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }
image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# --- versions, all read from pinned modules ------------------------------------------------
KIND_VERSION=$(cd "$ROOT" && go list -m -f '{{.Version}}' sigs.k8s.io/kind)
KIND_DIR=$(module_dir "sigs.k8s.io/kind@$KIND_VERSION")
KUBE_DIR=$(module_dir "k8s.io/kubernetes@$KUBE_VERSION")
kind_arg() { sed -n "s/^ARG $1=\"\(.*\)\"$/\1/p" "$KIND_DIR/images/base/Dockerfile" | head -n 1; }
CONTAINERD_VERSION=$(kind_arg CONTAINERD_VERSION)
RUNC_VERSION=$(kind_arg RUNC_VERSION)
CRICTL_VERSION=$(kind_arg CRICTL_VERSION)
CNI_PLUGINS_VERSION=$(kind_arg CNI_PLUGINS_VERSION)
for v in CONTAINERD_VERSION RUNC_VERSION CRICTL_VERSION CNI_PLUGINS_VERSION; do
  [ -n "${!v}" ] || die "cannot read $v from $KIND_DIR/images/base/Dockerfile"
done
log "kind $KIND_VERSION; containerd $CONTAINERD_VERSION, runc $RUNC_VERSION, crictl $CRICTL_VERSION, CNI plugins $CNI_PLUGINS_VERSION (kind's base image pins)"

# --- 1. Go binaries ---------------------------------------------------------------------------
KUBE_LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  KUBE_LDFLAGS+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=37 -X $pkg.gitTreeState=clean"
done
KUBE_CMDS=(kubelet kubeadm kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy)
log "building ${KUBE_CMDS[*]} and agnhost from k8s.io/kubernetes $KUBE_VERSION"
(
  cd "$NODE_DIR"
  CGO_ENABLED=0 go build -trimpath -ldflags "$KUBE_LDFLAGS" -o "$KBIN/" \
    "${KUBE_CMDS[@]/#/k8s.io/kubernetes/cmd/}" k8s.io/kubernetes/test/images/agnhost
  if [ "${BUILD_E2E_TEST:-}" = 1 ]; then
    log "building e2e.test from k8s.io/kubernetes $KUBE_VERSION"
    CGO_ENABLED=0 go test -c -trimpath -ldflags "$KUBE_LDFLAGS" -o "$KBIN/e2e.test" k8s.io/kubernetes/test/e2e
  fi
)

go_install() { # go_install CGO TAGS LDFLAGS PKG@VERSION...
  local cgo=$1 tags=$2 ldflags=$3; shift 3
  GOBIN="$KBIN" CGO_ENABLED=$cgo go install -trimpath -tags "$tags" -ldflags "$ldflags" "$@"
}
log "building kind, containerd, runc, crictl, the CNI plugins and CoreDNS"
go_install 0 "" "-s -w" "sigs.k8s.io/kind@$KIND_VERSION"
go_install 1 "no_aufs no_zfs no_btrfs no_devmapper" \
  "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
  "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD_VERSION" \
  "github.com/containerd/containerd/v2/cmd/ctr@$CONTAINERD_VERSION" \
  "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION"
go_install 1 "seccomp urfave_cli_no_docs" "-s -w -X main.version=${RUNC_VERSION#v}" \
  "github.com/opencontainers/runc@$RUNC_VERSION"
# crictl from the module hack/kind/node (`go install crictl@version` asks the proxy for
# cri-tools' version list, which it refuses), at the version kind pins.
crictl_module=$(cd "$NODE_DIR" && go list -m -f '{{.Version}}' sigs.k8s.io/cri-tools)
[ "$crictl_module" = "$CRICTL_VERSION" ] ||
  die "hack/kind/node/go.mod has sigs.k8s.io/cri-tools $crictl_module; kind $KIND_VERSION pins $CRICTL_VERSION"
(cd "$NODE_DIR" && CGO_ENABLED=0 go build -trimpath -o "$KBIN/crictl" \
  -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$CRICTL_VERSION" sigs.k8s.io/cri-tools/cmd/crictl)
mkdir -p "$KBIN/cni"
GOBIN="$KBIN/cni" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
  "github.com/containernetworking/plugins/plugins/ipam/host-local@$CNI_PLUGINS_VERSION" \
  "github.com/containernetworking/plugins/plugins/main/loopback@$CNI_PLUGINS_VERSION" \
  "github.com/containernetworking/plugins/plugins/main/ptp@$CNI_PLUGINS_VERSION" \
  "github.com/containernetworking/plugins/plugins/meta/portmap@$CNI_PLUGINS_VERSION"

# The images kubeadm v1.37.1 asks for, exactly as it names them.
mapfile -t KUBEADM_IMAGES < <("$KBIN/kubeadm" config images list --kubernetes-version "$KUBE_VERSION")
image_named() { # image_named NAME: the kubeadm image whose repository ends in /NAME
  local i; for i in "${KUBEADM_IMAGES[@]}"; do [[ "${i%:*}" == */"$1" ]] && { echo "$i"; return; }; done
  die "kubeadm config images list names no $1 image: ${KUBEADM_IMAGES[*]}"
}
COREDNS_IMAGE=$(image_named coredns)
ETCD_IMAGE=$(image_named etcd)
PAUSE_IMAGE=$(image_named pause)
COREDNS_VERSION=${COREDNS_IMAGE##*:}
go_install 0 "" "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
# etcd: the fork builds etcd from go.etcd.io/etcd/server/v3 (make etcd); its version must be
# the one kubeadm's tag names (3.7.0-0 -> v3.7.0).
ETCD_MODULE_VERSION=$(cd "$ROOT" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
etcd_tag=${ETCD_IMAGE##*:}
[ "v${etcd_tag%-*}" = "$ETCD_MODULE_VERSION" ] ||
  die "kubeadm wants $ETCD_IMAGE but the fork builds etcd $ETCD_MODULE_VERSION"
[ -x "$OUT/bin/etcd" ] || die "_output/bin/etcd is missing (make etcd)"
# pause: kubernetes' own build/pause/linux/pause.c, linked statically.
gcc -Os -static -Wall -Werror -DVERSION="v${PAUSE_IMAGE##*:}-kep2608" -o "$KBIN/pause" "$KUBE_DIR/build/pause/linux/pause.c"
# The e2e images the specs of hack/kind/e2e.sh run: pause (kubeadm's, above) and agnhost,
# under the name test/utils/image/manifest.go gives it (hack/kind/e2e.sh checks it against
# `e2e.test --list-images`).
agnhost_tag=$(sed -n 's/^[[:space:]]*configs\[Agnhost\] = Config{list.PromoterE2eRegistry, "agnhost", "\([^"]*\)"}$/\1/p' \
  "$KUBE_DIR/test/utils/image/manifest.go")
[ -n "$agnhost_tag" ] || die "cannot read agnhost's tag from k8s.io/kubernetes/test/utils/image/manifest.go"
AGNHOST_IMAGE=registry.k8s.io/e2e-test-images/agnhost:$agnhost_tag
CNI_IMAGE=kep2608.local/ptp-cni:v1
TOOLS_IMAGE=kep2608.local/kind-rootfs:$DEBIAN_SUITE

# --- 2. Debian root filesystem ----------------------------------------------------------------
# The packages kind's base image installs (less NFS/iSCSI, which no spec here uses), plus jq
# and the C libraries of runc and containerd.
PACKAGES=systemd,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,fuse-overlayfs,e2fsprogs,bash,ca-certificates,curl,jq,procps,socat,netcat-openbsd
rootfs_key=$(hash_of "$DEBIAN_SUITE" "$DEBIAN_MIRROR" "$PACKAGES")
if ! stamp_ok rootfs "$rootfs_key" || ! image_exists "$TOOLS_IMAGE"; then
  log "debootstrap $DEBIAN_SUITE from $DEBIAN_MIRROR into a root filesystem"
  rootfs="$KN/rootfs"
  rm -rf "$rootfs"; mkdir -p "$rootfs" "$KN/debootstrap-cache"
  debootstrap --variant=minbase --include="$PACKAGES" --cache-dir="$KN/debootstrap-cache" \
    "$DEBIAN_SUITE" "$rootfs" "$DEBIAN_MIRROR" >"$KN/debootstrap.log" 2>&1 ||
    { tail -n 20 "$KN/debootstrap.log" >&2; die "debootstrap failed (log: $KN/debootstrap.log)"; }
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
  tar -C "$rootfs" --numeric-owner -c . | docker import - "$TOOLS_IMAGE" >/dev/null
  rm -rf "$rootfs"
  stamp_set rootfs "$rootfs_key"
fi

# --- 3. the images kubeadm and kind start -----------------------------------------------------
# Each image gets a docker build context of its own under $CTX/images; they are built in
# step 5, and only when some input changed.
rm -rf "$CTX/images"
IMAGES=()
image_context() { # image_context TAG DOCKERFILE FILE...
  local tag=$1 dockerfile=$2; shift 2
  local dir="$CTX/images/${tag//[:\/]/_}"
  mkdir -p "$dir"
  local f; for f in "$@"; do cp -a "$f" "$dir/"; done
  printf '%s\n' "$dockerfile" >"$dir/Dockerfile"
  IMAGES+=("$tag")
}
component_image() { # component_image IMAGE BINARY: BINARY at /usr/local/bin on the Debian base
  image_context "$1" "FROM $TOOLS_IMAGE
COPY $(basename "$2") /usr/local/bin/
ENTRYPOINT [\"/usr/local/bin/$(basename "$2")\"]" "$2"
}
for c in kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
  component_image "$(image_named "$c")" "$KBIN/$c"
done
component_image "$ETCD_IMAGE" "$OUT/bin/etcd"
image_context "$COREDNS_IMAGE" "FROM $TOOLS_IMAGE
COPY coredns /coredns
EXPOSE 53 53/udp
ENTRYPOINT [\"/coredns\"]" "$KBIN/coredns"
image_context "$PAUSE_IMAGE" "FROM scratch
COPY pause /pause
USER 65535:65535
ENTRYPOINT [\"/pause\"]" "$KBIN/pause"
image_context "$AGNHOST_IMAGE" "FROM $TOOLS_IMAGE
COPY agnhost /agnhost
RUN ln -s agnhost /agnhost-2 && mkdir /uploads
ENTRYPOINT [\"/agnhost\"]
CMD [\"pause\"]" "$KBIN/agnhost"
image_context "$CNI_IMAGE" "FROM $TOOLS_IMAGE"
PRELOAD=("${IMAGES[@]}")
for i in "${KUBEADM_IMAGES[@]}"; do
  [[ " ${PRELOAD[*]} " == *" $i "* ]] || die "kubeadm asks for $i, which this script does not build"
done

# --- 4. the node image ------------------------------------------------------------------------
# kind's node files from the kind module, our binaries, and containerd's config pointing at
# the pause image kubeadm names. On a cgroup v1 host the v1.37 kubelet refuses to start unless
# failCgroupV1 is false (the default became true in v1.35); the flag changes nothing on v2.
base="$CTX/node"
rm -rf "$base"; mkdir -p "$base/root/usr/local/bin" "$base/root/usr/local/sbin" "$base/root/usr/bin" \
  "$base/root/opt/cni/bin" "$base/root/kind/manifests"
cp -r "$KIND_DIR/images/base/files/." "$base/root/"
chmod -R u+w "$base/root"
find "$base/root" -type d -exec chmod 0755 {} +
find "$base/root" -type f -exec chmod 0644 {} +
chmod 0755 "$base"/root/usr/local/bin/* "$base"/root/kind/bin/*
sed -i "s#^\([[:space:]]*sandbox_image = \).*#\1\"$PAUSE_IMAGE\"#" "$base/root/etc/containerd/config.toml"
grep -q "sandbox_image = \"$PAUSE_IMAGE\"" "$base/root/etc/containerd/config.toml" ||
  die "kind's containerd config has no sandbox_image line to point at $PAUSE_IMAGE"
sed -i 's#^KUBELET_EXTRA_ARGS=.*#& --fail-cgroupv1=false#' "$base/root/etc/default/kubelet"
install -m 0755 "$KBIN"/{containerd,ctr,containerd-shim-runc-v2,crictl} "$base/root/usr/local/bin/"
install -m 0755 "$KBIN/runc" "$base/root/usr/local/sbin/runc"
install -m 0755 "$KBIN"/cni/* "$base/root/opt/cni/bin/"
install -m 0755 "$KBIN"/{kubelet,kubeadm,kubectl} "$base/root/usr/bin/"
install -m 0755 "$NODE_DIR/files/kep2608-entrypoint" "$base/root/usr/local/bin/"
printf '%s' "$KUBE_VERSION" >"$base/root/kind/version"
sed "s#@CNI_IMAGE@#$CNI_IMAGE#" "$NODE_DIR/default-cni.yaml" >"$base/root/kind/manifests/default-cni.yaml"
chmod 0644 "$base/root/kind/version" "$base/root/kind/manifests/default-cni.yaml"
cat >"$base/Dockerfile" <<EOF
FROM $TOOLS_IMAGE
COPY root/ /
RUN find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete \\
 && rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* \\
          /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/sockets.target.wants/*udev* \\
          /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/* \\
 && echo ReadKMsg=no >>/etc/systemd/journald.conf \\
 && ln -sf /usr/lib/systemd/systemd /sbin/init \\
 && systemctl enable kubelet.service containerd.service undo-mount-hacks.service \\
 && systemctl mask systemd-binfmt.service \\
 && mkdir -p /etc/kubernetes/manifests \\
 && ctr oci spec | jq '.hooks.createContainer[.hooks.createContainer|length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \\
      | jq 'del(.process.rlimits)' >/etc/containerd/cri-base.json \\
 && containerd --version && runc --version && kubelet --version
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/kep2608-entrypoint", "/sbin/init"]
EOF
# --- 5. build, import, commit (only when an input changed) -----------------------------------
inputs=$( { printf '%s\n' "$rootfs_key" "${PRELOAD[@]}"; cd "$CTX" && find . -type f -print0 | sort -z |
  xargs -0 sha256sum; } | sha256sum | cut -c1-16)
label=io.kep2608.node-image.inputs
if [ "$(docker image inspect -f "{{index .Config.Labels \"$label\"}}" "$NODE_IMAGE" 2>/dev/null)" = "$inputs" ]; then
  log "$NODE_IMAGE is up to date (inputs $inputs)"
  printf '%s\n' "${PRELOAD[@]}" >"$KN/preloaded-images.txt"
  exit 0
fi

log "building the images: ${IMAGES[*]}"
for tag in "${IMAGES[@]}"; do
  dir="$CTX/images/${tag//[:\/]/_}"
  docker build -q -t "$tag" "$dir" >/dev/null 2>"$KN/build-${tag//[:\/]/_}.log" ||
    { cat "$KN/build-${tag//[:\/]/_}.log" >&2; die "docker build $tag failed"; }
done
log "building the node base"
docker build -q -t "$NODE_IMAGE-base" "$base" >/dev/null 2>"$KN/node-base.log" ||
  { cat "$KN/node-base.log" >&2; die "docker build of the node base failed"; }

log "importing ${#PRELOAD[@]} images into the node's containerd"
docker save "${PRELOAD[@]}" -o "$KN/images.tar"
trap 'rm -f "$KN/images.tar"' EXIT
node_import_images "$NODE_IMAGE-base" "$NODE_IMAGE" "$KN/images.tar" "LABEL $label=$inputs" "" "${PRELOAD[@]}"
printf '%s\n' "${PRELOAD[@]}" >"$KN/preloaded-images.txt"
log "built $NODE_IMAGE (inputs $inputs) with: ${PRELOAD[*]}"
