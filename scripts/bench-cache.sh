#!/usr/bin/env bash
# `tierlab cache` against libCacheSim (its Python package, libcachesim) on the same trace
# and the same cache sizes, side by side in one run: the miss counts of both (every one
# must be equal: the script exits 1 otherwise) and the end-to-end requests per second of
# both, and their ratio. See docs/cache.md for the figures and what they mean.
#
#   scripts/bench-cache.sh [CLOUDPHYSICS_CSV]     (default ../shared/traces/cloudphysics-io.csv)
#
# Environment: REPEAT (default 3) alternating runs of each tool, the fastest kept;
# LIBCACHESIM (default libcachesim==0.3.5) the pip requirement; BENCH_DIR (default
# target/bench-cache) for the venv and the converted traces; DEFAULT_TABLE=0 leaves out
# libCacheSim's run with its default hash table (minutes of wall time per cache on a long
# trace: the table is allocated for every cache); BIN a tierlab binary to run instead of
# building this checkout.
#
# Two comparisons, each over LRU, FIFO, ARC, 2Q, SIEVE and S3-FIFO at eight sizes (WSClock
# has no libCacheSim counterpart):
#   objects  every request one object (id = lbn, size = its length), cache sizes in
#            bytes: both tools read the same libCacheSim oracleGeneral file;
#   blocks   every 4 KiB block a request touches one object counting one, cache sizes in
#            blocks: both read the same oracleGeneral file of one record per block
#            (libCacheSim with ignore_obj_size, tierlab with --count-objects); tierlab
#            also reads the CSV itself with --block 4K (expanding requests into blocks as
#            it goes), which must give the same counts.
# Requests per second = trace records × caches simulated / wall seconds, start to end of
# each tool's work (tierlab: the whole process, parsing and JSON output included;
# libCacheSim: opening the reader and one process_trace per cache, single-threaded).
# libCacheSim runs twice: with its default hash table (hashpower 24: 2^24 buckets per
# cache, three for S3-FIFO and 2Q, allocated and freed per cache) and with the smallest
# hashpower whose table has a bucket per distinct object of the trace ("-hpN").
# COMPARISONS (default "objects blocks") which of the two comparisons to run.
# Requests per CPU-second are printed beside them (each tool's own CPU time: tierlab's
# process, libCacheSim's Python process), the figure to compare on a machine shared with
# other work, where wall time stretches with the load.
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-../shared/traces/cloudphysics-io.csv}
repeat=${REPEAT:-3}
work=${BENCH_DIR:-${CARGO_TARGET_DIR:-target}/bench-cache}
mkdir -p "$work"
if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo build --release -q -p tierlab-cli
  bin=${CARGO_TARGET_DIR:-target}/release/tierlab
fi
if [ ! -x "$work/venv/bin/python" ]; then
  python3 -m venv "$work/venv"
fi
"$work/venv/bin/pip" install -q --disable-pip-version-check "${LIBCACHESIM:-libcachesim==0.3.5}"

"$work/venv/bin/python" - "$bin" "$trace" "$work" "$repeat" "${DEFAULT_TABLE:-1}" "${COMPARISONS:-objects blocks}" <<'PYTHON'
import os, resource, struct, subprocess, sys, time, json
import libcachesim as lcs

tierlab, trace, work, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
default_table = sys.argv[5] != "0"
comparisons = sys.argv[6].split()
if not comparisons or set(comparisons) - {"objects", "blocks"}:
    sys.exit(f"COMPARISONS: expected objects, blocks or both, found {sys.argv[6]!r}")
ALGS = [("lru", lcs.LRU), ("fifo", lcs.FIFO), ("arc", lcs.ARC), ("2q", lcs.TwoQ), ("sieve", lcs.Sieve), ("s3fifo", lcs.S3FIFO)]

def write_oracle(path, records):
    """(time_s, id, size) records as oracleGeneral, with each one's next access."""
    nxt, last = [-1] * len(records), {}
    for i in range(len(records) - 1, -1, -1):
        nxt[i] = last.get(records[i][1], -1)
        last[records[i][1]] = i + 1
    with open(path, "wb") as f:
        for (t, oid, size), n in zip(records, nxt):
            f.write(struct.pack("<IQIq", t, oid, size, n))

# The CloudPhysics CSV (version,time,op,size,lbn): requests, and 4 KiB blocks.
requests, blocks = [], []
with open(trace) as f:
    next(f)
    for line in f:
        _, t, _, size, lbn = line.strip().split(",")
        t, size, lbn = int(t), int(size), int(lbn)
        requests.append((t, lbn, size))
        if "blocks" not in comparisons:
            continue
        first, last = lbn * 512 // 4096, (lbn * 512 + size - 1) // 4096
        blocks.extend((t, b, 4096) for b in range(first, last + 1))
objects_file = os.path.join(work, "requests.oracleGeneral.bin")
blocks_file = os.path.join(work, "blocks-4k.oracleGeneral.bin")
write_oracle(objects_file, requests)
if "blocks" in comparisons:
    write_oracle(blocks_file, blocks)

def run_libcachesim(path, sizes, ignore_obj_size, n_req, n_bytes, hashpower):
    t0, c0 = time.perf_counter(), time.process_time()
    reader = lcs.TraceReader(path, lcs.TraceType.ORACLE_GENERAL_TRACE, lcs.ReaderInitParam(ignore_obj_size=ignore_obj_size))
    out = {}
    for name, cls in ALGS:
        for size in sizes:
            miss_ratio, byte_miss_ratio = cls(cache_size=size, hashpower=hashpower).process_trace(reader)
            out[(name, size)] = (round(miss_ratio * n_req), round(byte_miss_ratio * n_bytes))
    return out, time.perf_counter() - t0, time.process_time() - c0

