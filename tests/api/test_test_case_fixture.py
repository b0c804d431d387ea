"""The pytest plugin's ``test_case`` fixture: under ``--oneflow-alias``, module-level OneFlow test functions
``def test_x(test_case)`` run with a unittest.TestCase; helpers ``def test_x(test_case, a, b)`` are not collected."""

from __future__ import annotations

import re
from pathlib import Path

FUNCTION_STYLE = """
import unittest

import numpy as np
import pytest

import oneflow as flow
import oneflow.typing as tp

CALLS = []


def test_asserts_pass(test_case):
    test_case.assertIsInstance(test_case, unittest.TestCase)
    test_case.assertEqual([1, 2], [1, 2])
    test_case.assertTrue(np.allclose(np.ones(3), 1.0))
    with test_case.assertRaises(ZeroDivisionError):
        1 / 0


def test_assert_fails(test_case):
    test_case.assertAlmostEqual(1.0, 1.5, msg="values differ")


def test_runs_a_job_in_a_fresh_session(test_case):
    @flow.global_function()
    def add_one(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
        return x + 1

    test_case.assertTrue(np.allclose(add_one(np.zeros(3, np.float32)), 1.0))


def test_helper_of_the_class(test_case, device_type, shape):
    CALLS.append((device_type, shape))
    test_case.assertEqual(len(shape), 2)


def test_with_a_real_fixture(test_case, tmp_path):
    test_case.assertTrue(tmp_path.is_dir())


@pytest.mark.parametrize("n", [1, 2])
def test_parametrized(test_case, n):
    test_case.assertGreater(n, 0)


class TestUsesHelper(flow.unittest.TestCase):
    def test_case(test_case):
        test_helper_of_the_class(test_case, "cpu", (2, 3))
        test_case.assertEqual(CALLS, [("cpu", (2, 3))])
"""

PLAIN = """
def test_wants_test_case(test_case):
    pass
"""


def outcomes(stdout: str) -> dict[str, str]:
    """``{test id: PASSED/FAILED/ERROR}`` from ``pytest -rA`` short summary lines."""
    found = re.findall(r"^(PASSED|FAILED|ERROR) [^:\s]+::(\S+)", stdout, re.MULTILINE)
    return {name: outcome for outcome, name in found}


def run_pytest(run_py, directory: Path, *args: str):
    # The plugin named whether or not the installed package's pytest11 entry point loads it too (it is named as
    # its module, so pytest loads it once): as oneflow_suite.py and OneFlow-era harnesses run it.
    return run_py("-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-p", "flowtorch.pytest_plugin", *args,
                  cwd=directory)


def test_function_style_tests_run_under_the_alias(tmp_path: Path, run_py) -> None:
    (tmp_path / "test_function_style.py").write_text(FUNCTION_STYLE)
    proc = run_pytest(run_py, tmp_path, "--oneflow-alias", "test_function_style.py")
    assert outcomes(proc.stdout) == {
        "test_asserts_pass": "PASSED",
        "test_assert_fails": "FAILED",
        "test_runs_a_job_in_a_fresh_session": "PASSED",
        "test_with_a_real_fixture": "PASSED",
        "test_parametrized[1]": "PASSED",
        "test_parametrized[2]": "PASSED",
        "TestUsesHelper::test_case": "PASSED",
    }, proc.stdout + proc.stderr
    assert "values differ" in proc.stdout
    assert "fixture 'test_case' not found" not in proc.stdout
    assert "test_helper_of_the_class" not in proc.stdout  # a helper, not collected


def test_the_env_variable_enables_it_too(tmp_path: Path, run_py) -> None:
    (tmp_path / "test_plain.py").write_text(PLAIN)
    proc = run_pytest(run_py, tmp_path, "test_plain.py")
    assert outcomes(proc.stdout) == {"test_wants_test_case": "ERROR"}, proc.stdout
    assert "fixture 'test_case' not found" in proc.stdout

    (tmp_path / "pytest.ini").write_text("[pytest]\noneflow_alias = true\n")
    proc = run_pytest(run_py, tmp_path, "test_plain.py")
    assert outcomes(proc.stdout) == {"test_wants_test_case": "PASSED"}, proc.stdout


def test_without_the_alias_there_is_no_fixture_and_helpers_are_collected(tmp_path: Path, run_py) -> None:
    (tmp_path / "test_plain.py").write_text(PLAIN + "\n\ndef test_helper(test_case, shape):\n    pass\n")
    proc = run_pytest(run_py, tmp_path, "test_plain.py")
    assert outcomes(proc.stdout) == {"test_wants_test_case": "ERROR", "test_helper": "ERROR"}, proc.stdout


UNDERSCORE_STYLE = """
import unittest

import numpy as np

import oneflow as flow
import oneflow.typing as tp


def test_self_spelled_underscore(_):
    _.assertIsInstance(_, unittest.TestCase)

    @flow.global_function()
    def double(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
        return x * 2

    _.assertTrue(np.allclose(double(np.ones(2, np.float32)), 2.0))


def test_underscore_failing(_):
    _.assertEqual(1, 2, msg="one is not two")


def test_underscore_helper(_, device_type):
    raise AssertionError("a helper: never collected")
"""


def test_v012_underscore_self_gets_the_test_case(tmp_path: Path, run_py) -> None:
    """OneFlow v0.1.2 spells some module-level tests' argument ``_``: the same fixture, and the same helper rule."""
    (tmp_path / "test_underscore.py").write_text(UNDERSCORE_STYLE)
    proc = run_pytest(run_py, tmp_path, "--oneflow-alias", "test_underscore.py")
    assert outcomes(proc.stdout) == {"test_self_spelled_underscore": "PASSED", "test_underscore_failing": "FAILED"}, \
        proc.stdout + proc.stderr
    assert "one is not two" in proc.stdout and "test_underscore_helper" not in proc.stdout
