"""A trace as Python sees it: requests one by one, or Arrow record batches for analysis.

Reading streams: memory holds one batch whatever the trace's length. Every format
``tierlab trace formats`` lists is read, compressed or not, with the same options as the
command line (``format=``, ``sort=``, ``volume=[…]``, ``start_s=``, ``end_s=``,
``speed=``, ``max_requests=``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _native, _run

if TYPE_CHECKING:
    import pandas
    import pyarrow

#: Requests per batch unless told otherwise.
BATCH_ROWS = 65536


class Request(NamedTuple):
    """One block request: arrival time (ns from the trace's first request), volume, first
    byte, length in bytes, and ``"read"`` or ``"write"``."""

    time_ns: int
    volume: int
    offset_bytes: int
    len_bytes: int
    op: str


def schema() -> pyarrow.Schema:
    """The columns of a trace's record batches."""
    import pyarrow as pa

    return pa.schema(
        [
            ("time_ns", pa.uint64()),
            ("volume", pa.uint32()),
            ("offset_bytes", pa.uint64()),
            ("len_bytes", pa.uint64()),
            ("op", pa.dictionary(pa.int8(), pa.string())),
        ]
    )


class Trace:
    """A trace file, read lazily. Iterating yields :class:`Request`; :meth:`batches`
    yields ``pyarrow.RecordBatch``; each pass reads the file again from the start."""

    def __init__(self, path: str | os.PathLike, *, batch_rows: int = BATCH_ROWS, **options: Any):
        self.path = os.fspath(path)
        self.batch_rows = batch_rows
        self.options = options

    def _columns(self) -> Iterator[tuple[bytes, bytes, bytes, bytes, bytes]]:
        yield from _native.TraceBatches(self.path, _run.params(self.options), self.batch_rows)

    def batches(self) -> Iterator[pyarrow.RecordBatch]:
        """The trace as Arrow record batches of :func:`schema` (at most ``batch_rows`` each)."""
        import pyarrow as pa

        ops = pa.array(["read", "write"])
        for time, volume, offset, length, write in self._columns():
            n = len(write)
            col = lambda t, buf: pa.Array.from_buffers(t, n, [None, pa.py_buffer(buf)])  # noqa: E731
            op = pa.DictionaryArray.from_arrays(col(pa.int8(), write), ops)
            yield pa.RecordBatch.from_arrays(
                [col(pa.uint64(), time), col(pa.uint32(), volume), col(pa.uint64(), offset), col(pa.uint64(), length), op],
                schema=schema(),
            )

    def reader(self) -> pyarrow.RecordBatchReader:
        """The batches as a ``pyarrow.RecordBatchReader`` (for DuckDB, Polars, Arrow datasets)."""
        import pyarrow as pa

        return pa.RecordBatchReader.from_batches(schema(), self.batches())

    def to_arrow(self) -> pyarrow.Table:
        """The whole trace as one Arrow table (in memory)."""
        import pyarrow as pa

        return pa.Table.from_batches(list(self.batches()), schema=schema())

    def to_pandas(self) -> pandas.DataFrame:
        """The whole trace as a DataFrame (in memory)."""
        return self.to_arrow().to_pandas()

    def __iter__(self) -> Iterator[Request]:
        for batch in self.batches():
            cols = [batch.column(i).to_pylist() for i in range(4)]
            ops = batch.column(4).to_pylist()
            for t, v, o, n, op in zip(*cols, ops):
                yield Request(t, v, o, n, op)


def read_trace(path: str | os.PathLike, *, batch_rows: int = BATCH_ROWS, **options: Any) -> Trace:
    """Open a trace for reading (see :class:`Trace`). A file that cannot be opened or
    recognised raises ``tierlab.TraceError`` here; a bad line raises it, with file, line
    and field, when a pass reaches it."""
    trace = Trace(path, batch_rows=batch_rows, **options)
    _native.TraceBatches(trace.path, _run.params(options), 1)
    return trace
