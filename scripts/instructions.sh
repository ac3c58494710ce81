#!/usr/bin/env bash
# Instructions per replayed trace request, counted by cachegrind: a speed figure that does
# not drift with the load on this shared VM (CPU time per request does, by up to 2x), for
# comparing two builds or two commits. Set-up (building the devices, learning the address
# map) is excluded: the figure is (count at --repeat 3 - count at --repeat 1) / 2 passes.
# Usage: scripts/instructions.sh [hdd|linear|tiering|caching] [TRACE] [MORE BENCH OPTIONS]
#   e.g. scripts/instructions.sh tiering ../shared/traces/cloudphysics-io.csv --ssd-timing datasheet
#        scripts/instructions.sh array WORKLOAD.toml [MORE `array simulate` OPTIONS]
#   (array: instructions per request of one whole `tierlab array simulate --workload
#   WORKLOAD.toml` run, set-up and NVRAM warming included, as the array bench's CPU
#   figures are; the workload's `requests` are the divisor)
# BIN=path/to/tierlab counts that binary instead of building this checkout's release one.
# (needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-tiering}
trace=${2:-../shared/traces/cloudphysics-io.csv}
more=("${@:3}")
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  cargo build --release -q --bin tierlab
  bin=${CARGO_TARGET_DIR:-target}/release/tierlab
fi
if [ "$mode" = array ]; then
  requests=$(sed -n 's/^requests *= *\([0-9]*\).*/\1/p' "$trace")
  [ -n "$requests" ] || { echo "$trace: no requests = N line" >&2; exit 1; }
  total=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$bin" array simulate --workload "$trace" --json "${more[@]}" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *//p' | tr -d ,)
  echo "$trace (array${more:+ ${more[*]}}): $(( total / requests )) instructions per request ($total in all, $requests requests)"
  exit 0
fi
args=()
[ "$mode" = hdd ] || args=(--mode "$mode" --compact)
args+=("${more[@]}")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Prints the instruction count of one run; the run's JSON result goes to $out.
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$bin" bench simulate "$trace" "${args[@]}" --repeat "$1" --json 2>&1 >"$out" |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}
one=$(count 1)
requests=$(sed -n 's/.*"requests":\([0-9]*\).*/\1/p' "$out")
three=$(count 3)
echo "$trace ($mode${more:+ ${more[*]}}): $(( (three - one) / 2 / requests )) instructions per request ($requests requests per pass)"
