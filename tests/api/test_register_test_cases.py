"""flow.unittest.register_test_cases: OneFlow 0.1's function-style test files become TestCase classes."""

from __future__ import annotations

import io
import sys
import textwrap
import unittest
from pathlib import Path

import pytest

import flowtorch as flow
from flowtorch._src import session

# Each file is imported as a top-level module named after it; the prefix keeps those names to this test.
ALPHA = "test_rtc_alpha"
BETA = "test_rtc_beta"
BROKEN = "test_rtc_broken"

FILES = {
    f"{ALPHA}.py": """
        import numpy as np
        import flowtorch as flow
        import flowtorch.typing as tp
        from flowtorch._src import session

        SESSIONS = []
        SHOULD_NOT_BE_A_TEST = 7

        def test_passes(test_case):
            test_case.assertEqual(2 + 2, 4)

        def test_fails(test_case):
            test_case.assertEqual(2 + 2, 5, "arithmetic broke")

        def test_records_session_one(test_case):
            SESSIONS.append(session.default_session())

        def test_records_session_two(test_case):
            SESSIONS.append(session.default_session())

        def test_runs_a_job(test_case):
            @flow.global_function()
            def double(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
                return x * 2

            x = np.arange(6, dtype=np.float32).reshape(2, 3)
            test_case.assertTrue(np.allclose(double(x), x * 2))

        @flow.unittest.num_nodes_required(2)
        def test_needs_two_nodes(test_case):
            pass

        def helper(test_case):
            raise AssertionError("a helper is not a test")
    """,
    f"{BETA}.py": f"""
        import {ALPHA}

        def test_sees_the_registered_alpha(test_case):
            test_case.assertEqual({ALPHA}.SHOULD_NOT_BE_A_TEST, 7)

        def test_errors(test_case):
            raise RuntimeError("boom")
    """,
    f"{BROKEN}.py": """
        raise ImportError("this file cannot be imported")

        def test_never_seen(test_case):
            pass
    """,
    "rtc_not_a_test_file.py": """
        def test_hidden(test_case):
            raise AssertionError("files not named test*.py are not imported")
    """,
    "test_rtc_data.txt": "not python",
}


@pytest.fixture
def test_dir(tmp_path: Path):
    for name, text in FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    yield tmp_path
    for name in (ALPHA, BETA, BROKEN, "rtc_not_a_test_file"):
        sys.modules.pop(name, None)


def register(directory: Path, num_nodes: int = 1, **kwargs) -> dict:
    scope = {"__name__": "rtc_scope"}
    flow.unittest.register_test_cases(scope=scope, directory=str(directory),
                                      filter_by_num_nodes=lambda n: n == num_nodes, **kwargs)
    del scope["__name__"]
    return scope


def run(cls: type) -> unittest.TestResult:
    suite = unittest.TestLoader().loadTestsFromTestCase(cls)
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def method_names(result_entries) -> set[str]:
    return {test._testMethodName for test, _ in result_entries}


def test_one_class_per_test_file_named_after_it(test_dir: Path) -> None:
    scope = register(test_dir)
    assert set(scope) == {ALPHA, BETA, BROKEN}
    for name, cls in scope.items():
        assert cls.__name__ == name
        assert issubclass(cls, unittest.TestCase)
        assert cls.__module__ == "rtc_scope"


def test_methods_are_the_test_functions_passing_the_node_filter(test_dir: Path) -> None:
    one = register(test_dir, num_nodes=1)
    names = unittest.TestLoader().getTestCaseNames(one[ALPHA])
    assert set(names) == {"test_passes", "test_fails", "test_records_session_one", "test_records_session_two",
                          "test_runs_a_job"}
    two = register(test_dir, num_nodes=2)
    assert unittest.TestLoader().getTestCaseNames(two[ALPHA]) == ["test_needs_two_nodes"]
    assert unittest.TestLoader().getTestCaseNames(two[BETA]) == []


def test_running_reports_passes_failures_and_errors(test_dir: Path) -> None:
    scope = register(test_dir)
    alpha = run(scope[ALPHA])
    assert alpha.testsRun == 5
    assert method_names(alpha.failures) == {"test_fails"}
    assert "arithmetic broke" in alpha.failures[0][1]
    assert alpha.errors == []

    beta = run(scope[BETA])
    assert beta.testsRun == 2
    assert beta.failures == []
    assert method_names(beta.errors) == {"test_errors"}
    assert "RuntimeError: boom" in beta.errors[0][1]


