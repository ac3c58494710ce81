#!/usr/bin/env bash
# Instructions per replayed trace request, counted by cachegrind: a speed figure that does
# not drift with the load on this shared VM (CPU time per request does, by up to 2x), for
# comparing two builds or two commits. Set-up (building the devices, learning the address
# map) is excluded: the figure is (count at --repeat 3 - count at --repeat 1) / 2 passes.
# Usage: scripts/instructions.sh [hdd|linear|tiering|caching] [TRACE] [MORE BENCH OPTIONS]
#   e.g. scripts/instructions.sh tiering ../shared/traces/cloudphysics-io.csv --ssd-timing datasheet
# (needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-tiering}
trace=${2:-../shared/traces/cloudphysics-io.csv}
more=("${@:3}")
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
cargo build --release -q --bin tierlab
bin=${CARGO_TARGET_DIR:-target}/release/tierlab
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
