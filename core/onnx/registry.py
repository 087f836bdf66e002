"""Which Program ops export to ONNX, and how: one small mapper function per op type.

A mapper is ``fn(g, v) -> {output slot: ONNX name or list of names}``: ``g`` is the
:class:`~core.onnx.graph.Graph` it appends nodes to, ``v`` the op's
:class:`~core.onnx.graph.OpView`. Register it with ``@mapper("op_type", ...)`` in the family
module beside its siblings (``core/onnx/ops_*.py``).

Every registered op is either mapped or listed in :data:`NOT_EXPORTABLE` with the reason;
``tests/core/onnx/test_onnx_ops.py`` fails for an op in neither, and for a mapped op without an
onnxruntime check. A new op that can appear in an inference program gets a mapper and a
test case; one that cannot (a gradient, optimizer or training-only op) gets a line here.
"""
__all__ = ["ExportError", "MAPPERS", "NOT_EXPORTABLE", "mapper"]

MAPPERS = {}

#: op type -> why it has no ONNX mapping (the export error repeats the reason)
NOT_EXPORTABLE = {
    "adam": "optimizer update (training only)",
    "momentum": "optimizer update (training only)",
    "sgd": "optimizer update (training only)",
    "adagrad": "optimizer update (training only)",
    "adamax": "optimizer update (training only)",
    "rmsprop": "optimizer update (training only)",
    "lamb": "optimizer update (training only)",
    "grad_sum": "sums gradient contributions (backward programs only)",
    "conv2d_fusion": "fused op of eager layers only; static programs hold conv2d + bias + act",
    "gaussian_random": "random sampling: ONNX's generators cannot reproduce the executor's draws",
    "uniform_random": "random sampling: ONNX's generators cannot reproduce the executor's draws",
    "uniform_random_tensor": "random sampling: ONNX's generators cannot reproduce the "
                             "executor's draws",
    "gaussian_random_tensor": "random sampling: ONNX's generators cannot reproduce the "
                              "executor's draws",
    "truncated_gaussian_random": "random sampling (parameter initialisation, startup programs)",
    "fc": "made by the executor's optimisation passes on its private clone; saved and "
          "exported programs hold the unfused mul / matmul, elementwise_add and activation",
    "fused_elementwise": "made by the executor's optimisation passes on its private clone; "
                         "exported programs hold the unfused elementwise ops",
    "conv2d_pool2d_fusion": "made by the executor's optimisation passes on its private clone; "
                            "exported programs hold conv2d, elementwise_add, relu and pool2d",
    "relu_pool2d": "made by the executor's optimisation passes on its private clone; exported "
                   "programs hold relu and pool2d",
    "linear_chain_crf": "a training loss (the CRF's negative log-likelihood); inference "
                        "programs decode with crf_decoding",
    "yolov3_loss": "a training loss (YOLOv3's); inference programs decode the head with "
                   "yolo_box",
    "chunk_eval": "an evaluation metric over Python-side chunk sets, not an inference op",
    "c_allreduce_sum": "collective across processes (data-parallel training programs only)",
    "c_allreduce_max": "collective across processes (data-parallel training programs only)",
    "c_allreduce_min": "collective across processes (data-parallel training programs only)",
    "c_allreduce_prod": "collective across processes (data-parallel training programs only)",
    "c_broadcast": "collective across processes (data-parallel training programs only)",
    "c_allgather": "collective across processes (data-parallel training programs only)",
    "inverse": "ONNX's default domain has no matrix inverse (onnxruntime's is a contrib op)",
}


def mapper(*op_types):
    """Decorator registering ``fn`` as the ONNX mapper of ``op_types``."""
    def register(fn):
        for t in op_types:
            if t in MAPPERS:
                raise ValueError(f"op '{t}' has two ONNX mappers")
            if t in NOT_EXPORTABLE:
                raise ValueError(f"op '{t}' is mapped and listed in NOT_EXPORTABLE")
            MAPPERS[t] = fn
        return fn

    return register


class ExportError(ValueError):
    """A Program that cannot be written as ONNX: the message names the op and, when the op
    records one, the user's source line."""
