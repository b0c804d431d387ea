"""``flowtorch check SCRIPT_OR_DIR…``: which OneFlow symbols a program uses and what flowtorch makes of them.

Static (the program is never run or imported; torch is not imported either). Exit status: 0 when nothing
used is missing, 1 when something is missing (or a file could not be read or parsed), 2 for a usage
error. ``--json`` writes the report for tools; ``--write-compat PATH`` regenerates docs/compat.md from the
table. See docs/migration/check.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections import defaultdict

from flowtorch._src.errors import UsageError
from flowtorch._src.migrate import compat_doc, compat_table
from flowtorch._src.migrate.check import Report, Use, check_paths

JSON_VERSION = 1
_HEADINGS = {
    compat_table.M: "missing: flowtorch lacks these; the program stops where it uses them",
    compat_table.P: "partial: accepted; the note says what differs",
    compat_table.S: "supported",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flowtorch check", description="Report every OneFlow symbol the scripts use and its status in "
        "flowtorch (supported / partial / missing), with the plain-PyTorch equivalent. Nothing is run.")
    parser.add_argument("paths", nargs="*", metavar="SCRIPT_OR_DIR", help="Python files, or folders searched "
                        "for *.py")
    parser.add_argument("--json", action="store_true", help="write the report as JSON (docs/migration/check.md)")
    parser.add_argument("--notes", action="store_true", help="show the notes of supported symbols too")
    parser.add_argument("--write-compat", metavar="PATH", help="write docs/compat.md generated from the table")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse exits 2 on a usage error, 0 for --help
        return int(exc.code or 0)
    if args.write_compat:
        return _write(args)
    if not args.paths:
        parser.print_usage(sys.stderr)
        print("flowtorch check: error: SCRIPT_OR_DIR: give at least one Python file or folder", file=sys.stderr)
        return 2
    try:
        report = check_paths(args.paths)
    except UsageError as exc:
        print(f"flowtorch check: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(to_json(report), indent=2, ensure_ascii=False) if args.json else to_text(report, args.notes))
    return report.exit_status()


def _write(args: argparse.Namespace) -> int:
    if args.paths:
        print("flowtorch check: error: --write-compat takes no SCRIPT_OR_DIR", file=sys.stderr)
        return 2
    try:
        print(f"wrote {compat_doc.write(args.write_compat)}")
    except FileNotFoundError as exc:
        print(f"flowtorch check: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _by_symbol(uses: list[Use]) -> dict[str, list[Use]]:
    grouped: dict[str, list[Use]] = defaultdict(list)
    for use in uses:
        grouped[use.symbol].append(use)
    return dict(sorted(grouped.items()))


def _places(uses: list[Use]) -> str:
    by_file: dict[str, list[str]] = defaultdict(list)
    for use in uses:
        by_file[use.file].append(str(use.line))
    return "; ".join(f"{file}:{', '.join(lines)}" for file, lines in by_file.items())


def _summary(report: Report) -> dict[str, int]:
    symbols = _by_symbol(report.uses)
    counts = {status: sum(1 for uses in symbols.values() if uses[0].status == status)
              for status in compat_table.STATUSES}
    return {"files": len(report.files), "uses": len(report.uses), "symbols": len(symbols), **counts,
            "errors": len(report.errors), "skipped": len(report.skipped)}


def to_text(report: Report, notes_for_supported: bool = False) -> str:
    """The report for people: symbols grouped by status (missing first), each with its note, its PyTorch
    equivalent and where it is used."""
    lines: list[str] = []
    wrap = textwrap.TextWrapper(width=110, initial_indent="    ", subsequent_indent="      ",
                                break_long_words=False, break_on_hyphens=False)
    symbols = _by_symbol(report.uses)
    for status in (compat_table.M, compat_table.P, compat_table.S):
        group = {s: u for s, u in symbols.items() if u[0].status == status}
        if not group:
            continue
        lines += [f"== {_HEADINGS[status]} ({len(group)}) ==", ""]
        for symbol, uses in group.items():
            first = uses[0]
            lines.append(f"  {symbol}" + ("" if first.surveyed else "  (not surveyed)"))
            if first.notes and (status != compat_table.S or notes_for_supported or not first.surveyed):
                lines += wrap.wrap(f"note: {first.notes}")
            if first.torch:
                lines += wrap.wrap(f"PyTorch: {first.torch}")
            lines += wrap.wrap(f"used at: {_places(uses)}")
        lines.append("")
    for file, why in report.errors:
        lines.append(f"could not check {file}: {why}")
    for file, why in report.skipped:
        lines.append(f"skipped {file}: {why}")
    s = _summary(report)
    lines.append(f"flowtorch check: {s['files']} file(s), {s['symbols']} OneFlow symbol(s) in {s['uses']} use(s): "
                 f"{s['supported']} supported, {s['partial']} partial, {s['missing']} missing"
                 + (f"; {s['errors']} file(s) not checked" if s["errors"] else "")
                 + (f"; {s['skipped']} skipped (not regular files)" if s["skipped"] else ""))
    return "\n".join(lines)


def to_json(report: Report) -> dict[str, object]:
    """The report for tools (fields: docs/migration/check.md)."""
    return {
        "version": JSON_VERSION,
        "exit_status": report.exit_status(),
        "summary": _summary(report),
        "files": report.files,
        "symbols": [{"symbol": symbol, "status": uses[0].status, "surveyed": uses[0].surveyed,
                     "notes": uses[0].notes, "torch": uses[0].torch,
                     "uses": [{"file": u.file, "line": u.line, "column": u.column} for u in uses]}
                    for symbol, uses in _by_symbol(report.uses).items()],
        "uses": [{"file": u.file, "line": u.line, "column": u.column, "symbol": u.symbol, "status": u.status,
                  "surveyed": u.surveyed} for u in report.uses],
        "errors": [{"file": file, "error": why} for file, why in report.errors],
        "skipped": [{"file": file, "reason": why} for file, why in report.skipped],
    }


if __name__ == "__main__":
    sys.exit(main())
