#!/usr/bin/env bash
# `tierlab serve --emulate` with the Maxtor Atlas 10K V model on the HDD path, the HDD's
# data laid end to end or inside the model's tracks (--hdd-tracks), side by side: fio's
# nbd engine reads 400 MB from the HDD path, sequentially in 1 MiB and 128 KiB requests
# and at random in 64 KiB ones, one request at a time, and prints the bandwidth of each
# and the cuts at track boundaries. See docs/tracks.md for the figures.
#
#   scripts/serve-tracks.sh            (REPEAT, default 2, alternating runs of each layout)
#
# Environment: TIERLAB (default target/release/tierlab), PORT (default 10899), WORK
# (default target/serve-tracks) for the stores. Needs fio with its nbd engine.
set -euo pipefail
cd "$(dirname "$0")/.."
TIERLAB=${TIERLAB:-target/release/tierlab}
PORT=${PORT:-10899}
WORK=${WORK:-target/serve-tracks}
REPEAT=${REPEAT:-2}
[ -x "$TIERLAB" ] || cargo build --release -q -p tierlab-cli
command -v fio >/dev/null || { echo "fio is not installed" >&2; exit 1; }
mkdir -p "$WORK"
TIERLAB=$(realpath "$TIERLAB")
cd "$WORK"
"$TIERLAB" hdd layout --device maxtor-atlas-10k-v-73gb --tracks 1000 --json > tracks.json
uri=nbd://127.0.0.1:$PORT
bandwidth() {
    python3 -c 'import json, sys
s = sys.stdin.read(); r = json.loads(s[s.find("{"):])["jobs"][0]["read"]
print("%.2f MB/s" % (r["bw_bytes"] / 1e6))'
}
serve() {
    "$TIERLAB" serve --ssd ssd --hdd hdd --listen "127.0.0.1:$PORT" --ctl ctl --json "$@" > serve.out 2> serve.err &
    pid=$!
    for _ in $(seq 50); do [ -s serve.out ] && break; sleep 0.1; done
}
for rep in $(seq "$REPEAT"); do
    for layout in end-to-end tracks; do
        rm -f ssd hdd ctl serve.out
        extra=()
        [ "$layout" = tracks ] && extra=(--hdd-tracks tracks.json)
        # Caching with write-around and a threshold nothing reaches: all data on the HDD.
        serve --format --mode caching --ssd-size 64M --hdd-size 512M --es 64K --pt 1000000 --write-policy write-around "${extra[@]}"
        fio --name=fill --ioengine=nbd --uri="$uri" --rw=write --bs=1m --size=400m --output-format=terse > /dev/null
        kill -TERM $pid; wait $pid || true
        rm -f serve.out
        serve --emulate --hdd-model maxtor-atlas-10k-v-73gb
        line="$layout run $rep:"
        for job in "read 1m" "read 128k" "randread 64k"; do
            set -- $job
            bw=$(fio --name=t --ioengine=nbd --uri="$uri" --rw="$1" --bs="$2" --iodepth=1 --size=400m --runtime=8 --output-format=json | bandwidth)
            line="$line  $1 $2 $bw"
        done
        splits=$("$TIERLAB" ctl --socket ctl stats --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["hdd_track_splits"])')
        echo "$line  (cut at boundaries: $splits)"
        kill -TERM $pid; wait $pid || true
    done
done
