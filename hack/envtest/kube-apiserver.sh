#!/bin/sh
# kube-apiserver for controller-runtime's envtest, installed by `make envtest-assets` as
# <assets>/kube-apiserver next to the real binary, <assets>/kube-apiserver.real.
#
# It runs the real binary with CRDFieldLevelVersioning turned on, then the caller's
# arguments. kube-apiserver adds up repeated --feature-gates flags in order, and a later value
# of a gate wins, so a caller's own --feature-gates keeps this one on unless it names
# CRDFieldLevelVersioning itself (CRDFieldLevelVersioning=false turns the feature off).
# kube-apiserver refuses a mix of plain and "kube:"-prefixed gates, so when the caller
# writes its gates as kube:Name=value, this one is written the same way.
set -eu

real="$(dirname "$0")/kube-apiserver.real"
if [ ! -x "$real" ]; then
	echo "kube-apiserver (envtest assets): $real is missing; run \`make envtest-assets\` in the KEP-2608 fork" >&2
	exit 1
fi

prefix=
gates_next=false
for arg in "$@"; do
	value=
	if [ "$gates_next" = true ]; then
		value=$arg
		gates_next=false
	else
		case $arg in
		--feature-gates=* | -feature-gates=*) value=${arg#*=} ;;
		--feature-gates | -feature-gates) gates_next=true ;;
		esac
	fi
	case $value in
	kube:* | *,kube:*) prefix=kube: ;;
	esac
done

exec "$real" "--feature-gates=${prefix}CRDFieldLevelVersioning=true" "$@"
