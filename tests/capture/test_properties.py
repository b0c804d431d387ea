"""Property tests of job calls (issue 11): whatever array a placeholder is fed, the call returns numpy's values
for the declared dtype in the annotated structure, or raises the documented error; the job works afterwards."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import flowtorch as flow
import flowtorch.typing as tp

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

DECLARED = [flow.float32, flow.float64, flow.int8, flow.int32, flow.int64, flow.uint8]
SOURCES = [np.dtype(t) for t in (np.bool_, np.float16, np.float32, np.float64, np.int8, np.int16, np.int32,
                                 np.int64, np.uint8, np.uint16, np.uint32, np.uint64)]
CASES = ["match", "convert", "out_of_range", "wrong_kind", "wrong_shape", "not_array"]

shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple)


def _convertible(source: np.dtype, target: np.dtype) -> bool:
    """The documented rule: bool to anything, integers to integers or floats, floats to floats."""
    return source.kind == "b" or (source.kind in "iu" and target.kind in "iuf") or source.kind == target.kind == "f"


def _exceeds(source: np.dtype, target: np.dtype) -> bool:
    """Whether some finite ``source`` value falls outside ``target``'s range."""
    if source.kind in "iu" and target.kind in "iu":
        have, can = np.iinfo(source), np.iinfo(target)
        return have.min < can.min or have.max > can.max
    return source.kind == target.kind == "f" and np.finfo(source).max > np.finfo(target).max


def _safe_values(source: np.dtype, target: np.dtype) -> st.SearchStrategy[Any]:
    """Values of ``source`` that ``target`` holds, with room for ``x + x``."""
    if source.kind == "b":
        return st.booleans()
    if target.kind == "f":
        if source.kind == "f":
            bound = min(float(np.finfo(source).max), float(np.finfo(target).max) / 4)
            return st.floats(-bound, bound, width=source.itemsize * 8) | st.sampled_from([np.nan, np.inf, -np.inf])
        return st.integers(max(int(np.iinfo(source).min), -2**40), min(int(np.iinfo(source).max), 2**40))
    can = np.iinfo(target)
    lo, hi = max(int(np.iinfo(source).min), can.min // 2), min(int(np.iinfo(source).max), can.max // 2)
    return st.integers(lo, hi)


@st.composite
def forms(draw: st.DrawFn) -> Any:
    """A result structure: leaves are ops on the input; tuples mix forms, lists and dicts repeat one."""
    leaf = st.sampled_from(["identity", "twice", "as_double"]).map(lambda op: ("leaf", op))
    return draw(st.recursive(leaf, lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda items: ("tuple", items)),
        st.tuples(inner, st.integers(0, 2)).map(lambda c: ("list", *c)),
        st.tuples(inner, st.integers(1, 2)).map(lambda c: ("dict", *c))), max_leaves=4))


def _annotation(form: Any, leaf: Any) -> Any:
    kind = form[0]
    if kind == "leaf":
        return leaf
    if kind == "tuple":
        return tuple[tuple(_annotation(f, leaf) for f in form[1])]
    inner = _annotation(form[1], leaf)
    return list[inner] if kind == "list" else dict[str, inner]


def _build(form: Any, leaf: Any) -> Any:
    """The structure of ``form`` with ``leaf(op)`` at each leaf (blobs in the job, arrays for numpy)."""
    kind = form[0]
    if kind == "leaf":
        return leaf(form[1])
    if kind == "tuple":
        return tuple(_build(f, leaf) for f in form[1])
    if kind == "list":
        return [_build(form[1], leaf) for _ in range(form[2])]
    return {f"k{i}": _build(form[1], leaf) for i in range(form[2])}


def _blob_op(x: Any, op: str) -> Any:
    ops = {"identity": flow.identity, "twice": lambda b: b + b, "as_double": lambda b: flow.cast(b, flow.double)}
    return ops[op](x)


def _numpy_op(x: np.ndarray, op: str) -> np.ndarray:
    return {"identity": lambda a: a, "twice": lambda a: a + a, "as_double": lambda a: a.astype(np.float64)}[op](x)


def _assert_same(got: Any, want: Any) -> None:
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _assert_same(got[k], want[k])
    else:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)


def _make_job(shape: tuple[int, ...], declared: Any, form: Any, callback: bool, list_numpy: bool) -> Any:
    kind = tp.ListNumpy if list_numpy else tp.Numpy
    ann = _annotation(form, kind)

    def prop(x):  # annotated below, from the drawn structure
        return _build(form, lambda op: _blob_op(x, op))
    prop.__annotations__ = {"x": kind.Placeholder(shape, dtype=declared),
                            "return": tp.Callback[ann] if callback else ann}
    job = flow.global_function()(prop)

    def call(value: Any) -> Any:
        fed = [value] if list_numpy else value
        if not callback:
            return job(fed)
        got: list[Any] = []
        job(fed)(got.append)
        flow.sync_default_session()
        assert len(got) == 1
        return got[0]
    return call


def _expected(value: np.ndarray, declared: Any, form: Any, list_numpy: bool) -> Any:
    x = value.astype(declared.numpy_dtype)
    return _build(form, lambda op: [_numpy_op(x, op)] if list_numpy else _numpy_op(x, op))


