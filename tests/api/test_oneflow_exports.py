"""Every name OneFlow's lazy releases exported (``@oneflow_export``, v0.1.2–v0.3.4 and v0.4.0's lazy API, listed by
``scripts/oneflow_names.py`` in ``migrate/oneflow_exports.json``) resolves on flowtorch, except those still
listed in ``oneflow_exports_missing.txt``; the list may only shrink."""

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


def _known_missing() -> set[str]:
    lines = (HERE / "oneflow_exports_missing.txt").read_text().splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def test_the_name_list_covers_the_three_lazy_releases() -> None:
    names = _exported()
    assert len(names) >= 593  # v0.1.2, v0.2.0 and v0.3.4's 536, and 57 more of v0.4.0's lazy API
    assert {"global_function", "watch", "optimizer.SGD", "data.ofrecord_reader", "ctc_loss", "model.Model"} \
        <= names.keys()
    assert {tag for tags in names.values() for tag in tags} == {"v0.1.2", "v0.2.0", "v0.3.4", "v0.4.0"}
    assert "Tensor" not in names and "nn.init.zeros_" not in names  # v0.4.0's eager API is not the lazy one


def test_every_exported_name_resolves_but_the_listed_ones() -> None:
    names, listed = _exported(), _known_missing()
    assert listed <= names.keys(), f"listed but never exported: {sorted(listed - names.keys())}"
    unresolved = {n for n in names if not _resolves(n)}
    assert not unresolved - listed, f"OneFlow names that stopped resolving: {sorted(unresolved - listed)}"
    assert not listed - unresolved, f"these resolve now; take them off the list: {sorted(listed - unresolved)}"
