"""``flowtorch check SCRIPT_OR_DIR…``: which OneFlow symbols a program uses and what flowtorch makes of them,
and whether ``flowtorch export`` can export each of its jobs (``job_scan``).

Static (the program is never run or imported; torch is not imported either). Exit status: 0 when nothing
used is missing, 1 when something is missing (or a file could not be read or parsed), 2 for a usage
error; a job that cannot be exported changes nothing. ``--json`` writes the report for tools. See
docs/migration/check.md (``scripts/write_compat.py`` regenerates docs/compat.md from the table).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import textwrap
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from flowtorch._src.errors import UsageError
from flowtorch._src.migrate import compat_table, job_scan
from flowtorch._src.migrate.check import Report, Use, check_paths
from flowtorch._src.migrate.cli_log import Progress, progress_lines

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
    parser.add_argument("--all", action="store_true", help="list the supported symbols too (by default only the "
                        "partial and missing ones are listed; the summary counts them all)")
    parser.add_argument("--notes", action="store_true", help="show the notes of supported symbols too (with --all)")
    return parser


@dataclass
class Jobs:
    """The jobs found in the checked files, with what keeps each from export (``job_scan``)."""

    jobs: list[job_scan.JobInfo] = field(default_factory=list)
    dynamic: list[tuple[str, int, str]] = field(default_factory=list)


def find_jobs(report: Report) -> Jobs:
    """The jobs of every checked file that uses ``global_function`` (the functions they call in the modules
    of the file's folder followed)."""
    files = list(dict.fromkeys(u.file for u in report.uses if u.symbol in job_scan.JOB_DECORATORS))
    known: dict[str, list[Use]] = defaultdict(list)
    for use in report.uses:
        known[os.path.abspath(use.file)].append(use)
    out, cache = Jobs(), job_scan.ScanCache({f: known[f] for f in map(os.path.abspath, report.files)})
    shown = _path_style(report.files)
    progress = Progress("flowtorch check: looked for jobs in", len(files), "files")
    for done, file in enumerate(files):
        progress.done(done)
        try:
            scan = job_scan.scan_program(file, imported_jobs=False, cache=cache)
        except (OSError, SyntaxError, ValueError, RecursionError):
            continue  # the report lists the file as not checked
        for job in scan.jobs:
            job.file = shown(job.file)
            job.findings = [dataclasses.replace(f, file=shown(f.file)) for f in job.findings]
        out.jobs += scan.jobs
        out.dynamic += [(shown(f), line, how) for f, line, how in scan.dynamic if f == file]
    return out


def _path_style(files: list[str]) -> Callable[[str], str]:
    """Paths shown as the report's files are (as the command line gave them): a checked file by its name in
    the report, another file of the program relative to the working directory when it lies under it."""
    given = {os.path.abspath(f): f for f in files}
    cwd = os.getcwd()

    def shown(path: str) -> str:
        full = os.path.abspath(path)
        if full in given:
            return given[full]
        return os.path.relpath(full) if full.startswith(cwd + os.sep) else full

    return shown


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse exits 2 on a usage error, 0 for --help
        return int(exc.code or 0)
    if not args.paths:
        parser.print_usage(sys.stderr)
        print("flowtorch check: error: SCRIPT_OR_DIR: give at least one Python file or folder", file=sys.stderr)
        return 2
    with progress_lines():
        try:
            report = check_paths(args.paths)
        except UsageError as exc:
            print(f"flowtorch check: error: {exc}", file=sys.stderr)
            return 2
        jobs = find_jobs(report)
    print(json.dumps(to_json(report, jobs), indent=2, ensure_ascii=False) if args.json
          else to_text(report, args.notes, jobs, everything=args.all))
    return report.exit_status()


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


_OUTCOMES = {job_scan.EXACT: "exported exactly", job_scan.REFUSED: "refused", job_scan.RUNS: "decided by the run"}

def _jobs_text(jobs: Jobs, wrap: textwrap.TextWrapper) -> list[str]:
    if not jobs.jobs and not jobs.dynamic:
        return []
    lines = [f"== jobs: can `flowtorch export` export them? ({len(jobs.jobs)}) ==", ""]
    for job in jobs.jobs:
        where = f"{job.file}:{job.line}"
        lines.append(f"  {job.name}  ({job.job_type} job at {where})" if job.job_type
                     else f"  {job.name}  (job at {where}; its type is not known statically)")
        lines += wrap.wrap(job.report())
        said = job.because()
        for f in job.findings:
            if f not in said:
                lines += wrap.wrap(("" if f.certain else "maybe: ") + f"{f.reason} ({f.file}:{f.line})")
        for note in job.notes:
            lines += wrap.wrap(f"note: {note}")
    if jobs.dynamic:
        lines.append("  jobs made as the program runs (not checked):")
    for file, line, how in jobs.dynamic:
        lines += wrap.wrap(f"{file}:{line}: {how}")
    counts = {v: f"{sum(job.outcome() == v for job in jobs.jobs)} {text}" for v, text in _OUTCOMES.items()}
    loose = sum(job.outcome() == job_scan.REFUSED and job.outcome(True) == job_scan.APPROXIMATE for job in jobs.jobs)
    if loose:  # the flag that changes them
        counts[job_scan.REFUSED] += f" ({loose} exported approximately with {job_scan.APPROXIMATE_FLAG})"
    dynamic = f"; jobs made as the program runs at {len(jobs.dynamic)} place(s), not checked" if jobs.dynamic else ""
    return [*lines, "", f"flowtorch check: {len(jobs.jobs)} job(s): {', '.join(counts.values())}{dynamic}"]


def to_text(report: Report, notes_for_supported: bool = False, jobs: Jobs | None = None,
            everything: bool = True) -> str:
    """The report for people: the summary first (with the files that could not be checked), then the symbols
    grouped by status (missing first; the supported ones only with ``everything``), each with its note, its
    PyTorch equivalent and where it is used; then the jobs and whether each can be exported."""
    wrap = textwrap.TextWrapper(width=110, initial_indent="    ", subsequent_indent="      ",
                                break_long_words=False, break_on_hyphens=False)
    s = _summary(report)
    lines = [f"flowtorch check: {s['files']} file(s), {s['symbols']} OneFlow symbol(s) in {s['uses']} use(s): "
             f"{s['supported']} supported, {s['partial']} partial, {s['missing']} missing"
             + (f"; {s['errors']} file(s) could not be checked" if s["errors"] else "")
             + (f"; {s['skipped']} skipped (not regular files)" if s["skipped"] else "")]
    job_lines = _jobs_text(jobs, wrap) if jobs is not None else []
    if job_lines:
        lines.append(job_lines[-1])
    for file, why in report.errors:
        lines.append(f"could not check {file}: {why}")
    for file, why in report.skipped:
        lines.append(f"skipped {file}: {why}")
    lines.append("")
    symbols = _by_symbol(report.uses)
    for status in (compat_table.M, compat_table.P, compat_table.S):
        group = {s: u for s, u in symbols.items() if u[0].status == status}
        if not group:
            continue
        if status == compat_table.S and not everything:
            lines += [f"({len(group)} supported symbol(s) not listed: --all lists them)", ""]
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
    lines += job_lines[:-1]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def to_json(report: Report, jobs: Jobs | None = None) -> dict[str, object]:
    """The report for tools (fields: docs/migration/check.md)."""
    jobs = jobs if jobs is not None else Jobs()
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
        "jobs": [{"job": job.name, "file": job.file, "line": job.line, "type": job.job_type,
                  "exports": job.verdict(), "exports_approximately": job.verdict(approximate=True),
                  "outcome": job.outcome(), "outcome_approximately": job.outcome(approximate=True),
                  "report": job.report(),
                  "findings": [{"file": f.file, "line": f.line, "reason": f.reason, "certain": f.certain,
                                "approximate": f.approximate} for f in job.findings],
                  "notes": job.notes} for job in jobs.jobs],
        "dynamic_jobs": [{"file": file, "line": line, "reason": how} for file, line, how in jobs.dynamic],
    }


if __name__ == "__main__":
    sys.exit(main())
