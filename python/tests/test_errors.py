"""Errors are typed and carry the file, line and field the command line names."""

from __future__ import annotations

import pytest

import tierlab


def test_an_unknown_option_is_a_type_error_and_an_unknown_flag_a_usage_error():
    # A function takes its command's parameters and no others, as any Python function.
    with pytest.raises(TypeError, match="no_such_option"):
        tierlab.simulate(no_such_option=1, progress=False)
    # `command` passes any parameter on: the command refuses it.
    with pytest.raises(tierlab.UsageError) as e:
        tierlab.command("simulate", no_such_option=1, progress=False)
    assert "`simulate` takes no parameter `no_such_option`" in e.value.message
    assert isinstance(e.value, ValueError)


def test_a_bad_value_is_a_usage_error():
    with pytest.raises(tierlab.UsageError) as e:
        tierlab.simulate(depth="many", progress=False)
    assert "many" in e.value.message


def test_a_bad_trace_line_names_file_line_and_field(tmp_path):
    path = tmp_path / "bad.disksim"
    path.write_text("0.0 0 0 8 1\n1.0 0 x 8 1\n")
    with pytest.raises(tierlab.TraceError) as e:
        tierlab.trace_stats(path, format="disksim-ms", progress=False)
    assert (e.value.file, e.value.line) == (str(path), 2)
    assert e.value.field
    with pytest.raises(tierlab.TraceError) as e:
        list(tierlab.read_trace(path, format="disksim-ms"))
    assert e.value.line == 2
    # Met in the middle of a simulation, on a hybrid drive or the disk alone.
    for design in ({}, {"mode": "ssd-only"}):
        with pytest.raises(tierlab.TraceError) as e:
            tierlab.simulate(path, format="disksim-ms", progress=False, **design)
        assert (e.value.file, e.value.line) == (str(path), 2), design


def test_a_missing_trace_is_a_trace_error_when_opened(tmp_path):
    with pytest.raises(tierlab.TraceError) as e:
        tierlab.read_trace(tmp_path / "absent.csv")
    assert e.value.file == str(tmp_path / "absent.csv")


def test_a_bad_configuration_names_its_key():
    with pytest.raises(tierlab.ConfigError) as e:
        tierlab.simulate(workload={"requests": -5}, progress=False)
    assert e.value.file.endswith("workload.toml")
    assert e.value.field == "requests"
    assert e.value.line == 1


def test_a_design_without_a_mode_and_an_impossible_design():
    with pytest.raises(tierlab.Error, match="mode"):
        tierlab.run({}, {"pt": 2})
    with pytest.raises(tierlab.UsageError):
        tierlab.run({}, {"mode": "warp-drive"}, progress=False)


def test_a_sweep_file_with_an_unknown_key(tmp_path):
    from tierlab.sweep import load

    f = tmp_path / "s.toml"
    f.write_text('outt = "x"\n[[workloads]]\n[[designs]]\nmode = "hdd-only"\n')
    with pytest.raises(tierlab.Error) as e:
        load(f)
    assert e.value.field == "outt"
    f.write_text('[[workloads]]\n[[designs]]\npt = 2\n')
    with pytest.raises(tierlab.Error) as e:
        load(f)
    assert e.value.field == "designs[0].mode"


def test_a_panic_is_an_error_and_the_interpreter_lives_on():
    from tierlab import _native

    for on_thread in (False, True):
        with pytest.raises(tierlab.Error) as e:
            _native._panic("boom", on_thread)
        assert "internal error" in e.value.message and "boom" in e.value.message
    assert _native.json_to_toml('{"a": 1}').strip() == "a = 1"