def run_tierlab(args, sizes):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    cmd = [tierlab, "cache", *args, "--algorithms", ",".join(a for a, _ in ALGS), "--sizes", ",".join(map(str, sizes)), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "CI": "true"})
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"tierlab failed: {' '.join(cmd)}\n{p.stderr}")
    report = json.loads(p.stdout)
    out = {(q["algorithm"], q["size"]): (q["object_misses"], q["byte_misses"]) for q in report["points"]}
    return out, wall, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), report["requests"]

def compare(title, path, n_req, n_bytes, distinct, lcs_sizes, ignore_obj_size, tierlab_runs, size_label):
    """tierlab_runs: (label, args, sizes as tierlab takes them, records per request)."""
    print(f"== {title}")
    caches = len(ALGS) * len(lcs_sizes)
    fitted = max(1, (distinct - 1).bit_length())
    lcs_runs = ([("libCacheSim", 24)] if default_table else []) + [(f"libCacheSim-hp{fitted}", fitted)]
    best = {}
    results = {}
    for _ in range(repeat):
        for label, hashpower in lcs_runs:
            out, wall, cpu = run_libcachesim(path, lcs_sizes, ignore_obj_size, n_req, n_bytes, hashpower)
            results[label] = out
            best[label] = min(best.get(label, (wall, cpu)), (wall, cpu))
        for label, args, sizes, _ in tierlab_runs:
            out, wall, cpu, _ = run_tierlab(args, sizes)
            # Keyed by libCacheSim's sizes.
            results[label] = {(a, lcs_sizes[sizes.index(s)]): v for (a, s), v in out.items()}
            best[label] = min(best.get(label, (wall, cpu)), (wall, cpu))
    labels = [r[0] for r in lcs_runs] + [r[0] for r in tierlab_runs]
    header = f"{'algorithm':<9} {'cache size':>11}" + "".join(f" {l + ' misses':>{max(len(l) + 7, 12)}}" for l in labels)
    if not ignore_obj_size:
        header += "".join(f" {l + ' byte misses':>{len(l) + 12}}" for l in labels)
    print(header)
    unequal = 0
    for name, _ in ALGS:
        for size in lcs_sizes:
            row = [results[l][(name, size)] for l in labels]
            line = f"{name:<9} {size_label(size):>11}" + "".join(f" {r[0]:>{max(len(l) + 7, 12)}}" for l, r in zip(labels, row))
            if not ignore_obj_size:
                line += "".join(f" {r[1]:>{len(l) + 12}}" for l, r in zip(labels, row))
            same = all(r[0] == row[0][0] for r in row) and (ignore_obj_size or all(r[1] == row[0][1] for r in row))
            unequal += not same
            print(line + ("" if same else "   << differ"))
    print(f"{caches} (algorithm, size) rows: " + ("all miss counts equal" if unequal == 0 else f"{unequal} differ"))
    print(f"speed, {caches} caches × {n_req} records, fastest of {repeat}:")
    rates, cpu_rates = {}, {}
    for label in labels:
        wall, cpu = best[label]
        rates[label] = n_req * caches / wall
        cpu_rates[label] = n_req * caches / max(cpu, 1e-9)
        print(f"  {label:<16} {wall:8.3f} s wall ({cpu:.3f} s CPU): {rates[label] / 1e6:7.2f} M requests/s, {cpu_rates[label] / 1e6:7.2f} M requests/CPU-s")
    for label, _, _, _ in tierlab_runs:
        print(f"  {label} / libCacheSim: " + ", ".join(f"{rates[label] / rates[l]:.2f} × {l}" for l, _ in lcs_runs)
              + " (wall); " + ", ".join(f"{cpu_rates[label] / cpu_rates[l]:.2f} × {l}" for l, _ in lcs_runs) + " (CPU)")
    print()
    return unequal

MIB = 1 << 20
object_sizes = [MIB << k for k in (0, 2, 4, 6, 7, 8, 9, 10)]   # 1 MiB … 1 GiB
block_sizes = [1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000]
n_obj_bytes = sum(r[2] for r in requests)
bad = 0
if "objects" in comparisons:
    bad += compare(f"objects: {len(requests)} requests as sized objects ({objects_file}), cache sizes in bytes",
                   objects_file, len(requests), n_obj_bytes, len({r[1] for r in requests}), object_sizes, False,
                   [("tierlab", [objects_file, "--format", "oracle-general", "--objects"], object_sizes, 1)],
                   lambda s: f"{s // MIB} MiB")
if "blocks" in comparisons:
    bad += compare(f"blocks: {len(blocks)} 4 KiB blocks ({blocks_file}), cache sizes in blocks",
                   blocks_file, len(blocks), len(blocks) * 4096, len({b[1] for b in blocks}), block_sizes, True,
                   [("tierlab", [blocks_file, "--format", "oracle-general", "--count-objects"], block_sizes, 1),
                    ("tierlab-csv", [trace, "--block", "4K"], [s * 4096 for s in block_sizes], 1)],
                   lambda s: f"{s}")
sys.exit(1 if bad else 0)
PYTHON
