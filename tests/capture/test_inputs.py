"""Every input form of spec §1 and every way a call can be wrong (messages name job, argument, both sides)."""

from __future__ import annotations

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp


def test_numpy_placeholder_passes_values_and_dtype() -> None:
    @flow.global_function()
    def ident(x: tp.Numpy.Placeholder((2, 3), dtype=flow.int32)) -> tp.Numpy:
        return flow.identity(x)

    data = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = ident(data)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, data)


def test_list_numpy_placeholder_takes_one_array_per_device_up_to_the_declared_size() -> None:
    @flow.global_function()
    def total(x: tp.ListNumpy.Placeholder((4, 3))) -> tp.ListNumpy:
        return flow.math.reduce_sum(x, axis=1)

    small = np.ones((2, 3), np.float32)
    out = total([small])
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_array_equal(out[0], [3.0, 3.0])
    np.testing.assert_array_equal(total([np.ones((4, 3), np.float32)])[0], [3, 3, 3, 3])


def test_list_list_numpy_placeholder_is_a_tensor_list() -> None:
    @flow.global_function()
    def same(x: tp.ListListNumpy.Placeholder((3, 2))) -> tp.ListListNumpy:
        assert x.is_tensor_list and x.is_dynamic
        return x

    items = [np.zeros((1, 2), np.float32), np.ones((2, 1), np.float32)]
    out = same([items])
    assert len(out) == 1 and [a.shape for a in out[0]] == [(1, 2), (2, 1)]
    np.testing.assert_array_equal(out[0][1], items[1])

    @flow.global_function()
    def plus_one(x: tp.ListListNumpy.Placeholder((3,))) -> tp.ListListNumpy:
        return x + 1.0

    with pytest.raises(TypeError, match=r"plus_one.*is a tensor list.*tensor_list_split"):
        plus_one([[np.zeros(2, np.float32)]])


def test_fixed_and_mirrored_tensor_def_defaults() -> None:
    @flow.global_function()
    def old_style(a=flow.FixedTensorDef((2,), dtype=flow.float), b=flow.MirroredTensorDef((3,))):
        return flow.math.reduce_sum(a), flow.math.reduce_sum(b)

    got_a, got_b = old_style(np.array([1.0, 2.0], np.float32), [np.array([1.0, 1.0], np.float32)]).get()
    np.testing.assert_array_equal(got_a.numpy(), [3.0])
    np.testing.assert_array_equal(got_b.numpy(), [2.0])


def test_default_data_type_applies_to_placeholders_without_dtype() -> None:
    cfg = flow.function_config()
    cfg.default_data_type(flow.double)

    @flow.global_function(function_config=cfg)
    def f(x=flow.FixedTensorDef((2,))):
        return x

    assert f(np.ones(2)).get().numpy().dtype == np.float64


def test_non_contiguous_input_is_accepted() -> None:
    @flow.global_function()
    def ident(x: tp.Numpy.Placeholder((3, 2))) -> tp.Numpy:
        return flow.identity(x)

    data = np.arange(6, dtype=np.float32).reshape(2, 3).T
    np.testing.assert_array_equal(ident(data), data)


def test_safe_dtype_conversions_are_cast() -> None:
    @flow.global_function()
    def f(x: tp.Numpy.Placeholder((2,)), labels: tp.Numpy.Placeholder((2,), dtype=flow.int32)
          ) -> tuple[tp.Numpy, tp.Numpy]:
        return flow.identity(x), flow.identity(labels)

    x, labels = f(np.array([0.5, 1.5], np.float64), np.array([1, 2], np.int64))
    assert x.dtype == np.float32 and labels.dtype == np.int32
    np.testing.assert_array_equal(labels, [1, 2])


def _job() -> flow.global_function:
    @flow.global_function()
    def classify(images: tp.Numpy.Placeholder((2, 3)),
                 labels: tp.Numpy.Placeholder((2,), dtype=flow.int32)) -> tp.Numpy:
        return flow.math.reduce_sum(images, axis=1) + flow.cast(labels, flow.float)
    return classify


def test_lossy_dtype_is_a_type_error_naming_everything() -> None:
    job = _job()
    with pytest.raises(TypeError) as info:
        job(np.zeros((2, 3), np.float32), np.array([0.5, 1.5], np.float32))
    msg = str(info.value)
    assert "classify" in msg and "labels" in msg and "int32" in msg and "float32" in msg


