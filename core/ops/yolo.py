"""YOLOv3 detection head ops, as Paddle defines them: ``yolo_box`` (decoding, inference) and
``yolov3_loss`` (training).

The head's output ``X`` is ``[N, A * (5 + class_num), H, W]``: for each of ``A`` anchors and
each grid cell ``(k, l)`` the entries ``tx, ty, tw, th, objectness, class logits``. A cell
predicts the box (normalised to the image)

    x = (l + sigmoid(tx) * s - (s - 1) / 2) / grid,  w = exp(tw) * anchor_w / input_size

(``s = scale_x_y``, ``input_size = downsample_ratio * H``; likewise y and h).

``yolov3_loss`` (per sample, summed): each valid ground-truth box (``w, h >= 1e-6``) is
matched to the anchor of best IoU when both are centred at the origin; when that anchor is in
``anchor_mask`` the cell holding the box's centre gets the location loss (sigmoid cross
entropy on ``tx, ty`` against the centre's offset in the cell, L1 on ``tw, th`` against the
log size ratio, weighted by ``(2 - w * h) * score``) and the class loss (sigmoid cross entropy
against the one-hot label, smoothed to ``1 - e, e`` with ``e = min(1 / class_num, 1 / 40)``
when ``use_label_smooth``, weighted by ``score``). Objectness: matched cells are positives
with weight ``score``; cells whose predicted box overlaps some ground truth with IoU above
``ignore_thresh`` are ignored; every other cell is a negative. ``ObjectnessMask`` (the
weights, -1 for ignored) and ``GTMatchMask`` (the mask index of each box's anchor, -1 when
none) are outputs. The matching and the ignore decision are constants for the gradient,
which reaches ``X`` only.
"""
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["yolo_box", "yolov3_loss"]


def _sigmoid(xp, x):
    return 1 / (1 + xp.exp(-x))


def _sce(xp, x, label):
    """Sigmoid cross entropy, in Paddle's stable form."""
    return xp.maximum(x, 0) - x * label + xp.log1p(xp.exp(-xp.abs(x)))


def _check_head(who, shape, n_anchor, class_num):
    if len(shape) != 4:
        raise ShapeError(f"{who}: X must be 4-D [N, C, H, W], got shape {list(shape)}")
    if class_num < 1:
        raise ShapeError(f"{who}: class_num must be >= 1, got {class_num}")
    want = n_anchor * (5 + class_num)
    if shape[1] >= 0 and shape[1] != want:
        raise ShapeError(f"{who}: X must have {want} channels ({n_anchor} anchors x "
                         f"(5 + class_num={class_num})), got shape {list(shape)}")


