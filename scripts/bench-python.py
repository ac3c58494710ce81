#!/usr/bin/env python3
"""The Python package's costs, printed (asserts nothing; these machines are shared and noisy).

1. A run called from Python against the same run of the `tierlab` binary: alternating
   repetitions of one `compare` design, medians and their ratio. Python's time is the
   call's wall time in an interpreter that has imported tierlab (a notebook's case); the
   binary's is its process's wall time, start-up included.
2. A sweep on Ray: the GreenDM trend matrix (examples/trends.toml, 100 designs × 2 traces)
   on a local Ray with 1 and then 2 worker CPUs, from the first task submitted to the last
   row written (Ray's own start excluded); the speed-up, and from the runs' own times an
   estimate for a 10,000-run sweep.

    python scripts/bench-python.py [--bin target/python/tierlab] [--repeat 7] [--workers 1,2] [--json]

Build the binary in the wheel's profile (`cargo build --profile python -p tierlab-cli --bin
tierlab`; `pip install ./python`), or the comparison measures the build, not the call.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tierlab
from tierlab.sweep import load

REPO = Path(__file__).resolve().parents[1]
WORKLOAD = {"trace": str(REPO.parent / "shared/traces/blkreplay-linux-mysql.load.gz"), "compact": True}
DESIGN = {"mode": "tiering", "ssd_fraction": 0.25, "pt": 2, "extent_bytes": 1048576, "mcml": 4}


def overhead(binary: str, repeat: int) -> dict:
    argv = [binary, "compare", "--trace", WORKLOAD["trace"], "--compact", "--mode", "tiering", "--ssd-fraction", "0.25", "--pt", "2", "--extent-bytes", "1048576", "--mcml", "4", "--json"]
    cli, py = [], []
    tierlab.run(WORKLOAD, DESIGN, progress=False)  # warm the page cache and the library
    for _ in range(repeat):
        t = time.perf_counter()
        out = subprocess.run(argv, check=True, capture_output=True)
        cli.append(time.perf_counter() - t)
        t = time.perf_counter()
        row = tierlab.run(WORKLOAD, DESIGN, progress=False)
        py.append(time.perf_counter() - t)
    assert json.loads(out.stdout)[0] == row, "the call and the binary gave different rows"
    c, p = statistics.median(cli), statistics.median(py)
    return {"run": "tiering ssd=1/4 pt=2 es=1M mcml=4 on blkreplay-linux-mysql (80,794 requests)", "repeat": repeat, "cli_median_s": c, "python_median_s": p, "python_over_cli": p / c}


def scaling(workers: list[int]) -> dict:
    import ray

    spec = load(REPO / "examples/trends.toml")
    results = []
    for w in workers:
        out = Path(tempfile.mkdtemp(prefix="tierlab-bench-"))
        ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False)
        try:
            t = time.perf_counter()
            df = tierlab.sweep(spec["workloads"], spec["designs"], spec["options"], out=out, progress=False, base=spec["base"])
            wall = time.perf_counter() - t
        finally:
            ray.shutdown()
            shutil.rmtree(out, ignore_errors=True)
        results.append({"workers": w, "runs": len(df), "failed": int(df["error"].notna().sum()), "wall_s": wall, "runs_per_s": len(df) / wall, "run_time_sum_s": float(df["elapsed_s"].sum())})
    base = results[0]
    for r in results:
        r["speedup"] = base["wall_s"] / r["wall_s"]
        # Parallel efficiency: the share of the workers' time spent in runs.
        r["efficiency"] = r["run_time_sum_s"] / (r["wall_s"] * r["workers"])
    mean_run = base["run_time_sum_s"] / base["runs"]
    last = results[-1]
    estimate = {
        "mean_run_s": mean_run,
        "runs": 10_000,
        "one_worker_s": 10_000 / base["runs_per_s"],
        f"{last['workers']}_workers_s": 10_000 / last["runs_per_s"],
        "formula": "10,000 × (wall time per run at the measured workers); on a cluster of C CPUs ≈ 10,000 × mean_run_s / (C × efficiency)",
    }
    return {"matrix": "examples/trends.toml (100 designs × 2 traces)", "results": results, "estimate_10000_runs": estimate}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=str(REPO / "target/python/tierlab"))
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--workers", default="1,2")
    p.add_argument("--json", action="store_true")
    p.add_argument("--skip-overhead", action="store_true")
    p.add_argument("--skip-scaling", action="store_true")
    a = p.parse_args()
    report = {"tierlab": tierlab.__version__, "python": sys.version.split()[0]}
    if not a.skip_overhead:
        report["overhead"] = overhead(a.bin, a.repeat)
    if not a.skip_scaling:
        report["scaling"] = scaling([int(w) for w in a.workers.split(",")])
    if a.json:
        print(json.dumps(report, indent=2))
        return
    if "overhead" in report:
        o = report["overhead"]
        print(f"== one run: {o['run']}, median of {o['repeat']}")
        print(f"binary  {o['cli_median_s'] * 1e3:8.1f} ms (process wall time)")
        print(f"Python  {o['python_median_s'] * 1e3:8.1f} ms (the call)   ratio {o['python_over_cli']:.3f}")
    if "scaling" in report:
        s = report["scaling"]
        print(f"== sweep: {s['matrix']}")
        for r in s["results"]:
            print(f"{r['workers']} worker(s): {r['runs']} runs ({r['failed']} could not run) in {r['wall_s']:.1f} s, {r['runs_per_s']:.2f} runs/s, speed-up {r['speedup']:.2f}, efficiency {r['efficiency']:.2f}")
        e = s["estimate_10000_runs"]
        w = s["results"][-1]["workers"]
        many = e[f"{w}_workers_s"]
        print(f"10,000 runs: mean run {e['mean_run_s'] * 1e3:.0f} ms; about {e['one_worker_s'] / 60:.1f} min on one worker, {many / 60:.1f} min on {w}")


if __name__ == "__main__":
    main()
