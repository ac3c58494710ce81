#!/usr/bin/env python3
"""The figures behind docs/trends.md's verdicts, from `tierlab compare --json` output.

Usage: scripts/trends.py [--tables] RUN.json [RUN.json ...]

For each file (one trace's matrix) prints, per trend of the GreenDM research, the counts
and means the verdict table quotes. Long run is α = 100,000, up front α = 1. Groups are
configurations equal in every sweep value but the one compared. With --tables, prints
instead the Markdown tables of docs/trends.md: the selected rows and the mean long-run
cost by PT and by ES.
"""
import json
import statistics
import sys
from collections import defaultdict

LONG, UP = 100000.0, 1.0


def cost(row, alpha):
    return next(c["total_usd"] for c in row["cost"] if c["alpha"] == alpha)


def no_power(row, alpha):
    c = next(c for c in row["cost"] if c["alpha"] == alpha)
    return c["total_usd"] - c["power_usd"]


def mean_long_run(rows, field, value):
    """Mean long-run cost of the rows whose `field` is `value`."""
    return statistics.mean(cost(r, LONG) for r in rows if r[field] == value)


def rank(rows, row, key):
    """1-based position of `row` among `rows` sorted by `key`, ascending."""
    return sorted(rows, key=key).index(row) + 1


def groups(rows, vary):
    """Rows grouped by every sweep value except `vary`."""
    keys = ["mode", "ssd_fraction", "extent_bytes", "pt", "mcml"]
    out = defaultdict(dict)
    for r in rows:
        out[tuple(r[k] for k in keys if k != vary)][r[vary]] = r
    return out


def report(path):
    rows = json.load(open(path))
    by_mode = defaultdict(list)
    for r in rows:
        by_mode[r["mode"]].append(r)
    hdd, ssd = by_mode["hddonly"][0], by_mode["ssdonly"][0]
    moving = by_mode["tiering"] + by_mode["caching"]
    print(f"## {path}: {len(rows)} configurations")

    print("\n### 1: PT and ES against long-run cost")
    for mode in ("tiering", "caching"):
        ms = by_mode[mode]
        pts = sorted({r["pt"] for r in ms})
        ess = sorted({r["extent_bytes"] for r in ms})
        by_pt = ", ".join(f"PT {p} ${mean_long_run(ms, 'pt', p):,.0f}" for p in pts)
        by_es = ", ".join(f"ES {e // 1024}K ${mean_long_run(ms, 'extent_bytes', e):,.0f}" for e in ess)
        print(f"- {mode} mean: {by_pt}; {by_es}")
    g = [v for v in groups(moving, "pt").values() if len(v) > 1]
    lo = sum(cost(v[max(v)], LONG) < cost(v[min(v)], LONG) for v in g)
    print(f"- largest PT cheaper than smallest PT: {lo} of {len(g)} groups")
    g = [v for v in groups(moving, "extent_bytes").values() if len(v) > 1]
    lo = sum(cost(v[min(v)], LONG) < cost(v[max(v)], LONG) for v in g)
    print(f"- smallest ES cheaper than largest ES: {lo} of {len(g)} groups")

    print("\n### 2 and 3: HDD-only and SSD-only")
    mib = [r for r in rows if r["extent_bytes"] in (None, 1048576)]
    for name, r in (("hdd-only", hdd), ("ssd-only", ssd)):
        print(
            f"- {name}: up front ${cost(r, UP):,.2f} (rank {rank(mib, r, lambda x: cost(x, UP))} of {len(mib)} at ES 1 MiB or none); "
            f"long run ${cost(r, LONG):,.0f} (rank {rank(rows, r, lambda x: cost(x, LONG))} of {len(rows)}); "
            f"without the demand term ${no_power(r, LONG):,.0f} (rank {rank(rows, r, lambda x: no_power(x, LONG))}); "
            f"mean latency {r['mean_ms']:.3f} ms (rank {rank(rows, r, lambda x: x['mean_ms'])}, 1 = fastest)"
        )
    slower = sum(r["mean_ms"] > hdd["mean_ms"] for r in rows)
    print(f"- configurations slower than hdd-only: {slower} ({', '.join(sorted({r['mode'] for r in rows if r['mean_ms'] > hdd['mean_ms']}))})")

    print("\n### 4: tiering and caching between the two")
    for mode in ("tiering", "caching"):
        ms = by_mode[mode]
        for label, f in (("up front", lambda x: cost(x, UP)), ("long run", lambda x: cost(x, LONG)), ("long run without demand", lambda x: no_power(x, LONG))):
            a, b = sorted((f(hdd), f(ssd)))
            print(f"- {mode} {label}: {sum(a <= f(r) <= b for r in ms)} of {len(ms)} between")

    print("\n### 5: against Mylinear at the same SSD share")
    linear = {r["ssd_fraction"]: r for r in by_mode["linear"]}
    for mode in ("tiering", "caching"):
        ms = by_mode[mode]
        dearer = sum(cost(r, LONG) > cost(linear[r["ssd_fraction"]], LONG) for r in ms)
        faster = sum(r["mean_ms"] < linear[r["ssd_fraction"]]["mean_ms"] for r in ms)
        print(f"- {mode}: dearer long run {dearer} of {len(ms)}; faster {faster} of {len(ms)}")

    print("\n### 6: spread of cost over configurations (tiering and caching)")
    spread = ", ".join(
        f"α={a:g}: {max(cost(r, a) for r in moving) / min(cost(r, a) for r in moving):.3f}" for a in (1.0, 1000.0, LONG)
    )
    print(f"- max/min {spread}")

    print("\n### +: caching against tiering, matched pairs")
    tier = {(r["ssd_fraction"], r["extent_bytes"], r["pt"], r["mcml"]): r for r in by_mode["tiering"]}
    pairs = [(tier[k], r) for r in by_mode["caching"] if (k := (r["ssd_fraction"], r["extent_bytes"], r["pt"], r["mcml"])) in tier]
    cheaper = sum(cost(c, LONG) < cost(t, LONG) for t, c in pairs)
    print(
        f"- caching cheaper long run in {cheaper} of {len(pairs)} pairs; mean caching ${statistics.mean(cost(c, LONG) for _, c in pairs):,.0f}"
        f" vs tiering ${statistics.mean(cost(t, LONG) for t, _ in pairs):,.0f}; cheapest caching ${min(cost(c, LONG) for _, c in pairs):,.0f}"
        f" vs tiering ${min(cost(t, LONG) for t, _ in pairs):,.0f}"
    )
    print()