@pytest.mark.parametrize("bad, expect", [
    (np.zeros((3, 3), np.float32), ["classify", "images", "(2, 3)", "(3, 3)"]),
    ([[0.0] * 3] * 2, ["classify", "images", "numpy.ndarray", "list"]),
])
def test_wrong_shape_or_type_is_an_assertion_error(bad: object, expect: list[str]) -> None:
    job = _job()
    with pytest.raises(AssertionError) as info:
        job(bad, np.zeros(2, np.int32))
    for part in expect:
        assert part in str(info.value)


def test_wrong_argument_count_and_keywords() -> None:
    job = _job()
    with pytest.raises(AssertionError, match=r"classify.*takes 2 argument.*received 1"):
        job(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match=r"classify.*positional arguments only.*'labels'"):
        job(np.zeros((2, 3), np.float32), labels=np.zeros(2, np.int32))


def test_list_numpy_errors() -> None:
    @flow.global_function()
    def f(x: tp.ListNumpy.Placeholder((4,))) -> tp.ListNumpy:
        return x

    with pytest.raises(AssertionError, match=r"'f'.*'x'.*one numpy.ndarray per device"):
        f(np.zeros(4, np.float32))
    with pytest.raises(AssertionError, match=r"\(1 device\) \(a list of 2 parts runs on 2 processes: "
                                             r"python -m flowtorch --nproc 2 script.py\)"):
        f([np.zeros(4, np.float32)] * 2)  # mirrored_strategy.py's two halves, on one process
    with pytest.raises(AssertionError, match=r"at most 4 elements.*\(5,\)"):
        f([np.zeros(5, np.float32)])
    with pytest.raises(AssertionError, match=r"rank 1"):
        f([np.zeros((2, 2), np.float32)])


def test_job_still_works_after_rejected_calls_and_variables_are_untouched() -> None:
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        w = flow.get_variable("w_untouched", shape=(2,), initializer=flow.constant_initializer(1.0))
        loss = x * w
        flow.losses.add_loss(loss)
        return w

    before = train(np.ones(2, np.float32))
    with pytest.raises(AssertionError):
        train(np.ones(3, np.float32))
    with pytest.raises(TypeError):
        train(np.ones(2, np.complex64))
    after = train(np.ones(2, np.float32))
    np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("make, exc, text", [
    (lambda: flow.global_function()(lambda x, y=flow.FixedTensorDef((1,)): x), NotImplementedError,
     "parameter 'x' has neither an annotation nor a default"),
    (lambda: flow.global_function()(lambda *xs: xs), NotImplementedError, "*args or **kwargs"),
    (lambda: tp.Numpy.Placeholder([2, 3]), TypeError, "shape should be a tuple"),
    (lambda: tp.Numpy.Placeholder((2, 0)), ValueError, "positive ints"),
    (lambda: flow.global_function(type="eval"), AssertionError, "\"train\" or \"predict\""),
])
def test_bad_decorations(make: object, exc: type[BaseException], text: str) -> None:
    with pytest.raises(exc) as info:
        make()  # type: ignore[operator]
    assert text in str(info.value)


def test_mixed_annotation_message_names_the_parameter() -> None:
    def job(x: tp.Numpy.Placeholder((1,)), y=flow.FixedTensorDef((1,))) -> tp.Numpy:
        return x

    with pytest.raises(NotImplementedError, match=r"All parameters of global function should be annotated.*y"):
        flow.global_function()(job)


def test_invalid_parameter_annotation() -> None:
    def job(x: int) -> tp.Numpy:
        return x

    with pytest.raises(NotImplementedError, match=r"invalid parameter annotation.*'x'"):
        flow.global_function()(job)


def test_string_annotations_may_name_locals_of_the_defining_function(tmp_path):
    # `from __future__ import annotations` turns `Placeholder((n, 2))` into a string that names a local of
    # the function that defines the job; it is evaluated in that scope (captured when decorating).
    import runpy
    prog = tmp_path / "prog.py"
    prog.write_text(
        "from __future__ import annotations\n"
        "import numpy as np\n"
        "import flowtorch as flow\n"
        "import flowtorch.typing as tp\n"
        "def make(n, k):\n"
        "    @flow.global_function()\n"
        "    def scaled(x: tp.Numpy.Placeholder((n, 2))) -> tp.Numpy:\n"
        "        return x * k\n"
        "    return scaled\n"
        "result = make(3, 2.0)(np.ones((3, 2), np.float32))\n")
    result = runpy.run_path(str(prog))["result"]
    np.testing.assert_array_equal(result, np.full((3, 2), 2.0, np.float32))
