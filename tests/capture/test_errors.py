"""Errors say where: the job, the op and its blob name, what was expected and what came (issue 11)."""

from __future__ import annotations

import logging
import re
import traceback

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def _ones(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


def test_a_body_error_names_its_job_when_another_jobs_call_builds_it() -> None:
    def boom() -> None:
        raise ValueError("boom in body")

    @flow.global_function()
    def broken(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        boom()
        return x

    @flow.global_function()
    def fine(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x + 1

    with pytest.raises(ValueError, match=r"^job 'broken' \(while building it.*\): boom in body$") as info:
        fine(_ones(2))  # the session's start builds every job, 'broken' included
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert frames[-2:] == ["broken", "boom"]  # the original traceback, down to the raise
    np.testing.assert_array_equal(fine(_ones(2)), _ones(2) + 1)  # the other job works afterwards
    with pytest.raises(ValueError, match="job 'broken'"):
        broken(_ones(2))  # a later call rebuilds the failing job and says so again


def test_a_build_error_names_the_job_and_the_blob() -> None:
    @flow.global_function()
    def watched(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        flow.watch(x, lambda a, b: None)
        return x

    with pytest.raises(AssertionError) as info:
        watched(_ones(2))
    message = str(info.value)
    assert message.startswith("job 'watched' (while building it")
    assert "watch callback should accept only one parameter" in message
    assert "Input_" in message and "/out" in message  # the blob's logical name


@pytest.mark.usefixtures("cpu_device")  # an index error on CUDA is a device-side assert
def test_a_step_error_names_the_job_the_op_its_blob_and_where_the_body_built_it() -> None:
    @flow.global_function()
    def pick(x: tp.Numpy.Placeholder((3, 4)), i: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Numpy:
        return flow.gather(flow.math.relu(x), i, name="pick_rows")

    with pytest.raises(IndexError) as info:
        pick(_ones(3, 4), np.array([0, 7], np.int32))
    message = str(info.value)
    assert message.startswith("job 'pick', op 'pick_rows' (blob pick_rows/out_0, built at File ")
    assert "test_errors.py" in message and "in pick" in message
    assert message.endswith("(while running a step): index out of range in self")  # torch's own words kept
    assert any("gather" in f.name for f in traceback.extract_tb(info.value.__traceback__))
    np.testing.assert_array_equal(pick(_ones(3, 4), np.array([2, 0], np.int32)), _ones(2, 4))


@pytest.mark.usefixtures("cpu_device")  # an index error on CUDA is a device-side assert
def test_a_failed_train_step_names_the_op_and_leaves_every_variable_and_counter_as_before() -> None:
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2, 3)), i: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 3), initializer=flow.random_uniform_initializer())
        loss = flow.math.reduce_sum(flow.gather(flow.matmul(x, w), i, axis=1, name="cols"))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
        return loss

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    train(x, np.array([0, 1], np.int32))
    before = {k: v.numpy().copy() for k, v in flow.get_all_variables().items()}
    # torch's index_select raises IndexError without autograd, RuntimeError with it: either is torch's own
    with pytest.raises((IndexError, RuntimeError), match=r"^job 'train', op 'cols' \(blob cols/out_0"):
        train(x, np.array([0, 5], np.int32))
    after = {k: v.numpy() for k, v in flow.get_all_variables().items()}
    assert sorted(after) == sorted(before)
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    assert int(after["System-Train-TrainStep-train"][0]) == 1


@pytest.mark.usefixtures("cpu_device")  # an index error on CUDA is a device-side assert
def test_an_async_step_error_is_raised_by_its_call_naming_job_and_op() -> None:
    got: list[np.ndarray] = []

    @flow.global_function()
    def pick(i: tp.Numpy.Placeholder((1,), dtype=flow.int32)) -> tp.Callback[tp.Numpy]:
        table = flow.constant(1.0, shape=(4, 2), dtype=flow.float)
        return flow.gather(table, i, name="lookup")

    with pytest.raises(IndexError, match=r"^job 'pick', op 'lookup' \(blob lookup/out_0"):
        pick(np.array([9], np.int32))  # the step runs on the caller's thread
    flow.sync_default_session()
    assert got == []
    pick(np.array([3], np.int32))(got.append)
    flow.sync_default_session()
    np.testing.assert_array_equal(got[0], np.ones((1, 2), np.float32))


def test_a_huge_declared_shape_is_refused_where_it_is_declared() -> None:
    with pytest.raises(ValueError, match=r"shape \(1099511627776, 1099511627776\) has \d+ elements, more than a "
                                         r"tensor can hold"):
        tp.Numpy.Placeholder((2**40, 2**40))

    @flow.global_function()
    def small(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x + 1

    np.testing.assert_array_equal(small(_ones(2)), _ones(2) + 1)


def test_two_train_jobs_with_one_name_warn_and_keep_their_own_schedules(caplog) -> None:
    def make(var: str, lr: float):
        @flow.global_function(type="train")
        def train(x: tp.Numpy.Placeholder((2, 2))) -> tp.Numpy:
            w = flow.get_variable(var, shape=(2, 2), initializer=flow.ones_initializer())
            loss = flow.math.reduce_sum(flow.matmul(x, w))
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([2], [lr, lr / 10]),
                               momentum=0).minimize(loss)
            return loss
        return train

    first = make("w_first", 0.1)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        second = make("w_second", 1.0)
    [warned] = [r.getMessage() for r in caplog.records]
    assert re.search(r"a job named 'train' was already declared.*System-Train-TrainStep-train_2", warned)
    x = _ones(2, 2)

    def reference(lr: float, steps: int) -> list[float]:
        # loss = sum(x @ w) with x, w ones: d loss / d w = 2 everywhere; lr drops tenfold after step 2
        w, out = np.ones((2, 2)), []
        for step in range(steps):
            out.append(float((x @ w).sum()))
            w = w - (lr if step < 2 else lr / 10) * 2
        return out

    got_first = [float(first(x)[0]) for _ in range(3)]
    got_second = [float(second(x)[0]) for _ in range(3)]
    np.testing.assert_allclose(got_first, reference(0.1, 3), rtol=1e-6)
    np.testing.assert_allclose(got_second, reference(1.0, 3), rtol=1e-6)  # its own counter started at 0
    counters = {k: int(v.numpy()[0]) for k, v in flow.get_all_variables().items() if k.startswith("System-Train")}
    assert counters == {"System-Train-TrainStep-train": 3, "System-Train-TrainStep-train_2": 3}


def test_one_job_declared_once_does_not_warn(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="flowtorch"):

        @flow.global_function()
        def only(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:
            return x

        only(_ones(1))
    assert not caplog.records


@pytest.mark.parametrize(("value", "message"), [
    ("bogus", r"FLOWTORCH_DEVICE='bogus' is not a torch device .*expected 'cpu', 'cuda' or 'cuda:<index>'"),
    ("mps", r"FLOWTORCH_DEVICE='mps': flowtorch runs on the CPU or CUDA"),
    ("cuda:99", r"FLOWTORCH_DEVICE='cuda:99', but (this torch has no CUDA device|torch sees \d+ CUDA device)"),
])
def test_a_bad_device_variable_is_named_at_first_use(run_py, value: str, message: str) -> None:
    script = (
        "import numpy as np, flowtorch as flow, flowtorch.typing as tp\n"
        "try:\n"
        "    @flow.global_function()\n"
        "    def job(x: tp.Numpy.Placeholder((1,))) -> tp.Numpy:\n"
        "        return x\n"
        "except ValueError as e:\n"
        "    print('ValueError:', e)\n"
    )
    done = run_py("-c", script, env={"FLOWTORCH_DEVICE": value}, timeout=120)
    assert done.returncode == 0, done.stderr  # `import flowtorch` itself works
    import re
    assert re.search(message, done.stdout), done.stdout


@pytest.mark.parametrize("eager", [False, True], ids=["lazy", "eager"])
def test_a_shape_error_in_the_body_names_the_job_in_either_mode(eager: bool) -> None:
    flow.enable_eager_execution(eager)
    try:
        @flow.global_function()
        def mm(x: tp.Numpy.Placeholder((2, 3)), y: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
            return flow.matmul(x, y)
    finally:
        if eager:
            flow.enable_eager_execution(False)  # the job's mode was fixed at its decoration
    doing = "an eager call" if eager else "while building it"
    with pytest.raises(ValueError, match=rf"^job 'mm' \({doing}.*\): flow.matmul: inner dimensions differ: "
                                         r"a \(2, 3\) \(transpose_a=False\) vs b \(2, 3\)"):
        mm(_ones(2, 3), _ones(2, 3))


def test_an_op_whose_shape_inference_fails_is_named_with_its_body_line() -> None:
    @flow.global_function()
    def add(x: tp.Numpy.Placeholder((2, 3)), y: tp.Numpy.Placeholder((4, 5))) -> tp.Numpy:
        return flow.math.add(x, y, name="sum")  # no shape check of its own: torch's broadcasting refuses

    with pytest.raises(RuntimeError, match=r"^job 'add', op 'sum' \(while building it, at File .*test_errors.py"
                                           r".*\): The size of tensor a \(3\) must match"):
        add(_ones(2, 3), _ones(4, 5))
