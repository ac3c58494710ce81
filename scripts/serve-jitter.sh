#!/usr/bin/env bash
# How steadily `tierlab serve --emulate` keeps the modelled disk's time: the Maxtor Atlas
# 10K V model on the HDD path, its read cache off, a caching drive that sends every read
# to the HDD path (as tests/probe_served.rs serves it); one sector read again and again
# over NBD, each read sent when the one before it completed. Each should take exactly one
# revolution (6.000 ms): a completion late by e makes its read e longer and the next one e
# shorter. Prints, per binary, the share of reads within 0.1 ms of the median and over
# 1 ms off it, and percentiles. Several binaries (e.g. builds of older commits) are run
# alternately, REPEAT (2) times each, so that they meet the same load. See docs/tracks.md.
#
#   scripts/serve-jitter.sh [TIERLAB...]    (default target/release/tierlab)
#
# Environment: READS (1000) per run, REPEAT (2). Asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- target/release/tierlab
[ -x "$1" ] || cargo build --release -q -p tierlab-cli
reads=${READS:-1000}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT

time_reads() { # address -> one line of figures
  python3 - "$1" "$reads" <<'EOF'
import socket, struct, sys, time
host, port = sys.argv[1].rsplit(":", 1)
n = int(sys.argv[2])
s = socket.create_connection((host, int(port)))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
def rd(k):
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            raise EOFError("server closed")
        b += c
    return b
assert rd(18)[:8] == b"NBDMAGIC"
s.sendall(struct.pack(">I", 3))  # fixed newstyle, no zeroes
s.sendall(struct.pack(">QII", 0x49484156454F5054, 7, 6) + struct.pack(">IH", 0, 0))  # NBD_OPT_GO ""
while True:
    h = rd(20)
    ty, ln = struct.unpack(">II", h[12:20])
    rd(ln)
    if ty == 1:
        break
xs = []
for i in range(n + 1):
    t = time.perf_counter()
    s.sendall(struct.pack(">IHHQQI", 0x25609513, 0, 0, i, 0, 512))
    rd(16)
    rd(512)
    xs.append(time.perf_counter() - t)
xs = sorted(xs[1:])  # the first read seeks
q = lambda f: xs[min(n - 1, int(f * n))] * 1e3
m = q(0.5) / 1e3
within = sum(abs(x - m) < 1e-4 for x in xs) / n
late = sum(abs(x - m) > 1e-3 for x in xs) / n
print("%8.3f %8.3f %8.3f %8.3f %8.3f %8.1f %%  %8.1f %%" % (q(0.1), q(0.5), q(0.9), q(0.99), xs[-1] * 1e3, within * 100, late * 100))
EOF
}

printf "%-40s %8s %8s %8s %8s %8s %10s %10s\n" binary p10-ms median p90 p99 max "<0.1ms-off" ">1ms-off"
for _ in $(seq "${REPEAT:-2}"); do
  for bin in "$@"; do
    rm -f "$dir"/ssd "$dir"/hdd "$dir"/serve.json
    # Builds before --format created the drive without it.
    format=--format
    "$bin" serve --help | grep -q -- --format || format=
    "$bin" serve $format --ssd "$dir/ssd" --hdd "$dir/hdd" --mode caching --ssd-size 16M --hdd-size 64M --es 1M \
      --pt 1000000 --write-policy write-around --emulate --hdd-model maxtor-atlas-10k-v-73gb \
      --hdd-model-without-read-cache --listen 127.0.0.1:0 --ctl "$dir/ctl" --json > "$dir/serve.json" 2> "$dir/serve.err" &
    pid=$!
    for _ in $(seq 100); do [ -s "$dir/serve.json" ] && break; sleep 0.1; done
    addr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listening"])' "$dir/serve.json")
    printf "%-40s %s\n" "$bin" "$(time_reads "$addr")"
    kill -TERM $pid
    wait $pid || true
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
