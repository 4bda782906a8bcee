#!/usr/bin/env bash
# Regenerates generated.proto and generated.pb.go of the v1 and v1beta1 API packages with
# go-to-protobuf and protoc-gen-gogo from k8s.io/code-generator (pinned by go.mod), protoc
# from Debian, gogo.proto from github.com/gogo/protobuf (pinned by code-generator), and the
# Google protos from /usr/include.
#
# go-to-protobuf expects a GOPATH-like source root; we build one from symlinks.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GEN_ROOT=$(cd "${1:-$ROOT}" && pwd)
mkdir -p "$TOOLS_BIN"
export GOBIN="$TOOLS_BIN"
export PATH="$TOOLS_BIN:$PATH"

cd "$GEN_ROOT"
codegen=$(module_dir k8s.io/code-generator)
(cd "$codegen" && go install k8s.io/code-generator/cmd/go-to-protobuf k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo)
# goimports is not in code-generator's go.sum: install it at the x/tools version code-generator pins.
tools_version=$(cd "$codegen" && go list -m -f '{{.Version}}' golang.org/x/tools)
go install "golang.org/x/tools/cmd/goimports@$tools_version"
gogo=$(cd "$codegen" && module_dir github.com/gogo/protobuf)
apimachinery=$(module_dir k8s.io/apimachinery)
api=$(module_dir k8s.io/api)
[ -f "$gogo/gogoproto/gogo.proto" ] || die "gogo.proto not found in $gogo"

src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
mkdir -p "$src/k8s.io" "$src/github.com/gogo/protobuf/gogoproto"
ln -s "$apimachinery" "$src/k8s.io/apimachinery"
ln -s "$api" "$src/k8s.io/api"
ln -s "$GEN_ROOT" "$src/k8s.io/apiextensions-apiserver"
cp "$gogo/gogoproto/gogo.proto" "$src/github.com/gogo/protobuf/gogoproto/"

apimachinery_pkgs=(
  -k8s.io/apimachinery/pkg/util/intstr
  -k8s.io/apimachinery/pkg/api/resource
  -k8s.io/apimachinery/pkg/runtime/schema
  -k8s.io/apimachinery/pkg/runtime
  -k8s.io/apimachinery/pkg/apis/meta/v1
  -k8s.io/apimachinery/pkg/apis/meta/v1beta1
)
pkgs=(
  k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
  k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1
)
"$TOOLS_BIN/go-to-protobuf" \
  -v "${KUBE_VERBOSE:-0}" \
  --go-header-file "$GEN_ROOT/hack/boilerplate.go.txt" \
  --output-dir "$src" \
  --proto-import "$src" \
  --proto-import /usr/include \
  --apimachinery-packages "$(IFS=,; echo "${apimachinery_pkgs[*]}")" \
  --packages "$(IFS=,; echo "${pkgs[*]}")"
