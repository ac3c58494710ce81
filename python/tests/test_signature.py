"""The functions take the commands' parameters: typed, with the command's defaults and
help, in one spelling, and a stub that matches them."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest

import tierlab
from tierlab import _signature

STUB = Path(tierlab.__file__).with_name("api.pyi")


@pytest.mark.parametrize("function", [tierlab.simulate, tierlab.compare, tierlab.overview])
def test_simulate_compare_and_overview_list_their_parameters_typed(function):
    params = inspect.signature(function).parameters
    assert len(params) >= 10
    untyped = [n for n, p in params.items() if p.annotation is inspect.Parameter.empty]
    assert untyped == []
    assert list(params)[0] == "trace" and params["trace"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert params["depth"].default == 1 and params["depth"].annotation is int
    assert typing.get_args(params["replay"].annotation)[0] == typing.Literal["open", "closed"]
    assert "depth : int, default 1" in function.__doc__
    assert "--depth" not in function.__doc__  # the help's flags are named as parameters


def test_a_design_is_spelled_alike_going_in_and_coming_out():
    one, many = inspect.signature(tierlab.simulate).parameters, inspect.signature(tierlab.compare).parameters
    for name in ("mode", "ssd_fraction", "extent_bytes", "pt", "mcml"):
        assert name in one and name in many, name
    assert inspect.signature(tierlab.compare).parameters["mode"].default == ("ssd-only", "hdd-only", "linear", "tiering", "caching")
    # A function lists only what its command uses: the overview runs every design, and
    # overview and compare always measure at steady state.
    overview = inspect.signature(tierlab.overview).parameters
    assert "mode" not in overview and "pt" in overview
    assert "measure" not in overview and "measure" not in many and "measure" in one


def test_an_unknown_keyword_is_a_type_error_that_names_the_closest():
    with pytest.raises(TypeError, match="did you mean 'ssd_fraction'"):
        tierlab.simulate(ssd_fractoin=0.5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'help'"):
        tierlab.simulate(help=True)
    with pytest.raises(TypeError):
        tierlab.trace_stats()  # the trace is required


def test_a_refused_value_is_a_value_error():
    with pytest.raises(ValueError):
        tierlab.simulate(depth="deep", progress=False)


def test_the_stub_is_the_commands_definitions():
    assert STUB.read_text(encoding="utf-8") == _signature.stub(), "regenerate: python -m tierlab._signature > python/tierlab/api.pyi"
