"""The package as it is installed: its own distribution name (the index's `flowtorch` is another project),
typed, with classifiers and URLs; the tools' public Python API under `flowtorch.migrate`."""

from __future__ import annotations

import configparser
import importlib.metadata
from pathlib import Path

import pytest

import flowtorch
import flowtorch.migrate
from flowtorch._src import package
from flowtorch._src.migrate import check, convert, export, plot

ROOT = Path(__file__).resolve().parents[2]


def _setup_cfg() -> configparser.ConfigParser:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    return cfg


def test_setup_cfg_names_the_distribution_the_hints_use() -> None:
    meta = _setup_cfg()["metadata"]
    assert meta["name"] == package.DISTRIBUTION == "flowtorch-oneflow"
    assert package.extra_hint("viz") == 'pip install "flowtorch-oneflow[viz]"'
    classifiers = meta["classifiers"].split("\n")
    assert "Typing :: Typed" in classifiers and meta["license"] == "Apache-2.0"
    assert all(url.split(" = ")[1].startswith("https://") for url in meta["project_urls"].strip().split("\n"))
    assert "py.typed" in _setup_cfg()["options.package_data"]["flowtorch"]


def test_the_package_ships_py_typed() -> None:
    assert (Path(flowtorch.__file__).parent / "py.typed").is_file()


def test_installed_metadata_when_installed() -> None:
    try:
        dist = importlib.metadata.distribution(package.DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("flowtorch-oneflow is not pip-installed here (running from the source tree)")
    assert dist.version == flowtorch.__version__
    assert "Typing :: Typed" in dist.metadata.get_all("Classifier", [])
    assert dist.metadata.get_all("Project-URL")
    # the distribution is the one whose files hold the imported package
    assert any(str(f).endswith("flowtorch/py.typed") for f in dist.files or []) or \
        any(str(f).endswith(".pth") for f in dist.files or [])  # an editable install ships a path hook


def test_the_tools_public_api_is_the_implementation() -> None:
    assert flowtorch.migrate.export is export.export
    assert flowtorch.migrate.convert is convert.convert
    assert flowtorch.migrate.plot_run is plot.plot_run
    assert flowtorch.migrate.check_paths is check.check_paths
    assert sorted(flowtorch.migrate.__all__) == flowtorch.migrate.__all__
    assert all(callable(getattr(flowtorch.migrate, n)) for n in flowtorch.migrate.__all__)


def test_every_install_hint_names_the_distribution() -> None:
    src = Path(flowtorch.__file__).parent
    stale = [f"{p.relative_to(src)}:{n}" for p in sorted(src.rglob("*.py")) + [src / "_src/migrate/compat_table.txt"]
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "pip install" in line and "flowtorch[" in line.replace('"', "")]
    assert not stale, f"install hints naming the index's other flowtorch: {stale}"
