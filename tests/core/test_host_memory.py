"""core.host_memory: on glibc, importing core keeps freed heap memory mapped, so that the
temporaries an eager step frees are reused by the next step instead of being faulted in
again; DY2STATIC_HOST_MALLOC=system keeps malloc's defaults."""
import os
import platform
import subprocess
import sys

import pytest

import core
from core import host_memory

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")

# Allocate and free arrays of 32 MiB in all (larger than glibc's default trim threshold
# after an 8 MiB chunk), ten times; print the minor page faults that took.
CHURN = """
import resource
import numpy as np
import core
def churn():
    arrays = [np.ones(n << 18, np.float32) for n in (8, 8, 8, 4, 4)]
    del arrays
churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    churn()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode):
    env = dict(os.environ, **{host_memory.ENV_VAR: mode})
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", CHURN], env=env, cwd=root, check=True,
                         capture_output=True, text=True)
    return int(out.stdout.strip())


@glibc
def test_import_raises_the_malloc_thresholds():
    if os.environ.get(host_memory.ENV_VAR, "tuned") == "system":
        pytest.skip("this run asked for malloc's defaults")
    assert core.host_memory.settings() == {"M_MMAP_THRESHOLD": 32 << 20,
                                           "M_TRIM_THRESHOLD": 256 << 20}


@glibc
def test_freed_arrays_are_reused_instead_of_faulted_in_again():
    system = _faults("system")
    if system < 5000:  # e.g. transparent huge pages: nothing to save on this machine
        pytest.skip(f"malloc's defaults took only {system} page faults here")
    tuned = _faults("tuned")
    assert tuned < system / 10, f"tuned: {tuned} page faults, system: {system}"


def test_system_mode_changes_nothing():
    before = host_memory.settings()
    assert host_memory.tune("system") == before


@pytest.mark.parametrize("mode", ["fast", "glibc"])
def test_an_unknown_mode_is_an_error_naming_the_variable(mode):
    with pytest.raises(ValueError, match="DY2STATIC_HOST_MALLOC must be 'tuned' or 'system'"):
        host_memory.tune(mode)
