# Source it; do not run it. kind_engine_compat NODE_IMAGE WORKDIR makes kind's node
# containers start on a Docker engine that cannot grant --privileged, or that stores images
# with fuse-overlayfs.
#
# First, kind runs each node with `docker run --privileged` and each node command with
# `docker exec --privileged`. --privileged asks runc for every capability the kernel knows;
# an engine whose own bounding set lacks one (on the project's machines: CAP_SYS_RESOURCE,
# for a daemon in a sandbox) fails every such container with "unable to apply caps:
# operation not permitted". When a probe shows that, this puts a `docker` wrapper first on
# PATH, for kind only, that replaces --privileged on `run` by what it grants, less the
# capabilities the engine lacks:
#   --cap-add=ALL --cap-drop=<each capability missing from the engine's bounding set>
#   --security-opt=systempaths=unconfined    (no masked or read-only /proc paths)
#   --device-cgroup-rule='a *:* rwm'         (every device, as for a privileged container)
#   --device=/dev/kmsg                       (the kubelet reads it)
# and drops it on `exec` (the command gets the node container's capabilities). The node
# image's entrypoint (hack/kind/node/files/kep2608-entrypoint) then makes /sys and the cgroup
# mounts writable, which --privileged also does. Where --privileged works, nothing changes.
#
# Second, kind's entrypoint switches the node's containerd to the fuse-overlayfs snapshotter
# when the node's root filesystem is FUSE (an engine with the fuse-overlayfs storage driver),
# which needs a snapshotter plugin kind's base image builds and this image does not. But
# containerd keeps its snapshots under /var/lib/containerd, and kind makes the node's /var a
# volume on the engine's disk, where overlayfs works; so on such an engine this sets
# KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER=overlayfs (kind passes it to the node), unless it
# is set already.
kind_engine_compat() {
  local image=$1 dir=$2 out
  if [ -z "${KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER:-}" ] && [ "$(docker info -f '{{.Driver}}')" = fuse-overlayfs ]; then
    export KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER=overlayfs
    printf '[kind] the engine stores images with fuse-overlayfs: KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER=overlayfs (the node keeps containerd'"'"'s snapshots in its /var volume)\n' >&2
  fi
  if out=$(docker run --rm --privileged --entrypoint /bin/true "$image" 2>&1); then
    return 0
  fi
  case "$out" in
    *"unable to apply caps"*) ;;
    *) printf '[kind] docker run --privileged fails on this engine:\n%s\n' "$out" >&2; return 1 ;;
  esac
  # The engine's bounding set: dockerd's (root reads it), else this shell's.
  local pid bnd last missing_mask missing
  pid=$(pgrep -xo dockerd || true)
  bnd=$(awk '/^CapBnd/ {print $2}' "/proc/${pid:-self}/status")
  last=$(cat /proc/sys/kernel/cap_last_cap)
  missing_mask=$(( ((1 << (last + 1)) - 1) & ~0x$bnd ))
  [ "$missing_mask" -ne 0 ] || { printf '[kind] --privileged fails, but the engine lacks no capability:\n%s\n' "$out" >&2; return 1; }
  missing=$(capsh --decode="$(printf '%x' "$missing_mask")" | sed 's/^.*=//; s/cap_//g' | tr ',' ' ' | tr '[:lower:]' '[:upper:]')
  local drops=() c
  for c in $missing; do drops+=("--cap-drop=$c"); done
  mkdir -p "$dir"
  local real_docker
  real_docker=$(command -v docker)
  cat >"$dir/docker" <<WRAPPER
#!/usr/bin/env bash
# Written by hack/kind/engine.sh: kind's docker calls on an engine that cannot grant
# --privileged (it lacks $missing). See there.
args=()
sub=
for a in "\$@"; do
  if [ -z "\$sub" ] && [[ "\$a" != -* ]]; then sub=\$a; fi
  if [ "\$a" = --privileged ]; then
    case \$sub in
      run|create) args+=(--cap-add=ALL ${drops[*]} --security-opt=systempaths=unconfined
                         '--device-cgroup-rule=a *:* rwm' --device=/dev/kmsg) ;;
    esac
    continue
  fi
  args+=("\$a")
done
exec "$real_docker" "\${args[@]}"
WRAPPER
  chmod +x "$dir/docker"
  export PATH="$dir:$PATH"
  printf '[kind] this engine cannot grant --privileged (it lacks %s): kind runs through %s/docker, which grants every other capability instead\n' \
    "$missing" "$dir" >&2
}
