"""Every ``FLOWTORCH_*`` knob refuses a value it does not take, naming the variable, the values it takes and
the value received (``envvars``), instead of reading it some way of its own."""

from __future__ import annotations

import numpy as np
import pytest

from flowtorch._src import envvars
from flowtorch._src.dist import launch
from flowtorch._src.ops import nn_ops


@pytest.mark.parametrize(("raw", "message"), [
    ("2.5", "FLOWTORCH_MAX_INFLIGHT must be an int >= 1; received '2.5'"),
    ("0", "FLOWTORCH_MAX_INFLIGHT must be an int >= 1; received '0'"),
    ("four", "FLOWTORCH_MAX_INFLIGHT must be an int >= 1; received 'four'"),
    ("1e3", "FLOWTORCH_MAX_INFLIGHT must be an int >= 1; received '1e3'"),
])
def test_an_int_knob_refuses_fractions_words_and_values_below_its_minimum(raw, message, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_MAX_INFLIGHT", raw)
    with pytest.raises(ValueError) as exc:
        envvars.env_int("FLOWTORCH_MAX_INFLIGHT", 4, 1)
    assert str(exc.value) == message


@pytest.mark.parametrize(("raw", "value"), [("", 4), (" ", 4), ("7", 7), (" 2 ", 2)])
def test_an_int_knob_reads_ints_and_gives_its_default_when_unset_or_empty(raw, value, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_MAX_INFLIGHT", raw)
    assert envvars.env_int("FLOWTORCH_MAX_INFLIGHT", 4, 1) == value
    monkeypatch.delenv("FLOWTORCH_MAX_INFLIGHT")
    assert envvars.env_int("FLOWTORCH_MAX_INFLIGHT", 4, 1) == 4


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "0.5", "ten"])
def test_a_number_knob_refuses_non_finite_values_and_values_below_its_minimum(raw, monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DIST_TIMEOUT", raw)
    with pytest.raises(ValueError) as exc:
        envvars.env_number("FLOWTORCH_DIST_TIMEOUT", 60.0, 1.0, float)
    assert str(exc.value) == f"FLOWTORCH_DIST_TIMEOUT must be a finite number >= 1.0; received {raw!r}"
    monkeypatch.setenv("FLOWTORCH_DIST_TIMEOUT", "2.5")
    assert envvars.env_number("FLOWTORCH_DIST_TIMEOUT", 60.0, 1.0, float) == 2.5


@pytest.mark.parametrize(("raw", "on"), [("", False), ("0", False), ("off", False), ("1", True), ("TRUE", True),
                                         ("yes", True)])
def test_a_switch_takes_one_and_zero_and_their_words(raw, on, monkeypatch):
    monkeypatch.setenv(nn_ops.STRICT_LABELS_ENV, raw)
    assert nn_ops._strict_labels() is on


@pytest.mark.parametrize("name", [nn_ops.STRICT_LABELS_ENV, launch.ALL_RANKS_ENV])
def test_a_switch_refuses_anything_else_with_its_name_and_values(name, monkeypatch):
    monkeypatch.setenv(name, "2")
    monkeypatch.setenv("RANK", "1")
    read = nn_ops._strict_labels if name == nn_ops.STRICT_LABELS_ENV else launch.quiet_rank
    with pytest.raises(ValueError) as exc:
        read()
    assert str(exc.value) == f"{name} must be 1 or 0 (also true/false, yes/no, on/off); received '2'"


@pytest.mark.parametrize("raw", ["-1", "4294967296", "1.5", "seed"])
def test_the_launch_seed_is_an_int_numpy_takes(raw, monkeypatch):
    monkeypatch.setenv(launch.SEED_ENV, raw)
    with pytest.raises(ValueError) as exc:
        launch._seed_like_one_process()
    assert str(exc.value) == f"{launch.SEED_ENV} must be an int >= 0 and <= 4294967295; received {raw!r}"


def test_a_choice_knob_names_its_choices(monkeypatch):
    monkeypatch.setenv("FLOWTORCH_DELIVERY", "threads")
    with pytest.raises(ValueError) as exc:
        envvars.env_choice("FLOWTORCH_DELIVERY", ("caller", "thread"))
    assert str(exc.value) == "FLOWTORCH_DELIVERY must be one of caller, thread; received 'threads'"


def test_the_compile_backend_is_one_torch_registers(monkeypatch):
    from torch._dynamo import list_backends

    registered = list_backends(exclude_tags=())
    monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "inductr")
    with pytest.raises(ValueError) as exc:
        envvars.compile_backend()
    assert str(exc.value) == (f"FLOWTORCH_COMPILE_BACKEND must be one of {', '.join(registered)} (torch.compile's "
                              "registered backends); received 'inductr'")
    for raw, backend in (("", "inductor"), (" ", "inductor"), ("aot_eager", "aot_eager"), ("eager", "eager")):
        monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", raw)
        assert envvars.compile_backend() == backend
    monkeypatch.delenv("FLOWTORCH_COMPILE_BACKEND")
    assert envvars.compile_backend() == "inductor"


def test_a_compiled_job_with_an_unknown_backend_is_refused_when_built(monkeypatch):
    import flowtorch as flow
    import flowtorch.typing as tp

    monkeypatch.setenv("FLOWTORCH_CAPTURE", "compile")
    monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "no_such_backend")
    flow.clear_default_session()

    @flow.global_function()
    def double(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x * 2.0

    with pytest.raises(ValueError) as exc:
        double(np.ones(2, np.float32))
    message = str(exc.value)
    assert "FLOWTORCH_COMPILE_BACKEND must be one of" in message and "received 'no_such_backend'" in message
    assert "double" in message  # the job whose build read it
