"""Sweeps on a local Ray: each task is one run whose row equals `compare`'s, rows land in
a Parquet dataset as runs complete, and a sweep started again runs only what is missing."""

from __future__ import annotations

import inspect
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import tierlab
from conftest import REPO, trace

WEB = "umass-websearch-small.disksim"
DESIGNS = [
    {"mode": ["hdd-only", "ssd-only"]},
    {"mode": "tiering", "ssd_fraction": 0.25, "pt": [2, 8], "extent_bytes": 1048576, "mcml": 4},
]
# Measured runs short enough for a test (the defaults run to 400,000 requests a run).
OPTIONS = {"prices": "greendm-2012", "tariff": "lipa-285-recent", "run_requests": 20000, "batch_requests": 500}


def test_designs_expand_to_every_combination_in_order():
    got = tierlab.expand([{"mode": ["a", "b"], "pt": [1, 2], "extent_bytes": 7}])
    assert got == [{"mode": m, "pt": p, "extent_bytes": 7} for m in "ab" for p in (1, 2)]


def test_designs_and_options_are_keyed_by_the_content_of_the_files_they_name(tmp_path):
    sweep_module = sys.modules["tierlab.sweep"]
    prices = tmp_path / "prices.toml"
    prices.write_text("a = 1\n")
    options = {"prices": str(prices), "tariff": "lipa-285-recent", "run_requests": 20000}
    first = sweep_module.files_by_content(options)
    assert first["tariff"] == "lipa-285-recent" and first["run_requests"] == 20000, "ids and numbers stay"
    assert set(first["prices"]) == {"sha256"}
    prices.write_text("a = 2\n")
    second = sweep_module.files_by_content(options)
    assert second["prices"] != first["prices"], "the same path with other content is another option"
    design = {"mode": "tiering", "hdd": {"disksim": str(prices)}}
    assert sweep_module.files_by_content(design)["hdd"]["disksim"] == second["prices"]


def test_a_sweep_equals_compare_and_resumes_where_it_stopped(ray_local, tmp_path):
    path = trace(WEB)
    workload = {"trace": str(path), "compact": True}
    out = tmp_path / "sweep.parquet"
    df = tierlab.sweep([workload], DESIGNS, OPTIONS, out=out, progress=False)
    assert len(df) == 4 and df["error"].isna().all()
    assert list(df["design_index"]) == [0, 1, 2, 3] and set(df["workload"]) == {WEB}

    rows = tierlab.compare(path, compact=True, ssd_fraction=[0.25], pt=[2, 8], extent_bytes=[1048576], mcml=[4], mode=["ssd-only", "hdd-only", "tiering"], progress=False, **OPTIONS)
    want = tierlab.to_pandas(rows).set_index("config")
    got = df.set_index("config")
    assert sorted(got.index) == sorted(want.index)
    # A value a row does not have is missing in both (None from the dataset, NaN from a
    # frame of dicts).
    missing_as_none = lambda s: s.astype(object).where(s.notna(), None)  # noqa: E731
    for column in want.columns:
        pd.testing.assert_series_equal(missing_as_none(got.loc[want.index, column]), missing_as_none(want[column]), check_dtype=False, check_names=False)

    parts = sorted(out.glob("part-*.parquet"))
    again = tierlab.sweep([workload], DESIGNS, OPTIONS, out=out, progress=False)
    assert sorted(out.glob("part-*.parquet")) == parts, "nothing left to run, nothing written"
    pd.testing.assert_frame_equal(again, df)

    # A sweep that stopped after these four runs, started again with its full design list.
    more = [*DESIGNS, {"mode": "caching", "ssd_fraction": 0.25, "pt": 2, "extent_bytes": 1048576, "mcml": 4}]
    full = tierlab.sweep([workload], more, OPTIONS, out=out, progress=False)
    assert len(sorted(out.glob("part-*.parquet"))) == len(parts) + 1
    assert len(full) == 5 and list(full["design_index"]) == list(range(5))
    common = df.columns.intersection(full.columns).drop(["error", "study"])
    pd.testing.assert_frame_equal(full.loc[:3, common], df[common], check_dtype=False)
    assert full.loc[4, "mode"] == "caching" and pd.isna(full.loc[4, "error"])


