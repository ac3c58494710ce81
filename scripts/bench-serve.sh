#!/usr/bin/env bash
# tierlab serve against nbdkit's file plugin, side by side in one run.
# (a) tierlab serve, tiering, with the working set mapped on the SSD path;
# (b) nbdkit file serving a backing file of the same size.
# fio's nbd engine: 4 KiB random read and write at queue depth 1 and 32, 1 MiB sequential.
# Prints medians of alternating runs: IOPS, MiB/s, mean completion latency, the ratio a/b,
# and the latency tierlab adds (at depth 1 that is the per-request overhead). Needs nbdkit and fio (apt-get install nbdkit fio). Asserts nothing.
# REPEATS (3) runs of each job, RUNTIME (5) seconds each, JOBS to run some of them
# ("randwrite-4k-1 randwrite-4k-32"), BIN to bench a given tierlab binary instead of building
# one. FUTEX=1 then counts futex calls per I/O of each server (strace -f -c) over one more
# run of each job, outside the timed ones (strace slows what it traces).
set -euo pipefail
cd "$(dirname "$0")/.."
runtime=${RUNTIME:-5}
ws=${WORKING_SET:-256M}
if [ -n "${BIN:-}" ]; then
  bin=$(realpath "$BIN")
else
  cargo build --release -q --bin tierlab
  bin=$PWD/target/release/tierlab
fi
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT

"$bin" serve --format --ssd "$dir/ssd" --hdd "$dir/hdd" --mode tiering --ssd-size 1G --hdd-size 2G --es 256K \
  --listen 127.0.0.1:0 --ctl "$dir/ctl" --json > "$dir/serve.json" &
a_pid=$!
for _ in $(seq 100); do [ -s "$dir/serve.json" ] && break; sleep 0.1; done
a_uri="nbd://$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listening"])' "$dir/serve.json")"
size=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["size_bytes"])' "$dir/serve.json")
truncate -s "$size" "$dir/plain"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
nbdkit --exit-with-parent -f -i 127.0.0.1 -p "$port" file "$dir/plain" &
b_pid=$!
b_uri="nbd://127.0.0.1:$port"
sleep 0.5

# Lay the working set down on both (on tierlab it maps to the SSD path, which fills first).
for uri in "$a_uri" "$b_uri"; do
  fio --name=fill --ioengine=nbd --uri="$uri" --rw=write --bs=1m --size="$ws" --iodepth=8 --output-format=terse >/dev/null
done

job() { # uri rw bs depth -> "iops bw_mib clat_us ios"
  fio --name=j --ioengine=nbd --uri="$1" --rw="$2" --bs="$3" --iodepth="$4" --size="$ws" \
    --time_based --runtime="$runtime" --output-format=json | python3 -c '
import json, sys
t = sys.stdin.read()
j = json.loads(t[t.index("{"):])["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] > 0 else j["write"]
print("%.0f %.1f %.1f %d" % (d["iops"], d["bw"] / 1024, d["clat_ns"]["mean"] / 1000, d["total_ios"]))'
}

# Alternate a and b, REPEATS times each, and compare medians: the machine is shared and
# a single back-to-back pair is at the mercy of whatever else runs.
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf "%-18s %12s %12s %6s %10s %10s %9s %9s %9s\n" job tierlab-iops nbdkit-iops "a/b" a-MiB/s b-MiB/s a-lat-us b-lat-us added-us
for spec in "randread 4k 1" "randread 4k 32" "randwrite 4k 1" "randwrite 4k 32" "read 1m 8" "write 1m 8"; do
  set -- $spec
  if [ -n "${JOBS:-}" ] && ! [[ " $JOBS " == *" $1-$2-$3 "* ]]; then continue; fi
  : > "$dir/a"; : > "$dir/b"
  for _ in $(seq "${REPEATS:-3}"); do
    job "$a_uri" "$1" "$2" "$3" >> "$dir/a"
    job "$b_uri" "$1" "$2" "$3" >> "$dir/b"
  done
  ai=$(cut -d' ' -f1 "$dir/a" | median); abw=$(cut -d' ' -f2 "$dir/a" | median); alat=$(cut -d' ' -f3 "$dir/a" | median)
  bi=$(cut -d' ' -f1 "$dir/b" | median); bbw=$(cut -d' ' -f2 "$dir/b" | median); blat=$(cut -d' ' -f3 "$dir/b" | median)
  python3 -c "import sys; a,b,al,bl=map(float,sys.argv[1:5]); print('%-18s %12.0f %12.0f %6.2f %10s %10s %9.1f %9.1f %9.1f' % (sys.argv[5], a, b, a/b, sys.argv[6], sys.argv[7], al, bl, al-bl))" \
    "$ai" "$bi" "$alat" "$blat" "$1-$2-qd$3" "$abw" "$bbw"
  if [ "${FUTEX:-}" = 1 ]; then
    # One more run of each under strace: futex calls (and errors) per I/O fio completed.
    for side in a b; do
      pid=$a_pid uri=$a_uri
      [ $side = b ] && pid=$b_pid uri=$b_uri
      strace -f -c -e trace=futex -p "$pid" -o "$dir/futex.$side" 2>/dev/null & st=$!
      sleep 0.5
      ios=$(job "$uri" "$1" "$2" "$3" | cut -d' ' -f4)
      kill -INT $st; wait $st 2>/dev/null || true
      calls=$(awk '$NF == "futex" {print $4}' "$dir/futex.$side")
      python3 -c "import sys; c, n = int(sys.argv[1] or 0), int(sys.argv[2]); print('  futex %s: %d calls over %d I/Os, %.2f per I/O (traced, so slower)' % (sys.argv[3], c, n, c / max(n, 1)))" "$calls" "$ios" "$([ $side = a ] && echo tierlab || echo nbdkit)"
    done
  fi
done
"$bin" ctl --socket "$dir/ctl" stats | grep -E "ssd_hit_ratio|promotions|host_reads|host_writes"
