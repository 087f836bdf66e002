"""Settings for the whole test suite.

``DY2STATIC_FULL_GRAPH=1``: a declarative function the translator cannot convert raises
instead of running eagerly, so a fallback to eager execution never passes for a conversion.
Tests of the fallback itself pass ``full_graph=False`` explicitly (or change the variable
with ``monkeypatch``).
"""
import os

os.environ["DY2STATIC_FULL_GRAPH"] = "1"