def _docs_sweep() -> str:
    """The sweep example of docs/python.md, as it is printed there."""
    text = (REPO / "docs" / "python.md").read_text()
    section = text[text.index("## Sweeps on Ray"):]
    return section[section.index("```python") + len("```python"):section.index("```", section.index("```python") + 3)]


def test_the_documented_sweep_runs_every_design(ray_local, tmp_path, monkeypatch):
    trace(WEB)
    code = _docs_sweep()
    assert "tierlab.sweep(" in code and "designs=" in code

    class Docs:
        """`tierlab` for the example: its runs cut short, its dataset in tmp_path."""

        def __getattr__(self, name):
            return getattr(tierlab, name)

        @staticmethod
        def sweep(workloads, designs, options=None, **kw):
            kw.update(out=tmp_path / "docs.parquet", progress=False)
            return tierlab.sweep(workloads, designs, {**(options or {}), "run_requests": 20000, "batch_requests": 500}, **kw)

    monkeypatch.chdir(REPO)  # its trace path starts from the repository
    scope = {"tierlab": Docs()}
    exec(code, scope)
    df = scope["df"]
    assert len(df) == len(tierlab.expand(scope_designs(code))) == 18
    assert df["error"].isna().all(), df["error"].dropna().tolist()[:3]
    assert sorted(set(df["mode"])) == ["caching", "hdd-only", "ssd-only", "tiering"]
    # Each design's left-out tunables took simulate's defaults, as compare's rows do.
    assert set(df.loc[df["mode"] == "tiering", "extent_bytes"]) == {inspect.signature(tierlab.simulate).parameters["extent_bytes"].default}


def scope_designs(code: str) -> list:
    """The `designs=` list of the example."""
    seen = {}

    class Capture:
        def __getattr__(self, name):
            return getattr(tierlab, name)

        @staticmethod
        def sweep(workloads, designs, options=None, **kw):
            seen["designs"] = designs

    exec(code, {"tierlab": Capture()})
    return seen["designs"]


def _small_trace(path, lines: int):
    """The first `lines` requests of the websearch trace, as a file of its own."""
    with open(trace(WEB)) as src, open(path, "w") as dst:
        for _, line in zip(range(lines), src):
            dst.write(line)
    return path


def test_a_second_study_in_the_same_dataset_returns_only_its_own_rows(ray_local, tmp_path):
    small = _small_trace(tmp_path / "small.disksim", 4000)
    out = tmp_path / "sweep.parquet"
    first = tierlab.sweep([small], [{"mode": "hdd-only"}], OPTIONS, out=out, progress=False)
    second = tierlab.sweep([small], [{"mode": "ssd-only"}], OPTIONS, out=out, progress=False)
    assert list(first["mode"]) == ["hdd-only"] and list(second["mode"]) == ["ssd-only"]
    assert first["study"].iloc[0] != second["study"].iloc[0]
    assert len(list(out.glob("_study-*.json"))) == 2, "each study says what it was"

    # The same path with other content is another workload: its runs are made again.
    parts = len(list(out.glob("part-*.parquet")))
    _small_trace(small, 2000)
    changed = tierlab.sweep([small], [{"mode": "hdd-only"}], OPTIONS, out=out, progress=False)
    assert len(list(out.glob("part-*.parquet"))) == parts + 1
    assert len(changed) == 1 and changed["run_id"].iloc[0] != first["run_id"].iloc[0]


