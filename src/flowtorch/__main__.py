"""``python -m flowtorch script.py args…`` / ``flowtorch run script.py args…``: run a OneFlow program.

The program's ``import oneflow`` (and ``import oneflow.typing as tp`` …) get flowtorch; the script runs
as ``__main__`` with its own ``sys.argv`` and directory on ``sys.path``, as ``python script.py`` would.
``python -m flowtorch -m package.module args…`` runs a module the way ``python -m package.module`` does:
found on ``sys.path`` with the current directory first, run as ``__main__`` inside its package (so its
relative imports work), ``sys.argv[0]`` its file; a package runs its ``__main__`` submodule.
``python -m flowtorch --nproc N script.py args…`` runs it in N processes (``_src/dist/launch.py``).
Without ``--nproc``, a program that asks for N > 1 devices (``flow.config.gpu_device_num(N)``) runs in N
processes too, as OneFlow ran it on N devices: started that way when its source says N
(``_src/migrate/device_scan.py``), else run again that way when a script makes the call
(``dist.group.DevicesRequest``). ``docs/distributed.md`` describes both.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import logging
import os
import runpy
import sys

from flowtorch import __version__
from flowtorch._src import alias, cli_logging, errors
from flowtorch._src.dist import launch
from flowtorch._src.migrate import device_scan

log = logging.getLogger("flowtorch")

USAGE = """usage: python -m flowtorch [-v|-q] [run] [--nproc N ...] SCRIPT.py [ARGS...]
       python -m flowtorch [-v|-q] [run] [--nproc N ...] -m MODULE [ARGS...]
       flowtorch [-v|-q] run [--nproc N ...] SCRIPT.py [ARGS...]
       flowtorch [-v|-q] make-mnist [PATH]
       flowtorch [-v|-q] check|export|convert-checkpoint|plot ...   (flowtorch COMMAND --help)
       flowtorch --version

run:        runs a OneFlow 0.x program unedited: its `import oneflow` gets flowtorch. With -m MODULE,
            runs a module as `python -m MODULE` would (the current directory first on sys.path).
            Without --nproc, a program that asks for N > 1 devices (flow.config.gpu_device_num(N)) runs
            in N processes, as OneFlow ran it on N devices (docs/distributed.md). An uncaught exception
            shows its traceback from the program's first frame (-v: the runner's frames too); exit status 1.
make-mnist: writes a small synthetic, learnable MNIST-format mnist.npz (default ./mnist.npz) for
            flow.data.load_mnist, so examples and tests never need the network.

""" + cli_logging.VERBOSITY_USAGE + "\n" + launch.OPTIONS_USAGE


# The migration tools: each module's ``main(argv) -> int`` takes the arguments after the command's name.
SUBCOMMANDS = {
    "check": "flowtorch._src.migrate.check_cli",
    "export": "flowtorch._src.migrate.export_cli",
    "convert-checkpoint": "flowtorch._src.migrate.convert_cli",
    "plot": "flowtorch._src.migrate.plot_cli",
}


def main(argv: list[str] | None = None) -> int:
    verbosity, args = cli_logging.split_verbosity(list(sys.argv[1:] if argv is None else argv))
    if args and args[0] == "run":  # `flowtorch run -q x.py` as well as `flowtorch -q run x.py`
        more, rest = cli_logging.split_verbosity(args[1:])
        verbosity, args = verbosity + more, ["run", *rest]
    floor = logging.WARNING if launch.quiet_rank() else logging.NOTSET  # a launch's notes show once, rank 0's
    with cli_logging.configured(verbosity, floor):
        return _main(args, verbosity)


def _usage_error(message: str) -> int:
    print(f"flowtorch: {message}\n{USAGE}", file=sys.stderr)
    return 2


def _main(args: list[str], verbosity: int) -> int:
    if args and args[0] == "--version":
        print(f"flowtorch {__version__}")
        return 0
    if args and args[0] in SUBCOMMANDS:
        return int(importlib.import_module(SUBCOMMANDS[args[0]]).main(args[1:]))
    if args and args[0] == "make-mnist":
        return _make_mnist(args[1:])
    if args and args[0] == "run":
        args = args[1:]
    try:
        options, args = launch.split_options(args)
    except errors.UsageError as exc:
        return _usage_error(str(exc))
    if args and args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if not args:
        return _usage_error("give a SCRIPT.py or -m MODULE to run")
    flags = cli_logging.flags_for(verbosity)  # the launched processes' verbosity
    if args[0].startswith("-m"):
        module = args[0][2:] or (args[1] if len(args) > 1 else "")
        rest = args[1:] if args[0] != "-m" else args[2:]
        if options is not None and module:
            return launch.launch(options, [*flags, "-m", module, *rest])
        ask = _module_devices(module) if module and not _launched() else None
        if ask is not None and ask.count is not None and ask.count > 1:
            return _launch_for(ask.count, [*flags, "-m", module, *rest],
                               f"{module} asks for {ask.count} devices ({ask.where})")
        return launch.run_worker(lambda: _run_module(module, rest))
    script = args[0]
    if script.startswith("-"):
        return _usage_error(f"unknown option {script!r}")
    if not os.path.isfile(script):
        print(f"flowtorch: cannot open {script!r}: no such file", file=sys.stderr)
        return 2
    if options is not None:
        return launch.launch(options, [*flags, *args])
    if _launched():
        return launch.run_worker(lambda: _run_script(script, args[1:]))
    return _run_on_asked_devices(script, args, flags)


def _make_mnist(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="flowtorch make-mnist",
        description="Write a small synthetic, learnable MNIST-format mnist.npz (6000 training and 1000 test "
                    "images) for flow.data.load_mnist, so examples and tests never need the network.")
    parser.add_argument("path", nargs="?", default="mnist.npz", metavar="PATH",
                        help="the file to write, or a directory for PATH/mnist.npz (default ./mnist.npz)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed
        return int(exc.code or 0)
    from flowtorch._src.mnist import make_synthetic_mnist  # noqa: PLC0415 - loads numpy for one command
    print(f"wrote {make_synthetic_mnist(args.path, n_train=6000, n_test=1000)}")
    return 0


def _launched() -> bool:
    """This process is one of a launch's (``WORLD_SIZE`` set): its devices are given."""
    return bool(os.environ.get("WORLD_SIZE"))


