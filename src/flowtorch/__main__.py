"""``python -m flowtorch script.py args…`` / ``flowtorch run script.py args…``: run a OneFlow program.

The program's ``import oneflow`` (and ``import oneflow.typing as tp`` …) get flowtorch; the script runs
as ``__main__`` with its own ``sys.argv`` and directory on ``sys.path``, as ``python script.py`` would.
"""

from __future__ import annotations

import os
import runpy
import sys

USAGE = """usage: python -m flowtorch [run] SCRIPT.py [ARGS...]
       flowtorch run SCRIPT.py [ARGS...]
       flowtorch make-mnist [PATH]

run:        runs a OneFlow 0.x program unedited: its `import oneflow` gets flowtorch.
make-mnist: writes a small synthetic, learnable MNIST-format mnist.npz (default ./mnist.npz) for
            flow.data.load_mnist, so examples and tests never need the network."""


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "make-mnist":
        from flowtorch._src.mnist import make_synthetic_mnist
        path = make_synthetic_mnist(args[1] if len(args) > 1 else "mnist.npz", n_train=6000, n_test=1000)
        print(f"wrote {path}")
        return 0
    if args and args[0] == "run":
        args = args[1:]
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else 2
    script = args[0]
    if not os.path.isfile(script):
        print(f"flowtorch: cannot open {script!r}: no such file", file=sys.stderr)
        return 2
    from flowtorch._src import alias
    alias.install()
    sys.argv = [script, *args[1:]]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        from flowtorch._src.session import default_session
        default_session().sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
