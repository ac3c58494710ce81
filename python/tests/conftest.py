"""Shared fixtures: the repository, the real traces beside it, and the `tierlab` command
line whose `--json` output the package must equal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
TRACES = SHARED / "traces"


def trace(name: str) -> Path:
    path = TRACES / name
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared traces live beside the checkout)")
    return path


@pytest.fixture(scope="session")
def cli_command() -> list[str]:
    """The `tierlab` command line whose `--json` the package must equal: `$TIERLAB_BIN` (the
    binary cargo builds; `.ci/run` sets it), else the `tierlab` command the package's wheel
    installs beside this interpreter (the command line compiled into the extension; else
    `python -m tierlab`), so that nothing skips after `pip install ./python`."""
    if os.environ.get("TIERLAB_BIN"):
        return [os.environ["TIERLAB_BIN"]]
    script = Path(sysconfig.get_path("scripts")) / "tierlab"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tierlab"]


@pytest.fixture(scope="session")
def cli(cli_command):
    """Run the `tierlab` command line with `--json` and parse what it prints."""

    def run(*args: str):
        out = subprocess.run([*cli_command, *map(str, args), "--json"], check=True, capture_output=True, env={**os.environ, "CI": "true"})
        return json.loads(out.stdout)

    return run


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray with two CPUs for every sweep test."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
