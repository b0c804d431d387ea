"""OneFlow's internal module paths under the ``oneflow`` alias (``oneflow.python.ops.nn_ops``,
``oneflow.python.framework.id_util``, ``oneflow._oneflow_internal`` …) give flowtorch's objects of the public
names, a few hand-written internals, and clear errors for the rest (``_src/oneflow_modules.py``, built from
``migrate/oneflow_modules.json``, which ``scripts/oneflow_names.py`` writes)."""

from __future__ import annotations

import configparser
import importlib
import importlib.util
import json
import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import alias
from flowtorch._src import oneflow_modules as om
from flowtorch._src.capture.blob import Blob
from flowtorch._src.errors import InternalNameError, UnsupportedInternalNameError
from flowtorch._src.step.eager import EagerBlob

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def oneflow() -> Iterator[types.ModuleType]:
    """``import oneflow`` with the alias on, for the test only."""
    alias.install()
    try:
        yield importlib.import_module("oneflow")
    finally:
        alias.uninstall()


def _public(name: str) -> Any:
    obj: Any = flow
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


# What real programs import: OneFlow-Benchmark (Generative/layers.py, Classification/cnns/optimizer_util.py),
# oneflow_yolov3's ops, OneFlow's own tests (test_top_k.py), the oneflow-documentation's examples.
REAL_PATHS = [
    ("oneflow.python.ops.nn_ops", "conv2d", "nn.conv2d"),
    ("oneflow.python.ops.nn_ops", "avg_pool2d", "nn.avg_pool2d"),
    ("oneflow.python.ops.math_ops", "add", "math.add"),
    ("oneflow.python.ops.array_ops", "reshape", "reshape"),
    ("oneflow.python.ops.layers", "dense", "layers.dense"),
    ("oneflow.python.framework.id_util", "UniqueStr", "util.unique_str"),
    ("oneflow.python.framework.distribute", "broadcast", "distribute.broadcast"),
    ("oneflow.python.framework.distribute", "split", "distribute.split"),
    ("oneflow.python.framework.function_util", "api_oneflow_function", "global_function"),
    ("oneflow.python.framework.function_util", "global_function", "global_function"),
    ("oneflow.python.framework.function_util", "FunctionConfig", "FunctionConfig"),
    ("oneflow.python.framework.dtype", "float32", "float32"),
    ("oneflow.python.framework.dtype", "float", "float32"),
    ("oneflow.python.framework.dtype", "convert_oneflow_dtype_to_numpy_dtype", "convert_oneflow_dtype_to_numpy_dtype"),
    ("oneflow.python.framework.typing", "Numpy", "typing.Numpy"),
    ("oneflow.python.framework.input_blob_def", "FixedTensorDef", "FixedTensorDef"),
    ("oneflow.python.ops.get_variable", "api_get_variable", "get_variable"),
]


@pytest.mark.parametrize(("module", "name", "public"), REAL_PATHS, ids=[f"{m}.{n}" for m, n, _ in REAL_PATHS])
def test_real_module_paths_give_the_public_objects(oneflow: types.ModuleType, module: str, name: str,
                                                   public: str) -> None:
    imported = importlib.import_module(module)
    assert getattr(imported, name) is _public(public)
    namespace: dict[str, Any] = {}
    exec(f"from {module} import {name} as got", namespace)  # the statement programs write
    assert namespace["got"] is _public(public)


def test_the_statements_programs_write(oneflow: types.ModuleType) -> None:
    namespace: dict[str, Any] = {}
    exec(textwrap.dedent("""
        from oneflow.python.framework import id_util
        from oneflow.python.ops import nn_ops
        import oneflow.python.framework.distribute as distribute_util
        import oneflow.python.framework.session_context as session_ctx
        import oneflow.python.framework.dtype as dtype_util
        import oneflow.python.framework.remote_blob as remote_blob_util
        from oneflow.python.oneflow_export import oneflow_export
        from oneflow.python.framework.function_util import global_function
        import oneflow._oneflow_internal
        import oneflow_api
    """), namespace)
    assert namespace["nn_ops"].conv2d is flow.nn.conv2d
    assert namespace["distribute_util"].broadcast() == flow.distribute.broadcast()
    assert namespace["remote_blob_util"].BlobDef is Blob and namespace["dtype_util"].int8 is flow.int8
    assert namespace["global_function"] is flow.global_function
    assert oneflow.python.framework.id_util is namespace["id_util"]  # bound on its package, as imports do


