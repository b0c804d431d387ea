"""What the package is called where it is installed from: the distribution name (the import name stays
``flowtorch``; the name ``flowtorch`` on the package index belongs to another project) and the install hint
for an optional extra."""

from __future__ import annotations

DISTRIBUTION = "flowtorch-oneflow"


def extra_hint(extra: str) -> str:
    """The command that installs ``extra`` (``setup.cfg``'s ``extras_require``)."""
    return f'pip install "{DISTRIBUTION}[{extra}]"'
