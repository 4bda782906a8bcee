#!/usr/bin/env bash
# Makes sure protoc is available: Debian's protobuf-compiler package, installed through apt
# when it is missing. Nothing downloads a protoc binary.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if command -v protoc >/dev/null 2>&1 && [ -d /usr/include/google/protobuf ]; then
  exit 0
fi
log "protoc is missing: installing Debian's protobuf-compiler (and libprotobuf-dev for the Google protos)"
command -v apt-get >/dev/null 2>&1 || die "protoc is missing and apt-get is not available; install protobuf-compiler"
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "protoc is missing; run as root or install protobuf-compiler"
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || log "apt-get update failed; trying the install anyway"
$sudo apt-get install -y -qq protobuf-compiler libprotobuf-dev >/dev/null
command -v protoc >/dev/null 2>&1 || die "protobuf-compiler installed, but protoc is still not on PATH"
