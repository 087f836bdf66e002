"""Data-parallel training of eager Layers: ``DataParallel``, and the fluid 1.8 names
``prepare_context``, ``ParallelStrategy`` and ``Env``.

Every process runs the same model on its own shard of the batch. ``DataParallel(layers)``
broadcasts the parameters and persistable buffers from rank 0 when it is built, so all ranks
start equal, and then keeps the gradients equal:

* 2.0 protocol (``loss.backward()``, then the optimizer): the gradients are *averaged during
  backward*. The trainable parameters are grouped into buckets (``last_comm_buffer_size`` MB
  for the first — the parameters used last in forward, whose gradients are ready first —
  then ``comm_buffer_size`` MB each). The tape tells the reducer when a parameter's gradient
  is complete (:func:`core.autograd.register_backward_hook`); when a bucket's gradients are
  all complete they are packed into one buffer and a non-blocking all-reduce starts, while
  the rest of backward runs. At the end of backward the reducer waits for the buckets and
  writes the averages back.
* fluid 1.8 protocol: ``loss = model.scale_loss(loss)`` (the loss divided by the number of
  processes), ``loss.backward()``, ``model.apply_collective_grads()`` (one all-reduce sum of
  the coalesced gradients). Calling ``scale_loss`` switches the model to this protocol, so the
  backward pass leaves the gradients alone.

Either way, N processes on N equal shards end each step with the parameters one process
would have after the same step on the whole batch. Every rank must run backward over the
same parameters in the same order (the same model code on every rank), as the collectives are
matched in order.
"""
from ..autograd import no_grad, register_backward_hook
from ..backend import array_module_of
from ..nn import Layer
from .collective import communicator, init_parallel_env
from .env import ParallelEnv

__all__ = ["DataParallel", "Env", "ParallelStrategy", "prepare_context"]

Env = ParallelEnv


class ParallelStrategy:
    """fluid 1.8's description of the job: ``nranks``, ``local_rank``, ``trainer_endpoints``,
    ``current_endpoint``."""

    def __init__(self):
        env = ParallelEnv()
        self.nranks = env.nranks
        self.local_rank = env.local_rank
        self.trainer_endpoints = env.trainer_endpoints
        self.current_endpoint = env.current_endpoint

    def __repr__(self):
        return f"ParallelStrategy(nranks={self.nranks}, local_rank={self.local_rank})"


def prepare_context(strategy=None):
    """Join the job (``init_parallel_env``) and return its :class:`ParallelStrategy`."""
    if strategy is not None and not isinstance(strategy, ParallelStrategy):
        raise TypeError(f"prepare_context: 'strategy' must be a ParallelStrategy or None, got "
                        f"{type(strategy).__name__}")
    init_parallel_env()
    return ParallelStrategy() if strategy is None else strategy


class _Bucket:
    __slots__ = ("params", "offsets", "size", "dtype", "ready", "buffer", "request")

    def __init__(self, dtype):
        self.params, self.offsets, self.size, self.dtype = [], [], 0, dtype
        self.ready, self.buffer, self.request = 0, None, None


def _make_buckets(params, first_bytes, bytes_each):
    """Parameters in reverse order (the order their gradients tend to become ready) grouped
    into buckets of one dtype and at most about ``first_bytes`` / ``bytes_each`` bytes."""
    buckets, open_by_dtype = [], {}
    for p in reversed(params):
        dt = p._data.dtype
        b = open_by_dtype.get(dt)
        limit = first_bytes if not buckets or b is buckets[0] else bytes_each
        if b is None or (b.params and (b.size + p._data.size) * dt.itemsize > limit):
            b = open_by_dtype[dt] = _Bucket(dt)
            buckets.append(b)
        b.offsets.append(b.size)
        b.params.append(p)
        b.size += p._data.size
    return buckets


def _pack(bucket):
    p0 = bucket.params[0]._data
    xp = array_module_of(p0)
    if bucket.buffer is None or array_module_of(bucket.buffer) is not xp:
        bucket.buffer = xp.empty(bucket.size, bucket.dtype)
    buf = bucket.buffer
    for p, off in zip(bucket.params, bucket.offsets):
        n = p._data.size
        if p._grad is None:
            buf[off:off + n] = 0
        else:
            buf[off:off + n] = p._grad.reshape(-1)
    return buf


def _unpack(bucket, scale):
    buf = bucket.buffer
    if scale != 1.0:
        buf *= buf.dtype.type(scale)
    for p, off in zip(bucket.params, bucket.offsets):
        g = buf[off:off + p._data.size].reshape(p._data.shape)
        if p._grad is None or p._grad.shape != g.shape:
            p._grad = g.copy()
        else:
            p._grad[...] = g