SELECTED = [
    "ssd-only", "hdd-only", "linear ssd=1/4", "linear ssd=1/8",
    *(f"{m} ssd={f} pt={pt} es={es} mcml={mcml}" for m in ("tiering", "caching") for f, pt, es, mcml in (
        ("1/4", 2, "256K", 1), ("1/4", 8, "256K", 1), ("1/4", 2, "64K", 1), ("1/4", 2, "1M", 1),
        ("1/4", 2, "256K", 4), ("1/8", 2, "256K", 1))),
]


def moves(r):
    if r["mode"] == "tiering":
        return f"{r['promotions']}↑/{r['demotions']}↓"
    if r["mode"] == "caching":
        return f"{r['prefetches']}p/{r['evictions']}e/{r['write_backs']}w"
    return "-"


def tables(path):
    rows = {r["config"]: r for r in json.load(open(path))}
    print(f"#### `{path}`\n")
    print("| config | IOPS | mean ms | energy J | SSD hit % | moves | SSD eu (r×1/10) | purchase $ | $ α=1 | $ α=1e3 | $ α=1e5 | years at α=1e5 |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for name in SELECTED:
        r = rows[name]
        c1 = next(c for c in r["cost"] if c["alpha"] == UP)
        c5 = next(c for c in r["cost"] if c["alpha"] == LONG)
        hit = "-" if r["ssd_hit_ratio"] is None else f"{100 * r['ssd_hit_ratio']:.1f}"
        print(
            f"| {name} | {r['throughput_iops']:.0f} | {r['mean_ms']:.3f} | {r['energy_j']:.1f} | {hit} | {moves(r)} "
            f"| {r['ssd_eu_read_tenth']:.2f} | {c1['purchase_usd']:.2f} | {c1['total_usd']:.2f} | {cost(r, 1000.0):.2f} "
            f"| {c5['total_usd']:.0f} | {c5['years']:.3f} |"
        )
    print("\nMean total cost at α = 100,000 over the other sweep values (USD):\n")
    moving = [r for r in rows.values() if r["mode"] in ("tiering", "caching")]
    pts = sorted({r["pt"] for r in moving})
    ess = sorted({r["extent_bytes"] for r in moving})
    print("| mode | " + " | ".join(f"PT {p}" for p in pts) + " | " + " | ".join(f"ES {e // 1024}K" for e in ess) + " |")
    print("|---|" + "---:|" * (len(pts) + len(ess)))
    for mode in ("tiering", "caching"):
        ms = [r for r in moving if r["mode"] == mode]
        cells = [mean_long_run(ms, "pt", p) for p in pts] + [mean_long_run(ms, "extent_bytes", e) for e in ess]
        print(f"| {mode} | " + " | ".join(f"{c:.0f}" for c in cells) + " |")
    print()


if __name__ == "__main__":
    args = sys.argv[1:]
    show = tables if args[:1] == ["--tables"] else report
    files = args[1:] if show is tables else args
    if not files:
        sys.exit(__doc__)
    for p in files:
        show(p)
