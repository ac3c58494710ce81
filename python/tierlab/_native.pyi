"""Type stubs of the extension module (the Rust side of the package)."""

from collections.abc import Iterator

__version__: str

class Job:
    """A study command running on a thread of its own."""

    def __init__(self, path: list[str], params: str) -> None:
        """Start the command at ``path`` with ``params``, a JSON object of its parameters
        by name; raises ``UsageError`` if the command refuses them."""
    def wait(self, timeout_s: float) -> bool:
        """Wait without the GIL; True once the command ended."""
    def progress(self) -> list[tuple[str, int, int | None]]:
        """The command's bars: (message, position, length or None)."""
    def stop(self) -> bool:
        """Stop the command (its simulations at their next progress point); ``finish``
        then raises ``Interrupted``. False if it had already ended."""
    def finish(self) -> bytes:
        """The command's report as JSON; raises the typed errors of ``tierlab.errors``."""

class TraceBatches(Iterator[tuple[bytes, bytes, bytes, bytes, bytes]]):
    """A trace as batches of little-endian columns: time_ns u64, volume u32,
    offset_bytes u64, len_bytes u64, is_write u8."""

    def __init__(self, path: str, params: str, batch_rows: int) -> None:
        """Open ``path`` with the trace parameters ``params`` (a JSON object)."""
    def __iter__(self) -> TraceBatches: ...
    def __next__(self) -> tuple[bytes, bytes, bytes, bytes, bytes]: ...

def main(args: list[str]) -> int:
    """Run ``tierlab ARGS…`` (program name first) as the ``tierlab`` binary does: the
    whole command line, which the wheel carries beside the bindings."""

def json_to_toml(json: str) -> str:
    """A configuration given as JSON text, as TOML."""

def design_families() -> list[tuple[str, str]]:
    """The design families and their colour in every report: (name as ``--mode`` and a
    report's ``mode`` give it, ``#rrggbb``)."""

def describe(path: list[str]) -> str | None:
    """The parameters of ``tierlab PATH…`` as JSON text, from the definitions its
    ``--help`` prints (``None``: no such command)."""
