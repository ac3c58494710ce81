"""The package runs the command line's code: every report equals the binary's `--json`
for the same run, number for number, and tables hold one row per run."""

from __future__ import annotations

import json
import math
import os
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pytest

import tierlab
from conftest import trace

# Measured runs short enough for a test (the defaults run to 400,000 requests a run).
QUICK = {"run_requests": 20000, "batch_requests": 500}
QUICK_FLAGS = ["--run-requests", "20000", "--batch-requests", "500"]

WEB = "umass-websearch-small.disksim"


def test_simulate_with_defaults_equals_the_command_line(cli):
    assert tierlab.simulate(progress=False) == cli("simulate")


def test_a_hybrid_run_on_a_real_trace_equals_the_command_line(cli):
    path = trace(WEB)
    got = tierlab.simulate(path, mode="tiering", ssd_fraction=0.125, pt=2, replay="closed", depth=2, wrap=True, progress=False)
    want = cli("simulate", "--trace", path, "--mode", "tiering", "--ssd-fraction", "0.125", "--pt", "2", "--replay", "closed", "--depth", "2", "--wrap")
    assert got == want
    assert got["controller"]["policy"] == "tiering"


def test_compare_rows_equal_the_command_line_and_become_one_row_per_run(cli):
    path = trace(WEB)
    opts = dict(compact=True, ssd_fraction=[0.25], pt=[2], extent_bytes=[1048576], mcml=[4], **QUICK)
    rows = tierlab.compare(path, progress=False, **opts)
    assert rows == cli("compare", "--trace", path, "--compact", "--ssd-fraction", "0.25", "--pt", "2", "--extent-bytes", "1048576", "--mcml", "4", *QUICK_FLAGS)
    df = tierlab.to_pandas(rows)
    assert list(df["config"]) == [r["config"] for r in rows] and len(df) == 5
    for col in ("throughput_iops", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "energy_j", "ssd_eu_read_tenth", "hdd_eu", "cost_usd_alpha_1", "cost_usd_alpha_100000", "horizon_cost_usd"):
        assert col in df.columns, col
    tiering = df.set_index("config").loc["tiering ssd=1/4 pt=2 es=1M mcml=4"]
    src = next(r for r in rows if r["config"] == "tiering ssd=1/4 pt=2 es=1M mcml=4")
    assert tiering["cost_usd_alpha_1000"] == next(c["total_usd"] for c in src["cost"] if c["alpha"] == 1000)
    table = tierlab.to_arrow(rows)
    assert isinstance(table, pa.Table) and table.num_rows == 5


def test_one_run_is_the_compare_row_of_its_design():
    path = trace(WEB)
    rows = tierlab.compare(path, compact=True, ssd_fraction=0.125, pt=8, extent_bytes=262144, mcml=1, progress=False, **QUICK)
    want = next(r for r in rows if r["mode"] == "caching")
    got = tierlab.run({"trace": path, "compact": True}, {"mode": "caching", "ssd_fraction": 0.125, "pt": 8, "extent_bytes": 262144, "mcml": 1}, progress=False, **QUICK)
    assert got == want


def test_trace_stats_and_classes_equal_the_command_line(cli):
    path = trace(WEB)
    assert tierlab.trace_stats(path, progress=False) == cli("trace", "stats", path)
    assert tierlab.trace_classes(path, classes=33, progress=False) == cli("trace", "classes", path, "--classes", "33")


def test_a_workload_given_as_a_dict_is_the_toml_file(cli, tmp_path):
    spec = {**tierlab.command("workload", "show"), "seed": 7, "requests": 3000, "read_fraction": 0.3}
    spec["arrival"] = {"kind": "poisson", "iops": 200.0}
    path = tmp_path / "w.toml"
    path.write_text(tierlab._native.json_to_toml(json.dumps(spec)))
    got = tierlab.simulate(workload=spec, progress=False)
    assert got == cli("simulate", "--workload", path)
    assert got["requests"] == 3000


def test_a_trace_streams_as_arrow_batches_and_requests():
    path = trace(WEB)
    stats = tierlab.trace_stats(path, progress=False)
    t = tierlab.read_trace(path, batch_rows=10_000)
    sizes = [b.num_rows for b in t.batches()]
    assert sizes[:2] == [10_000, 10_000] and sum(sizes) == stats["requests"]
    table = t.to_arrow()
    assert table.schema == tierlab.trace.schema()
    assert sum(table.column("len_bytes").to_pylist()) == stats["read_bytes"] + stats["write_bytes"]
    first = next(iter(t))
    assert first == tierlab.Request(*[table.column(i)[0].as_py() for i in range(5)])
    assert first.time_ns == 0 and first.op in ("read", "write")
    assert t.reader().read_all().num_rows == stats["requests"]
    few = tierlab.read_trace(path, max_requests=5, volume=[1]).to_pandas()
    assert len(few) == 5 and set(few["volume"]) == {1}


