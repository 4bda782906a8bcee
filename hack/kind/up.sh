#!/usr/bin/env bash
# make kind-up: create the kind cluster of hack/kind/cluster.yaml with our kube-apiserver.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

missing=()
# make kind-node-image builds kind too; use it when kind is not on PATH.
if ! command -v kind >/dev/null 2>&1 && [ -x _output/kind-node/bin/kind ]; then
  PATH="$PWD/_output/kind-node/bin:$PATH"
fi
command -v kind >/dev/null 2>&1 || missing+=("kind (https://kind.sigs.k8s.io/docs/user/quick-start/#installation)")
if ! command -v docker >/dev/null 2>&1; then
  missing+=("docker")
elif ! docker info >/dev/null 2>&1; then
  missing+=("a running Docker engine ('docker info' fails)")
fi
if [ ${#missing[@]} -gt 0 ]; then
  printf 'make kind-up needs %s.\n' "$(IFS=';'; echo "${missing[*]}" | sed 's/;/; and /g')" >&2
  echo "Without them, use 'make run' for a local control plane; 'make test' checks the kind recipe offline." >&2
  exit 1
fi
[ -x _output/bin/kube-apiserver ] || { echo "_output/bin/kube-apiserver is missing; run 'make kube-apiserver'" >&2; exit 1; }

# The node image: the recipe's, or the one --image names. When it is here already, adapt
# kind's docker calls to this engine if it needs that (hack/kind/engine.sh).
image=$(sed -n 's/^ *image: *//p' hack/kind/cluster.yaml | head -n 1)
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --image) image=${args[i + 1]:-} ;;
    --image=*) image=${args[i]#--image=} ;;
  esac
done
if docker image inspect "$image" >/dev/null 2>&1; then
  # shellcheck source=engine.sh
  source hack/kind/engine.sh
  kind_engine_compat "$image" "$PWD/_output/kind-up/engine"
fi

kind create cluster --config hack/kind/cluster.yaml "$@"
echo
echo "kubectl now points at kind-kep2608. Try: _output/bin/kubectl apply --server-side -f examples/feature-gates/crontab-crd.yaml"
