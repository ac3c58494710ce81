"""tierlab: what a storage design built from unlike devices costs in performance,
energy, device wear and dollars — from Python.

The functions run the Rust core of the ``tierlab`` command in-process (the same code,
defaults and reports) without holding the GIL, with a progress bar on a terminal or in
a notebook; Ctrl-C stops a run cleanly. Reports are the command's ``--json`` as Python
objects; :func:`to_pandas` and :func:`to_arrow` make them tables, one row per run.
:func:`sweep` runs workloads × designs as Ray tasks into a resumable Parquet dataset.

>>> import tierlab
>>> report = tierlab.simulate(mode="tiering", ssd_fraction=0.25)   # doctest: +SKIP
>>> tierlab.to_pandas(tierlab.compare("trace.csv", compact=True))    # doctest: +SKIP
"""

from ._native import __version__
from .api import (
    array_compare,
    array_simulate,
    cache,
    command,
    compare,
    overview,
    plan,
    replicate_plan,
    replicate_run,
    run,
    simulate,
    trace_classes,
    trace_stats,
)
from .errors import ConfigError, Error, Interrupted, TraceError, UsageError
from .frames import flatten, to_arrow, to_pandas
from .sweep import SweepInterrupted, expand, sweep
from .trace import Request, Trace, read_trace

__all__ = [
    "__version__",
    "array_compare",
    "array_simulate",
    "cache",
    "command",
    "compare",
    "overview",
    "plan",
    "replicate_plan",
    "replicate_run",
    "run",
    "simulate",
    "trace_classes",
    "trace_stats",
    "ConfigError",
    "Error",
    "Interrupted",
    "TraceError",
    "UsageError",
    "flatten",
    "to_arrow",
    "to_pandas",
    "expand",
    "sweep",
    "SweepInterrupted",
    "Request",
    "Trace",
    "read_trace",
]