def _launch_for(count: int, program: list[str], why: str, again: bool = False) -> int:
    log.info("flowtorch: %s: running it %sin %d processes, as `python -m flowtorch --nproc %d` does%s", why,
             "again " if again else "", count, count,
             "; what it printed before that call shows again" if again else " (--nproc 1 runs it in one)")
    return launch.launch(launch.LaunchOptions(nproc=count), program)


def _run_on_asked_devices(script: str, args: list[str], flags: list[str]) -> int:
    """Run ``script`` (started without ``--nproc``) on the devices it asks for: in N processes from the start
    when its source says N > 1; else here, and again in N processes if it asks for N > 1 as it runs (what it
    printed before that call then shows twice)."""
    ask = device_scan.scan_file(script)
    if ask.count is not None and ask.count > 1:
        return _launch_for(ask.count, [*flags, *args], f"{script} asks for {ask.count} devices ({ask.where})")
    from flowtorch._src.dist import group  # noqa: PLC0415 - loads torch: only a run that starts a program needs it
    try:
        with group.relaunch_on_request():
            return launch.run_worker(lambda: _run_script(script, args[1:]))
    except group.DevicesRequest as request:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # what the program printed so far comes before the workers' output
        return _launch_for(request.count, [*flags, *args], f"{script} asked for {request.count} devices "
                           f"({request.call}) as it ran in one process (its source does not say how many)", again=True)


def _module_devices(module: str) -> device_scan.DeviceAsk | None:
    """What a top-level module that is no package asks for in its source, found as ``_run_module`` finds it
    but importing nothing; None for others (a package such as ``pytest``, a submodule). A module's call as it
    runs is not waited for: a runner like pytest would run again what had run before it."""
    if "." in module:
        return None
    spec = importlib.machinery.PathFinder.find_spec(module, [os.getcwd(), *sys.path])
    if spec is None or spec.submodule_search_locations is not None or not (spec.origin or "").endswith(".py"):
        return None
    return device_scan.scan_file(str(spec.origin))


def _run_script(script: str, rest: list[str]) -> int:
    alias.install()
    sys.argv = [script, *rest]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        from flowtorch._src.session import default_session  # noqa: PLC0415 - the session loads torch: only a run that started a program needs it
        default_session().sync()
    return 0


def _run_module(module: str, rest: list[str]) -> int:
    if not module:
        print("flowtorch: -m needs a module name\n" + USAGE, file=sys.stderr)
        return 2
    alias.install()
    cwd = os.getcwd()
    if not sys.path or sys.path[0] not in (cwd, ""):
        sys.path.insert(0, cwd)  # what `python -m` puts first
    missing: ImportError | None = None
    try:
        spec = importlib.util.find_spec(module)
    except ImportError as exc:  # a parent package is missing or failed to import
        spec, missing = None, exc
    if spec is None:
        print(f"flowtorch: No module named {module!r}" + (f" ({missing})" if missing else ""), file=sys.stderr)
        return 1
    sys.argv = [module, *rest]  # run_module puts the module's file in sys.argv[0]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        from flowtorch._src.session import default_session  # noqa: PLC0415 - the session loads torch: only a run that started a program needs it
        default_session().sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
