#!/usr/bin/env bash
# How the simulator's cost grows with the work: every study at 1x, 4x, 16x and 64x its base
# length, CPU seconds (user + system) and peak RSS of the whole process, each run in its
# own process (GNU time). Prints a Markdown table; docs/performance.md holds its figures.
#
#   scripts/bench-scale.sh [CLOUDPHYSICS_CSV]   (default ../shared/traces/cloudphysics-io.csv)
#
# Environment:
#   SCALES   lengths to run (default "1 4 16 64")
#   STUDIES  which studies (default "cache hdd tiering caching array replicate")
#   BIN      a tierlab binary to measure instead of building this checkout (to compare an
#            older build side by side: run the script once with each)
#   BENCH_DIR  scratch for the repeated traces (default target/bench-scale)
#
# The studies and what 1x is:
#   cache      tierlab cache on the trace (4 KiB blocks), LRU, ARC and S3-FIFO at four sizes
#              (the 1x trace touches 269,210 blocks, 1.03 GiB); Nx is the trace written N times
#              back to back (times shifted, the same blocks), a file of N times the records
#   hdd        tierlab bench simulate on one HDD, --repeat N
#   tiering    tierlab bench simulate --mode tiering --compact, --repeat N
#   caching    tierlab bench simulate --mode caching --compact, --repeat N
#   array      tierlab array simulate (24 two-speed disks, hibernator+, 14 req/s),
#              ARRAY_HOURS (default 1) x N simulated hours after a 600 s warm-up
#   replicate  tierlab replicate run --no-measure (160 warehouses: the whole run, a fixed
#              amount of work), REPLICATE_HOURS (default 0.025) x N
#              hours of primary time, measured after 60 s
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-../shared/traces/cloudphysics-io.csv}
scales=${SCALES:-1 4 16 64}
studies=${STUDIES:-cache hdd tiering caching array replicate}
work=${BENCH_DIR:-${CARGO_TARGET_DIR:-target}/bench-scale}
array_hours=${ARRAY_HOURS:-1}
replicate_hours=${REPLICATE_HOURS:-0.025}
mkdir -p "$work"
if [ -z "${BIN:-}" ]; then
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo build --release -q -p tierlab-cli --bin tierlab
  BIN=${CARGO_TARGET_DIR:-target}/release/tierlab
fi
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }

# The trace written N times back to back, each copy's times shifted past the one before.
repeated() {
  local n=$1 out="$work/$(basename "$trace" .csv)-x$1.csv"
  if [ ! -s "$out" ]; then
    awk -F, -v R="$n" 'NR == 1 { print; next }
      { n++; t[n] = $2; l[n] = $0; if (n == 1 || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
      END { span = hi - lo + 1
            for (c = 0; c < R; c++) for (i = 1; i <= n; i++) {
              split(l[i], f, ","); printf "%s,%d,%s,%s,%s\n", f[1], f[2] + c * span, f[3], f[4], f[5] } }' \
      "$trace" >"$out.tmp"
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}

# Runs a command; prints "CPU_S RSS_MIB".
measure() {
  local t
  t=$(mktemp)
  /usr/bin/time -f "%U %S %M" -o "$t" "$@" >/dev/null 2>"$t.err" || { cat "$t.err" >&2; rm -f "$t" "$t.err"; return 1; }
  awk '{ printf "%.2f %.0f\n", $1 + $2, $3 / 1024 }' "$t"
  rm -f "$t" "$t.err"
}

run_study() {
  local study=$1 n=$2
  case $study in
    cache) measure "$BIN" cache "$(repeated "$n")" --block 4K --algorithms lru,arc,s3fifo --sizes 16M,64M,256M,1G --json ;;
    hdd) measure "$BIN" bench simulate "$trace" --repeat "$n" --json ;;
    tiering | caching) measure "$BIN" bench simulate "$trace" --mode "$study" --compact --repeat "$n" --json ;;
    array) measure "$BIN" array simulate --scheme hibernator+ --iops 14 --warmup-s 600 \
      --hours "$(awk -v h="$array_hours" -v n="$n" 'BEGIN { print h * n }')" --json ;;
    replicate) measure "$BIN" replicate run --no-measure --warmup-s 60 \
      --hours "$(awk -v h="$replicate_hours" -v n="$n" 'BEGIN { print h * n }')" --json ;;
    *) echo "unknown study $study" >&2; return 1 ;;
  esac
}

echo "$(date -u +%Y-%m-%d) $BIN, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
header="| study |"
rule="|---|"
for n in $scales; do header+=" ${n}x CPU s | ${n}x RSS MiB |"; rule+="---:|---:|"; done
header+=" CPU ${scales##* }x / ${scales%% *}x |"
rule+="---:|"
echo "$header"
echo "$rule"
for study in $studies; do
  row="| $study |"
  first="" last=""
  for n in $scales; do
    read -r cpu rss < <(run_study "$study" "$n")
    row+=" $cpu | $rss |"
    first=${first:-$cpu}
    last=$cpu
  done
  row+=" $(awk -v a="$last" -v b="$first" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }') |"
  echo "$row"
done