@st.composite
def calls(draw: st.DrawFn, case: str, list_numpy: bool) -> dict[str, Any]:
    """A job (placeholder shape and dtype, result structure, sync or callback) and one hostile-or-not call."""
    declared = draw(st.sampled_from(DECLARED))
    target = declared.numpy_dtype
    shape = draw(shapes)
    fed_shape = shape
    if list_numpy:  # any shape of the declared rank and at most the declared size
        fed_shape = tuple(draw(st.integers(1, d)) for d in shape)
    good = draw(hnp.arrays(target, fed_shape, elements=_safe_values(target, target)))
    sources = [s for s in SOURCES if s != target and _convertible(s, target)]
    if case == "out_of_range":
        sources = [s for s in sources if _exceeds(s, target)]
        if not sources:  # float64 holds every float and int fed here: nothing to overflow
            case = "convert"
            sources = [s for s in SOURCES if s != target and _convertible(s, target)]
    if case == "match":
        source = target
    elif case == "wrong_kind":
        source = draw(st.sampled_from([np.dtype(np.complex64), np.dtype(np.complex128)]
                                      + ([np.dtype(np.float32), np.dtype(np.float64)] if target.kind in "iu" else [])))
    elif case in ("convert", "out_of_range"):
        source = draw(st.sampled_from(sources))
    elif case == "not_array":  # a list of values that would have converted
        source = draw(st.sampled_from([target, *sources]))
    else:
        source = draw(st.sampled_from(SOURCES))
    if case == "wrong_shape":
        if list_numpy:  # too many elements, or another rank
            fed_shape = draw(st.one_of(
                st.just(tuple(d + 1 for d in shape)),
                shapes.filter(lambda s: len(s) != len(shape))))
        else:
            fed_shape = draw(shapes.filter(lambda s: s != shape))
    if case == "wrong_kind":
        elements = st.complex_numbers(max_magnitude=1e3, width=source.itemsize * 8) if source.kind == "c" \
            else st.floats(-1e3, 1e3, width=source.itemsize * 8)
    elif case == "wrong_shape":
        elements = None
    else:
        elements = _safe_values(source, target)
    value = draw(hnp.arrays(source, fed_shape, elements=elements))
    bad = None
    if case == "out_of_range":
        bad = tuple(draw(st.integers(0, d - 1)) for d in fed_shape)
        if target.kind == "f":
            magnitude = draw(st.floats(3.5e38, float(np.finfo(source).max)))
            value[bad] = magnitude if draw(st.booleans()) else -magnitude
        else:
            have, can = np.iinfo(source), np.iinfo(target)
            outside = []
            if have.min < can.min:
                outside.append(st.integers(int(have.min), int(can.min) - 1))
            if have.max > can.max:
                outside.append(st.integers(int(can.max) + 1, int(have.max)))
            value[bad] = draw(st.one_of(outside))
    if draw(st.booleans()) and value.ndim > 1:
        value = np.asfortranarray(value)
    if draw(st.booleans()):
        value.flags.writeable = False
    return {"declared": declared, "shape": shape, "case": case, "value": value, "bad": bad, "good": good,
            "form": draw(forms()), "callback": draw(st.booleans())}


def _check_call(c: dict[str, Any], list_numpy: bool) -> None:
    flow.clear_default_session()  # the suite's fixture runs per test, not per example
    declared, shape, case, value = c["declared"], c["shape"], c["case"], c["value"]
    call = _make_job(shape, declared, c["form"], c["callback"], list_numpy)
    where = "job 'prop', argument 'x' (#0)"
    original = value.copy()
    name = declared.name
    if case in ("match", "convert"):
        _assert_same(call(value), _expected(value, declared, c["form"], list_numpy))
    elif case == "not_array":
        with pytest.raises(AssertionError) as info:
            call(value.tolist())
        assert str(info.value).startswith(f"{where}: expected numpy.ndarray of shape {shape} {name}; received list")
    elif case == "wrong_shape":
        with pytest.raises(AssertionError) as info:
            call(value)
        if list_numpy:
            assert str(info.value) == (f"{where}: expected rank {len(shape)} with at most {int(np.prod(shape))} "
                                       f"elements (declared {shape}); received shape {value.shape}")
        else:
            assert str(info.value) == (f"{where}: expected shape {shape}; received shape {value.shape} "
                                       "(OneFlow placeholders need the exact shape)")
    elif case == "wrong_kind":
        with pytest.raises(TypeError) as info:
            call(value)
        assert str(info.value) == (f"{where}: expected dtype {name}; received {value.dtype}, which cannot be "
                                   f"converted to {name} without losing its meaning (cast it explicitly)")
    else:
        with pytest.raises(TypeError) as info:
            call(value)
        if declared.numpy_dtype.kind == "f":
            top = float(np.finfo(declared.numpy_dtype).max)
            bounds, advice = f"[-{top:.8g}, {top:.8g}]", "they would become inf; cast explicitly"
        else:
            can = np.iinfo(declared.numpy_dtype)
            bounds, advice = f"[{can.min}, {can.max}]", "cast explicitly"
        assert str(info.value) == (f"{where}: expected {name}; received {value.dtype} values outside {name}'s "
                                   f"range {bounds} ({value[c['bad']].item()!r} at index {c['bad']}): {advice}")
    np.testing.assert_array_equal(value, original)  # the caller's array is never written
    good = c["good"]
    _assert_same(call(good), _expected(good, declared, c["form"], list_numpy))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("list_numpy", [False, True], ids=["Numpy", "ListNumpy"])
@SETTINGS
@given(data=st.data())
def test_calls_match_numpy_or_raise_the_documented_error(case: str, list_numpy: bool, data: st.DataObject) -> None:
    _check_call(data.draw(calls(case, list_numpy), label="call"), list_numpy)
