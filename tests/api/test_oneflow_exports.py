"""Every name OneFlow's lazy releases exported (``@oneflow_export``, every tag v0.1.0–v0.3.4 and v0.4.0's lazy API,
listed by ``scripts/oneflow_names.py`` in ``migrate/oneflow_exports.json``) resolves on flowtorch, except those still
listed in ``oneflow_exports_missing.txt``; so do the names and function-config options of OneFlow's master of
November 2019 to June 2020, before v0.1.0 (``migrate/oneflow_exports_master.json``), except those listed with a reason
in ``oneflow_master_missing.txt``. The lists may only shrink."""

from __future__ import annotations

import json
from pathlib import Path

import flowtorch
import flowtorch._src.migrate as migrate

HERE = Path(__file__).resolve().parent


def _resolves(name: str) -> bool:
    obj: object = flowtorch
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except Exception:  # (an AttributeError, or a module that refuses a name)
            return False
    return True


def _exported() -> dict[str, list[str]]:
    return json.loads((Path(migrate.__file__).parent / "oneflow_exports.json").read_text())


def _known_missing(file: str = "oneflow_exports_missing.txt") -> set[str]:
    lines = (HERE / file).read_text().splitlines()
    return {ln.split("|")[0].strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def _master() -> dict[str, dict[str, list[str]]]:
    return json.loads((Path(migrate.__file__).parent / "oneflow_exports_master.json").read_text())


RELEASES = {"v0.1.0", "v0.1.1", "v0.1.2", "v0.1.3", "v0.1.4", "v0.1.5", "v0.1.6", "v0.1.7", "v0.1.8", "v0.1.9",
            "v0.1.10", "v0.1.11b1", "v0.2b0", "v0.2b1", "v0.2.0", "v0.3.1", "v0.3.2", "v0.3.3", "v0.3.4"}


def test_the_name_list_covers_every_lazy_release() -> None:
    names = _exported()
    released = {n for n, tags in names.items() if set(tags) & RELEASES}
    assert len(released) == 543  # the union of v0.1.0 ... v0.3.4 (v0.3.0's tag has no oneflow/python)
    assert len(names) >= 600  # and 57 more of v0.4.0's lazy API
    assert {"global_function", "watch", "optimizer.SGD", "data.ofrecord_reader", "ctc_loss", "model.Model"} \
        <= names.keys()
    # exported by one early release only
    assert names["copy"] == ["v0.1.0"] and names["math.mish"] == ["v0.3.2"] and names["experimental.op_lib"] == \
        ["v0.3.1"]
    assert {tag for tags in names.values() for tag in tags} == RELEASES | {"v0.4.0"}
    assert "Tensor" not in names and "nn.init.zeros_" not in names  # v0.4.0's eager API is not the lazy one


def test_the_master_names_before_v0_1_0_resolve_but_the_listed_ones() -> None:
    master = _master()
    names, listed = master["exports"], _known_missing("oneflow_master_missing.txt")
    assert {"function", "piece_slice", "local_nonzero", "Box"} <= names.keys()
    assert not names.keys() & _exported().keys(), "the master list holds only names no release exported"
    assert listed <= names.keys(), f"listed but never exported: {sorted(listed - names.keys())}"
    unresolved = {n for n in names if not _resolves(n)}
    assert not unresolved - listed, f"master names (before v0.1.0) that do not resolve: {sorted(unresolved - listed)}"
    assert not listed - unresolved, f"these resolve now; take them off the list: {sorted(listed - unresolved)}"


def test_every_master_function_config_option_is_accepted() -> None:
    options = _master()["function_config"]
    assert {"train.primary_lr", "train.model_update_conf", "default_data_type"} <= options.keys()
    for path in options:
        obj: object = flowtorch.function_config()
        for part in path.split("."):
            obj = getattr(obj, part)
        assert callable(obj), path


def test_every_exported_name_resolves_but_the_listed_ones() -> None:
    names, listed = _exported(), _known_missing()
    assert listed <= names.keys(), f"listed but never exported: {sorted(listed - names.keys())}"
    unresolved = {n for n in names if not _resolves(n)}
    assert not unresolved - listed, f"OneFlow names that stopped resolving: {sorted(unresolved - listed)}"
    assert not listed - unresolved, f"these resolve now; take them off the list: {sorted(listed - unresolved)}"
