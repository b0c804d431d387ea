"""``flowtorch convert-checkpoint SRC DST``: convert between OneFlow snapshots and safetensors / .pt files."""

from __future__ import annotations

import argparse
import sys

from flowtorch._src.errors import ConversionError, SnapshotError
from flowtorch._src.migrate.convert import FORMATS, convert

DESCRIPTION = """\
Convert a checkpoint between a OneFlow snapshot directory (either model-IO era) and a .safetensors or
PyTorch state-dict (.pt/.pth) file. Formats come from the paths: a directory is a snapshot, the file
extension names the others, a DST without extension is a snapshot directory. Values are copied bit for
bit; no pickle code is run on load; DST is never replaced without --force."""

EPILOG = """\
examples:
  flowtorch convert-checkpoint ./snapshot model.safetensors
  flowtorch convert-checkpoint ./snapshot model.safetensors --weights-only   # no optimizer state
  flowtorch convert-checkpoint model.pt ./snapshot_new
  flowtorch convert-checkpoint model.safetensors ./old_snapshot --legacy
  flowtorch convert-checkpoint ./legacy_snapshot model.pt --like ./new_snapshot
  flowtorch convert-checkpoint ./legacy_snapshot model.pt --shapes '{"w": {"shape": [3, 2], "dtype": "float32"}}'
  flowtorch convert-checkpoint exported/model.safetensors ./snapshot   # OneFlow names by exported/oneflow_names.json
  flowtorch convert-checkpoint ./snapshot model.pt --names exported/oneflow_names.json   # the export's attributes
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="flowtorch convert-checkpoint", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("src", metavar="SRC", help="snapshot directory, .safetensors or .pt/.pth file to read")
    p.add_argument("dst", metavar="DST", help="snapshot directory, .safetensors or .pt/.pth file to write")
    p.add_argument("--from", dest="src_format", choices=FORMATS, help="format of SRC (default: from the path)")
    p.add_argument("--to", dest="dst_format", choices=FORMATS, help="format of DST (default: from the path)")
    p.add_argument("--legacy", action="store_true",
                   help="write a legacy snapshot (v0.1-v0.2 model IO: 'out' files, no 'meta')")
    p.add_argument("--like", metavar="OTHER",
                   help="checkpoint whose shapes/dtypes legacy SRC variables take (and every variable it names "
                        "is checked against)")
    p.add_argument("--shapes", metavar="JSON",
                   help='shapes/dtypes as JSON text or a JSON file: {"name": {"shape": [..], "dtype": "float32"}}')
    p.add_argument("--assume-float32-flat", action="store_true",
                   help="read legacy variables that --like/--shapes do not cover as flat float32 vectors (a guess)")
    p.add_argument("--rename-for-torch", action="store_true",
                   help="write keys as Python identifiers (dense1-weight -> dense1_weight), as flowtorch export "
                        "names the attributes")
    names = p.add_mutually_exclusive_group()
    names.add_argument("--names", metavar="JSON",
                       help="rename keys by this names map ({attribute: OneFlow name}, the oneflow_names.json that "
                            "flowtorch export writes); backwards (OneFlow name -> attribute) when SRC is a snapshot. "
                            "Default: the oneflow_names.json beside a weights file SRC converted to a snapshot")
    names.add_argument("--no-names", action="store_true",
                       help="apply no names map (keep the keys of SRC)")
    p.add_argument("--weights-only", action="store_true",
                   help="keep only the model's weights: leave out the optimizer's slots (<var>-momentum, <var>-m, "
                        "<var>-v …) and OneFlow's System-* variables (the train-step counters, the loss scale)")
    p.add_argument("--force", action="store_true", help="replace an existing DST")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    p.add_argument("-v", "--verbose", action="store_true", help="list every variable written")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        result = convert(args.src, args.dst, src_format=args.src_format, dst_format=args.dst_format,
                         legacy=args.legacy, like=args.like, shapes=args.shapes,
                         assume_float32_flat=args.assume_float32_flat, rename_for_torch=args.rename_for_torch,
                         force=args.force, names=False if args.no_names else args.names,
                         weights_only=args.weights_only)
    except (ConversionError, SnapshotError, OSError) as exc:
        print(f"flowtorch convert-checkpoint: error: {exc}", file=sys.stderr)
        return 1
    if args.verbose:
        for v in result.variables:
            renamed = f" -> {v.key}" if v.key != v.name else ""
            print(f"  {v.name}{renamed}: {list(v.shape)} {v.dtype} ({v.nbytes:,} bytes)")
    if not args.quiet:
        print(result.summary())
    return 0
