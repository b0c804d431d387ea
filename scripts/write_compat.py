"""Regenerate ``docs/compat.md`` from the table, ``src/flowtorch/_src/migrate/compat_table.txt``.

Usage: ``python scripts/write_compat.py [PATH]`` (PATH defaults to this checkout's docs/compat.md). Run it
after editing the table; ``tests/migrate/test_check_table.py`` fails until the two agree. A maintainer's
step: ``flowtorch check`` only reads the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
# this checkout's table, not an installed flowtorch's (compat_doc is stdlib only: no torch is loaded)
sys.path.insert(0, str(SRC))

from flowtorch._src.migrate import compat_doc  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/write_compat.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default=str(ROOT / "docs" / "compat.md"), metavar="PATH",
                        help="the file to write (default: %(default)s); its folder must exist")
    args = parser.parse_args(argv)
    try:
        print(f"wrote {compat_doc.write(args.path)}")
    except FileNotFoundError as exc:
        print(f"write_compat: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
