"""The example sweep renders its two plots as PNG images of the size it promises."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import REPO, trace


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_example_sweep_plots_cost_and_throughput(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("ray")
    trace("umass-websearch-small.disksim")
    out = subprocess.run(
        [sys.executable, str(REPO / "examples" / "sweep_plots.py"), "--small", "--workers", "2", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=900, env={**os.environ, "CI": "true"},
    )
    assert out.returncode == 0, out.stderr
    for name in ("cost-vs-alpha.png", "throughput-vs-energy.png"):
        path = tmp_path / name
        assert png_size(path) == (1200, 800)
        assert path.stat().st_size > 20_000, "a plot with axes, lines and labels, not a blank image"
    assert "6 runs" in out.stdout


def test_the_example_writes_outside_the_current_directory_by_default(tmp_path):
    pytest.importorskip("matplotlib")
    out = subprocess.run(
        [sys.executable, str(REPO / "examples" / "sweep_plots.py"), "--help"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    default = str(Path(tempfile.gettempdir()) / "tierlab-sweep-plots")
    assert default in "".join(out.stdout.split()), out.stdout  # help text may wrap it at a hyphen
    assert list(tmp_path.iterdir()) == []
