"""Sweeps on a local Ray: each task is one run whose row equals `compare`'s, rows land in
a Parquet dataset as runs complete, and a sweep started again runs only what is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd

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
    for column in want.columns:
        pd.testing.assert_series_equal(got.loc[want.index, column], want[column], check_dtype=False, check_names=False)

    parts = sorted(out.glob("part-*.parquet"))
    again = tierlab.sweep([workload], DESIGNS, OPTIONS, out=out, progress=False)
    assert sorted(out.glob("part-*.parquet")) == parts, "nothing left to run, nothing written"
    pd.testing.assert_frame_equal(again, df)

    # A sweep that stopped after these four runs, started again with its full design list.
    more = [*DESIGNS, {"mode": "caching", "ssd_fraction": 0.25, "pt": 2, "extent_bytes": 1048576, "mcml": 4}, {"mode": "tiering", "ssd_fraction": 1e-9}]
    full = tierlab.sweep([workload], more, OPTIONS, out=out, progress=False)
    assert len(sorted(out.glob("part-*.parquet"))) == len(parts) + 1
    assert len(full) == 6 and list(full["design_index"]) == list(range(6))
    common = df.columns.intersection(full.columns).drop("error")
    pd.testing.assert_frame_equal(full.loc[:3, common], df[common], check_dtype=False)
    assert full.loc[4, "mode"] == "caching" and pd.isna(full.loc[4, "error"])
    assert isinstance(full.loc[5, "error"], str) and full.loc[5, "error"], "a design that cannot run is a row saying why"


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

