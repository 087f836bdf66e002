"""Random convolution + max-pool geometries through the ``fuse_conv`` pass (fixed seed): a
training program run with the passes and without gives the same loss and parameters (one of
them before the convolution, so its input gradient counts too), whether the pair became
``conv2d_pool2d_fusion`` (the windows tile the map) or not (the ReLU moves into
``relu_pool2d``, or nothing fuses)."""
import numpy as np
import pytest

import core
from core import layers, static
from core.mode import static_mode_guard
from core.static import passes

from .test_passes import OFF, _run


def _configs(count, seed=20261126):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        c = int(rng.choice([1, 2, 4]))
        k = int(rng.integers(1, 4))
        stride, pad = int(rng.integers(1, 3)), int(rng.integers(0, 3))
        dil = int(rng.integers(1, 3))
        h, w = (int(v) for v in rng.integers(k * dil + 1, 12, 2))
        oh = (h + 2 * pad - dil * (k - 1) - 1) // stride + 1
        ow = (w + 2 * pad - dil * (k - 1) - 1) // stride + 1
        tiles = [p for p in (2, 3) if oh % p == 0 and ow % p == 0]
        # mostly tiling windows; sometimes windows that do not tile (stride 1 overlaps)
        if min(oh, ow) < 2:
            size, pstride = 1, None  # 1x1 windows: they tile any map
        elif tiles and rng.random() < 0.75:
            size, pstride = int(rng.choice(tiles)), None
        else:
            size, pstride = 2, 1
        out.append(dict(n=int(rng.choice([1, 3])), c=c, h=h, w=w, m=int(rng.integers(1, 5)),
                        k=k, stride=stride, pad=pad, dil=dil, size=size,
                        pstride=pstride or size, act=[None, "relu"][int(rng.integers(0, 2))],
                        nhwc=bool(rng.random() < 0.3)))
    return out


def _program(cfg):
    main, startup = static.Program(), static.Program()
    fmt = "NHWC" if cfg["nhwc"] else "NCHW"
    shape = [None, cfg["h"], cfg["w"], cfg["c"]] if cfg["nhwc"] else \
        [None, cfg["c"], cfg["h"], cfg["w"]]
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", shape, "float32")
        # a parameter before the convolution: its gradient needs the conv's input gradient
        x = img * layers.create_parameter([1], "float32")
        y = layers.conv2d(x, cfg["m"], cfg["k"], stride=cfg["stride"], padding=cfg["pad"],
                          dilation=cfg["dil"], act=cfg["act"], data_format=fmt)
        z = layers.pool2d(y, cfg["size"], pool_stride=cfg["pstride"], data_format=fmt)
        loss = layers.mean(z * z)
        core.optimizer.SGD(0.5).minimize(loss)
    return main, startup, shape, [loss] + [p.name for p in main.all_parameters()]


def _id(c):
    return "{n}x{c}x{h}x{w}-k{k}s{stride}p{pad}d{dil}-pool{size}/{pstride}-{act}-{nhwc}".format(
        **c)


@pytest.mark.parametrize("cfg", _configs(24), ids=_id)
def test_random_conv_pool_geometries_agree_with_the_passes_off(cfg):
    main, startup, shape, fetch = _program(cfg)
    names = [f if isinstance(f, str) else f.name for f in fetch]
    opt = passes.optimize(main, ["img"], names)[0]
    fused = "conv2d_pool2d_fusion" in [op.type for op in opt.global_block().ops]
    assert fused == (cfg["size"] == cfg["pstride"])
    shape = [cfg["n"]] + shape[1:]
    x = np.random.default_rng(cfg["h"] * 31 + cfg["w"]).uniform(-1, 1, shape).astype(np.float32)
    on = _run(main, {"img": x}, fetch, startup=startup, steps=2)
    off = _run(main, {"img": x}, fetch, OFF, startup=startup, steps=2)
    for a, b in zip(on, off):
        for u, v in zip(a, b):
            np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-5)