def test_every_exported_name_of_the_table_is_the_public_object(oneflow: types.ModuleType) -> None:
    checked = 0
    for module, names in om.table().items():
        imported = importlib.import_module(module)
        for name, entry in names.items():
            if entry is None:
                continue
            candidates = []
            for public in [entry] if isinstance(entry, str) else entry:
                try:
                    candidates.append(_public(public))
                except AttributeError:
                    pass
            got = getattr(imported, name)
            if candidates:
                assert any(got is c for c in candidates), f"{module}.{name}"
            else:
                assert isinstance(got, om.Unavailable), f"{module}.{name}"
            checked += 1
    assert checked >= 500  # every @oneflow_export'ed def/class of v0.1.2-v0.3.4 that sits at a module's top level


def test_every_module_path_and_name_of_the_table_imports(oneflow: types.ModuleType) -> None:
    table = om.table()
    assert len(table) >= 150
    for module, names in table.items():
        imported = importlib.import_module(module)
        assert imported.__name__ == module and sys.modules[module] is imported
        for name in names:  # an import never fails; an unavailable name fails when used
            assert getattr(imported, name) is not None
        assert set(names) <= set(dir(imported))
    for package in ("oneflow.python", "oneflow.python.framework", "oneflow.python.ops", "oneflow.python.lib.core"):
        assert hasattr(importlib.import_module(package), "__path__")


def test_unique_str_is_onefows_prefix_and_counter(oneflow: types.ModuleType) -> None:
    from oneflow.python.framework import id_util  # type: ignore[import-not-found]

    first, second = id_util.UniqueStr("Prefix_"), id_util.UniqueStr("Prefix_")
    assert first.startswith("Prefix_") and second.startswith("Prefix_")
    assert int(second[len("Prefix_"):]) == int(first[len("Prefix_"):]) + 1
    assert id_util.UniqueId() == int(second[len("Prefix_"):]) + 1  # one process-wide counter, as OneFlow's
    assert oneflow._oneflow_internal.UniqueStr is id_util.UniqueStr


def test_internal_names_without_a_counterpart_fail_on_use(oneflow: types.ModuleType) -> None:
    import oneflow.python.framework.compile_context as compile_context  # type: ignore[import-not-found]

    stub = compile_context.CurJobAddOp  # OneFlow had it (never exported): importing it works
    namespace: dict[str, Any] = {}
    exec("from oneflow.python.lib.core.enable_if import condition", namespace)
    for use in (lambda: stub(None), lambda: stub.op_conf, lambda: isinstance(1, stub),
                lambda: types.new_class("Sub", (stub,)), lambda: namespace["condition"](None)):
        with pytest.raises(UnsupportedInternalNameError, match=r"oneflow\.python\.[a-z_.]+\.(CurJobAddOp|condition)"):
            use()
    assert "not available" in repr(stub)


