"""Running a ``tierlab`` command line in-process: options to flags, progress, Ctrl-C."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from . import _native

#: Seconds between looks at a running command (progress, Ctrl-C).
_POLL_S = 0.1


def _show(progress: bool | None) -> bool:
    if progress is not None:
        return progress
    if os.environ.get("CI"):
        return False
    return "ipykernel" in sys.modules or sys.stderr.isatty()


class _Bar:
    """A tqdm bar following a command's progress bars: the bar of runs where there is
    one, else a count of requests, labelled with the newest bar's message."""

    def __init__(self) -> None:
        self._bar = None

    def update(self, bars: list[tuple[str, int, int | None]]) -> None:
        if not bars:
            return
        from tqdm.auto import tqdm

        sized = [b for b in bars if b[2] is not None]
        message, position, length = sized[-1] if sized else bars[-1]
        if self._bar is None or self._bar.total != length:
            self.close()
            self._bar = tqdm(total=length, unit=" runs" if length is not None else " requests", leave=False, dynamic_ncols=True)
        self._bar.set_description_str(bars[-1][0] or message, refresh=False)
        self._bar.n = position
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def run(args: Sequence[str], progress: bool | None = None) -> bytes:
    """Run ``tierlab ARGS…`` and return what it printed; raise ``tierlab.errors`` on failure.

    The command runs on a thread of its own without the GIL. Ctrl-C stops its simulations
    at their next progress point and raises KeyboardInterrupt once they have stopped,
    wherever it lands: while the job starts, between two waits or as it ends (the job
    then reports itself stopped, never finished; a job dropped unwaited for stops too).
    """
    bar = _Bar() if _show(progress) else None
    job = None
    try:
        job = _native.Job([str(a) for a in args])
        while not job.wait(_POLL_S):
            if bar is not None:
                bar.update(job.progress())
        return job.finish()
    except KeyboardInterrupt:
        if job is not None:
            job.stop()
            try:
                job.finish()
            except Exception:
                pass  # stopped (Interrupted), or already finished
        raise
    finally:
        if bar is not None:
            bar.close()


def run_json(args: Sequence[str], progress: bool | None = None) -> Any:
    """``run`` with ``--json`` added, the report parsed."""
    return json.loads(run([*args, "--json"], progress))


@contextmanager
def flags(options: Mapping[str, Any]) -> Iterator[list[str]]:
    """``options`` as command-line flags: ``ssd_fraction=0.25`` is ``--ssd-fraction 0.25``,
    ``True`` a bare flag, ``False``/``None`` nothing, a list or tuple the flag once per
    value, and a dict a configuration file (written as TOML for the run, then removed)."""
    out: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tierlab-") as tmp:
        for key, value in options.items():
            name = "--" + key.replace("_", "-")
            if value is None or value is False:
                continue
            if value is True:
                out.append(name)
            elif isinstance(value, Mapping):
                path = os.path.join(tmp, f"{key}.toml")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(_native.json_to_toml(json.dumps(value)))
                out += [name, path]
            elif isinstance(value, (list, tuple)):
                for v in value:
                    out += [name, _text(v)]
            else:
                out += [name, _text(value)]
        yield out


def _text(v: Any) -> str:
    # repr of a float is the shortest text that reads back as the same double.
    if isinstance(v, float):
        return repr(v)
    return os.fspath(v) if isinstance(v, os.PathLike) else str(v)
