"""The table is the one source of truth: docs/compat.md is its rendering, the shipped index of flowtorch's
names matches a live build, and the table, the index and torch agree with each other."""

from __future__ import annotations

import importlib
import re
from dataclasses import replace

import pytest

from flowtorch._src.migrate import compat_doc, compat_table
from flowtorch._src.migrate.check import INDEX_FILE, NAMESPACES, _attr, _call, _module_value, _Value, classify

ROWS = [row for section in compat_table.SECTIONS for row in section.rows]


def test_checked_in_compat_md_is_the_generated_text(root) -> None:
    assert (root / "docs" / "compat.md").read_text(encoding="utf-8") == compat_doc.render(), (
        "docs/compat.md differs from the table: run `python scripts/write_compat.py`")


def test_compat_md_lists_every_row_with_its_status_notes_and_torch(root) -> None:
    text = (root / "docs" / "compat.md").read_text(encoding="utf-8")
    cells = [[c.replace("\\|", "|") for c in re.split(r"(?<!\\) \| ", line[2:-2])]
             for line in text.splitlines() if line.startswith("| `")]
    assert [(c[0], c[1], c[2].strip(), c[3].strip()) for c in cells] == [
        (f"`{r.symbol}`" + (f" {r.qualifier}" if r.qualifier else ""), r.status, r.notes, r.torch) for r in ROWS]
    for section in compat_table.SECTIONS:
        assert f"\n## {section.title}\n" in text
        assert " ".join(section.prose.split()) in " ".join(text.split())


def test_shipped_index_matches_a_live_build(run_py) -> None:
    # A fresh process: what the index sees must not depend on what this test run imported before.
    done = run_py("-c", "from flowtorch._src.migrate import names_index as n; "
                        "print(n.render_index(n.build_index()), end='')")
    assert done.returncode == 0, done.stderr
    assert INDEX_FILE.read_text(encoding="utf-8") == done.stdout, (
        "src/flowtorch/_src/migrate/public_names.json is stale: run `python scripts/write_names_index.py`")


def test_index_kinds_point_at_namespaces_it_holds() -> None:
    for ns, members in NAMESPACES.items():
        for name, kind in members.items():
            assert re.fullmatch(r"[mcfo]:.+|[cfv]", kind), (ns, name, kind)
            if ":" in kind:
                assert kind[2:] in NAMESPACES, (ns, name, kind)


def test_rows_are_well_formed() -> None:
    symbols = [r.symbol for r in ROWS if not r.qualifier]
    aliases = [a for r in ROWS for a in r.aliases]
    assert {r.status for r in ROWS} <= set(compat_table.STATUSES)
    assert len(set(aliases)) == len(aliases) and not set(aliases) & set(symbols)
    assert sorted({s for s in symbols if symbols.count(s) > 1}) == ["random.CoinFlip"]  # in Ops and in Data
    assert all("\n" not in r.notes + r.torch for r in ROWS)


def _walk(symbol: str) -> _Value | None:
    root = "oneflow_api" if symbol.startswith("oneflow_api.") else "oneflow"
    value = _module_value(root)
    parts = re.findall(r"[^.()]+(?:\(\))?", symbol.removeprefix("oneflow_api.").replace("tp.", "typing.", 1))
    for part in parts:
        if value is None:
            return None
        value = _attr(value, part.removesuffix("()"))
        if part.endswith("()"):
            value = _call(value)
    return value


def _value(symbol: str) -> _Value | None:
    """Walk ``symbol`` (table notation) through the shipped index as the checker does. ``X().m`` names any
    method of a chain on what X made: for a builder, also the methods of what its ``Build()`` made."""
    value = _walk(symbol)
    if value is not None and value.kind == "absent" and "()." in symbol:
        built = _walk(symbol.replace("().", "().Build().", 1))
        if built is not None and built.kind != "absent":
            return replace(built, base=value.base, tail=value.tail)
    return value


@pytest.mark.parametrize("row", [r for r in ROWS if not r.symbol.startswith(("Blob.", "LocalBlob"))],
                         ids=lambda r: r.symbol)
def test_index_agrees_with_the_table(row: compat_table.Row) -> None:
    for symbol in (row.symbol, *row.aliases):
        value = _value(symbol)
        if row.status != compat_table.M:
            assert value is not None and value.kind != "absent", symbol
            assert classify(value)[:2] == (row.status, True), symbol


def test_symbols_outside_the_table_are_judged_from_the_index() -> None:
    present = _value("math.reduce_max")
    assert classify(present)[:2] == ("supported", False)
    absent = _value("math.no_such_op")
    status, surveyed, notes, _ = classify(absent)
    assert (status, surveyed) == ("missing", False) and "math.no_such_op" in notes
    option = _value("function_config().no_such_option")
    assert classify(option)[0] == "missing"
    # a name under a partial row is partial, with the row's reason
    assert classify(_value("config.collective_boxing.nccl_enable_all_to_all"))[:2] == ("partial", False)


def test_torch_equivalents_are_filled_for_the_common_symbols() -> None:
    torch_of = {r.symbol: r.torch for r in ROWS}
    assert "torch.nn.Linear" in torch_of["layers.dense"]
    assert "torch.relu" in torch_of["nn.relu"]
    assert "torch.optim.Adam" in torch_of["optimizer.Adam"]
    assert "register_forward_hook" in torch_of["watch"]
    assert "Tensor.register_hook" in torch_of["watch_diff"]
    assert "torch.optim.SGD" in torch_of["optimizer.SGD"]
    assert sum(bool(r.torch) for r in ROWS) > 100


def _torch_object(name: str) -> object:
    name = name.split("(")[0]
    if name.startswith(("Tensor.", "Module.")):
        name = ("torch." if name[0] == "T" else "torch.nn.") + name
    module, obj = None, None
    parts = name.split(".")
    for i in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
        try:
            module = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        obj = module
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise AssertionError(name)


@pytest.mark.parametrize("row", [r for r in ROWS if r.torch], ids=lambda r: r.symbol)
def test_torch_equivalents_name_real_torch_apis(row: compat_table.Row) -> None:
    names = [c for c in re.findall(r"`([^`]+)`", row.torch) if re.match(r"(torch|Tensor|Module)\.\w", c)
             and " " not in c.split("(")[0]]
    for name in names:
        assert _torch_object(name) is not None, name
