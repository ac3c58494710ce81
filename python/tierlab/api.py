"""tierlab's commands as Python functions.

Each function runs the ``tierlab`` command of the same name in-process, with the same
defaults, and returns its ``--json`` report as Python objects (equal to the command's
output, number for number). Keyword options are the command's flags with ``_`` for ``-``
(``ssd_fraction=0.25`` is ``--ssd-fraction 0.25``; see ``tierlab COMMAND --help``); a dict
where the command takes a file (``workload=``, ``system=``) is that file's TOML as a dict.
``progress`` shows a bar (default: on a terminal or in a notebook). Errors are the typed
exceptions of ``tierlab.errors``. ``to_pandas`` and ``to_arrow`` turn reports into tables.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from . import _run
from .errors import Error

PathLike = str | os.PathLike


def command(*args: Any, progress: bool | None = None, **options: Any) -> Any:
    """Any command that takes ``--json``: ``command("replicate", "plan", r=20.45, rto_s=100)``."""
    with _run.flags(options) as f:
        return _run.run_json([*map(_run._text, args), *f], progress)


def trace_stats(path: PathLike, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """``tierlab trace stats``: requests, bytes, sizes, rates, working set, per volume."""
    return command("trace", "stats", path, progress=progress, **options)


def trace_classes(path: PathLike, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """``tierlab trace classes``: HybridStore's data classes of a trace (``classes=17|33``)."""
    return command("trace", "classes", path, progress=progress, **options)


def simulate(trace: PathLike | None = None, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """``tierlab simulate``: one workload on one device or hybrid drive (the bundled
    default workload on the default disk when neither ``trace`` nor ``workload`` is given)."""
    return command("simulate", progress=progress, trace=trace, **options)


def compare(trace: PathLike | None = None, *, progress: bool | None = None, **options: Any) -> list[dict[str, Any]]:
    """``tierlab compare``: the matrix of designs in the four currencies, one dict per
    configuration (a configuration that could not run has ``error``)."""
    return command("compare", progress=progress, trace=trace, **options)


#: A design's keys that pick its point of the compare matrix, and their flags.
_MATRIX_KEYS = {"ssd_fraction": "fractions", "pt": "pts", "es": "extents", "mcml": "mcmls"}


def run(workload: Mapping[str, Any], design: Mapping[str, Any], *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """One design on one workload, priced: the row ``tierlab compare`` gives for it.

    ``workload``: the workload flags, e.g. ``{"trace": path, "compact": True}`` or
    ``{"workload": {...}}``. ``design``: ``mode`` (``ssd-only``, ``hdd-only``, ``linear``,
    ``tiering``, ``caching``), then ``ssd_fraction``, ``pt``, ``es`` (bytes) and ``mcml``
    where they apply, and any other ``simulate`` flag (``replacement="arc"``, ``device=``…).
    ``options``: flags common to every run (``prices=``, ``tariff=``…). Raises
    ``tierlab.Error`` when the design cannot run on the workload.
    """
    design = dict(design)
    try:
        mode = design.pop("mode")
    except KeyError:
        raise Error("a design needs a `mode`: ssd-only, hdd-only, linear, tiering or caching") from None
    matrix = {_MATRIX_KEYS[k]: design.pop(k) for k in list(design) if k in _MATRIX_KEYS}
    rows = command("compare", progress=progress, modes=mode, **matrix, **workload, **design, **options)
    if len(rows) != 1:
        raise Error(f"expected one configuration, the design gave {len(rows)}")
    return rows[0]


def plan(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """``tierlab plan``: HybridStore's cheapest SSD/HDD mix (``trace=`` or ``stats=``)."""
    return command("plan", progress=progress, **options)


def array_simulate(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """``tierlab array simulate``: one energy-saving scheme on a disk array."""
    return command("array", "simulate", progress=progress, **options)


def array_compare(*, progress: bool | None = None, **options: Any) -> Any:
    """``tierlab array compare``: schemes × loads, savings against RAID-5."""
    return command("array", "compare", progress=progress, **options)


def replicate_run(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """``tierlab replicate run``: a primary and a power-aware DR secondary."""
    return command("replicate", "run", progress=progress, **options)


def replicate_plan(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """``tierlab replicate plan``: the batch planner's window, cycles per day, worst recovery."""
    return command("replicate", "plan", progress=progress, **options)
