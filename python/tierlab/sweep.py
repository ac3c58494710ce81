"""Design sweeps on Ray: every workload × every design, one Ray task per run.

Each task is one :func:`tierlab.run` (one ``tierlab compare`` row) executed by the Rust
core in a Ray worker. Rows are written to a Parquet dataset (a directory of part files)
as runs complete, so a sweep that stops — Ctrl-C, a lost node — resumes where it stopped
when started again: runs whose ``run_id`` already has a row without ``error`` are skipped;
runs that failed are tried again.

A run's ``run_id`` is a hash of its workload (a trace or workload file by the SHA-256 of
its content, not its path or time stamp), design, options and tierlab's version; the
sweep's ``study`` is a hash of all of them. One dataset can hold several studies: a sweep
returns the rows of its own runs only, never another study's, and reuses a run another
study already made (the same run gives the same row).

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
#: After Ctrl-C on a Ray the caller started, how long running tasks get to stop by
#: themselves (a run stops at its next progress point, within milliseconds) before they
#: are killed.
CANCEL_GRACE_S = 5.0
#: Bytes read at a time when hashing a file.
HASH_CHUNK_BYTES = 1 << 20


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep. Its message says how many of its rows are saved; the same
    sweep started again resumes from them. ``rows`` is that number."""

    def __init__(self, rows: int):
        super().__init__(f"interrupted: {rows} row{'' if rows == 1 else 's'} saved, run again to resume")
        self.rows = rows


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


def content_hash(path: str | os.PathLike) -> str | None:
    """The SHA-256 of a file's bytes (hex), read in pieces of ``HASH_CHUNK_BYTES`` into one
    buffer, so memory does not grow with the file; None if it cannot be read."""
    h = hashlib.sha256()
    buf = bytearray(HASH_CHUNK_BYTES)
    view = memoryview(buf)
    try:
        with open(path, "rb", buffering=0) as f:
            while n := f.readinto(buf):
                h.update(view[:n])
    except OSError:
        return None
    return h.hexdigest()


def workload_key(w: Mapping[str, Any], hashes: dict[str, str | None] | None = None) -> dict[str, Any]:
    """What identifies a workload's runs: its flags, with the trace and workload files
    (paths resolved) replaced by the hashes of their content — a file that cannot be read
    stays a path, and its run an error. ``name`` is a label and left out. ``hashes``
    caches each path's hash within a sweep."""
    key = {k: v for k, v in w.items() if k != "name"}
    for k in ("trace", "workload"):
        path = key.get(k)
        if isinstance(path, str):
            key[k] = _file_key(path, hashes)
    return key


def _file_key(path: str | os.PathLike, hashes: dict[str, str | None] | None) -> dict[str, Any]:
    """A file as a run's identity holds it: the hash of its content, or its path when it
    cannot be read. ``hashes`` caches each path's hash within a sweep."""
    path = str(path)
    digest = hashes.get(path) if hashes is not None and path in hashes else content_hash(path)
    if hashes is not None:
        hashes[path] = digest
    return {"sha256": digest} if digest is not None else {"unreadable": path}