def _anchor_pairs(who, anchors):
    if len(anchors) % 2 or not anchors:
        raise ShapeError(f"{who}: anchors must be a non-empty list of (w, h) pairs, got "
                         f"{list(anchors)}")
    return [(anchors[2 * i], anchors[2 * i + 1]) for i in range(len(anchors) // 2)]


def _decode(xp, xr, anchors_wh, input_size, scale_x_y):
    """``(cx, cy, w, h)`` ``[N, A, H, W]`` in units of the image (0..1) from ``xr``
    ``[N, A, 5 + classes, H, W]``; ``anchors_wh`` ``[A, 2]`` in pixels."""
    h, w = xr.shape[3:]
    bias = -0.5 * (scale_x_y - 1.0)
    col = xp.arange(w, dtype=xr.dtype)[None, None, None, :]
    row = xp.arange(h, dtype=xr.dtype)[None, None, :, None]
    cx = (col + _sigmoid(xp, xr[:, :, 0]) * scale_x_y + bias) / w
    cy = (row + _sigmoid(xp, xr[:, :, 1]) * scale_x_y + bias) / h
    aw = (anchors_wh[:, 0] / input_size[1])[None, :, None, None]
    ah = (anchors_wh[:, 1] / input_size[0])[None, :, None, None]
    return cx, cy, xp.exp(xr[:, :, 2]) * aw, xp.exp(xr[:, :, 3]) * ah


@register_op
class yolo_box(OpDef):
    """Decode a YOLOv3 head into boxes ``[N, A*H*W, 4]`` (``x1, y1, x2, y2`` in pixels of
    each image, ``ImgSize`` ``[N, 2]`` = height, width) and scores ``[N, A*H*W, class_num]``
    (objectness times class probability). Cells whose objectness is below ``conf_thresh``
    give zeros; ``clip_bbox`` clips boxes to the image."""

    inputs = ("X", "ImgSize")
    outputs = ("Boxes", "Scores")
    attrs = {"anchors": [], "class_num": 1, "conf_thresh": 0.01, "downsample_ratio": 32,
             "clip_bbox": True, "scale_x_y": 1.0}
    differentiable = False

    def infer(self, x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
              scale_x_y):
        pairs = _anchor_pairs("yolo_box", anchors)
        _check_head("yolo_box", x.shape, len(pairs), class_num)
        if len(img_size.shape) != 2 or img_size.shape[1] not in (2, -1):
            raise ShapeError(f"yolo_box: ImgSize must be [N, 2] (height, width), got "
                             f"{list(img_size.shape)}")
        n, _, h, w = x.shape
        m = -1 if min(h, w) < 0 else len(pairs) * h * w
        return Meta((n, m, 4), x.dtype), Meta((n, m, class_num), x.dtype)

    def forward(self, ctx, x, img_size, anchors, class_num, conf_thresh, downsample_ratio,
                clip_bbox, scale_x_y):
        xp = ctx.xp
        pairs = _anchor_pairs("yolo_box", anchors)
        _check_head("yolo_box", x.shape, len(pairs), class_num)
        n, _, h, w = x.shape
        xr = x.reshape(n, len(pairs), 5 + class_num, h, w)
        input_size = (downsample_ratio * h, downsample_ratio * w)
        cx, cy, bw, bh = _decode(xp, xr, xp.asarray(pairs, dtype=x.dtype), input_size,
                                 scale_x_y)
        img_h = img_size[:, 0].astype(x.dtype)[:, None, None, None]
        img_w = img_size[:, 1].astype(x.dtype)[:, None, None, None]
        conf = _sigmoid(xp, xr[:, :, 4])
        keep = conf >= conf_thresh
        x1, y1 = (cx - bw / 2) * img_w, (cy - bh / 2) * img_h
        x2, y2 = (cx + bw / 2) * img_w, (cy + bh / 2) * img_h
        if clip_bbox:
            x1, y1 = xp.maximum(x1, 0), xp.maximum(y1, 0)
            x2, y2 = xp.minimum(x2, img_w - 1), xp.minimum(y2, img_h - 1)
        boxes = xp.stack([x1, y1, x2, y2], axis=-1) * keep[..., None]
        scores = _sigmoid(xp, xr[:, :, 5:]) * (conf * keep)[:, :, None]
        scores = scores.transpose(0, 1, 3, 4, 2)
        return (boxes.reshape(n, -1, 4).astype(x.dtype, copy=False),
                scores.reshape(n, -1, class_num).astype(x.dtype, copy=False))


def _iou_centered(xp, ax, ay, aw, ah, bx, by, bw, bh):
    """IoU of boxes given by centre and size (broadcasting), Paddle's ``CalcBoxIoU``."""
    ow = xp.minimum(ax + aw / 2, bx + bw / 2) - xp.maximum(ax - aw / 2, bx - bw / 2)
    oh = xp.minimum(ay + ah / 2, by + bh / 2) - xp.maximum(ay - ah / 2, by - bh / 2)
    inter = xp.where((ow < 0) | (oh < 0), 0, ow * oh)
    return inter / (aw * ah + bw * bh - inter)


class _Match:
    """The ground-truth side of ``yolov3_loss``: validity, cells, anchors and targets."""

    def __init__(self, xp, gt_box, gt_score, pairs, anchor_mask, h, w, input_size, dtype):
        gx, gy, gw, gh = (gt_box[..., i] for i in range(4))
        self.valid = (gw >= 1e-6) & (gh >= 1e-6)
        # NOTE: a centre at exactly 1.0 would fall off the grid; Paddle reads past the row
        self.gi = xp.clip((gx * w).astype(xp.int64), 0, w - 1)
        self.gj = xp.clip((gy * h).astype(xp.int64), 0, h - 1)
        an = xp.asarray(pairs, dtype=dtype) / input_size  # [A, 2]
        ious = _iou_centered(xp, 0, 0, an[:, 0], an[:, 1], 0, 0, gw[..., None], gh[..., None])
        best = ious.argmax(axis=-1)  # first maximum, as Paddle's strict '>' scan
        to_mask = xp.full(len(pairs), -1, dtype=xp.int64)
        to_mask[xp.asarray(anchor_mask, dtype=xp.int64)] = xp.arange(len(anchor_mask))
        self.mask_idx = xp.where(self.valid, to_mask[best], -1)
        self.matched = self.mask_idx >= 0
        self.score = gt_score
        anchor = xp.asarray(pairs, dtype=dtype)[best]  # [N, B, 2]
        # NOTE: Paddle's grid size is H for both offsets
        self.tx, self.ty = gx * h - self.gi, gy * h - self.gj
        safe_w = xp.where(self.valid, gw, 1)
        safe_h = xp.where(self.valid, gh, 1)
        self.tw = xp.log(safe_w * input_size / anchor[..., 0])
        self.th = xp.log(safe_h * input_size / anchor[..., 1])
        self.loc_scale = (2.0 - gw * gh) * gt_score
        self.xp = xp

    def cell(self, xr):
        """``xr`` ``[N, M, E, H, W]`` at each box's cell and anchor: ``[N, B, E]``."""
        rows = self.xp.arange(xr.shape[0])[:, None]
        return xr[rows, self.mask_idx.clip(0), :, self.gj, self.gi]


@register_op
class yolov3_loss(OpDef):
    """Paddle's YOLOv3 loss; see the module docstring."""

    inputs = ("X", "GTBox", "GTLabel", "GTScore")
    outputs = ("Loss", "ObjectnessMask", "GTMatchMask")
    attrs = {"anchors": [], "anchor_mask": [], "class_num": 1, "ignore_thresh": 0.7,
             "downsample_ratio": 32, "use_label_smooth": True, "scale_x_y": 1.0}
    nondiff_inputs = ("GTBox", "GTLabel", "GTScore")
    nondiff_outputs = ("ObjectnessMask", "GTMatchMask")

    def _check(self, x, gt_box, gt_label, anchors, anchor_mask, class_num):
        pairs = _anchor_pairs("yolov3_loss", anchors)
        if not anchor_mask or any(not 0 <= int(m) < len(pairs) for m in anchor_mask):
            raise ShapeError(f"yolov3_loss: anchor_mask must list indices of the "
                             f"{len(pairs)} anchors, got {list(anchor_mask)}")
        _check_head("yolov3_loss", x, len(anchor_mask), class_num)
        if len(gt_box) != 3 or gt_box[2] not in (4, -1):
            raise ShapeError(f"yolov3_loss: GTBox must be [N, B, 4], got {list(gt_box)}")
        if tuple(gt_label) != tuple(gt_box[:2]):
            raise ShapeError(f"yolov3_loss: GTLabel must be [N, B] = {list(gt_box[:2])}, got "
                             f"{list(gt_label)}")
        return pairs

    def infer(self, x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
              ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
        self._check(x.shape, gt_box.shape, gt_label.shape, anchors, anchor_mask, class_num)
        n, _, h, w = x.shape
        return (Meta((n,), x.dtype), Meta((n, len(anchor_mask), h, w), x.dtype),
                Meta((n, gt_box.shape[1]), "int32"))

    def _setup(self, xp, x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
               downsample_ratio):
        pairs = self._check(x.shape, gt_box.shape, gt_label.shape, anchors, anchor_mask,
                            class_num)
        n, _, h, w = x.shape
        xr = x.reshape(n, len(anchor_mask), 5 + class_num, h, w)
        if gt_score is None:
            gt_score = xp.ones(gt_box.shape[:2], dtype=x.dtype)
        input_size = downsample_ratio * h
        m = _Match(xp, gt_box.astype(x.dtype), gt_score.astype(x.dtype), pairs, anchor_mask,
                   h, w, input_size, x.dtype)
        return pairs, xr, m

    @staticmethod
    def _smooth(class_num, use_label_smooth):
        if not use_label_smooth:
            return 1.0, 0.0
        e = min(1.0 / class_num, 1.0 / 40)
        return 1.0 - e, e

    def forward(self, ctx, x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
        xp = ctx.xp
        pairs, xr, m = self._setup(xp, x, gt_box, gt_label, gt_score, anchors, anchor_mask,
                                   class_num, downsample_ratio)
        n, _, _, h, _ = xr.shape
        input_size = downsample_ratio * h
        masked = xp.asarray([pairs[i] for i in anchor_mask], dtype=x.dtype)
        px, py, pw, ph = _decode(xp, xr, masked, (input_size, input_size), scale_x_y)
        # predicted boxes against valid ground truths: [N, M, H, W, B]
        gt = gt_box.astype(x.dtype)
        ious = _iou_centered(xp, px[..., None], py[..., None], pw[..., None], ph[..., None],
                             *(gt[:, None, None, None, :, i] for i in range(4)))
        ious = xp.where(m.valid[:, None, None, None, :], ious, 0)
        best = ious.max(axis=-1) if ious.shape[-1] else xp.zeros(px.shape, x.dtype)
        obj = xp.where(best > ignore_thresh, -1.0, 0.0).astype(x.dtype)
        rows = xp.arange(n)
        for t in range(gt_box.shape[1]):  # in box order: a later box's score wins a cell
            hit = m.matched[:, t]
            idx = (rows[hit], m.mask_idx[hit, t], m.gj[hit, t], m.gi[hit, t])
            obj[idx] = m.score[hit, t]
        cell = m.cell(xr)  # [N, B, 5 + classes]
        pos, neg = self._smooth(class_num, use_label_smooth)
        onehot = xp.arange(class_num)[None, None, :] == gt_label[..., None]
        labels = xp.where(onehot, pos, neg)
        per_box = (_sce(xp, cell[..., 0], m.tx) + _sce(xp, cell[..., 1], m.ty)
                   + xp.abs(cell[..., 2] - m.tw) + xp.abs(cell[..., 3] - m.th)) * m.loc_scale \
            + _sce(xp, cell[..., 5:], labels).sum(axis=-1) * m.score
        loss = xp.where(m.matched, per_box, 0).sum(axis=1)
        conf = xr[:, :, 4]
        objness = xp.where(obj > 1e-5, _sce(xp, conf, 1.0) * obj,
                           xp.where(obj > -0.5, _sce(xp, conf, 0.0), 0))
        loss = loss + objness.reshape(n, -1).sum(axis=1)
        return loss.astype(x.dtype), obj, m.mask_idx.astype(xp.int32)

    def backward(self, ctx, ins, outs, douts, anchors, anchor_mask, class_num, ignore_thresh,
                 downsample_ratio, use_label_smooth, scale_x_y):
        xp = ctx.xp
        x, gt_box, gt_label, gt_score = ins
        obj, dloss = outs[1], douts[0]
        _, xr, m = self._setup(xp, x, gt_box, gt_label, gt_score, anchors, anchor_mask,
                               class_num, downsample_ratio)
        n, mn, e, h, w = xr.shape
        dxr = xp.zeros_like(xr)
        conf = xr[:, :, 4]
        sig = _sigmoid(xp, conf)
        dobj = xp.where(obj > 1e-5, (sig - 1) * obj, xp.where(obj > -0.5, sig, 0))
        dxr[:, :, 4] = dobj * dloss[:, None, None, None]
        cell = m.cell(xr)
        pos, neg = self._smooth(class_num, use_label_smooth)
        labels = xp.where(xp.arange(class_num)[None, None, :] == gt_label[..., None], pos, neg)
        g = xp.zeros(cell.shape, dtype=x.dtype)  # [N, B, E]
        g[..., 0] = (_sigmoid(xp, cell[..., 0]) - m.tx) * m.loc_scale
        g[..., 1] = (_sigmoid(xp, cell[..., 1]) - m.ty) * m.loc_scale
        g[..., 2] = xp.where(cell[..., 2] > m.tw, 1.0, -1.0) * m.loc_scale
        g[..., 3] = xp.where(cell[..., 3] > m.th, 1.0, -1.0) * m.loc_scale
        g[..., 5:] = (_sigmoid(xp, cell[..., 5:]) - labels) * m.score[..., None]
        g = g * (m.matched * dloss[:, None])[..., None]
        rows = xp.broadcast_to(xp.arange(n)[:, None], m.gi.shape)
        # NOTE: boxes sharing a cell and anchor add up, as their losses do
        cells = ((rows * mn + m.mask_idx.clip(0)) * h + m.gj) * w + m.gi
        grads = xp.zeros((n * mn * h * w, e), dtype=x.dtype)
        xp.add.at(grads, cells.reshape(-1), g.reshape(-1, e))
        dx = dxr + grads.reshape(n, mn, h, w, e).transpose(0, 1, 4, 2, 3)
        return dx.reshape(x.shape), None, None, None
