"""Cases for ``yolo_box`` and ``yolov3_loss`` (core/ops/yolo.py).

The references are scalar loops written from Paddle's definitions of the two ops (its
operator documentation and CPU kernels: box decoding, best-anchor matching, the ignore
threshold, L1 on the log sizes, sigmoid cross entropy elsewhere, label smoothing with
``min(1 / class_num, 1 / 40)``), independent of the vectorised kernels.
"""
import math

import numpy as np

from . import Case

r = np.random.default_rng(17)
ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45]


def _sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def _sce(v, label):
    return max(v, 0.0) - v * label + math.log(1.0 + math.exp(-abs(v)))


def _iou(a, b):
    """Boxes as (cx, cy, w, h)."""
    def overlap(c1, w1, c2, w2):
        return min(c1 + w1 / 2, c2 + w2 / 2) - max(c1 - w1 / 2, c2 - w2 / 2)
    ow, oh = overlap(a[0], a[2], b[0], b[2]), overlap(a[1], a[3], b[1], b[3])
    inter = 0.0 if ow < 0 or oh < 0 else ow * oh
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def yolo_box_ref(x, img_size, anchors=(), class_num=1, conf_thresh=0.01, downsample_ratio=32,
                 clip_bbox=True, scale_x_y=1.0):
    n, _, h, w = x.shape
    na = len(anchors) // 2
    xr = x.reshape(n, na, 5 + class_num, h, w).astype(np.float64)
    boxes = np.zeros((n, na * h * w, 4))
    scores = np.zeros((n, na * h * w, class_num))
    bias = -0.5 * (scale_x_y - 1.0)
    for i in range(n):
        ih, iw = float(img_size[i, 0]), float(img_size[i, 1])
        for a in range(na):
            for k in range(h):
                for col in range(w):
                    e = xr[i, a, :, k, col]
                    conf = _sig(e[4])
                    if conf < conf_thresh:
                        continue
                    bx = (col + _sig(e[0]) * scale_x_y + bias) * iw / w
                    by = (k + _sig(e[1]) * scale_x_y + bias) * ih / h
                    bw = math.exp(e[2]) * anchors[2 * a] * iw / (downsample_ratio * w)
                    bh = math.exp(e[3]) * anchors[2 * a + 1] * ih / (downsample_ratio * h)
                    b = [bx - bw / 2, by - bh / 2, bx + bw / 2, by + bh / 2]
                    if clip_bbox:
                        b = [max(b[0], 0), max(b[1], 0), min(b[2], iw - 1), min(b[3], ih - 1)]
                    j = (a * h + k) * w + col
                    boxes[i, j] = b
                    scores[i, j] = [conf * _sig(v) for v in e[5:]]
    return boxes.astype(x.dtype), scores.astype(x.dtype)


