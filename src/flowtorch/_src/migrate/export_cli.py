"""``flowtorch export [options] SCRIPT JOB OUTDIR [SCRIPT_ARGS…]``: run a OneFlow program, then export one job.

The contract: SCRIPT runs as ``python -m flowtorch SCRIPT SCRIPT_ARGS…`` would run it (``import oneflow``
gives flowtorch, ``__name__ == "__main__"``, its own ``sys.argv``), so its training happens first; then the
job named JOB (the name of its ``@flow.global_function`` function: a top-level name of the script, or
any job the session holds) is exported with the variables as the program left them. With ``--no-main``
the script runs as a module named ``__flowtorch_export__``, skipping its ``if __name__ == "__main__":``
block (export the job as built, e.g. with weights its top level loaded). OUTDIR receives ``model.py``
(torch only, usage at its top), the weights, ``oneflow_names.json``, for a train job ``optimizer.pt`` and,
for a job that reads its data in the body, ``data/`` (``data.make_loader()``). OUTDIR is checked before the
program runs, and its files are replaced only once the new ones are complete (``atomic_write``): a failure,
Ctrl-C or SIGTERM leaves it as it was. JOB is checked before the program runs too, in SCRIPT's source
(``job_scan``: parsed, not run): a name it has no job of is refused, and so is a job whose source certainly
keeps it from export, unless ``--no-check``; the job's outcome (exports exactly / approximately, refused,
or the run decides) is logged with its reasons. Progress goes to the "flowtorch" logger at INFO (``cli_log``).
Exit status: 0 exported, 1 the job cannot be exported or OUTDIR not written, 2 a usage error (no such script
or job, a bad OUTDIR), 130/143 interrupted by Ctrl-C/SIGTERM while exporting. See docs/migration/export.md.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib.util
import logging
import os
import runpy
import signal
import sys
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

from flowtorch._src import alias
from flowtorch._src.dist import launch
from flowtorch._src.migrate import job_scan
from flowtorch._src.migrate.cli_log import progress_lines
from flowtorch._src.migrate.export_target import DATA_PACKAGE, WEIGHT_FORMATS, check_outdir
from flowtorch._src.package import extra_hint

log = logging.getLogger("flowtorch")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flowtorch export", description="Run a OneFlow program (its `import oneflow` gets flowtorch), then "
        "write one of its jobs as a plain PyTorch module: model.py (imports only torch), its weights, the map of "
        "attribute to OneFlow variable names and, for a train job, the optimizer's state.")
    parser.add_argument("script", metavar="SCRIPT", help="the OneFlow program (run as __main__)")
    parser.add_argument("job", metavar="JOB", help="the name of the @flow.global_function job to export")
    parser.add_argument("outdir", metavar="OUTDIR", help="the folder to write (created if missing); a previous "
                        "export there is replaced only once the new one is complete")
    parser.add_argument("script_args", nargs=argparse.REMAINDER, metavar="SCRIPT_ARGS",
                        help="arguments passed to the program (its sys.argv[1:])")
    parser.add_argument("--weights", choices=sorted(WEIGHT_FORMATS), default="safetensors",
                        help="model.safetensors (default) or model.pt (torch.save)")
    parser.add_argument("--approximate-optimizer", action="store_true",
                        help="export lazy row updates (indexed_slices_optimizer_conf) as an update of the rows "
                        "whose gradient is not all zero, where OneFlow updates the rows the batch gathered "
                        "(otherwise they are refused)")
    parser.add_argument("--no-main", action="store_true",
                        help="run the program under another __name__, skipping its `if __name__ == \"__main__\":`")
    parser.add_argument("--force", action="store_true",
                        help="write into an OUTDIR that holds other files (not a previous export); they are kept")
    parser.add_argument("--no-check", action="store_true",
                        help="run the program even when its source shows no job JOB, or a job that cannot be "
                        "exported (the check before the run reads the source; it cannot see what the run makes)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse exits 2 on a usage error, 0 for --help
        return int(exc.code or 0)
    if not os.path.isfile(args.script):
        print(f"flowtorch export: error: SCRIPT: cannot open {args.script!r}: no such file", file=sys.stderr)
        return 2
    try:  # before the program runs: its training must not be lost to a bad OUTDIR
        folder = check_outdir(args.outdir, force=args.force, script=args.script)
    except (ValueError, OSError) as exc:
        print(f"flowtorch export: error: {exc}", file=sys.stderr)
        return 2
    if args.weights == "safetensors" and importlib.util.find_spec("safetensors") is None:
        print("flowtorch export: error: writing model.safetensors needs the safetensors package: "
              f"{extra_hint('export')} (or pass --weights torch)", file=sys.stderr)
        return 2
    with progress_lines():
        return _run_and_export(args, folder)


def _run_and_export(args: argparse.Namespace, folder: str) -> int:
    status = _check_job(args)
    if status:
        return status
    from flowtorch._src.migrate.export import export  # noqa: PLC0415 - the checks above load no torch

    log.info("flowtorch export: running %s", " ".join([args.script, *args.script_args]))
    start = time.monotonic()
    status, scope = _run(args.script, args.script_args, "__flowtorch_export__" if args.no_main else "__main__")
    if status:
        return status
    log.info("flowtorch export: %s ran in %.1f s", args.script, time.monotonic() - start)
    job = _find_job(scope, args.job)
    if job is None:
        return 2
    log.info("flowtorch export: exporting job %r: building its torch module, then writing %s", job.name, args.outdir)
    with _sigterm_as_interrupt() as terminated:
        try:  # the folder checked above: the program may have changed the working directory
            module = export(job, folder, weights=args.weights, exact_optimizer=not args.approximate_optimizer,
                            force=args.force)
        except NotImplementedError as exc:
            print(f"flowtorch export: {str(exc).removeprefix('flowtorch.export: ')}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"flowtorch export: error: cannot write OUTDIR {args.outdir!r}, left as it was: {exc}",
                  file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            name, signum = ("SIGTERM", signal.SIGTERM) if terminated else ("Ctrl-C", signal.SIGINT)
            print(f"flowtorch export: interrupted by {name}; OUTDIR {args.outdir!r} holds no partial export",
                  file=sys.stderr)
            return 128 + signum
    files = ["model.py", WEIGHT_FORMATS[args.weights], "oneflow_names.json"]
    if getattr(module, "optimizer", None) is not None:
        files.append("optimizer.pt")
    if job.feed is not None:
        files.append(f"{DATA_PACKAGE}/ (the job's data pipeline: data.make_loader())")
    # the generated class's own dict (attribute → OneFlow name); nn.Module.__getattr__ is typed for tensors and modules
    variables = len(module.oneflow_names)  # type: ignore[arg-type]
    print(f"exported job {job.name!r} ({job.job_type}, {variables} variables) to {args.outdir}: {', '.join(files)}")
    return 0


def _check_job(args: argparse.Namespace) -> int:
    """JOB, checked in SCRIPT's source before the program runs (its training must not be lost to a typo):
    2 when the source shows all the jobs the program makes and none is JOB, 1 when JOB's source certainly
    keeps it from export, else 0 (the run goes ahead; what could not be told is logged)."""
    if args.no_check:
        log.info("flowtorch export: --no-check: JOB %r is looked for after the run only", args.job)
        return 0
    try:
        scan = job_scan.scan_program(args.script)
    except (OSError, SyntaxError, ValueError, RecursionError) as exc:
        log.info("flowtorch export: JOB %r not checked before the run: %s cannot be parsed (%s)", args.job,
                 args.script, exc)
        return 0
    job = scan.find(args.job)
    if job is None:
        unsure = [how for _, _, how in scan.dynamic] + [f"{file} could not be read" for file, _ in scan.errors]
        if unsure:
            log.info("flowtorch export: JOB %r is none of the jobs in the source (%s), and could not be checked "
                     "before the run: %s", args.job, ", ".join(map(repr, scan.names())) or "none",
                     "; ".join(unsure[:3]))
            return 0
        close = difflib.get_close_matches(args.job, scan.names(), n=1)
        print(f"flowtorch export: error: JOB: the program has no job named {args.job!r} (found in its source before "
              f"running it); its jobs are {', '.join(map(repr, scan.names())) or 'none'} (a job is named after its "
              "function)" + (f"; did you mean {close[0]!r}?" if close else ""), file=sys.stderr)
        return 2
    shown = (f"flowtorch export: job {job.name!r} ({job.file}:{job.line}), as its source shows before the program "
             f"runs: {job.report(args.approximate_optimizer)}")
    if job.outcome(args.approximate_optimizer) == job_scan.REFUSED:
        print(f"{shown} (--no-check runs the program anyway)", file=sys.stderr)
        return 1
    # a finding on some paths of the build is no warning: the export after the run names what the run took
    log.info("%s", shown)
    return 0


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[list[int]]:
    """SIGTERM is handled as Ctrl-C for the block (the list records it), so the export's temporary files are
    removed and its final moves are never cut in half (``atomic_write`` holds SIGINT during them)."""
    received: list[int] = []

    def handle(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        signal.raise_signal(signal.SIGINT)

    try:
        previous = signal.signal(signal.SIGTERM, handle)
    except ValueError:  # not the main thread: signals go to the main thread's handlers anyway
        yield received
        return
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(script: str, rest: list[str], run_name: str) -> tuple[int, dict[str, Any]]:
    """Run the program the way ``python -m flowtorch`` does; its exit status (0 if it ran through) and globals."""
    from flowtorch._src.session import default_session  # noqa: PLC0415 - `flowtorch export --help` loads no torch

    had_alias = alias.installed()
    alias.install()
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *rest]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        scope = runpy.run_path(script, run_name=run_name)
    except Exception as exc:  # the program failed: its traceback, from its first frame, as `flowtorch run` shows it
        return launch.report_program_error(exc), {}
    except SystemExit as exc:  # a program that ends with sys.exit(0) ran through; its jobs are in the session
        if exc.code not in (None, 0):
            print(f"flowtorch export: {script} exited with status {exc.code}", file=sys.stderr)
            return int(exc.code) if isinstance(exc.code, int) else 1, {}
        scope = {}
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if not had_alias:  # main() called in a process of its own keeps `import oneflow` as it was
            alias.uninstall()
    default_session().sync()
    return 0, scope


def _find_job(scope: dict[str, Any], name: str) -> Any:
    from flowtorch._src.session import Job, default_session  # noqa: PLC0415 - as in _run

    found = scope.get(name)
    if isinstance(found, Job):
        return found
    jobs = default_session().jobs
    for job in jobs.values():
        if name in (job.key, job.name):
            return job
    known = sorted({job.name for job in jobs.values()} | {k for k, v in scope.items() if isinstance(v, Job)})
    print(f"flowtorch export: error: JOB: the program has no job named {name!r}; its jobs are "
          f"{', '.join(map(repr, known)) or 'none'} (a job is named after its function)", file=sys.stderr)
    return None
