#!/usr/bin/env bash
# Simulator speed and memory (issue: foundation §7). Prints figures; asserts nothing.
# Each measurement runs in its own process so that peak RSS is that run's own.
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-../shared/traces/cloudphysics-io.csv}
cargo build --release -q --bin tierlab
bin=target/release/tierlab
echo "== closed-loop replay on one HDD (requests per CPU-second, peak memory)"
for repeat in 1 10; do
  taskset -c 0 "$bin" bench simulate "$trace" --repeat "$repeat"
done
