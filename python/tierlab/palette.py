"""The colours of the design families, the same as in the command's HTML reports, and the
families' names as the command line gives them (``ssd-only``, not a report's ``ssdonly``).

>>> from tierlab.palette import design_name, design_colour
>>> design_name("ssdonly"), design_colour("ssdonly")   # doctest: +SKIP
('ssd-only', '#d55e00')
"""

from __future__ import annotations

from ._native import design_families

#: (name, colour) by a report's ``mode``; the same keyed by name.
_BY_MODE = {mode: (name, colour) for name, mode, colour in design_families()}
_BY_NAME = {name: (name, colour) for name, _, colour in design_families()}

#: The families in the order the reports list them.
FAMILIES: list[str] = [name for name, _, _ in design_families()]


def design_name(mode: str) -> str:
    """A family's name as the command line gives it, from a report's ``mode`` (or the
    name itself); an unknown mode is returned as it is."""
    return (_BY_MODE.get(mode) or _BY_NAME.get(mode) or (mode, ""))[0]


def design_colour(mode: str) -> str:
    """A family's colour (``#rrggbb``) from a report's ``mode`` or its name; grey for an
    unknown one."""
    return (_BY_MODE.get(mode) or _BY_NAME.get(mode) or ("", "#999999"))[1]
