"""Rewrite ``src/flowtorch/_src/migrate/public_names.json``, the index of flowtorch's public names that
``flowtorch check`` ships with, from this checkout's ``src`` (it imports flowtorch, hence torch).

Usage: ``python scripts/write_names_index.py``. Run it when flowtorch's public names change;
``tests/migrate/test_check_table.py::test_shipped_index_matches_a_live_build`` fails until then.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
INDEX_FILE = SRC / "flowtorch" / "_src" / "migrate" / "public_names.json"
# this checkout's flowtorch, not an installed one: the index describes the source it is shipped with
sys.path.insert(0, str(SRC))

from flowtorch._src.migrate import names_index  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/write_names_index.py", description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)  # --help exits here, before anything is written
    if not Path(names_index.__file__).resolve().is_relative_to(SRC):
        print(f"write_names_index: flowtorch was imported from {names_index.__file__}, not from {SRC}",
              file=sys.stderr)
        return 1
    INDEX_FILE.write_text(names_index.render_index(names_index.build_index()), encoding="utf-8")
    print(f"wrote {INDEX_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
