"""Design sweeps on Ray: every workload × every design, one Ray task per run.

Each task is one :func:`tierlab.run` (one ``tierlab compare`` row) executed by the Rust
core in a Ray worker. Rows are written to a Parquet dataset (a directory of part files)
as runs complete, so a sweep that stops — Ctrl-C, a lost node — resumes where it stopped
when started again: runs whose ``run_id`` is already in the dataset are skipped. A run's
``run_id`` is a hash of its workload, design, options and tierlab's version.

Traces are read where they lie: a task gets the trace's path, not its bytes, so on a
cluster every node must see the same path (a shared file system).

Without an address (``address=`` or ``$RAY_ADDRESS``) the sweep starts a Ray on this
machine with ``workers`` CPUs (default: all) and stops it at the end.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _native
from .api import run as run_one
from .errors import Error
from .frames import flatten

if TYPE_CHECKING:
    import pandas

#: Rows kept before they are written as a part file, and the longest wait before writing.
FLUSH_ROWS = 50
FLUSH_S = 10.0


def expand(designs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each design whose values include lists, as every combination of them, in order:
    ``{"mode": ["tiering", "caching"], "pt": [1, 2]}`` is four designs."""
    out: list[dict[str, Any]] = []
    for d in designs:
        keys = list(d)
        choices = [v if isinstance(v, list) else [v] for v in d.values()]
        out += [dict(zip(keys, combo)) for combo in itertools.product(*choices)]
    return out


def _workload(w: Mapping[str, Any] | str | os.PathLike, base: Path) -> dict[str, Any]:
    w = {"trace": w} if isinstance(w, (str, os.PathLike)) else dict(w)
    for key in ("trace", "workload"):
        if isinstance(w.get(key), (str, os.PathLike)):
            w[key] = str((base / os.fspath(w[key])).resolve())
    return w


def _name(w: Mapping[str, Any]) -> str:
    if "name" in w:
        return str(w["name"])
    if "trace" in w:
        return Path(w["trace"]).name
    return "workload" if "workload" in w else "default"


