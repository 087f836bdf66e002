"""Fixtures shared by the core tests."""
import pytest

import core


@pytest.fixture
def static_mode():
    """Run the test in static-graph mode, restoring eager mode afterwards."""
    core.enable_static()
    try:
        yield
    finally:
        core.disable_static()
