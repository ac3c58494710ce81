"""The ``tierlab`` command from the Python package: ``tierlab sweep`` runs here (on Ray);
every other command is the Rust command line itself, run in-process."""

from __future__ import annotations

import signal
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["sweep"]:
        from .sweep import main as sweep_main

        return sweep_main(args[1:])
    from . import _native

    # The command line handles Ctrl-C as the binary does: it ends the process.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return _native.main(["tierlab", *args])


if __name__ == "__main__":
    sys.exit(main())
