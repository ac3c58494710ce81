"""tierlab's commands as Python functions.

Each function runs the ``tierlab`` command of the same name in-process, with the same
defaults, and returns its ``--json`` report as Python objects (equal to the command's
output, number for number). A function's parameters are the command's, built from the
definitions its ``--help`` prints, so ``help(tierlab.simulate)``, an IDE and the stub
``api.pyi`` list each with its type, default and help: the flag with ``_`` for ``-``
(``ssd_fraction=0.25`` is ``--ssd-fraction 0.25``), ``True`` for a bare flag, a list for
a flag given several values, and a dict where the command takes a TOML file
(``workload=``, ``system=``). ``progress`` shows a bar (default: on a terminal or in a
notebook). A keyword the command does not take is a ``TypeError``; a value it refuses a
``tierlab.UsageError`` (a ``ValueError``); other failures are the typed exceptions of
``tierlab.errors``. ``to_pandas`` and ``to_arrow`` turn reports into tables.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from typing import Any

from . import _run
from ._signature import command as _command
from .errors import Error

PathLike = str | os.PathLike


def command(*path: str, progress: bool | None = None, **options: Any) -> Any:
    """Any study command that takes ``--json``, by its path and parameters:
    ``command("replicate", "plan", r=20.45, rto_s=100)``."""
    return _run.call(path, options, progress)


@_command(["overview"], positional=["trace"])
def overview(trace: PathLike | None = None, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """What each design costs on one workload, and a verdict: the main job."""
    return command("overview", progress=progress, trace=trace, **options)


@_command(["simulate"], positional=["trace"])
def simulate(trace: PathLike | None = None, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """One workload on one device or hybrid drive (the bundled default workload on the
    default disk when neither ``trace`` nor ``workload`` is given)."""
    return command("simulate", progress=progress, trace=trace, **options)


@_command(["compare"], positional=["trace"], returns="list[dict[str, Any]]")
def compare(trace: PathLike | None = None, *, progress: bool | None = None, **options: Any) -> list[dict[str, Any]]:
    """The matrix of designs in the four currencies, one dict per configuration (a
    configuration that could not run has ``error``)."""
    return command("compare", progress=progress, trace=trace, **options)


@_command(["trace", "stats"], positional=["file"])
def trace_stats(file: PathLike, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """Requests, bytes, sizes, rates, working set, per volume."""
    return command("trace", "stats", progress=progress, file=file, **options)


@_command(["trace", "classes"], positional=["file"])
def trace_classes(file: PathLike, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """HybridStore's data classes of a trace."""
    return command("trace", "classes", progress=progress, file=file, **options)


@_command(["cache"], positional=["trace"])
def cache(trace: PathLike, *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """Miss-ratio curves of replacement algorithms at many cache sizes, in one pass."""
    return command("cache", progress=progress, trace=trace, **options)


#: The knobs a design fixes; those it leaves out take `simulate`'s defaults.
_DESIGN_KNOBS = ("ssd_fraction", "extent_bytes", "pt", "mcml")


def run(workload: Mapping[str, Any], design: Mapping[str, Any], *, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """One design on one workload, priced: the row ``tierlab compare`` gives for it.

    ``workload``: the workload's parameters, e.g. ``{"trace": path, "compact": True}`` or
    ``{"workload": {...}}``. ``design``: ``mode`` (``ssd-only``, ``hdd-only``, ``linear``,
    ``tiering``, ``caching``), then ``ssd_fraction``, ``extent_bytes``, ``pt`` and
    ``mcml`` where they apply (those left out take ``simulate``'s defaults), and any other
    ``compare`` parameter (``replacement="arc"``, ``device=``…). ``options``: parameters
    common to every run (``prices=``, ``tariff=``…). Raises ``tierlab.Error`` when the
    design cannot run on the workload.
    """
    design = dict(design)
    if "mode" not in design:
        raise Error("a design needs a `mode`: ssd-only, hdd-only, linear, tiering or caching")
    defaults = {p.name: p.default for p in inspect.signature(simulate).parameters.values() if p.name in _DESIGN_KNOBS}
    rows = compare(**{**defaults, **workload, **design, **options}, progress=progress)
    if len(rows) != 1:
        raise Error(f"expected one configuration, the design gave {len(rows)}")
    return rows[0]


@_command(["plan"])
def plan(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """HybridStore's cheapest SSD/HDD mix (``trace=`` or ``stats=``)."""
    return command("plan", progress=progress, **options)


@_command(["array", "simulate"])
def array_simulate(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """One energy-saving scheme on a disk array."""
    return command("array", "simulate", progress=progress, **options)


@_command(["array", "compare"], returns="Any")
def array_compare(*, progress: bool | None = None, **options: Any) -> Any:
    """Schemes × loads, savings against RAID-5."""
    return command("array", "compare", progress=progress, **options)


@_command(["replicate", "run"])
def replicate_run(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """A primary and a power-aware DR secondary."""
    return command("replicate", "run", progress=progress, **options)


@_command(["replicate", "plan"])
def replicate_plan(*, progress: bool | None = None, **options: Any) -> dict[str, Any]:
    """The batch planner's window, cycles per day, worst recovery."""
    return command("replicate", "plan", progress=progress, **options)
