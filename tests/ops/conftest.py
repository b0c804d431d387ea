import pytest

import flowtorch


@pytest.fixture(autouse=True)
def _fresh_session():
    flowtorch.clear_default_session()
    yield
