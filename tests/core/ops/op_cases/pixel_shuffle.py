"""Cases for ``pixel_shuffle``: the reference writes every output element from its definition
``out[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w]`` (NHWC: channels
last, the same channel order)."""
import itertools

import numpy as np

from . import Case

r = np.random.default_rng(21)


def f32(*shape):
    return r.uniform(-1.0, 1.0, shape).astype(np.float32)


def shuffle_ref(x, upscale_factor=1, data_format="NCHW"):
    k = upscale_factor
    nhwc = data_format == "NHWC"
    xc = x.transpose(0, 3, 1, 2) if nhwc else x
    n, cin, h, w = xc.shape
    out = np.empty((n, cin // (k * k), h * k, w * k), x.dtype)
    for b, c, y, z, i, j in itertools.product(range(n), range(cin // (k * k)), range(h),
                                              range(w), range(k), range(k)):
        out[b, c, y * k + i, z * k + j] = xc[b, c * k * k + i * k + j, y, z]
    return out.transpose(0, 2, 3, 1) if nhwc else out


CASES = {
    "pixel_shuffle": [
        Case([f32(2, 8, 2, 3)], {"upscale_factor": 2}, ref=shuffle_ref, name="nchw"),
        Case([f32(1, 2, 3, 18)], {"upscale_factor": 3, "data_format": "NHWC"},
             ref=shuffle_ref, name="nhwc"),
        Case([f32(2, 3, 2, 2)], {"upscale_factor": 1}, ref=shuffle_ref, name="identity"),
    ],
}