def files_by_content(value: Any, hashes: dict[str, str | None] | None = None) -> Any:
    """``value`` (a design or the options, nested dicts and lists) with every string that
    names an existing file replaced by the hash of the file's content, so that a run
    whose option file (prices, tariff, a system or DiskSim description, a workload file)
    changed is another run. Other values stay as they are. ``hashes`` caches each path's
    hash within a sweep."""
    if isinstance(value, Mapping):
        return {k: files_by_content(v, hashes) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [files_by_content(v, hashes) for v in value]
    if isinstance(value, (str, os.PathLike)) and Path(value).is_file():
        return _file_key(value, hashes)
    return value


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_id(workload_key: Mapping[str, Any], design: Mapping[str, Any], options: Mapping[str, Any]) -> str:
    """The identity of one run in a dataset: its workload (as :func:`workload_key` gives
    it), design, options and tierlab's version."""
    return _digest({"workload": workload_key, "design": design, "options": options, "version": _native.__version__})


def study_id(workload_keys: Sequence[Mapping[str, Any]], designs: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> str:
    """The identity of a sweep: every workload (by :func:`workload_key`), every design
    (expanded), the options and tierlab's version."""
    return _digest({"workloads": list(workload_keys), "designs": list(designs), "options": options, "version": _native.__version__})


def _error_row(design: Mapping[str, Any], message: str) -> dict[str, Any]:
    return {"config": json.dumps(design, sort_keys=True), "mode": design.get("mode"), "error": message}


def execute(workload: Mapping[str, Any], design: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """One run as one flat row: the compare row's figures, or ``error`` if it could not run."""
    w = {k: v for k, v in workload.items() if k != "name"}
    start = time.perf_counter()
    try:
        row = flatten(run_one(w, design, progress=False, **options))
        row["error"] = None
    except Error as e:
        row = _error_row(design, e.message)
    row["elapsed_s"] = time.perf_counter() - start
    return row


class _Dataset:
    """A directory of Parquet part files, one per flush, each written whole and renamed
    into place; a run's newest row is its row. Beside them, ``_study-ID.json`` says what
    each study was (the ``_`` keeps Parquet readers from taking it for data)."""

    def __init__(self, path: Path, restart: bool):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        if restart:
            for p in [*self.parts(), *path.glob("_study-*.json")]:
                p.unlink()
        self.next = len(self.parts())

    def parts(self) -> list[Path]:
        return sorted(self.path.glob("part-*.parquet"))

    def note_study(self, study: str, spec: Mapping[str, Any]) -> None:
        path = self.path / f"_study-{study}.json"
        if not path.exists():
            tmp = self.path / f".{path.name}.tmp"
            tmp.write_text(json.dumps(spec, indent=1, sort_keys=True, default=str) + "\n")
            os.replace(tmp, path)

    def errors_by_run(self) -> dict[str, bool]:
        """Each run with a row: whether its newest row is an error."""
        import pyarrow.parquet as pq

        latest: dict[str, bool] = {}
        for p in self.parts():
            t = pq.read_table(p, columns=["run_id", "error"])
            for rid, err in zip(t.column("run_id").to_pylist(), t.column("error").to_pylist()):
                latest[rid] = err is not None
        return latest

    def write(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        while (self.path / f"part-{self.next:05d}.parquet").exists():
            self.next += 1
        final = self.path / f"part-{self.next:05d}.parquet"
        tmp = self.path / f".{final.name}.tmp"
        pq.write_table(pa.Table.from_pylist(rows), tmp)
        os.replace(tmp, final)
        self.next += 1

    def read(self, plan: Sequence[tuple[str, int, str, int]], study: str) -> pandas.DataFrame:
        """The rows of ``plan``'s runs ((run_id, workload index, workload name, design
        index) in order), each run's newest row, labelled as this study sees it."""
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        tables = [pq.read_table(p) for p in self.parts()]
        if not tables:
            return pd.DataFrame()
        # A part whose runs all lack a figure holds a null column; promotion types it.
        df = pa.concat_tables(tables, promote_options="permissive").to_pandas()
        latest = df.drop_duplicates("run_id", keep="last").set_index("run_id", drop=False)
        mine = [p for p in plan if p[0] in latest.index]
        out = latest.loc[[p[0] for p in mine]].reset_index(drop=True)
        out["workload"] = [p[2] for p in mine]
        out["workload_index"] = [p[1] for p in mine]
        out["design_index"] = [p[3] for p in mine]
        out["study"] = study
        return out


def _remote():
    import ray

    return ray.remote(num_cpus=1, max_retries=2)(execute)


def _stop_tasks(ray: Any, pending: dict[Any, Any], take: Any) -> None:
    """Stop the tasks in flight on a Ray the caller started (which outlives the sweep)
    after Ctrl-C: ask each to stop (it raises KeyboardInterrupt in its worker, which stops
    the run at its next progress point), keep the rows of any that complete meanwhile, and
    only then kill what is left (killing first is what crashes Ray's driver most often)."""
    for ref in list(pending):
        try:
            ray.cancel(ref, force=False)
        except Exception:
            pass
    try:
        ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=CANCEL_GRACE_S)
        for ref in ready:
            take(ref, stopping=True)
    except KeyboardInterrupt:
        pass  # Ctrl-C again: stop waiting
    for ref in list(pending):
        try:
            ray.cancel(ref, force=True)
        except Exception:
            pass


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
        out: the Parquet dataset (directory) rows are written to as runs complete; it may
            hold other studies' rows, which this sweep neither returns nor disturbs.
        address: a Ray cluster; default ``$RAY_ADDRESS``, else a local Ray.
        workers: CPUs of the local Ray (tasks at once); ignored on a cluster.
        restart: forget every row already in ``out``.
        progress: a bar (default: on a terminal or in a notebook).
        base: the directory relative trace paths start from (default: the current one).

    Returns:
        This sweep's rows, in workload then design order: the compare row's columns (see
        :mod:`tierlab.frames`) plus ``workload``, ``workload_index``, ``design_index``,
        ``run_id``, ``study``, ``error`` and ``elapsed_s``.

    Raises:
        SweepInterrupted: on Ctrl-C, once the rows that completed are saved and the tasks
            in flight stopped; its message says how many rows the dataset holds.
    """
    options = dict(options or {})
    root = Path(base) if base is not None else Path.cwd()
    ws = [_workload(w, root) for w in workloads]
    ds = expand(designs)
    hashes: dict[str, str | None] = {}
    keys = [workload_key(w, hashes) for w in ws]
    # Designs and options are keyed by the content of the files they name, as workloads are.
    design_keys = [files_by_content(d, hashes) for d in ds]
    options_key = files_by_content(options, hashes)
    study = study_id(keys, design_keys, options_key)
    plan = [(run_id(keys[wi], design_keys[di], options_key), wi, _name(w), di) for (wi, w), (di, _) in itertools.product(enumerate(ws), enumerate(ds))]
    dataset = _Dataset(Path(out), restart)
    dataset.note_study(study, {"study": study, "workloads": ws, "workload_keys": keys, "designs": ds, "options": options, "version": _native.__version__})
    try:
        _run_plan(plan, ws, ds, options, dataset, study, address, workers, progress)
    except KeyboardInterrupt:
        mine = {p[0] for p in plan}
        raise SweepInterrupted(sum(1 for rid in dataset.errors_by_run() if rid in mine)) from None
    return dataset.read(plan, study)


def _run_plan(plan, ws, ds, options, dataset: _Dataset, study: str, address, workers, progress) -> None:
    """Run the runs of ``plan`` that have no row, or only an error row, into ``dataset``."""
    latest = dataset.errors_by_run()
    todo, seen = [], set()
    for rid, wi, _, di in plan:
        if (rid not in latest or latest[rid]) and rid not in seen:
            seen.add(rid)
            todo.append((rid, wi, di))
    if not todo:
        return
    import ray

    started_ray = False
    if not ray.is_initialized():
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

        total = len({p[0] for p in plan})
        bar = tqdm(total=total, initial=total - len(todo), unit=" runs", dynamic_ncols=True)
    pending: dict[Any, tuple[str, int, int]] = {}
    buffered: list[dict[str, Any]] = []

    def take(ref: Any, stopping: bool = False) -> None:
        rid, wi, di = pending.pop(ref)
        try:
            row = ray.get(ref)
        except ray.exceptions.TaskCancelledError:
            return
        except ray.exceptions.RayError as e:
            if stopping or isinstance(getattr(e, "cause", None), KeyboardInterrupt):
                return  # stopped by Ctrl-C (the terminal's reaches the workers too): no row
            # The task or its worker failed (a node lost, a worker killed): an error row,
            # tried again when the sweep is.
            row = _error_row(ds[di], f"the run's Ray task failed: {type(e).__name__}: {e}".splitlines()[0])
        row.update(run_id=rid, workload=_name(ws[wi]), workload_index=wi, design_index=di, study=study)
        buffered.append(row)
        if bar is not None:
            bar.update(1)

    try:
        task = _remote()
        # Tasks in flight: enough to keep every CPU busy, few enough that waiting on them
        # stays cheap and Ctrl-C has little to cancel.
        window = max(8, 4 * int(ray.cluster_resources().get("CPU", 1)))
        queue = iter(todo)
        last = time.monotonic()
        try:
            while True:
                for rid, wi, di in itertools.islice(queue, window - len(pending)):
                    pending[task.remote(ws[wi], ds[di], options)] = (rid, wi, di)
                if not pending:
                    break
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                for ref in ready:
                    take(ref)
                if len(buffered) >= FLUSH_ROWS or (buffered and time.monotonic() - last >= FLUSH_S):
                    dataset.write(buffered)
                    buffered, last = [], time.monotonic()
        except KeyboardInterrupt:
            if started_ray:
                # Ray ends with the sweep, and every task with it: keep the rows of the
                # runs that have completed and cancel nothing (a task cancelled as it
                # completes can crash Ray's driver).
                if pending:
                    ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
                    for ref in ready:
                        take(ref, stopping=True)
            else:
                _stop_tasks(ray, pending, take)
            raise
        finally:
            dataset.write(buffered)
    finally:
        if bar is not None:
            bar.close()
        if started_ray:
            ray.shutdown()


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
    except KeyboardInterrupt as e:
        print(str(e) if isinstance(e, SweepInterrupted) else "interrupted", file=sys.stderr)
        return 130
    if a.json:
        records = df.astype(object).where(df.notna(), None).to_dict(orient="records")
        print(json.dumps(records, indent=2, default=str))
    else:
        failed = int(df["error"].notna().sum()) if "error" in df else 0
        print(f"{len(df)} runs in {a.out or spec['out']} ({failed} could not run); total run time {df['elapsed_s'].sum():.1f} s")
    return 0
