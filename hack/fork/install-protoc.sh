#!/usr/bin/env bash
# Makes sure protoc is available: Debian's protobuf-compiler package, installed through apt
# when it is missing. Nothing downloads a protoc binary.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if command -v protoc >/dev/null 2>&1 && [ -d /usr/include/google/protobuf ]; then
  exit 0
fi
log "protoc is missing: installing Debian's protobuf-compiler (and libprotobuf-dev for the Google protos)"
apt_install protobuf-compiler libprotobuf-dev
command -v protoc >/dev/null 2>&1 || die "protobuf-compiler installed, but protoc is still not on PATH"