def yolov3_loss_ref(x, gt_box, gt_label, gt_score, anchors=(), anchor_mask=(), class_num=1,
                    ignore_thresh=0.7, downsample_ratio=32, use_label_smooth=True,
                    scale_x_y=1.0):
    n, _, h, w = x.shape
    mn = len(anchor_mask)
    b = gt_box.shape[1]
    xr = x.reshape(n, mn, 5 + class_num, h, w).astype(np.float64)
    gt_score = np.ones((n, b)) if gt_score is None else gt_score
    input_size = downsample_ratio * h
    pos, neg = 1.0, 0.0
    if use_label_smooth:
        e = min(1.0 / class_num, 1.0 / 40)
        pos, neg = 1.0 - e, e
    bias = -0.5 * (scale_x_y - 1.0)
    loss = np.zeros(n)
    obj = np.zeros((n, mn, h, w))
    match = np.zeros((n, b), np.int32)
    for i in range(n):
        valid = [gt_box[i, t, 2] >= 1e-6 and gt_box[i, t, 3] >= 1e-6 for t in range(b)]
        for j in range(mn):
            an = anchor_mask[j]
            for k in range(h):
                for col in range(w):
                    e = xr[i, j, :, k, col]
                    pred = ((col + _sig(e[0]) * scale_x_y + bias) / h,
                            (k + _sig(e[1]) * scale_x_y + bias) / h,
                            math.exp(e[2]) * anchors[2 * an] / input_size,
                            math.exp(e[3]) * anchors[2 * an + 1] / input_size)
                    best = 0.0
                    for t in range(b):
                        if valid[t]:
                            best = max(best, _iou(pred, gt_box[i, t]))
                    if best > ignore_thresh:
                        obj[i, j, k, col] = -1
        for t in range(b):
            if not valid[t]:
                match[i, t] = -1
                continue
            gx, gy, gw, gh = (float(v) for v in gt_box[i, t])
            gi, gj = int(gx * w), int(gy * h)
            best, best_n = 0.0, 0
            for a in range(len(anchors) // 2):
                iou = _iou((0, 0, anchors[2 * a] / input_size, anchors[2 * a + 1] / input_size),
                           (0, 0, gw, gh))
                if iou > best:
                    best, best_n = iou, a
            m = list(anchor_mask).index(best_n) if best_n in anchor_mask else -1
            match[i, t] = m
            if m < 0:
                continue
            score = float(gt_score[i, t])
            e = xr[i, m, :, gj, gi]
            scale = (2.0 - gw * gh) * score
            loss[i] += _sce(e[0], gx * h - gi) * scale + _sce(e[1], gy * h - gj) * scale
            loss[i] += abs(e[2] - math.log(gw * input_size / anchors[2 * best_n])) * scale
            loss[i] += abs(e[3] - math.log(gh * input_size / anchors[2 * best_n + 1])) * scale
            obj[i, m, gj, gi] = score
            for c in range(class_num):
                loss[i] += _sce(e[5 + c], pos if c == gt_label[i, t] else neg) * score
        for j in range(mn):
            for k in range(h):
                for col in range(w):
                    o = obj[i, j, k, col]
                    if o > 1e-5:
                        loss[i] += _sce(xr[i, j, 4, k, col], 1.0) * o
                    elif o > -0.5:
                        loss[i] += _sce(xr[i, j, 4, k, col], 0.0)
    return loss.astype(x.dtype), obj.astype(x.dtype), match


def _gt(n, b, class_num, sizes, empty=()):
    """Ground truths: centres in (0, 1), sizes in ``sizes`` (fractions of the image);
    boxes listed in ``empty`` are padding (all zero)."""
    box = np.concatenate([r.uniform(0.05, 0.95, (n, b, 2)), r.uniform(*sizes, (n, b, 2))],
                         axis=-1).astype(np.float32)
    label = r.integers(0, class_num, (n, b)).astype(np.int32)
    for i, t in empty:
        box[i, t] = 0
        label[i, t] = 0
    return box, label


def _head(n, anchors, classes, h, w):
    return r.uniform(-2, 2, (n, anchors * (5 + classes), h, w)).astype(np.float32)


_box1, _label1 = _gt(2, 6, 3, (0.2, 1.5), empty=[(0, 4), (1, 2)])
_box2, _label2 = _gt(2, 4, 2, (0.5, 1.5))
_box3, _label3 = _gt(1, 4, 4, (0.1, 0.9))

CASES = {
    "yolo_box": [
        Case([_head(2, 3, 2, 3, 3), np.array([[40, 50], [60, 30]], np.int32)],
             {"anchors": ANCHORS[:6], "class_num": 2, "conf_thresh": 0.5,
              "downsample_ratio": 8}, ref=yolo_box_ref, name="clip"),
        Case([_head(1, 2, 3, 2, 4), np.array([[32, 64]], np.int32)],
             {"anchors": ANCHORS[4:8], "class_num": 3, "conf_thresh": 0.3,
              "downsample_ratio": 16, "clip_bbox": False, "scale_x_y": 1.2},
             ref=yolo_box_ref, name="no-clip-scale-xy"),
    ],
    "yolov3_loss": [
        Case([_head(2, 3, 3, 4, 4), _box1, _label1, r.uniform(0.5, 1, (2, 6)).astype(np.float32)],
             {"anchors": ANCHORS, "anchor_mask": [0, 1, 2], "class_num": 3,
              "ignore_thresh": 0.5, "downsample_ratio": 8}, ref=yolov3_loss_ref,
             atol=1e-4, name="smooth-score-padding"),
        Case([_head(2, 2, 2, 3, 3), _box2, _label2, None],
             {"anchors": ANCHORS, "anchor_mask": [3, 4], "class_num": 2, "ignore_thresh": 0.3,
              "downsample_ratio": 16, "use_label_smooth": False}, ref=yolov3_loss_ref,
             atol=1e-4, name="no-smooth-no-score"),
        Case([_head(1, 3, 4, 3, 3), _box3, _label3, None],
             {"anchors": ANCHORS[:6], "anchor_mask": [0, 1, 2], "class_num": 4,
              "ignore_thresh": 0.6, "downsample_ratio": 32, "scale_x_y": 1.05},
             ref=yolov3_loss_ref, atol=1e-4, name="scale-xy"),
    ],
}
