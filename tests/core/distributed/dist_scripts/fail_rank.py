"""Run under the launcher: the last rank raises while the others wait in a collective that
can never complete; the launcher must end them and name the failing rank."""
import numpy as np

import core
import core.distributed as dist

env = dist.init_parallel_env()
if env.rank == env.nranks - 1:
    raise ValueError(f"rank {env.rank} gives up on purpose")
t = core.to_tensor(np.ones(3, "float32"))
dist.all_reduce(t)
print("unreachable: the all_reduce cannot finish", flush=True)
