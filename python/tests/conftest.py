"""Shared fixtures: the repository, the real traces beside it, and the `tierlab` binary
whose `--json` output the package must equal."""

from __future__ import annotations

import json
import os
import subprocess
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


def _binary() -> Path | None:
    if os.environ.get("TIERLAB_BIN"):
        return Path(os.environ["TIERLAB_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("debug", "python", "release"):
        if (target / profile / "tierlab").exists():
            return target / profile / "tierlab"
    return None


@pytest.fixture(scope="session")
def cli_path() -> Path:
    """The `tierlab` binary."""
    binary = _binary()
    if binary is None:
        pytest.skip("no tierlab binary: build it with `cargo build -p tierlab-cli` or set TIERLAB_BIN")
    return binary


@pytest.fixture(scope="session")
def cli(cli_path):
    """Run the `tierlab` binary with `--json` and parse what it prints."""
    binary = cli_path

    def run(*args: str):
        out = subprocess.run([str(binary), *map(str, args), "--json"], check=True, capture_output=True, env={**os.environ, "CI": "true"})
        return json.loads(out.stdout)

    return run


@pytest.fixture(scope="session")
def ray_local():
    """One local Ray with two CPUs for every sweep test."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
