"""The OneFlow 0.x symbols of the surveyed programs and their status in flowtorch, read from ``compat_table.txt``.

``compat_table.txt`` (package data beside this module) is the one source of truth: ``docs/compat.md`` is
generated from it (``python scripts/write_compat.py``,
:mod:`flowtorch._src.migrate.compat_doc`) and ``flowtorch check`` reads it, so edit it, then regenerate.
Its lines::

    # TITLE
    INTRO                     markdown, kept as written, up to the first section
    ## SECTION TITLE
    PROSE                     optional markdown before the section's first row; its lines are joined
    - SYMBOL | STATUS         a row; STATUS is supported, partial or missing
      notes: TEXT             what differs, what is accepted (markdown)
      torch: TEXT             the plain-PyTorch equivalent where one is meaningful (markdown)
      aliases: NAME NAME      other names that share the row (the checker maps them to it)
      qualifier: TEXT         shown after the symbol in the doc
        TEXT                  a field goes on over lines indented by four spaces, joined with one space

A row's fields are optional. SYMBOL is written as OneFlow programs write it after ``flow.`` (``tp.`` for
``oneflow.typing``, ``X().m`` for a method of what ``X(...)`` makes).
Stdlib only: ``flowtorch check`` must not import torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

S, P, M = "supported", "partial", "missing"
STATUSES = (S, P, M)
TABLE_FILE = Path(__file__).with_name("compat_table.txt")
_FIELDS = ("notes", "torch", "aliases", "qualifier")


class Row(NamedTuple):
    symbol: str
    status: str
    notes: str = ""
    torch: str = ""
    aliases: tuple[str, ...] = ()
    qualifier: str = ""


class Section(NamedTuple):
    title: str
    rows: tuple[Row, ...]
    prose: str = ""


def parse(text: str, source: str = "compat_table.txt") -> tuple[str, str, tuple[Section, ...]]:
    """``(title, intro, sections)`` of a table in the format above; ``ValueError`` names the line at fault."""
    title, intro = "", []
    # per section: its title, its prose lines and its rows as {field: [parts]}
    sections: list[tuple[str, list[str], list[dict[str, list[str]]]]] = []
    field: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        rows = sections[-1][2] if sections else []
        if number == 1:
            if not line.startswith("# "):
                raise _error(source, number, line, "the first line is '# TITLE'")
            title = line[2:].strip()
        elif line.startswith("## "):
            sections.append((line[3:].strip(), [], []))
            field = None
        elif not sections:
            intro.append(line)
        elif not line.strip():
            field = None
        elif line.startswith("- "):
            symbol, bar, status = line[2:].partition(" | ")
            if not bar or not symbol.strip() or status.strip() not in STATUSES:
                raise _error(source, number, line, f"a row is '- SYMBOL | STATUS', STATUS in {STATUSES}")
            rows.append({"symbol": [symbol.strip()], "status": [status.strip()]})
            field = None
        elif line.startswith("    ") and field is not None:
            rows[-1][field].append(line.strip())
        elif line.startswith("  ") and not line.startswith("   ") and rows:
            name, colon, value = line.strip().partition(":")
            if not colon or name not in _FIELDS or name in rows[-1]:
                raise _error(source, number, line, f"a field is 'NAME: TEXT', once a row, NAME in {_FIELDS}")
            rows[-1][name] = [value.strip()]
            field = name
        elif not line[0].isspace() and not rows:
            sections[-1][1].append(line.strip())
        else:
            raise _error(source, number, line, "neither a heading, a row, a row's field nor the section's prose")
    if not title:
        raise ValueError(f"{source}: empty")
    return title, "\n".join(intro).strip() + "\n", tuple(
        Section(name, tuple(_row(row) for row in rows), " ".join(prose)) for name, prose, rows in sections)


def _row(fields: dict[str, list[str]]) -> Row:
    text = {name: " ".join(part for part in parts if part) for name, parts in fields.items()}
    return Row(text["symbol"], text["status"], text.get("notes", ""), text.get("torch", ""),
               tuple(text.get("aliases", "").split()), text.get("qualifier", ""))


def _error(source: str, number: int, line: str, why: str) -> ValueError:
    return ValueError(f"{source}:{number}: {why}: {line!r}")


TITLE, INTRO, SECTIONS = parse(TABLE_FILE.read_text(encoding="utf-8"), str(TABLE_FILE))
