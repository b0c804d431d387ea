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
import difflib
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

# Every command, with its one line of the top-level help. The migration tools' modules each have a
# ``main(argv) -> int`` that takes the arguments after the command's name.
COMMANDS = {
    "run": "run a OneFlow 0.x program unedited: its `import oneflow` gets flowtorch (the default)",
    "make-mnist": "write a small synthetic, learnable MNIST-format mnist.npz for flow.data.load_mnist",
    "check": "list the OneFlow symbols programs use, their status in flowtorch, and which jobs export",
    "export": "run a program, then write one of its jobs as a plain PyTorch module and its weights",
    "convert-checkpoint": "convert between OneFlow snapshots and .safetensors / .pt state dicts",
    "plot": "draw a run recorded with flow.watch.to_tensorboard as PNG charts",
}
SUBCOMMANDS = {
    "check": "flowtorch._src.migrate.check_cli",
    "export": "flowtorch._src.migrate.export_cli",
    "convert-checkpoint": "flowtorch._src.migrate.convert_cli",
    "plot": "flowtorch._src.migrate.plot_cli",
}
# The options of a command that take a value (the word after them is no verbosity flag), and how many
# positional arguments it has before the ones that belong to the program it runs (None: all are its own).
_VALUE_OPTIONS = {"export": ("--weights",), "plot": ("--loss", "--tag", "--dpi")}
_OWN_POSITIONALS = {"export": 3}

USAGE = """usage: python -m flowtorch [-v|-q] [run] [--nproc N ...] SCRIPT.py [ARGS...]
       python -m flowtorch [-v|-q] [run] [--nproc N ...] -m MODULE [ARGS...]
       flowtorch [-v|-q] COMMAND [-v|-q] [ARGS...]        (flowtorch COMMAND --help for its options)
       flowtorch --version

commands:
""" + "".join(f"  {name:<20}{line}\n" for name, line in COMMANDS.items()) + """
run: without --nproc, a program that asks for N > 1 devices (flow.config.gpu_device_num(N)) runs in N
     processes, as OneFlow ran it on N devices (docs/distributed.md). With -m MODULE, runs a module as
     `python -m MODULE` would (the current directory first on sys.path). An uncaught exception shows its
     traceback from the program's first frame, without flowtorch's own frames (-v: all of them); exit status 1.

""" + cli_logging.VERBOSITY_USAGE + "\n" + launch.OPTIONS_USAGE


def main(argv: list[str] | None = None) -> int:
    verbosity, args = _verbosity(list(sys.argv[1:] if argv is None else argv))
    floor = logging.WARNING if launch.quiet_rank() else logging.NOTSET  # a launch's notes show once, rank 0's
    try:
        with cli_logging.configured(verbosity, floor):
            status = _main(args, verbosity)
        sys.stdout.flush()  # a closed pipe shows here rather than at the interpreter's exit
        return status
    except BrokenPipeError:
        return _closed_pipe()


def _closed_pipe() -> int:
    """The reader of the output went away (``flowtorch check x.py | head``): leave quietly, as Python's own
    advice has it (docs.python.org, signal module, "Note on SIGPIPE"), with exit status 1."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush of stdout then writes nowhere
    return 1


def _verbosity(args: list[str]) -> tuple[int, list[str]]:
    """The ``-v``/``-q`` flags of the command line as one number, and the arguments without them. They may
    come before the command and anywhere among the command's own arguments, but never among a program's:
    ``run`` and ``python -m flowtorch SCRIPT.py`` take them up to the script (or ``-m MODULE``), ``export``
    up to its OUTDIR; ``convert-checkpoint`` keeps its own ``-q``/``-v`` (they set the logger's level too)."""
    verbosity, args = cli_logging.split_verbosity(args)
    if not args or args[0] in ("--version",):
        return verbosity, args
    command = args[0]
    if command == "convert-checkpoint":
        more, _ = cli_logging.pull_verbosity(args[1:])
        return verbosity + more, args
    if command in SUBCOMMANDS or command == "make-mnist":
        more, rest = cli_logging.pull_verbosity(args[1:], _VALUE_OPTIONS.get(command, ()),
                                                _OWN_POSITIONALS.get(command))
        return verbosity + more, [command, *rest]
    words = args[1:] if command == "run" else args
    more, rest = cli_logging.pull_verbosity(words, launch.VALUE_OPTIONS, 0, ("-m",))
    return verbosity + more, (["run"] if command == "run" else []) + rest


def _usage_error(message: str) -> int:
    print(f"flowtorch: {message} (flowtorch --help shows the usage)", file=sys.stderr)
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
        return _no_script(script)
    if options is not None:
        return launch.launch(options, [*flags, *args])
    if _launched():
        return launch.run_worker(lambda: _run_script(script, args[1:]))
    return _run_on_asked_devices(script, args, flags)


def _no_script(script: str) -> int:
    """``script`` is no file: a mistyped command is told which command it is like (``flowtorch chekc``)."""
    close = difflib.get_close_matches(script, list(COMMANDS), n=1, cutoff=0.6)
    if close and not script.endswith(".py") and os.sep not in script:
        print(f"flowtorch: {script!r} is no command (and no file); did you mean {close[0]!r}? "
              f"Commands: {', '.join(COMMANDS)} (flowtorch --help)", file=sys.stderr)
    else:
        print(f"flowtorch: cannot open {script!r}: no such file", file=sys.stderr)
    return 2


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
        return _usage_error("-m needs a module name")
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
