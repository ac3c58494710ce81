#!/usr/bin/env python3
"""The figures behind docs/trends.md's verdicts, from `tierlab compare --json` output.

Usage: scripts/trends.py [--tables] RUN.json [RUN.json ...]

For each file (one trace's matrix) prints how each design was measured (the offered load,
the designs that cannot sustain it or never settled, the requests each run took) and, per
trend of the GreenDM research, the counts and means the verdict table quotes. Long run is
α = 100,000 passes of the trace at its own rate, up front α = 1. Speed is max IOPS (the
closed-loop run); every other figure is at the trace's own arrival times. Only designs
that sustain the offered load are judged (`sustainable` in the JSON); a comparison that
needs a design that cannot is skipped, saying so. Groups are configurations equal in
every sweep value but the one compared. With --tables, prints instead the Markdown tables
of docs/trends.md: the selected rows (`!` cannot sustain the load, its figures at the
trace's own times left out; `~` never settled) and the mean long-run cost by PT and by ES.
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


def half_width(row, alpha):
    """Half-width of the 95 % interval of the total cost at `alpha`: the horizon's, scaled
    to the part of the cost that grows with time (purchase and service are exact)."""
    c, h = next(c for c in row["cost"] if c["alpha"] == alpha), row["horizon"]
    fixed = c["purchase_usd"] + c["service_usd"]
    grows = h["total_usd"] - fixed
    return row["half_width"]["horizon_usd"] * (c["total_usd"] - fixed) / grows if grows > 0 else 0.0


def clearly_cheaper(a, b, alpha=LONG):
    """Whether `a` costs less than `b` at `alpha` by more than their 95 % intervals
    (taken as independent)."""
    return cost(b, alpha) - cost(a, alpha) > (half_width(a, alpha) ** 2 + half_width(b, alpha) ** 2) ** 0.5


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


def load(path):
    """The rows that ran (a configuration that could not run has only `error`)."""
    return [r for r in json.load(open(path)) if "cost" in r]


def settled(r):
    return all(n["settled"] for n in r["runs"])


def spread_of(values):
    v = sorted(values)
    return f"{v[0]:,}–{v[-1]:,} (median {statistics.median(v):,.0f})" if v else "none"


def measurement(rows):
    """How the rows were measured: load, sustainability, settling, run lengths."""
    r0 = rows[0]
    print(f"- offered {min(r['offered_iops'] for r in rows):.1f}–{max(r['offered_iops'] for r in rows):.1f} IOPS; pass {r0['pass_s']:.2f} s; "
          f"α=1e5 is {next(c['years'] for c in r0['cost'] if c['alpha'] == LONG):.3f} years")
    bad = [r["config"] for r in rows if not r["sustainable"]]
    print(f"- cannot sustain the load: {len(bad)} of {len(rows)}" + (f" (sustainable: {', '.join(r['config'] for r in rows if r['sustainable'])})" if bad else ""))
    print(f"- never settled: {sum(not settled(r) for r in rows)} ({', '.join(r['config'] for r in rows if not settled(r) and r['sustainable']) or 'no sustainable one'})")
    for replay in sorted({n["replay"] for r in rows for n in r["runs"]}):
        notes = [n for r in rows for n in r["runs"] if n["replay"] == replay]
        stops = defaultdict(int)
        for n in notes:
            stops[n["stop"]] += 1
        print(f"- {replay}: requests per run {spread_of([n['warmup_requests'] + n['measured_requests'] for n in notes])}, "
              f"warm-up {spread_of([n['warmup_requests'] for n in notes])}; stopped: {', '.join(f'{k} {v}' for k, v in sorted(stops.items()))}")
    hw = [r["half_width"]["horizon_usd"] / r["horizon"]["total_usd"] for r in rows if r["sustainable"]]
    ms = [r["half_width"]["mean_ms"] / r["mean_ms"] for r in rows if r["sustainable"] and r["mean_ms"] > 0]
    if hw:
        print(f"- sustainable rows' 95 % half-widths: horizon cost {100 * min(hw):.1f}–{100 * max(hw):.1f} % (median {100 * statistics.median(hw):.1f} %), "
              f"mean response time {100 * min(ms):.1f}–{100 * max(ms):.1f} % (median {100 * statistics.median(ms):.1f} %)")


def report(path):
    every = load(path)
    print(f"## {path}: {len(every)} configurations")
    measurement(every)
    # Only designs that carry the offered load are judged.
    rows = [r for r in every if r["sustainable"]]
    by_mode = defaultdict(list)
    for r in rows:
        by_mode[r["mode"]].append(r)
    fastest = sorted(every, key=lambda x: -x["throughput_iops"])
    for name in ("hdd-only", "ssd-only"):
        r = next(x for x in every if x["config"] == name)
        print(f"- {name}: max IOPS {r['throughput_iops']:.1f} (rank {fastest.index(r) + 1} of {len(every)}, 1 = fastest); "
              f"{sum(x['throughput_iops'] < r['throughput_iops'] for x in every if x['mode'] in ('tiering', 'caching'))} tiering and caching designs slower")
    linear_all = {r["ssd_fraction"]: r for r in every if r["mode"] == "linear"}
    for mode in ("tiering", "caching"):
        ms = [r for r in every if r["mode"] == mode]
        print(f"- {mode}: max IOPS above Mylinear at the same SSD share in {sum(r['throughput_iops'] > linear_all[r['ssd_fraction']]['throughput_iops'] for r in ms)} of {len(ms)}")
    if not (by_mode["hdd-only"] and by_mode["ssd-only"] and by_mode["tiering"] + by_mode["caching"]):
        print(f"- not judged: HDD-only, SSD-only and a tiering or caching design must all sustain the load "
              f"(sustainable: {', '.join(r['config'] for r in rows) or 'none'})\n")
        return
    hdd, ssd = by_mode["hdd-only"][0], by_mode["ssd-only"][0]
    moving = by_mode["tiering"] + by_mode["caching"]
    print(f"- judged: the {len(rows)} sustainable designs")

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
    sure = sum(clearly_cheaper(v[max(v)], v[min(v)]) for v in g)
    print(f"- largest PT cheaper than smallest PT: {lo} of {len(g)} groups ({sure} beyond the intervals)")
    g = [v for v in groups(moving, "extent_bytes").values() if len(v) > 1]
    lo = sum(cost(v[min(v)], LONG) < cost(v[max(v)], LONG) for v in g)
    sure = sum(clearly_cheaper(v[min(v)], v[max(v)]) for v in g)
    print(f"- smallest ES cheaper than largest ES: {lo} of {len(g)} groups ({sure} beyond the intervals)")

    print("\n### 2 and 3: HDD-only and SSD-only")
    mib = [r for r in rows if r["extent_bytes"] in (None, 1048576)]
    for name, r in (("hdd-only", hdd), ("ssd-only", ssd)):
        print(
            f"- {name}: up front ${cost(r, UP):,.2f} (rank {rank(mib, r, lambda x: cost(x, UP))} of {len(mib)} at ES 1 MiB or none); "
            f"long run ${cost(r, LONG):,.0f} (rank {rank(rows, r, lambda x: cost(x, LONG))} of {len(rows)}); "
            f"without the demand term ${no_power(r, LONG):,.0f} (rank {rank(rows, r, lambda x: no_power(x, LONG))}); "
            f"max IOPS {r['throughput_iops']:.1f} (rank {rank(rows, r, lambda x: -x['throughput_iops'])}, 1 = fastest); "
            f"mean response time {r['mean_ms']:.3f} ms (rank {rank(rows, r, lambda x: x['mean_ms'])})"
        )
    slower = [r for r in rows if r["throughput_iops"] < hdd["throughput_iops"]]
    print(f"- configurations of lower max IOPS than hdd-only: {len(slower)} ({', '.join(sorted({r['mode'] for r in slower}))})")
    slower = [r for r in rows if r["mean_ms"] > hdd["mean_ms"]]
    print(f"- configurations of longer mean response time than hdd-only: {len(slower)} ({', '.join(sorted({r['mode'] for r in slower}))})")

    print("\n### 4: tiering and caching between the two")
    for mode in ("tiering", "caching"):
        ms = by_mode[mode]
        for label, f in (("up front", lambda x: cost(x, UP)), ("long run", lambda x: cost(x, LONG)), ("long run without demand", lambda x: no_power(x, LONG))):
            a, b = sorted((f(hdd), f(ssd)))
            print(f"- {mode} {label}: {sum(a <= f(r) <= b for r in ms)} of {len(ms)} between")

    print("\n### 5: against Mylinear at the same SSD share")
    linear = {r["ssd_fraction"]: r for r in by_mode["linear"]}
    for mode in ("tiering", "caching"):
        ms = [r for r in by_mode[mode] if r["ssd_fraction"] in linear]
        dearer = sum(cost(r, LONG) > cost(linear[r["ssd_fraction"]], LONG) for r in ms)
        sure = sum(clearly_cheaper(linear[r["ssd_fraction"]], r) for r in ms)
        faster = sum(r["throughput_iops"] > linear[r["ssd_fraction"]]["throughput_iops"] for r in ms)
        quicker = sum(r["mean_ms"] < linear[r["ssd_fraction"]]["mean_ms"] for r in ms)
        print(f"- {mode}: dearer long run {dearer} of {len(ms)} ({sure} beyond the intervals); higher max IOPS {faster} of {len(ms)}; shorter mean response time {quicker} of {len(ms)}")

    print("\n### 6: spread of cost over configurations (tiering and caching)")
    spread = ", ".join(
        f"α={a:g}: {max(cost(r, a) for r in moving) / min(cost(r, a) for r in moving):.3f}" for a in (1.0, 1000.0, LONG)
    )
    print(f"- max/min {spread}")

    print("\n### +: caching against tiering, matched pairs")
    tier = {(r["ssd_fraction"], r["extent_bytes"], r["pt"], r["mcml"]): r for r in by_mode["tiering"]}
    pairs = [(tier[k], r) for r in by_mode["caching"] if (k := (r["ssd_fraction"], r["extent_bytes"], r["pt"], r["mcml"])) in tier]
    cheaper = sum(cost(c, LONG) < cost(t, LONG) for t, c in pairs)
    sure = (sum(clearly_cheaper(c, t) for t, c in pairs), sum(clearly_cheaper(t, c) for t, c in pairs))
    print(
        f"- caching cheaper long run in {cheaper} of {len(pairs)} pairs (beyond the intervals: cheaper in {sure[0]}, dearer in {sure[1]}); mean caching ${statistics.mean(cost(c, LONG) for _, c in pairs):,.0f}"
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
    every = load(path)
    rows = {r["config"]: r for r in every}
    r0 = every[0]
    years = next(c["years"] for c in r0["cost"] if c["alpha"] == LONG)
    offered = sorted(r["offered_iops"] for r in every)
    print(f"#### `{path}` ({offered[0]:.1f}–{offered[-1]:.1f} IOPS offered, a pass {r0['pass_s']:.0f} s, α = 1e5 passes {years:.2f} years)\n")
    print("| config | max IOPS | mean ms | avg W | SSD hit % | moves | SSD eu (r×1/10) | purchase $ | $ α=1 | $ α=1e3 | $ α=1e5 |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for name in SELECTED:
        r = rows[name]
        mark = "!" if not r["sustainable"] else "" if settled(r) else "~"
        if not r["sustainable"]:
            print(f"| {name}{mark} | {r['throughput_iops']:.0f} | – | – | – | – | – | {r['cost'][0]['purchase_usd']:.2f} | – | – | – |")
            continue
        c1 = next(c for c in r["cost"] if c["alpha"] == UP)
        c5 = next(c for c in r["cost"] if c["alpha"] == LONG)
        hit = "-" if r["ssd_hit_ratio"] is None else f"{100 * r['ssd_hit_ratio']:.1f}"
        print(
            f"| {name}{mark} | {r['throughput_iops']:.0f} | {r['mean_ms']:.3f} | {r['average_power_w']:.2f} | {hit} | {moves(r)} "
            f"| {r['ssd_eu_read_tenth']:.2f} | {c1['purchase_usd']:.2f} | {c1['total_usd']:.2f} | {cost(r, 1000.0):.2f} | {c5['total_usd']:.0f} |"
        )
    moving = [r for r in every if r["mode"] in ("tiering", "caching") and r["sustainable"]]
    if not moving:
        print("\nNo tiering or caching design sustains the offered load, so there is no mean long-run cost by PT or ES.\n")
        return
    print("\nMean total cost at α = 100,000 over the other sweep values, sustainable designs (USD):\n")
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