def run_id(workload: Mapping[str, Any], design: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """The identity of one run in a dataset."""
    text = json.dumps({"workload": workload, "design": design, "options": options, "version": _native.__version__}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def execute(workload: Mapping[str, Any], design: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """One run as one flat row: the compare row's figures, or ``error`` if it could not run."""
    w = {k: v for k, v in workload.items() if k != "name"}
    start = time.perf_counter()
    try:
        row = flatten(run_one(w, design, progress=False, **options))
        row["error"] = None
    except Error as e:
        row = {"config": json.dumps(design, sort_keys=True), "mode": design.get("mode"), "error": e.message}
    row["elapsed_s"] = time.perf_counter() - start
    return row


class _Dataset:
    """A directory of Parquet part files, one per flush."""

    def __init__(self, path: Path, restart: bool):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        if restart:
            for p in self.parts():
                p.unlink()
        self.next = len(self.parts())

    def parts(self) -> list[Path]:
        return sorted(self.path.glob("part-*.parquet"))

    def done(self) -> set[str]:
        import pyarrow.parquet as pq

        ids: set[str] = set()
        for p in self.parts():
            ids.update(pq.read_table(p, columns=["run_id"]).column("run_id").to_pylist())
        return ids

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        while (self.path / f"part-{self.next:05d}.parquet").exists():
            self.next += 1
        final = self.path / f"part-{self.next:05d}.parquet"
        tmp = final.with_suffix(".tmp")
        pq.write_table(pa.Table.from_pylist(rows), tmp)
        os.replace(tmp, final)
        self.next += 1

    def read(self) -> pandas.DataFrame:
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        tables = [pq.read_table(p) for p in self.parts()]
        if not tables:
            return pd.DataFrame()
        # A part whose runs all lack a figure holds a null column; promotion types it.
        df = pa.concat_tables(tables, promote_options="permissive").to_pandas()
        return df.sort_values(["workload_index", "design_index"], kind="stable").reset_index(drop=True)


def _remote():
    import ray

    return ray.remote(num_cpus=1, max_retries=2)(execute)


def sweep(
    workloads: Sequence[Mapping[str, Any] | str | os.PathLike],
    designs: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None = None,
    *,
    out: str | os.PathLike = "sweep.parquet",
    address: str | None = None,
    workers: int | None = None,
    restart: bool = False,
    progress: bool | None = None,
    base: str | os.PathLike | None = None,
) -> pandas.DataFrame:
    """Run every workload × design (designs expanded by :func:`expand`) as Ray tasks.

    Args:
        workloads: trace paths, or dicts of workload flags (``{"trace": p, "compact": True}``,
            ``{"workload": {...}}``, an optional ``name``).
        designs: dicts as :func:`tierlab.run` takes; list values expand.
        options: flags common to every run (``prices``, ``tariff``…).
        out: the Parquet dataset (directory) rows are written to as runs complete.
        address: a Ray cluster; default ``$RAY_ADDRESS``, else a local Ray.
        workers: CPUs of the local Ray (tasks at once); ignored on a cluster.
        restart: forget the rows already in ``out``.
        progress: a bar (default: on a terminal or in a notebook).
        base: the directory relative trace paths start from (default: the current one).

    Returns:
        Every row of the dataset, in workload then design order: the compare row's
        columns (see :mod:`tierlab.frames`) plus ``workload``, ``workload_index``,
        ``design_index``, ``run_id``, ``error`` and ``elapsed_s``.
    """
    import ray

    options = dict(options or {})
    root = Path(base) if base is not None else Path.cwd()
    ws = [_workload(w, root) for w in workloads]
    ds = expand(designs)
    dataset = _Dataset(Path(out), restart)
    done = dataset.done()
    todo = []
    for (wi, w), (di, d) in itertools.product(enumerate(ws), enumerate(ds)):
        rid = run_id(w, d, options)
        if rid not in done:
            todo.append((rid, wi, w, di, d))

    started_ray = False
    if todo and not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        started_ray = True
    show = progress if progress is not None else (not os.environ.get("CI") and ("ipykernel" in sys.modules or sys.stderr.isatty()))
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(ws) * len(ds), initial=len(ws) * len(ds) - len(todo), unit=" runs", dynamic_ncols=True)
    try:
        if todo:
            task = _remote()
            # Tasks in flight: enough to keep every CPU busy, few enough that waiting on
            # them stays cheap and Ctrl-C has little to cancel.
            window = max(8, 4 * int(ray.cluster_resources().get("CPU", 1)))
            queue = iter(todo)
            pending: dict[Any, tuple[str, int, dict[str, Any], int]] = {}
            buffered: list[dict[str, Any]] = []
            last = time.monotonic()
            try:
                while True:
                    for rid, wi, w, di, d in itertools.islice(queue, window - len(pending)):
                        pending[task.remote(w, d, options)] = (rid, wi, w, di)
                    if not pending:
                        break
                    ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                    for ref in ready:
                        rid, wi, w, di = pending.pop(ref)
                        row = ray.get(ref)
                        row.update(run_id=rid, workload=_name(w), workload_index=wi, design_index=di)
                        buffered.append(row)
                        if bar is not None:
                            bar.update(1)
                    if len(buffered) >= FLUSH_ROWS or (buffered and time.monotonic() - last >= FLUSH_S):
                        dataset.write(buffered)
                        buffered, last = [], time.monotonic()
            finally:
                dataset.write(buffered)
                for ref in pending:
                    ray.cancel(ref, force=True)
    finally:
        if bar is not None:
            bar.close()
        if started_ray:
            ray.shutdown()
    return dataset.read()


def load(path: str | os.PathLike) -> dict[str, Any]:
    """A sweep file (TOML): ``out``, ``[options]``, ``[[workloads]]``, ``[[designs]]``.
    Relative paths in it (``out``, ``trace``, ``workload``) start from the file's directory."""
    import tomllib

    path = Path(path)
    try:
        with open(path, "rb") as f:
            spec = tomllib.load(f)
    except OSError as e:
        raise Error(f"cannot read {path}: {e.strerror}", file=str(path)) from None
    except tomllib.TOMLDecodeError as e:
        raise Error(f"{path}: {e}", file=str(path)) from None
    unknown = set(spec) - {"out", "options", "workloads", "designs"}
    if unknown:
        raise Error(f"{path}: unknown key `{sorted(unknown)[0]}` (expected out, options, workloads, designs)", file=str(path), field=sorted(unknown)[0])
    for key in ("workloads", "designs"):
        if not isinstance(spec.get(key), list) or not spec[key]:
            raise Error(f"{path}: expected at least one [[{key}]] table", file=str(path), field=key)
    for i, d in enumerate(spec["designs"]):
        if "mode" not in d:
            raise Error(f"{path}: designs[{i}] has no `mode`", file=str(path), field=f"designs[{i}].mode")
    spec["base"] = path.parent
    spec["out"] = str(path.parent / spec.get("out", path.with_suffix(".parquet").name))
    return spec


def main(argv: Sequence[str]) -> int:
    """``tierlab sweep FILE [--out DIR] [--address A] [--workers N] [--restart] [--json]``."""
    import argparse

    p = argparse.ArgumentParser(prog="tierlab sweep", description="Run a sweep file's workloads × designs as Ray tasks into a resumable Parquet dataset.")
    p.add_argument("file")
    p.add_argument("--out", help="the Parquet dataset (directory); default: the file's `out`")
    p.add_argument("--address", help="a Ray cluster; default $RAY_ADDRESS, else a local Ray")
    p.add_argument("--workers", type=int, help="CPUs of the local Ray")
    p.add_argument("--restart", action="store_true", help="run everything again")
    p.add_argument("--json", action="store_true", help="print the rows as one JSON array")
    a = p.parse_args(argv)
    try:
        spec = load(a.file)
        df = sweep(spec["workloads"], spec["designs"], spec.get("options"), out=a.out or spec["out"], address=a.address, workers=a.workers, restart=a.restart, base=spec["base"])
    except Error as e:
        print(f"error: {e.message}", file=sys.stderr)
        return 1
    if a.json:
        records = df.astype(object).where(df.notna(), None).to_dict(orient="records")
        print(json.dumps(records, indent=2, default=str))
    else:
        failed = int(df["error"].notna().sum()) if "error" in df else 0
        print(f"{len(df)} runs in {a.out or spec['out']} ({failed} could not run); total run time {df['elapsed_s'].sum():.1f} s")
    return 0