def test_an_error_row_is_retried_on_resume(ray_local, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    small = _small_trace(tmp_path / "small.disksim", 4000)
    out = tmp_path / "sweep.parquet"
    good = tierlab.sweep([small], [{"mode": "hdd-only"}], OPTIONS, out=out, progress=False)
    # The dataset as a sweep leaves it when the run failed for a passing reason (its node
    # lost): the same run, an error row.
    (part,) = out.glob("part-*.parquet")
    row = pq.read_table(part).to_pylist()[0]
    failed = {"config": row["config"], "mode": row["mode"], "error": "the run's Ray task failed: NodeDiedError", "elapsed_s": 0.0}
    failed.update({k: row.get(k) for k in ("run_id", "workload", "workload_index", "design_index", "study")})
    pq.write_table(pa.Table.from_pylist([failed]), part)

    again = tierlab.sweep([small], [{"mode": "hdd-only"}], OPTIONS, out=out, progress=False)
    assert again["error"].isna().all(), "the failed run is run again"
    assert len(list(out.glob("part-*.parquet"))) == 2
    assert again["energy_j"].iloc[0] == good["energy_j"].iloc[0]


def test_a_run_that_cannot_run_is_a_row_saying_why(ray_local, tmp_path):
    small = _small_trace(tmp_path / "small.disksim", 4000)
    missing = tmp_path / "missing.disksim"
    df = tierlab.sweep([missing, small], [{"mode": "tiering"}], OPTIONS, out=tmp_path / "s.parquet", progress=False)
    assert list(df["workload"]) == ["missing.disksim", "small.disksim"]
    assert str(missing) in df.loc[0, "error"] and "No such file" in df.loc[0, "error"]
    assert pd.isna(df.loc[1, "error"]) and df.loc[1, "mode"] == "tiering"


def test_the_command_line_front_end_runs_a_sweep_file(cli_command, tmp_path):
    path = trace(WEB)
    f = tmp_path / "s.toml"
    f.write_text(
        f'out = "result"\n[options]\nprices = "greendm-2012"\nrun_requests = 20000\nbatch_requests = 500\n'
        f'[[workloads]]\ntrace = "{path}"\ncompact = true\nmax_requests = 2000\n'
        f'[[designs]]\nmode = ["hdd-only", "linear"]\nssd_fraction = 0.25\n'
    )
    env = {**os.environ, "TIERLAB_PYTHON": sys.executable, "CI": "true"}
    out = subprocess.run([*cli_command, "sweep", str(f), "--workers", "1", "--json"], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["mode"] for r in rows] == ["hdd-only", "linear"]
    assert (tmp_path / "result").is_dir()
    one = tierlab.run({"trace": str(path), "compact": True, "max_requests": 2000}, {"mode": "linear", "ssd_fraction": 0.25}, prices="greendm-2012", run_requests=20000, batch_requests=500, progress=False)
    assert rows[1]["energy_j"] == one["energy_j"] and rows[1]["cost_usd_alpha_1000"] == tierlab.flatten(one)["cost_usd_alpha_1000"]


def test_ctrl_c_saves_the_rows_and_says_how_to_resume(tmp_path):
    pytest.importorskip("ray")
    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs /proc to see the runs start")
    path = trace(WEB)
    f = tmp_path / "s.toml"
    f.write_text(
        f'out = "result"\n[options]\nprices = "greendm-2012"\nrun_requests = 20000\nbatch_requests = 500\n'
        f'[[workloads]]\ntrace = "{path}"\ncompact = true\n'
        f'[[designs]]\nmode = "tiering"\nssd_fraction = [0.25, 0.125]\npt = [1, 2, 4, 8]\n'
    )
    env = {**os.environ, "CI": "true"}
    cmd = [sys.executable, "-m", "tierlab", "sweep", str(f), "--workers", "1"]
    # A session of its own, whose process group gets the signal as a terminal's Ctrl-C
    # does (the driver and its Ray workers); SIGINT as Python expects it, whatever the
    # test runner inherited.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True, preexec_fn=_default_sigint)
    deadline = time.monotonic() + 300
    while not _runs_in_session(p.pid) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert p.poll() is None, "the sweep ended before a run was seen"
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 130, err
    assert "Traceback" not in err, err
    said = re.findall(r"^interrupted: (\d+) rows? saved, run again to resume$", err, re.M)
    assert said, err
    assert not list((tmp_path / "result").glob(".*.tmp")), "no half-written part"
    done = subprocess.run([*cmd, "--json"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 8 and all(r["error"] is None for r in rows)
    assert int(said[0]) < 8


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _runs_in_session(session: int) -> bool:
    """Whether a process of `session` (a sweep's driver and Ray workers) is running a
    simulation: has a `tierlab-job` thread."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[3]) != session:
                continue
            if any((t / "comm").read_text().strip() == "tierlab-job" for t in (proc / "task").iterdir()):
                return True
        except (OSError, ValueError, IndexError):
            continue  # a process or thread that ended as we looked
    return False