def test_an_exported_name_flowtorch_lacks_fails_on_use(oneflow: types.ModuleType,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Every exported name resolves today, so the missing one is planted (as a newly listed OneFlow name would be).
    monkeypatch.setitem(om.ALIASES, "oneflow.python.ops.nn_ops", {"fancy_op": "nn.no_such_fancy_op"})
    import oneflow.python.ops.nn_ops as nn_ops  # type: ignore[import-not-found]

    with pytest.raises(NotImplementedError, match=r"ops\.nn_ops\.fancy_op: .*as flow\.nn\.no_such_fancy_op"):
        nn_ops.fancy_op(1)


def test_a_name_the_module_never_had_is_an_attribute_error(oneflow: types.ModuleType) -> None:
    import oneflow.python.ops.nn_ops as nn_ops  # type: ignore[import-not-found]

    with pytest.raises(InternalNameError, match=r"'oneflow\.python\.ops\.nn_ops' has no attribute 'no_such_name'"):
        nn_ops.no_such_name  # noqa: B018
    assert not hasattr(nn_ops, "no_such_name") and isinstance(InternalNameError("x"), AttributeError)
    with pytest.raises(ModuleNotFoundError, match="oneflow.python.no_such_module.*no such module"):
        importlib.import_module("oneflow.python.no_such_module")


def test_oneflow_internal_is_oneflow_api_and_more(oneflow: types.ModuleType) -> None:
    import oneflow_api  # type: ignore[import-not-found]

    internal = oneflow._oneflow_internal  # bound by ``import oneflow`` alone, as OneFlow's import did
    assert sys.modules["oneflow._oneflow_internal"] is internal
    for name in oneflow_api.__all__:
        assert getattr(internal, name) is getattr(oneflow_api, name)
    assert internal.EagerConsistentBlob is EagerBlob and issubclass(internal.EagerMirroredBlob, internal.BlobDesc)
    from flowtorch.core.common import data_type_pb2

    get_proto = internal.deprecated.GetProtoDtype4OfDtype
    assert [get_proto(d) for d in (flow.float32, flow.float64, flow.int8, flow.int32, flow.int64, flow.uint8)] == [
        data_type_pb2.kFloat, data_type_pb2.kDouble, data_type_pb2.kInt8, data_type_pb2.kInt32, data_type_pb2.kInt64,
        data_type_pb2.kUInt8]
    assert internal.deprecated.GetDTypeByDataType(data_type_pb2.kInt64) is flow.int64
    assert internal.distribute.split(1) == flow.distribute.split(1)
    assert isinstance(internal.flags.with_cuda(), bool)
    with pytest.raises(InternalNameError, match="'oneflow._oneflow_internal' has no attribute 'LaunchJob'"):
        internal.LaunchJob  # noqa: B018
    with pytest.raises(InternalNameError, match=r"oneflow_api\.deprecated\.LogicalRun"):
        internal.deprecated.LogicalRun  # noqa: B018


def test_job_name_and_variables_of_the_job_being_built(oneflow: types.ModuleType) -> None:
    import oneflow.python.framework.session_context as session_ctx  # type: ignore[import-not-found]
    import oneflow_api  # type: ignore[import-not-found]

    seen: dict[str, Any] = {}

    @flow.global_function()
    def named_job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        flow.get_variable("w0", shape=(2,), initializer=flow.ones_initializer())
        with flow.scope.namespace("blk"):  # the variables' full names
            flow.get_variable("w1", shape=(2,), initializer=flow.ones_initializer())
        seen["job"] = oneflow_api.JobBuildAndInferCtx_GetCurrentJobName()
        sess = session_ctx.GetDefaultSession()
        seen["vars"] = sorted(sess.job_name2var_name2var_blob_[seen["job"]])
        seen["blob"] = sess.job_name2var_name2var_blob_[seen["job"]]["w0"]
        seen["status"] = sess.status
        return x

    named_job(np.zeros(2, np.float32))
    assert seen["job"] == "named_job" and seen["vars"] == ["blk-w1", "w0"]
    assert isinstance(seen["blob"], oneflow.python.framework.remote_blob.BlobDef)
    assert seen["status"] in (session_ctx.SessionStatus.OPEN, session_ctx.SessionStatus.RUNNING)
    assert session_ctx.GetDefaultSession().status == session_ctx.SessionStatus.RUNNING  # after the first call
    assert session_ctx.GetDefaultSession().job_name2var_name2var_blob_ == {}
    with pytest.raises(RuntimeError, match="no job is being built"):
        oneflow_api.JobBuildAndInferCtx_GetCurrentJobName()
    with pytest.raises(InternalNameError, match=r"GetDefaultSession\(\)\.LaunchJob"):
        session_ctx.GetDefaultSession().LaunchJob  # noqa: B018


def test_dtype_module_helpers(oneflow: types.ModuleType) -> None:
    import oneflow.python.framework.dtype as dtype_util  # type: ignore[import-not-found]

    from flowtorch.core.common import data_type_pb2

    assert isinstance(flow.float16, dtype_util.dtype) and dtype_util.double is flow.float64
    assert dtype_util.convert_proto_dtype_to_oneflow_dtype(data_type_pb2.kFloat) is flow.float32
    assert dtype_util.convert_proto_dtype_to_oneflow_dtype(data_type_pb2.kOFRecord) is flow.record
    assert dtype_util.convert_numpy_dtype_to_oneflow_dtype(np.int32) is flow.int32
    assert dtype_util.convert_numpy_dtype_to_oneflow_dtype(np.dtype("float64")) is flow.float64
    assert dtype_util.convert_of_dtype_to_numpy_dtype(flow.uint8) is np.uint8  # v0.1.2's name
    with pytest.raises(NotImplementedError):
        dtype_util.convert_numpy_dtype_to_oneflow_dtype(np.complex64)
    with pytest.raises(NotImplementedError):
        dtype_util.convert_proto_dtype_to_oneflow_dtype(999)


@pytest.mark.parametrize(("num_axes", "axis"), [(1, 0), (3, 0), (4, 1), (4, -1), (5, -3)])
def test_transpose_util_against_numpy(oneflow: types.ModuleType, num_axes: int, axis: int) -> None:
    from oneflow.python.ops import transpose_util  # type: ignore[import-not-found]

    x = np.random.default_rng(0).random(tuple(range(2, 2 + num_axes)))
    perm = transpose_util.get_perm_when_transpose_axis_to_last_dim(num_axes, axis)
    np.testing.assert_array_equal(x.transpose(perm), np.moveaxis(x, axis, -1))
    inverse = transpose_util.get_inversed_perm(perm)
    np.testing.assert_array_equal(x.transpose(perm).transpose(inverse), x)
    assert transpose_util.is_perm(perm) and not transpose_util.is_perm([0, 0])
    with pytest.raises(ValueError):
        transpose_util.get_perm_when_transpose_axis_to_last_dim(num_axes, num_axes)


def test_oneflow_export_registers_nothing(oneflow: types.ModuleType) -> None:
    from oneflow.python.oneflow_export import oneflow_deprecate, oneflow_export  # type: ignore[import-not-found]

    def my_op(x: int) -> int:
        return x + 1

    assert oneflow_export("my_op", "nn.my_op")(my_op) is my_op
    assert not hasattr(flow, "my_op") and not flow.is_deprecated(my_op)
    assert oneflow_deprecate()(my_op) is my_op and flow.is_deprecated(my_op)


def test_uninstall_unbinds_the_internal_modules(run_py) -> None:
    proc = run_py("-c", textwrap.dedent("""
        from flowtorch._src import alias
        import flowtorch
        alias.install()
        import oneflow.python.ops.nn_ops
        bound = hasattr(flowtorch, "python"), hasattr(flowtorch, "_oneflow_internal")
        alias.uninstall()
        print(bound, hasattr(flowtorch, "python"), hasattr(flowtorch, "_oneflow_internal"))
    """))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(True, True) False False"


PROGRAM = textwrap.dedent("""
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp
    import oneflow.python.framework.distribute as distribute_util
    import oneflow.python.framework.id_util as id_util
    import oneflow.python.framework.remote_blob as remote_blob_util
    import oneflow.python.framework.session_context as session_ctx
    from oneflow.python.oneflow_export import oneflow_export
    from oneflow.python.ops import math_ops
    import oneflow_api


    @oneflow_export("my_dense")
    def my_dense(x: remote_blob_util.BlobDef, units: int, name=None) -> remote_blob_util.BlobDef:
        name = name if name is not None else id_util.UniqueStr("MyDense_")
        w = flow.get_variable(name + "-weight", shape=(x.shape[1], units), initializer=flow.ones_initializer(),
                              distribute=distribute_util.broadcast())
        return math_ops.relu(flow.matmul(x, w) - 4.0)


    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        y = my_dense(x, 2)
        sess = session_ctx.GetDefaultSession()
        names = sess.job_name2var_name2var_blob_[flow._oneflow_internal.JobBuildAndInferCtx_GetCurrentJobName()]
        print([n.split("_")[0] for n in names])
        return y


    print(job(np.arange(6, dtype=np.float32).reshape(2, 3)).tolist())
    print(oneflow_api.deprecated.GetProtoDtype4OfDtype(flow.float32) == flow.core.common.data_type_pb2.kFloat)
""")


def test_a_program_of_internal_imports_runs_under_the_runner(run_py, tmp_path: Path) -> None:
    script = tmp_path / "internal_paths.py"
    script.write_text(PROGRAM)
    proc = run_py("-m", "flowtorch", str(script))
    assert proc.returncode == 0, proc.stderr
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = np.maximum(x @ np.ones((3, 2), np.float32) - 4.0, 0.0)
    assert proc.stdout.splitlines() == ["['MyDense']", str(want.tolist()), "True"]


# ----------------------------------------------------------------------------- the table and its writer
def _names_script() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("oneflow_names_script", ROOT / "scripts" / "oneflow_names.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_writer_reads_a_modules_names() -> None:
    script = _names_script()
    source = textwrap.dedent("""
        from oneflow.python.oneflow_export import oneflow_export

        @oneflow_export("nn.thing", "thing")
        def thing(x):
            def inner():
                pass
            return x

        @oneflow_export("float")
        @oneflow_export("float32")
        class float32:
            pass

        float = float32
        LIMIT = 3
        _private = 1

        class Helper:
            pass

        if True:
            def in_if():
                pass
    """)
    assert script.module_names(source) == {"thing": ["nn.thing", "thing"], "float32": ["float", "float32"],
                                           "float": ["float", "float32"], "LIMIT": [], "Helper": [], "in_if": []}
    assert script.module_path("oneflow/python/ops/__init__.py") == "oneflow.python.ops"
    assert script.module_path("oneflow/python/ops/nn_ops.py") == "oneflow.python.ops.nn_ops"
    old = {"m": {"f": ["a.f"], "g": [], "gone": ["x"]}}
    new = {"m": {"f": ["b.f"], "g": ["g"]}, "n": {}}
    assert script.merge_modules([old, new]) == {"m": {"f": ["b.f", "a.f"], "g": "g", "gone": "x"}, "n": {}}


def test_the_table_is_small_package_data() -> None:
    assert om.TABLE.stat().st_size < 200_000
    table = json.loads(om.TABLE.read_text())
    assert all(m == "oneflow.python" or m.startswith("oneflow.python.") for m in table)
    assert all(v is None or isinstance(v, (str, list)) for names in table.values() for v in names.values())
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    data = [p.strip() for p in config["options.package_data"]["flowtorch"].replace("\n", ",").split(",")]
    assert "_src/migrate/oneflow_modules.json" in data
