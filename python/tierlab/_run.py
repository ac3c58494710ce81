"""Calling a study command in-process: its options by name, progress, Ctrl-C."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
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


def call(path: Sequence[str], options: Mapping[str, Any], progress: bool | None = None) -> Any:
    """Call the command at ``path`` (``["array", "simulate"]``) with ``options`` by name and
    return its report; raise ``tierlab.errors`` on failure.

    The options go to the command as a JSON object (a path as text, a dict as the TOML
    file the command reads, written for the call), checked by the command's own
    definitions. The command runs on a thread of its own without the GIL. Ctrl-C stops its
    simulations at their next progress point and raises KeyboardInterrupt once they have
    stopped, wherever it lands: while the job starts, between two waits or as it ends (the
    job then reports itself stopped, never finished; a job dropped unwaited for stops too).
    """
    bar = _Bar() if _show(progress) else None
    job = None
    try:
        job = _native.Job(list(path), params(options))
        while not job.wait(_POLL_S):
            if bar is not None:
                bar.update(job.progress())
        return json.loads(job.finish())
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


def params(options: Mapping[str, Any]) -> str:
    """``options`` as the JSON object of parameters the extension reads."""
    return json.dumps(dict(options), default=_plain)


def _plain(v: Any) -> Any:
    # A path as its text; anything else JSON has no type for (a NumPy integer, say) as the
    # text the command line would read.
    return os.fspath(v) if isinstance(v, os.PathLike) else str(v)