def test_progress_bars_and_the_generic_command():
    plan = tierlab.command("replicate", "plan", r=20.45, rto_s=100, progress=True)
    assert plan == tierlab.replicate_plan(r=20.45, rto_s=100)
    report = tierlab.simulate(progress=True)
    assert report["requests"] == 20000 and math.isfinite(report["energy_j"])


def _long_workload() -> dict:
    """The bundled workload at 50 million requests: a run of a minute or more."""
    return {**tierlab.command("workload", "show"), "requests": 50_000_000}


def _job_threads_end(within_s: float) -> bool:
    """Whether every command thread (`tierlab-job`) of this process ends within `within_s`."""
    tasks = Path("/proc/self/task")
    if not tasks.is_dir():
        pytest.skip("needs /proc to see the command's thread")

    def alive() -> int:
        n = 0
        for t in tasks.iterdir():
            try:
                n += (t / "comm").read_text().strip() == "tierlab-job"
            except OSError:
                pass  # the thread ended as we looked
        return n

    deadline = time.monotonic() + within_s
    while alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive() == 0


@contextmanager
def sigint_raises_keyboard_interrupt():
    """Python's own SIGINT handler for the block. A process started in the background by
    a non-interactive shell (as a CI runner may start the tests) inherits SIGINT ignored,
    Python then leaves it ignored, and a SIGINT is lost: the run ends normally."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_a_run_cleanly_and_the_next_run_still_works():
    long = _long_workload()
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    with sigint_raises_keyboard_interrupt():
        with pytest.raises(KeyboardInterrupt):
            # Started inside the block: on a starved machine the signal may land before the
            # run begins, and must still be this call's.
            timer.start()
            tierlab.simulate(workload=long, progress=False)
        timer.join()
    assert time.monotonic() - start < 20, "the run stopped at a progress point, not at its end"
    assert _job_threads_end(within_s=10)
    assert tierlab.simulate(progress=False)["requests"] == 20000


def test_ctrl_c_landing_as_a_run_starts_stops_it(monkeypatch, tmp_path):
    # A file that outlives the call (a dict's would be removed as the call unwinds, and the
    # run end for want of it).
    long = tmp_path / "long.toml"
    long.write_text(tierlab._native.json_to_toml(json.dumps(_long_workload())))
    real = tierlab._native.Job

    def interrupted_as_it_starts(path, params):
        real(path, params)  # started, then dropped: Ctrl-C landed before the caller held the job
        raise KeyboardInterrupt

    monkeypatch.setattr(tierlab._native, "Job", interrupted_as_it_starts)
    with pytest.raises(KeyboardInterrupt):
        tierlab.simulate(workload=long, progress=False)
    assert _job_threads_end(within_s=10), "the run goes on though nobody waits for it"


def test_a_job_stopped_while_it_runs_never_ends_as_finished():
    # A trace's statistics are one pass that does not stop midway: the stop comes after
    # the job's last look at it, as a stop racing a run's end does.
    job = tierlab._native.Job(["trace", "stats"], json.dumps({"file": str(trace(WEB))}))
    stopped = job.stop()
    with pytest.raises(tierlab.Interrupted):
        job.finish()
    assert stopped is True
    done = tierlab._native.Job(["workload", "show"], "{}")
    assert done.wait(60) and done.stop() is False, "a job that has ended cannot be stopped"
    assert json.loads(done.finish())["requests"] > 0


def test_a_stopped_job_raises_interrupted():
    job = tierlab._native.Job(["simulate"], "{}")
    job.stop()
    assert job.wait(60)
    with pytest.raises(tierlab.Interrupted):
        job.finish()
    with pytest.raises(RuntimeError):
        job.finish()


def test_plots_name_and_colour_design_families_as_the_reports_do():
    from tierlab.palette import FAMILIES, design_colour

    assert FAMILIES == ["ssd-only", "hdd-only", "linear", "tiering", "caching"]
    colours = [design_colour(f) for f in FAMILIES]
    assert len(set(colours)) == len(FAMILIES) and all(c.startswith("#") and len(c) == 7 for c in colours)
    assert design_colour("no-such") == "#999999"
