"""The errors tierlab raises. Each carries the message the ``tierlab`` command prints and,
where the error names one, the place in a file at fault (``file``, ``line``, ``field``)."""

from __future__ import annotations


class Error(Exception):
    """A tierlab command failed.

    Attributes:
        message: the whole message, every cause joined by ``": "``, as the command prints it.
        file: the file at fault, if the error names one.
        line: its 1-based line, if known.
        field: the field (column or key) at fault, if known.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field


class UsageError(Error, ValueError):
    """An option or value the command does not accept (an unknown keyword, a bad number)."""


class TraceError(Error):
    """A trace could not be read: ``file``, ``line`` and ``field`` say where."""


class ConfigError(Error):
    """A configuration, catalog or device parameter file is wrong: ``file``, ``line`` and
    ``field`` (the key) say where."""


class Interrupted(Error):
    """The run was stopped before it ended (``Job.stop``; Ctrl-C raises KeyboardInterrupt)."""