def test_each_test_starts_with_a_fresh_session(test_dir: Path) -> None:
    scope = register(test_dir)
    before = session.default_session()
    run(scope[ALPHA])
    seen = sys.modules[ALPHA].SESSIONS
    assert len(seen) == 2
    assert seen[0] is not seen[1]
    assert before not in seen


def test_a_file_imported_by_another_is_the_registered_module(test_dir: Path) -> None:
    register(test_dir)
    beta = sys.modules[BETA]
    assert getattr(beta, ALPHA) is sys.modules[ALPHA]
    assert sys.modules[ALPHA].__file__ == str(test_dir / f"{ALPHA}.py")


def test_a_file_that_fails_to_import_becomes_one_failing_test(test_dir: Path) -> None:
    scope = register(test_dir)
    assert unittest.TestLoader().getTestCaseNames(scope[BROKEN]) == ["test_import"]
    result = run(scope[BROKEN])
    assert method_names(result.errors) == {"test_import"}
    assert "this file cannot be imported" in result.errors[0][1]


def test_base_class_and_mixin_are_the_bases(test_dir: Path) -> None:
    calls: list[str] = []

    class Base(unittest.TestCase):
        def setUp(self) -> None:
            calls.append("base")

    class Mixin:
        def setUp(self) -> None:
            calls.append("mixin")
            super().setUp()

    scope = register(test_dir, base_class=Base, test_case_mixin=Mixin)
    assert scope[ALPHA].__mro__[1:3] == (Mixin, Base)
    result = run(scope[BETA])
    assert result.testsRun == 2
    assert calls == ["mixin", "base"] * 2


def test_default_mixin_keeps_the_base_class_setup(test_dir: Path) -> None:
    calls: list[str] = []

    class Base(unittest.TestCase):
        def setUp(self) -> None:
            calls.append("base")

    run(register(test_dir, base_class=Base)[BETA])
    assert calls == ["base", "base"]


def test_num_nodes_required_marks_the_function_as_oneflow_does() -> None:
    @flow.unittest.num_nodes_required(3)
    def test_x(test_case):
        pass

    assert test_x.__oneflow_test_case_num_nodes_required__ == 3


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_num_nodes_required_rejects_non_positive_ints(bad) -> None:
    with pytest.raises(ValueError, match="num_nodes_required: num_nodes must be a positive int"):
        flow.unittest.num_nodes_required(bad)


def test_bad_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="register_test_cases: directory .* does not exist"):
        flow.unittest.register_test_cases({}, str(tmp_path / "missing"), lambda n: n == 1)
    with pytest.raises(TypeError, match="filter_by_num_nodes must be a callable"):
        flow.unittest.register_test_cases({}, str(tmp_path), 1)
    with pytest.raises(TypeError, match="base_class must be a unittest.TestCase subclass"):
        flow.unittest.register_test_cases({}, str(tmp_path), lambda n: n == 1, base_class=object)


RUNNER = """
import os
import unittest

import oneflow as flow

flow.unittest.register_test_cases(
    scope=globals(),
    directory=os.path.dirname(os.path.realpath(__file__)),
    filter_by_num_nodes=lambda x: x == 1,
)

if __name__ == "__main__":
    unittest.main()
"""


def test_a_runner_script_under_the_oneflow_alias(test_dir: Path, run_py) -> None:
    (test_dir / "one_node_runner.py").write_text(RUNNER)
    proc = run_py("-m", "flowtorch", "one_node_runner.py", "-v", cwd=test_dir)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "Ran 8 tests" in out
    assert "FAILED (failures=1, errors=2)" in out
    assert f"test_passes (__main__.{ALPHA}.test_passes) ... ok" in out
    assert f"test_runs_a_job (__main__.{ALPHA}.test_runs_a_job) ... ok" in out

    only = run_py("-m", "flowtorch", "one_node_runner.py", f"{ALPHA}.test_passes", cwd=test_dir)
    assert only.returncode == 0, only.stdout + only.stderr
    assert "Ran 1 test" in only.stderr
