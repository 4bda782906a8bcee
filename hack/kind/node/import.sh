# shellcheck shell=bash
# node_import_images BASE TARGET ARCHIVE CHANGE FILES IMAGE...: commits TARGET, the node image
# BASE with the images of the `docker save` archive ARCHIVE in its containerd, the way
# `kind build node-image` imports them: containerd runs in a container of BASE,
# `ctr images import --no-unpack` (containerd unpacks on first use) loads the archive, every
# IMAGE must then be listed (as is, or under docker.io/), the directory FILES (if not empty)
# is copied to the container's /, and the container is committed with the node's entrypoint
# and the extra `docker commit --change` CHANGE (a LABEL line). Used by hack/kind/node/build.sh
# and hack/fork/release-kind-node.sh. Returns non-zero, with the reason on stderr, on failure.
# Call it as a plain command, not after `if`, `||` or `&&`: bash ignores errexit in a function
# called there, and every step below relies on it.
node_import_images() (
  set -o errexit -o nounset -o pipefail
  base=$1 target=$2 archive=$3 change=$4 files=$5
  shift 5
  fail() { printf 'node_import_images %s: %s\n' "$target" "$*" >&2; exit 1; }
  builder=kep2608-node-import-$$-$RANDOM
  trap 'docker rm -f -v "$builder" >/dev/null 2>&1 || true' EXIT
  docker run -d --name "$builder" --entrypoint /usr/local/bin/containerd "$base" >/dev/null
  for _ in $(seq 1 60); do docker exec "$builder" ctr version >/dev/null 2>&1 && break; sleep 1; done
  docker exec "$builder" ctr version >/dev/null ||
    { docker logs "$builder" | tail -n 20 >&2; fail "containerd did not start in a container of $base"; }
  docker exec -i "$builder" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned \
    --all-platforms --no-unpack --digests - <"$archive" >/dev/null
  # The list is read whole before it is searched: grep -q stopping early would end ctr with
  # SIGPIPE, which pipefail turns into a failure.
  imported=$(docker exec "$builder" ctr --namespace=k8s.io images list -q)
  for i in "$@"; do
    grep -qxF "$i" <<<"$imported" || grep -qxF "docker.io/$i" <<<"$imported" ||
      fail "$i is not in the node's containerd after the import; it holds: $(tr '\n' ' ' <<<"$imported")"
  done
  if [ -n "$files" ]; then docker cp "$files/." "$builder:/"; fi
  docker exec "$builder" sh -c 'kill -TERM 1'
  docker wait "$builder" >/dev/null || true
  # The container keeps the base's STOPSIGNAL and ENV; its entrypoint was containerd.
  docker commit --change 'ENTRYPOINT [ "/usr/local/bin/kep2608-entrypoint", "/sbin/init" ]' \
    --change "$change" "$builder" "$target" >/dev/null
  [ "$(docker image inspect -f '{{.Config.StopSignal}} {{json .Config.Entrypoint}}' "$target")" = \
    'SIGRTMIN+3 ["/usr/local/bin/kep2608-entrypoint","/sbin/init"]' ] || fail "lost the stop signal or entrypoint"
)
