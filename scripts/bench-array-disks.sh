#!/usr/bin/env bash
# What an array costs per request as it grows: `tierlab array simulate` on 24, 384 and
# 1,000 disks, with 2 GiB of NVRAM and without, replaying the same requests on each (the
# study's OLTP workload of the 24-disk array, REQUESTS of them). CPU seconds (user +
# system, GNU time) of the whole process, set-up and NVRAM warming included; each figure
# is the least of RUNS runs. Prints a Markdown table of CPU s per million requests,
# requests per CPU-second, the cost per request relative to 24 disks with the same NVRAM,
# and the run's mean response time (a run whose disks cannot carry the load shows it
# there: its queues, and its cost, grow without bound).
#
#   scripts/bench-array-disks.sh [BIN ...]
#
# With several binaries (an older build and this one) their runs are interleaved, and the
# table gains each build's ratio to the first.
#
# Environment:
#   REQUESTS  requests per run (default 1000000)
#   DISKS     array sizes (default "24 384 1000")
#   SCHEME    energy scheme (default raid5: the executor's own cost, no scheme planning)
#   SKEW      the workload's skew, zipf (the study's default) or hot-cold
#   LOAD      fixed: 140 req/s on every array (the study's); scaled: 140 req/s per 24
#             disks (every disk about as busy as on 24: with hot-cold only, as zipf's
#             hottest pages stay on a few disks and overload them)
#   RUNS      runs per cell, the least CPU time kept (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${REQUESTS:-1000000}
disk_counts=${DISKS:-24 384 1000}
scheme=${SCHEME:-raid5}
skew=${SKEW:-zipf}
load=${LOAD:-fixed}
runs=${RUNS:-3}
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo build --release -q -p tierlab-cli --bin tierlab
  bins=("${CARGO_TARGET_DIR:-target}/release/tierlab")
fi
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }

# The workload file for an array of $1 disks: the study's OLTP workload of the 24-disk
# array (its span, 395,996,823,552 bytes; `tierlab array simulate` with no workload
# given), REQUESTS requests of it, so every array replays the same requests.
workload() {
  local iops address
  iops=$(awk -v d="$1" -v l="$load" 'BEGIN { print l == "scaled" ? 140 * d / 24 : 140 }')
  if [ "$skew" = zipf ]; then
    address=$'kind = "zipf"\ntheta = 1.08\nscramble = false'
  else
    address=$'kind = "hot-cold"\nhot_access_fraction = 0.9\nhot_space_fraction = 0.1'
  fi
  cat <<EOF
name = "oltp-${iops}iops-$skew"
seed = 1
requests = $requests
span_bytes = 395996823552
align_bytes = 8192
read_fraction = 0.6666666666666666
volume = 0
hot_region_bytes = 16777216

[address]
$address

[size]
kind = "fixed"
bytes = 8192

[arrival]
kind = "poisson"
iops = $iops
EOF
}

# "CPU_S MEAN_MS" of one run of binary $1 on $2 disks with NVRAM $3.
run() {
  local bin=$1 disks=$2 nvram=$3 t mean
  t=$(mktemp)
  workload "$disks" >"$t.toml"
  /usr/bin/time -f "%U %S" -o "$t" "$bin" array simulate --scheme "$scheme" --disks "$disks" --nvram "$nvram" \
    --workload "$t.toml" --warmup-s 0 --json >"$t.json" 2>"$t.err" || { cat "$t.err" >&2; rm -f "$t" "$t".*; return 1; }
  mean=$(tr -d ' \n' <"$t.json" | sed 's/.*"response_time":{[^}]*"mean_ms":\([0-9.e+-]*\).*/\1/')
  awk -v m="$mean" '{ printf "%.3f %.2f\n", $1 + $2, m }' "$t"
  rm -f "$t" "$t".*
}

echo "$(date -u +%Y-%m-%d) scheme $scheme, $skew skew, $load load, $requests requests a run, least of $runs runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!bins[@]}"; do echo "build $i: ${bins[$i]}"; done
declare -A best mean_ms
for _ in $(seq "$runs"); do
  for disks in $disk_counts; do
    for nvram in 2G 0; do
      for i in "${!bins[@]}"; do
        read -r c m < <(run "${bins[$i]}" "$disks" "$nvram")
        k="$i/$disks/$nvram"
        best[$k]=$(awk -v a="${best[$k]:-}" -v b="$c" 'BEGIN { print (a == "" || b < a) ? b : a }')
        mean_ms[$k]=$m
      done
    done
  done
done
echo
header="| build | disks | NVRAM | mean response ms | CPU s / M requests | M requests / CPU-s | per request vs ${disk_counts%% *} disks |"
rule="|---|---:|---|---:|---:|---:|---:|"
if [ ${#bins[@]} -gt 1 ]; then header+=" CPU vs build 0 |"; rule+="---:|"; fi
echo "$header"
echo "$rule"
for disks in $disk_counts; do
  for nvram in 2G 0; do
    for i in "${!bins[@]}"; do
      c=${best[$i/$disks/$nvram]}
      first=${best[$i/${disk_counts%% *}/$nvram]}
      line=$(awk -v c="$c" -v n="$requests" -v f="$first" 'BEGIN { printf "%.3f | %.3f | %.2f", c / n * 1e6, n / c / 1e6, c / f }')
      row="| $i | $disks | $([ "$nvram" = 0 ] && echo none || echo "2 GiB") | ${mean_ms[$i/$disks/$nvram]} | $line |"
      if [ ${#bins[@]} -gt 1 ]; then row+=" $(awk -v c="$c" -v o="${best[0/$disks/$nvram]}" 'BEGIN { printf "%.2f", c / o }') |"; fi
      echo "$row"
    done
  done
done
