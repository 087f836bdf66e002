"""Cases for core/ops/optimizer.py: the update formulas written out in numpy (float64
references cast back to float32, so the kernels' float32 arithmetic is checked against
exact values)."""
import numpy as np

from . import Case

r = np.random.default_rng(3)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def _sgd_ref(param, grad, lr):
    p, g = param.astype(np.float64), grad.astype(np.float64)
    return (p - float(lr.reshape(())) * g).astype(np.float32)


def _momentum_ref(param, grad, velocity, lr, mu=0.9, use_nesterov=False):
    p, g, v = (a.astype(np.float64) for a in (param, grad, velocity))
    lr = float(lr.reshape(()))
    v_out = mu * v + g
    p_out = p - (g + mu * v_out) * lr if use_nesterov else p - lr * v_out
    return p_out.astype(np.float32), v_out.astype(np.float32)


def _adam_ref(param, grad, lr, m1, m2, b1p, b2p, beta1=0.9, beta2=0.999, epsilon=1e-8):
    p, g, a, b = (x.astype(np.float64) for x in (param, grad, m1, m2))
    lr, p1, p2 = (float(x.reshape(())) for x in (lr, b1p, b2p))
    a = beta1 * a + (1 - beta1) * g
    b = beta2 * b + (1 - beta2) * g * g
    lr_t = lr * np.sqrt(1 - p2) / (1 - p1)
    p = p - lr_t * a / (np.sqrt(b) + epsilon * np.sqrt(1 - p2))
    f = np.float32
    return (p.astype(f), a.astype(f), b.astype(f), (b1p * f(beta1)).astype(f),
            (b2p * f(beta2)).astype(f))


def _lr(v):
    return np.array([v], np.float32)


CASES = {
    "sgd": [Case([f32(3, 4), f32(3, 4), _lr(0.1)], ref=_sgd_ref),
            Case([f32(5), f32(5), np.array(0.5, np.float32)], ref=_sgd_ref, name="0d-lr")],
    "momentum": [
        Case([f32(3, 4), f32(3, 4), f32(3, 4), _lr(0.1)], {"mu": 0.9}, ref=_momentum_ref),
        Case([f32(6), f32(6), f32(6), _lr(0.05)], {"mu": 0.8, "use_nesterov": True},
             ref=_momentum_ref, name="nesterov")],
    "adam": [
        Case([f32(3, 4), f32(3, 4), _lr(0.01), np.zeros((3, 4), np.float32),
              np.zeros((3, 4), np.float32), _lr(0.9), _lr(0.999)], ref=_adam_ref,
             name="first-step"),
        Case([f32(7), f32(7), _lr(0.001), f32(7), f32(7, lo=0.0, hi=0.1), _lr(0.9 ** 3),
              _lr(0.99 ** 3)], {"beta1": 0.9, "beta2": 0.99, "epsilon": 1e-6},
             ref=_adam_ref, name="later-step")],
}


def _adagrad_ref(param, grad, moment, lr, epsilon=1e-6):
    p, g, m = (a.astype(np.float64) for a in (param, grad, moment))
    m = m + g * g
    p = p - float(lr.reshape(())) * g / (np.sqrt(m) + epsilon)
    return p.astype(np.float32), m.astype(np.float32)


def _adamax_ref(param, grad, lr, moment, inf_norm, b1p, beta1=0.9, beta2=0.999, epsilon=1e-8):
    p, g, m, n = (a.astype(np.float64) for a in (param, grad, moment, inf_norm))
    m = beta1 * m + (1 - beta1) * g
    n = np.maximum(beta2 * n + epsilon, np.abs(g))
    p = p - float(lr.reshape(())) / (1 - float(b1p.reshape(()))) * m / n
    f = np.float32
    return p.astype(f), m.astype(f), n.astype(f), (b1p * f(beta1)).astype(f)


def _rmsprop_ref(param, grad, ms, mg, mom, lr, rho=0.95, epsilon=1e-6, momentum=0.0,
                 centered=False):
    p, g, ms, mg, mom = (a.astype(np.float64) for a in (param, grad, ms, mg, mom))
    ms = rho * ms + (1 - rho) * g * g
    if centered:
        mg = rho * mg + (1 - rho) * g
        mom = momentum * mom + float(lr.reshape(())) * g / np.sqrt(ms - mg * mg + epsilon)
    else:
        mom = momentum * mom + float(lr.reshape(())) * g / np.sqrt(ms + epsilon)
    f = np.float32
    return (p - mom).astype(f), ms.astype(f), mg.astype(f), mom.astype(f)


def _lamb_ref(param, grad, lr, m1, m2, b1p, b2p, beta1=0.9, beta2=0.999, epsilon=1e-6,
              weight_decay=0.01):
    p, g, a, b = (x.astype(np.float64) for x in (param, grad, m1, m2))
    a = beta1 * a + (1 - beta1) * g
    b = beta2 * b + (1 - beta2) * g * g
    r_ = (a / (1 - float(b1p.reshape(())))) / (np.sqrt(b / (1 - float(b2p.reshape(()))))
                                              + epsilon) + weight_decay * p
    pn, rn = np.linalg.norm(p), np.linalg.norm(r_)
    ratio = pn / rn if pn > 0 and rn > 0 else 1.0
    p = p - float(lr.reshape(())) * ratio * r_
    f = np.float32
    return (p.astype(f), a.astype(f), b.astype(f), (b1p * f(beta1)).astype(f),
            (b2p * f(beta2)).astype(f))


CASES.update({
    "adagrad": [Case([f32(3, 4), f32(3, 4), f32(3, 4, lo=0.0, hi=1.0), _lr(0.1)],
                     {"epsilon": 1e-6}, ref=_adagrad_ref)],
    "adamax": [
        Case([f32(3, 4), f32(3, 4), _lr(0.01), np.zeros((3, 4), np.float32),
              np.zeros((3, 4), np.float32), _lr(0.9)], ref=_adamax_ref, name="first-step"),
        Case([f32(5), f32(5), _lr(0.002), f32(5), f32(5, lo=0.0, hi=0.5), _lr(0.8 ** 2)],
             {"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6}, ref=_adamax_ref, name="later")],
    "rmsprop": [
        Case([f32(3, 4), f32(3, 4), f32(3, 4, lo=0.0, hi=1.0), np.zeros((3, 4), np.float32),
              f32(3, 4), _lr(0.01)], ref=_rmsprop_ref),
        Case([f32(6), f32(6), f32(6, lo=0.5, hi=1.0), f32(6, lo=-0.1, hi=0.1), f32(6),
              _lr(0.01)], {"rho": 0.9, "momentum": 0.5, "centered": True},
             ref=_rmsprop_ref, name="centered")],
    "lamb": [
        Case([f32(3, 4), f32(3, 4), _lr(0.01), np.zeros((3, 4), np.float32),
              np.zeros((3, 4), np.float32), _lr(0.9), _lr(0.999)], ref=_lamb_ref,
             name="first-step"),
        Case([f32(7), f32(7), _lr(0.001), f32(7), f32(7, lo=0.0, hi=0.1), _lr(0.9 ** 3),
              _lr(0.99 ** 3)], {"beta1": 0.9, "beta2": 0.99, "weight_decay": 0.1},
             ref=_lamb_ref, name="later-step"),
        Case([np.zeros(4, np.float32), f32(4), _lr(0.01), np.zeros(4, np.float32),
              np.zeros(4, np.float32), _lr(0.9), _lr(0.999)], ref=_lamb_ref, name="zero-param")],
})
