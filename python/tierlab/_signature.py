"""Signatures, type hints and docstrings of the package's command functions, built from the
definitions the command's ``--help`` prints (``_native.describe``): one source, so a
function's parameters, defaults and help cannot drift from the command's.

``python -m tierlab._signature`` prints the type stub ``api.pyi`` (a test checks that the
checked-in stub is that text).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import os
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Optional, Union

from . import _native

#: What each command function takes, as the stub spells it and as Python checks it.
_BASE = {"bool": ("bool", bool), "int": ("int", int), "float": ("float", float), "str": ("str", str), "path": ("PathLike", Union[str, os.PathLike])}

#: The functions made by ``command``, in definition order: (name, parameters in signature
#: order, how many of them are positional, docstring, return type), for the stub.
REGISTRY: list[tuple[str, list[dict[str, Any]], int, str, str]] = []


def spec(path: Sequence[str]) -> dict[str, Any]:
    """The command at ``path`` as ``_native.describe`` gives it."""
    text = _native.describe(list(path))
    if text is None:
        raise LookupError(f"no command `tierlab {' '.join(path)}`")
    return json.loads(text)


def _takes_table(p: dict[str, Any]) -> bool:
    # A configuration file may be given as a dict (written as TOML for the run).
    return p["kind"] == "path" and "TOML" in p["help"]


def _annotation(p: dict[str, Any]) -> tuple[str, Any]:
    """(stub text, typing object) of a parameter's type."""
    text, hint = _BASE[p["kind"]]
    if p["choices"]:
        text, hint = f"Literal[{', '.join(map(repr, p['choices']))}]", Literal[tuple(p["choices"])]
    if _takes_table(p):
        text, hint = f"{text} | Mapping[str, Any]", Union[hint, Mapping[str, Any]]
    if p["multiple"]:
        text, hint = f"{text} | Sequence[{text}]", Union[hint, Sequence[hint]]
    if _default(p) is None:
        text, hint = f"{text} | None", Optional[hint]
    return text, hint


def _value(p: dict[str, Any], text: str) -> Any:
    kind = p["kind"]
    try:
        return int(text) if kind == "int" else float(text) if kind == "float" else text
    except ValueError:
        return text


def _default(p: dict[str, Any]) -> Any:
    if p["required"]:
        return inspect.Parameter.empty
    if p["kind"] == "bool":
        return False
    values = [_value(p, d) for d in p["default"]]
    if not values:
        return None
    return tuple(values) if p["multiple"] else values[0]


def _type_words(p: dict[str, Any]) -> str:
    words = {"bool": "bool", "int": "int", "float": "float", "str": "str", "path": "path"}[p["kind"]]
    if p["choices"]:
        words = "one of " + ", ".join(map(repr, p["choices"]))
    if _takes_table(p):
        words += " or dict (the file's TOML)"
    if p["multiple"]:
        words += ", or a list of them"
    d = _default(p)
    if d is inspect.Parameter.empty:
        return words
    if d is None or d is False:
        return words + ", optional"
    return f"{words}, default {list(d) if isinstance(d, tuple) else d!r}"


def _doc(summary: str, s: dict[str, Any], returns: str) -> str:
    lines = [summary.strip(), ""]
    about = s["about"].strip()
    if about:
        lines += [*textwrap.wrap(f"``tierlab {' '.join(s['path'])}``: {' '.join(about.split())}", 88), ""]
    lines += ["Parameters", "----------"]
    for p in s["params"]:
        lines.append(f"{p['name']} : {_type_words(p)}")
        # The help names other flags as the command line does; here they are parameters.
        help_text = re.sub(r"--([a-z][a-z0-9-]*)", lambda m: m.group(1).replace("-", "_"), p["help"].strip()) or "(no help)"
        lines += ["    " + line for line in textwrap.wrap(" ".join(help_text.split()), 84)]
    lines += ["progress : bool, optional", "    Show a progress bar (default: on a terminal or in a notebook).", ""]
    lines += ["Returns", "-------", returns, f"    The report ``tierlab {' '.join(s['path'])} --json`` prints, as Python objects."]
    return "\n".join(lines)


def command(path: Sequence[str], *, positional: Sequence[str] = (), returns: str = "dict[str, Any]") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a function the parameters of ``tierlab PATH…``: its signature (``positional``
    first, taken by position too; the rest keyword-only; then ``progress``), type hints,
    defaults and docstring (its own first paragraph, then every parameter's help). A keyword
    the command does not take is a ``TypeError`` naming the closest one it does."""
    path = tuple(path)
    s = spec(path)
    by_name = {p["name"]: p for p in s["params"]}
    missing = [n for n in positional if n not in by_name]
    if missing:
        raise LookupError(f"`tierlab {' '.join(path)}` has no parameter {missing}")
    order = [by_name[n] for n in positional] + [p for p in s["params"] if p["name"] not in positional]
    params = []
    for p in order:
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if p["name"] in positional else inspect.Parameter.KEYWORD_ONLY
        params.append(inspect.Parameter(p["name"], kind, default=_default(p), annotation=_annotation(p)[1]))
    params.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Optional[bool]))

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.Signature(params, return_annotation=returns)

        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            unknown = [k for k in kwargs if k not in sig.parameters]
            if unknown:
                close = difflib.get_close_matches(unknown[0], list(sig.parameters), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; see help(tierlab.{f.__name__})"
                raise TypeError(f"{f.__name__}() got an unexpected keyword argument {unknown[0]!r}{hint}")
            bound = sig.bind(*args, **kwargs)
            return f(**bound.arguments)

        summary = " ".join((f.__doc__ or "").strip().split("\n\n")[0].split())
        call.__signature__ = sig  # type: ignore[attr-defined]
        call.__doc__ = _doc(summary, s, returns)
        REGISTRY.append((f.__name__, order, len(positional), call.__doc__, returns))
        return call

    return decorate


_STUB_HEAD = '''"""Type stub of tierlab.api, generated from the commands' definitions by
``python -m tierlab._signature`` (do not edit; a test checks it is current)."""

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

PathLike = str | os.PathLike[str]

def command(*path: str, progress: bool | None = None, **options: Any) -> Any: ...
def run(workload: Mapping[str, Any], design: Mapping[str, Any], *, progress: bool | None = None, **options: Any) -> dict[str, Any]: ...
'''


def stub() -> str:
    """The text of ``api.pyi``: every command function with its typed parameters."""
    # Defining the functions fills the registry of the imported module (under
    # `python -m`, this file also runs as `__main__`, with a registry of its own).
    from . import _signature, api  # noqa: F401

    out = [_STUB_HEAD]
    for name, order, positional, doc, returns in _signature.REGISTRY:
        parts = []
        for i, p in enumerate(order):
            if i == positional:
                parts.append("*")
            d = _default(p)
            default = "" if d is inspect.Parameter.empty else f" = {list(d)!r}" if isinstance(d, tuple) else f" = {d!r}"
            parts.append(f"{p['name']}: {_annotation(p)[0]}{default}")
        if positional == len(order):
            parts.append("*")
        parts.append("progress: bool | None = None")
        body = "".join(f"\n    {part}," for part in parts)
        doc = textwrap.indent(doc.replace("\\", "\\\\"), "    ")
        out.append(f'def {name}({body}\n) -> {returns}:\n    """\n{doc}\n    """\n')
    return "\n".join(out)


if __name__ == "__main__":
    print(stub(), end="")
