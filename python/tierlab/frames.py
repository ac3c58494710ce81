"""Reports as tables: one row per run, nested figures flattened into columns.

- Nested dicts become ``outer_inner`` columns (``response_time_p99_ms``).
- A list of devices becomes ``hdd_…`` / ``ssd_…`` columns (by kind, or by name when two
  share a kind); power states ``hdd_states_standby_energy_j``.
- A compare row's ``cost`` list becomes ``cost_usd_alpha_1`` … ``cost_usd_alpha_100000``
  (the total at each α, as the CSV) and its ``horizon`` ``horizon_alpha``,
  ``horizon_years`` and ``horizon_cost_usd``; the full breakdowns stay in the report.
- Other lists of figures stay lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas
    import pyarrow


def _label(items: Sequence[Mapping[str, Any]], i: int) -> str:
    for key in ("kind", "name", "state", "scheme", "config"):
        values = [it.get(key) for it in items]
        if all(isinstance(v, str) for v in values) and len(set(values)) == len(values):
            return str(items[i][key])
    return str(i)


def _alpha(a: float) -> str:
    return str(int(a)) if float(a).is_integer() else repr(a)


def flatten(report: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """One report as one flat row (see the module's rules)."""
    row: dict[str, Any] = {}
    for key, value in report.items():
        name = f"{prefix}{key}"
        if key == "cost" and isinstance(value, list) and all(isinstance(c, Mapping) and "alpha" in c for c in value):
            for c in value:
                row[f"{prefix}cost_usd_alpha_{_alpha(c['alpha'])}"] = c.get("total_usd")
        elif key == "horizon" and isinstance(value, Mapping) and "total_usd" in value:
            row[f"{prefix}horizon_alpha"] = value.get("alpha")
            row[f"{prefix}horizon_years"] = value.get("years")
            row[f"{prefix}horizon_cost_usd"] = value.get("total_usd")
        elif isinstance(value, Mapping):
            row.update(flatten(value, f"{name}_"))
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            group = "" if key == "devices" else f"{key}_"
            for i, item in enumerate(value):
                label = _label(value, i)
                inner = {k: v for k, v in item.items() if k not in ("kind", "name", "state")} if label != str(i) else item
                row.update(flatten(inner, f"{prefix}{group}{label}_"))
        else:
            row[name] = value
    return row


def rows(reports: Any) -> list[dict[str, Any]]:
    """A report, or a list of them, as flat rows."""
    if isinstance(reports, Mapping):
        return [flatten(reports)]
    return [flatten(r) for r in reports]


def to_arrow(reports: Any) -> pyarrow.Table:
    """A report or a list of reports (rows of ``compare``, results of ``run``) as an Arrow
    table, one row per run."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows(reports))


def to_pandas(reports: Any) -> pandas.DataFrame:
    """A report or a list of reports as a pandas DataFrame, one row per run."""
    import pandas as pd

    return pd.DataFrame.from_records(rows(reports))
