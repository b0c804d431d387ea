"""Helpers shared by the tests, importable from any test folder (pyproject's pytest ``pythonpath`` lists
``tests``): :mod:`helpers.ops` builds and checks one-op jobs, :mod:`helpers.data` writes OFRecord datasets and
images, :mod:`helpers.snapshots` hand-writes snapshot files and reads variable values. Fixtures live in
``tests/conftest.py``."""
