"""``flowtorch plot RUN OUTDIR``: PNG charts of a run recorded with ``flow.watch.to_tensorboard``."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """Draw a recorded run (the TensorBoard log directory a flow.watch.to_tensorboard writer wrote) as
PNG charts in OUTDIR: the loss curve (loss.png), one six-panel chart per watched tag (stats-<tag>.png:
mean, L2 norm, min/max, fraction of zeros, distribution, last histogram), one curve per other scalar
(scalar-<tag>.png), and index.html showing them all. Needs the viz extra: pip install "flowtorch-oneflow[viz]"."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flowtorch plot", description=DESCRIPTION)
    parser.add_argument("run", metavar="RUN", help="the TensorBoard log directory of the run")
    parser.add_argument("outdir", metavar="OUTDIR", help="where the PNGs and index.html go (created)")
    parser.add_argument("--loss", default=None, metavar="TAG",
                        help="the loss's tag: a scalar, or a watched tag whose mean is taken (default: loss)")
    parser.add_argument("--tag", action="append", default=None, metavar="PATTERN", dest="patterns",
                        help="draw only the tags matching this fnmatch pattern (repeatable); the loss is always drawn")
    parser.add_argument("--dpi", type=int, default=100, help="resolution of the PNGs (default 100)")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.dpi <= 0:
        print(f"flowtorch plot: --dpi must be a positive integer; received {args.dpi}", file=sys.stderr)
        return 2
    try:
        from flowtorch._src.migrate.plot import plot_run  # noqa: PLC0415 - matplotlib and tensorboard are optional
        result = plot_run(args.run, args.outdir, loss_tag=args.loss or "loss", patterns=args.patterns,
                          dpi=args.dpi, loss_required=args.loss is not None)
    except ImportError as exc:
        print(f"flowtorch plot: {exc}", file=sys.stderr)
        return 1
    except (FileNotFoundError, NotADirectoryError, KeyError) as exc:
        print(f"flowtorch plot: {exc.args[0] if len(exc.args) == 1 else exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # OUTDIR cannot be created or written
        print(f"flowtorch plot: error: {exc}", file=sys.stderr)
        return 1
    for note in result.notes:
        print(f"flowtorch plot: {note}", file=sys.stderr)
    for path in result.written:
        print(path)
    return 0 if result.written else 1
