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


# A static training step of a small conv net (about 10 MB of temporaries: windows, maps and
# their gradients), run 5 times after warming up; print the minor page faults per step.
STATIC_STEPS = """
import resource
import numpy as np
import core
from core import layers, static
from core.mode import static_mode_guard
main, startup = static.Program(), static.Program()
with static.program_guard(main, startup), static_mode_guard():
    img = static.data("img", [None, 1, 28, 28], "float32")
    label = static.data("label", [None, 1], "int64")
    y = core.nn.Conv2D(1, 20, 5, act="relu")(img)
    y = layers.pool2d(y, 2, pool_stride=2)
    pred = layers.fc(y, 10, act="softmax")
    loss = layers.mean(layers.cross_entropy(pred, label))
    core.optimizer.Adam(1e-3).minimize(loss)
exe, scope = static.Executor(core.CPUPlace()), static.Scope()
exe.run(startup, scope=scope)
rng = np.random.default_rng(0)
feed = {"img": rng.uniform(-1, 1, (64, 1, 28, 28)).astype(np.float32),
        "label": rng.integers(0, 10, (64, 1)).astype(np.int64)}
for _ in range(3):
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 5)
"""


def _faults(mode, script=CHURN):
    env = dict(os.environ, **{host_memory.ENV_VAR: mode})
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=root, check=True,
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


@glibc
def test_static_training_steps_reuse_their_buffers_across_runs():
    """The executor's plans free every temporary after its last use; with the tuned
    thresholds the next run gets the same heap memory back, so a warm step faults in
    (almost) no pages: the reuse of buffers across steps that hand-written numpy code gets
    from keeping work arrays."""
    system = _faults("system", STATIC_STEPS)
    if system < 500:
        pytest.skip(f"malloc's defaults took only {system} page faults per step here")
    tuned = _faults("tuned", STATIC_STEPS)
    assert tuned < 50 and tuned < system / 20, f"per step: tuned {tuned}, system {system}"


def test_system_mode_changes_nothing():
    before = host_memory.settings()
    assert host_memory.tune("system") == before


@pytest.mark.parametrize("mode", ["fast", "glibc"])
def test_an_unknown_mode_is_an_error_naming_the_variable(mode):
    with pytest.raises(ValueError, match="DY2STATIC_HOST_MALLOC must be 'tuned' or 'system'"):
        host_memory.tune(mode)
