"""The colours of the design families, the same as in the command's HTML reports, by the
name the command line and a report's ``mode`` give them.

>>> from tierlab.palette import design_colour
>>> design_colour("ssd-only")   # doctest: +SKIP
'#d55e00'
"""

from __future__ import annotations

from ._native import design_families

_COLOUR = dict(design_families())

#: The families in the order the reports list them.
FAMILIES: list[str] = list(_COLOUR)


def design_colour(mode: str) -> str:
    """A family's colour (``#rrggbb``) from a report's ``mode``; grey for an unknown one."""
    return _COLOUR.get(mode, "#999999")