class _Reducer:
    """Averages the gradients of ``params`` bucket by bucket as backward produces them."""

    def __init__(self, comm, params, first_bytes, bytes_each):
        self.comm = comm
        self.buckets = _make_buckets(params, first_bytes, bytes_each)
        self.where = {}
        for b in self.buckets:
            for p in b.params:
                self.where[id(p)] = b
        self.manual = False
        self.active = False
        self.reduced = False
        self.launched = []

    def grad_ready(self, tensor):
        b = self.where.get(id(tensor))
        if b is None or self.manual:
            return
        self.active = True
        b.ready += 1
        if b.ready == len(b.params):
            self._launch(b)
        for other in self.launched:  # let MPI progress the reductions already started
            other.request.test()

    def _launch(self, b):
        b.request = _Request(self.comm.iallreduce_(_pack(b), "sum"))
        self.launched.append(b)

    def backward_end(self):
        if not self.active:
            return
        for b in self.buckets:  # parameters this pass did not reach: reduce what they hold
            if b.request is None:
                self._launch(b)
        scale = 1.0 / self.comm.nranks
        for b in self.launched:
            b.request.wait()
            _unpack(b, scale)
            b.request, b.ready = None, 0
        self.launched = []
        self.active = False
        self.reduced = True


class _Request:
    """A started reduction: ``test()`` drives it, ``wait()`` ends it (MPI or NCCL)."""

    __slots__ = ("req",)

    def __init__(self, req):
        self.req = req

    def test(self):
        t = getattr(self.req, "Test", None)
        return t() if t is not None else False

    def wait(self):
        w = getattr(self.req, "Wait", None)
        return w() if w is not None else self.req.wait()


class DataParallel(Layer):
    """``DataParallel(layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1)``:
    ``layers`` trained by every process of the job with averaged gradients (see the module
    docstring). Calls, ``parameters()`` and ``state_dict()`` go to ``layers``."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: 'layers' must be a Layer, got "
                            f"{type(layers).__name__}")
        if strategy is not None and not isinstance(strategy, ParallelStrategy):
            raise TypeError(f"DataParallel: 'strategy' must be a ParallelStrategy (from "
                            f"prepare_context()) or None, got {type(strategy).__name__}")
        for name, v in (("comm_buffer_size", comm_buffer_size),
                        ("last_comm_buffer_size", last_comm_buffer_size)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                raise ValueError(f"DataParallel: '{name}' must be a positive number of MB, got "
                                 f"{v!r}")
        init_parallel_env()
        self._layers = layers
        comm = communicator()
        self.__dict__["_comm"] = comm
        self.__dict__["_strategy"] = strategy if strategy is not None else ParallelStrategy()
        self._sync_parameters()
        params = [p for p in layers.parameters() if getattr(p, "trainable", True)]
        reducer = _Reducer(comm, params, int(last_comm_buffer_size * 2 ** 20),
                           int(comm_buffer_size * 2 ** 20))
        self.__dict__["_reducer"] = reducer
        if comm.nranks > 1:
            register_backward_hook(reducer)

    @property
    def nranks(self):
        return self._comm.nranks

    def _sync_parameters(self):
        if self._comm.nranks == 1:
            return
        with no_grad():
            for t in self._layers.state_dict().values():
                data = t._data
                if not data.flags.c_contiguous:
                    data = t._data = array_module_of(data).ascontiguousarray(data)
                self._comm.broadcast_(data, 0)

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    def scale_loss(self, loss):
        """fluid 1.8: ``loss`` divided by the number of processes; the gradients of its
        backward pass are summed over the processes by :meth:`apply_collective_grads`."""
        self._reducer.manual = True
        if self._comm.nranks == 1:
            return loss
        return loss * (1.0 / self._comm.nranks)

    def apply_collective_grads(self):
        """fluid 1.8: sum the gradients over the processes (after ``scale_loss`` and
        ``backward``), all parameters of one dtype in one all-reduce. Without ``scale_loss``
        the backward pass has already averaged them; then only gradients not averaged since
        the last call are averaged here."""
        reducer = self._reducer
        if self._comm.nranks == 1:
            return
        if not reducer.manual and reducer.reduced:
            reducer.reduced = False
            return
        groups = {}
        for p in self._layers.parameters():
            if getattr(p, "trainable", True) and p._grad is not None:
                groups.setdefault(p._grad.dtype, []).append(p)
        scale = 1.0 if reducer.manual else 1.0 / self._comm.nranks
        for dt in sorted(groups, key=lambda d: d.name):
            ps = groups[dt]
            xp = array_module_of(ps[0]._grad)
            flat = xp.concatenate([p._grad.reshape(-1) for p in ps])
            self._comm.allreduce_(flat, "sum")
            if scale != 1.0:
                flat *= dt.type(scale)
            off = 0
            for p in ps:
                n = p._grad.size
                p._grad[...] = flat[off:off + n].reshape(p._grad.shape)
                off += n

    # -- state goes to the wrapped layers -------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix=""):
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix)

    def set_dict(self, state_dict, include_sublayers=True, use_structured_name=True):
        return self._layers.set_dict(state_dict, include_sublayers, use_structured_name)

    load_dict = set_dict
    set_state_dict = set_dict

