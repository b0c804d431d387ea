import sys
from pathlib import Path

import pytest

import flowtorch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ops"))  # shared helpers: oputil


@pytest.fixture(autouse=True)
def _fresh_session():
    flowtorch.clear_default_session()
    yield
