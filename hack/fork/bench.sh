#!/usr/bin/env bash
# make bench: the micro benchmarks of docs/development/performance.md (the strategy, CEL rules that read
# gates, CRD validation). Every round runs each setup once,
# baseline included, so that the machine's drift hits all of them alike; hack/fork/benchratio then
# takes the medians and prints ratios against the baseline of the same run, with the goals.
#
# Usage: hack/fork/bench.sh <rounds> <output dir>
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

rounds=${1:-5}
out=${2:-_output/bench}
mkdir -p "$out"
out=$(cd "$out" && pwd)
go test -c -o "$out/customresource.test" ./pkg/registry/customresource/
go test -c -o "$out/validation.test" ./pkg/apis/apiextensions/validation/

raw="$out/micro.txt"
: >"$raw"
echo "[bench] $rounds round(s); $(nproc) CPU(s), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(go version | awk '{ print $3 }')"
# run <package dir> <test binary> <flags...>: one round of one package's benchmarks.
run() {
  local dir=$1 bin=$2
  shift 2
  (cd "$dir" && "$bin" -test.run '^$' "$@") >"$out/round.txt"
  cat "$out/round.txt" >>"$raw"
  grep '^Benchmark' "$out/round.txt"
}
for round in $(seq "$rounds"); do
  echo "[bench] round $round/$rounds"
  run pkg/registry/customresource "$out/customresource.test" \
    -test.bench 'FieldGates(Convert|Scaling|IndexMemory|OpenShift)$' -test.benchtime 3000x
  # The CEL rules' goal is a 5% ratio between two setups doing the same work, (a) and (b): at
  # 3000 ops a setup lasts about 0.2 s here, and two runs measured (b)/(a) at 1.117 and 1.18 (performance.md);
  # 10000 ops average more of the VM's hiccups out.
  run pkg/registry/customresource "$out/customresource.test" -test.bench 'FieldGatesCELRules$' -test.benchtime 10000x
  run pkg/registry/customresource "$out/customresource.test" \
    -test.bench 'FieldGatesStrategy$/^PrepareForUpdate$' -test.benchtime 3000x
  # The operations of a few microseconds or less (the creates, the hook, the warnings): at
  # 3000 ops one setup of them lasts 0.5 to 20 ms, the length of one of this shared VM's
  # hiccups, and one hiccup moved a median by 50% (a 150-ns create read 318 ns); at 20000
  # ops a setup lasts long enough to average them out.
  run pkg/registry/customresource "$out/customresource.test" \
    -test.bench 'FieldGatesStrategy$/^(PrepareForCreate|Hook|WarningsOnUpdate)$' -test.benchtime 20000x
  # Defaulting allocates about 280 times per op, so 3000 ops leave its time at the mercy of
  # when the GC runs (setups doing identical work differed by up to 10%); 10000 do not.
  run pkg/registry/customresource "$out/customresource.test" -test.bench 'FieldGatesDefaulting$' -test.benchtime 10000x
  run pkg/apis/apiextensions/validation "$out/validation.test" \
    -test.bench 'ValidateCustomFeatureGates|ValidateCRDWithFeatureGates' -test.benchtime 10x
done
rm -f "$out/round.txt"
go run ./hack/fork/benchratio <"$raw" | tee "$out/micro-report.md"
echo "[bench] raw results: $raw; report: $out/micro-report.md"
