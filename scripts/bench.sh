#!/usr/bin/env bash
# Simulator speed and memory (issues: foundation §7, hybrid drives §Performance). Prints
# figures; asserts nothing. Each measurement runs in its own process so that peak RSS is
# that run's own. Placement-only speed (no device timing): cargo bench -p tierlab-placement.
# CPU time drifts with the load on a shared machine; scripts/instructions.sh counts
# instructions per request instead, for comparing builds.
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-../shared/traces/cloudphysics-io.csv}
cargo build --release -q --bin tierlab
bin=${CARGO_TARGET_DIR:-target}/release/tierlab
echo "== closed-loop replay on one HDD (requests per CPU-second, peak memory)"
for repeat in 1 10; do
  taskset -c 0 "$bin" bench simulate "$trace" --repeat "$repeat"
done
# The hybrid drive: Intel 320 300 GB SSD model (DFTL, page-level timing) + Seagate 2 TB,
# the trace's touched 1 MiB extents packed densely, SSD = 1/4. The target for the
# full-timing tiering run is 1 M requests/CPU-s.
echo "== closed-loop replay on a hybrid drive, full timing (linear: no migrations)"
for mode in linear tiering caching; do
  taskset -c 0 "$bin" bench simulate "$trace" --mode "$mode" --compact --repeat 10
done
# The same drives with the SSD timed from its data sheet (tierlab-ssd-datasheet) instead
# of its NAND internals.
echo "== the same, SSD timed from its data sheet (--ssd-timing datasheet)"
for mode in linear tiering caching; do
  taskset -c 0 "$bin" bench simulate "$trace" --mode "$mode" --compact --repeat 10 --ssd-timing datasheet
done
