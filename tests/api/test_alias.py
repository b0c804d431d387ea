"""Zero-edit running: `python -m flowtorch script.py`, the pytest plugin, the env switch; plain
`import oneflow` elsewhere stays untouched."""

from __future__ import annotations

import importlib.util
import os
import site
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest


def test_runner_runs_an_unedited_oneflow_example(run_py, root: Path) -> None:
    proc = run_py("-m", "flowtorch", str(root / "examples" / "relu_watch.py"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "in: [ 0.15727027  0.45887455  0.10939325  0.66666406 -0.62354755]"
    assert lines[1] == "out: [0.15727027 0.45887455 0.10939325 0.66666406 0.        ]"


def test_runner_passes_argv_and_reports_missing_scripts(run_py, tmp_path: Path) -> None:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys
        import oneflow as flow
        import oneflow.typing as tp
        from oneflow.compatible import single_client as sc
        print(sys.argv[1:], flow.__name__, tp.__name__, sc is flow, __name__)
    """))
    proc = run_py("-m", "flowtorch", "run", str(script), "--epochs", "3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['--epochs', '3'] flowtorch flowtorch.typing True __main__"
    missing = run_py("-m", "flowtorch", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_runner_runs_a_module_like_python_dash_m(run_py, tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text("VALUE = 7\n")
    (pkg / "prog.py").write_text(textwrap.dedent("""
        import os, sys
        import oneflow as flow
        from . import helper
        from pkg.helper import VALUE
        print(sys.argv, sys.path[0] == os.getcwd(), __name__, __spec__.name, flow.__name__, helper.VALUE + VALUE)
    """))
    (pkg / "__main__.py").write_text("import oneflow\nprint('package main', oneflow.__name__)\n")
    want = f"[{str(pkg / 'prog.py')!r}, '--iters', '2'] True __main__ pkg.prog flowtorch 14"
    for args in (("-m", "pkg.prog"), ("-mpkg.prog",), ("run", "-m", "pkg.prog")):
        proc = run_py("-m", "flowtorch", *args, "--iters", "2", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == want
    proc = run_py("-m", "flowtorch", "-m", "pkg", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "package main flowtorch", proc.stderr
    missing = run_py("-m", "flowtorch", "-m", "pkg.nope", cwd=tmp_path)
    assert missing.returncode == 1 and "No module named 'pkg.nope'" in missing.stderr
    bare = run_py("-m", "flowtorch", "-m", cwd=tmp_path)
    assert bare.returncode == 2 and "-m needs a module name" in bare.stderr


def test_alias_gives_the_same_module_objects() -> None:
    from flowtorch._src import alias
    alias.install()
    try:
        import oneflow  # type: ignore[import-not-found]
        import oneflow.typing as tp  # type: ignore[import-not-found]

        import flowtorch
        assert oneflow is flowtorch and tp is flowtorch.typing
        with pytest.raises(ModuleNotFoundError, match="flowtorch.*has no 'flowtorch.no_such_module'"):
            importlib.import_module("oneflow.no_such_module")
        import oneflow_api  # type: ignore[import-not-found]

        @flowtorch.global_function()
        def job(x: tp.Numpy.Placeholder((2,))) -> tp.Numpy:
            assert isinstance(x, oneflow_api.BlobDesc) and isinstance(x, oneflow_api.ConsistentBlob)
            return x
        job(np.zeros(2, np.float32))
        assert oneflow_api.EagerExecutionEnabled() is False
    finally:
        alias.uninstall()
    assert "oneflow" not in sys.modules and "oneflow_api" not in sys.modules


def test_plain_import_oneflow_is_untouched_outside_the_entry_points(run_py) -> None:
    proc = run_py("-c", textwrap.dedent("""
        import sys, flowtorch, flowtorch.pytest_plugin
        from flowtorch._src import alias
        assert not alias.installed()
        try:
            import oneflow
        except ModuleNotFoundError:
            print("untouched")
        else:
            print("a real oneflow:", oneflow.__file__)
    """), env={"FLOWTORCH_ONEFLOW_ALIAS": ""})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("untouched") or "flowtorch" not in proc.stdout


ONEFLOW_STYLE_TEST = textwrap.dedent("""
    import unittest
    import numpy as np
    import oneflow as flow
    import oneflow.typing as tp

    @flow.unittest.skip_unless_1n1d()
    class TestRelu(flow.unittest.TestCase):
        def test_relu(test_case):
            @flow.global_function()
            def job(x: tp.Numpy.Placeholder((3,))) -> tp.Numpy:
                return flow.nn.relu(x)
            out = job(np.array([-1.0, 0.0, 2.0], np.float32))
            test_case.assertTrue(np.array_equal(out, [0.0, 0.0, 2.0]))
""")


def _run_oneflow_style_test(run_py, directory: Path, env: dict[str, str]) -> None:
    """Write ONEFLOW_STYLE_TEST into ``directory`` and run it under pytest with the plugin named by ``-p``."""
    (directory / "test_of.py").write_text(ONEFLOW_STYLE_TEST)
    proc = run_py("-m", "pytest", "-q", "-p", "flowtorch.pytest_plugin", "--oneflow-alias", "-p", "no:cacheprovider",
                  "test_of.py", cwd=directory, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_pytest_plugin_runs_oneflow_style_test_files(run_py, tmp_path: Path) -> None:
    # Autoload off, plugin named explicitly: the same run whether or not flowtorch's entry point is installed.
    _run_oneflow_style_test(run_py, tmp_path, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})


def test_plugin_named_on_the_command_line_and_installed_loads_once(run_py, root: Path, tmp_path: Path) -> None:
    # An installed flowtorch (an editable install's egg-info in src/ too) autoloads the plugin by its pytest11 entry
    # point, and harnesses such as scripts/oneflow_suite.py also name it with -p: pytest refuses one module under two
    # names, so the entry point must carry the module's own name. Its line is read from setup.cfg.
    declared = root.joinpath("setup.cfg").read_text().split("pytest11 =", 1)[1].splitlines()[1].strip()
    site_dir = tmp_path / "site"
    dist = site_dir / "flowtorch-0.0.dist-info"
    dist.mkdir(parents=True)
    dist.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: flowtorch\nVersion: 0.0\n")
    dist.joinpath("entry_points.txt").write_text(f"[pytest11]\n{declared}\n")
    _run_oneflow_style_test(run_py, tmp_path, {"PYTHONPATH": os.pathsep.join([str(site_dir), str(root / "src")]),
                                               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": ""})


def test_env_switch_line_installs_the_alias(run_py, root: Path) -> None:
    pth = (root / "src" / "flowtorch-oneflow-alias.pth").read_text()
    code = f"{pth.strip()}\nimport oneflow\nprint(oneflow.__name__)"
    on = run_py("-c", code, env={"FLOWTORCH_ONEFLOW_ALIAS": "1"})
    assert on.returncode == 0, on.stderr
    assert on.stdout.strip() == "flowtorch"
    off = run_py("-c", f"{pth.strip()}\nfrom flowtorch._src import alias\nprint(alias.installed())",
                     env={"FLOWTORCH_ONEFLOW_ALIAS": "0"})
    assert off.stdout.strip() == "False"
    for value, installed in (("yes", "True"), ("false", "False")):
        done = run_py("-c", f"{pth.strip()}\nfrom flowtorch._src import alias\nprint(alias.installed())",
                      env={"FLOWTORCH_ONEFLOW_ALIAS": value})
        assert (done.stdout.strip(), done.stderr) == (installed, "")
    bad = run_py("-c", f"{pth.strip()}\nfrom flowtorch._src import alias\nprint(alias.installed())",
                 env={"FLOWTORCH_ONEFLOW_ALIAS": "maybe"})
    assert bad.stdout.strip() == "False"  # refused by name, and Python starts all the same
    # (once by this line, and once more by the installed hook where flowtorch is pip-installed, as in CI)
    message = ("flowtorch: FLOWTORCH_ONEFLOW_ALIAS must be 1 or 0 (also true/false, yes/no, on/off); "
               "received 'maybe'; `import oneflow` is left as it is")
    assert bad.stderr.splitlines() and set(bad.stderr.splitlines()) == {message}


@pytest.mark.skipif(not any((Path(p) / "flowtorch-oneflow-alias.pth").exists()
                            for p in site.getsitepackages() + [site.getusersitepackages()]),
                    reason="flowtorch is not pip-installed here (the .pth hook ships with `pip install .`)")
def test_env_switch_in_an_installed_flowtorch(run_py) -> None:
    on = run_py("-c", "import oneflow; print(oneflow.__name__)", env={"FLOWTORCH_ONEFLOW_ALIAS": "1"})
    assert on.stdout.strip() == "flowtorch", on.stderr


def test_the_alias_gives_collections_back_the_abc_aliases_of_oneflows_python() -> None:
    import collections
    import collections.abc

    from flowtorch._src import alias

    had = hasattr(collections, "Sized")
    alias.install()
    try:
        assert collections.Sized is collections.abc.Sized  # OneFlow-era test code: isinstance(x, collections.Sized)
        assert collections.Iterable is collections.abc.Iterable
    finally:
        alias.uninstall()
    assert hasattr(collections, "Sized") == had
