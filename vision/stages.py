"""Pictures of each pipeline stage for one frame (for docs/vision.md and for debugging).

Pure: returns images; ``python -m vision stages`` writes them.
"""

from __future__ import annotations

import cv2
import numpy as np

from .annotate import annotate
from .bars import ink_channels, ink_masks
from .params import Params
from .pipeline import detect, scan
from .tiles import _ink_distance


def _fit(image: np.ndarray, width: int) -> np.ndarray:
    h, w = image.shape[:2]
    if w <= width:
        return image
    return cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)


def stage_images(image: np.ndarray, params: Params | None = None, width: int = 640
                 ) -> dict[str, np.ndarray]:
    """``{"1-ink": ..., "2-bars": ..., "3-tiles": ..., "4-halves": ..., "5-result": ...}``."""
    params = params or Params()
    kept, stages = detect(image, params)
    work = stages["work"]
    out = {}
    masks = ink_masks(work, params, ink_channels(work))
    ink = np.zeros_like(work)
    ink[..., 2] = cv2.bitwise_or(masks[0], masks[1])  # red: dark ink (luminance or min)
    ink[..., 0] = masks[2]  # blue: light ink (on dark tiles)
    out["1-ink"] = _fit(ink, width)
    dim = (work * 0.45).astype(np.uint8)
    bars_img = dim.copy()
    thick = max(1, round(max(work.shape[:2]) / 500))
    for bar in stages["bars"]:
        d = bar.direction * bar.length / 2
        colour = (0, 0, 255) if bar.polarity == 0 else (255, 0, 255)
        cv2.line(bars_img, tuple(np.round(bar.centre - d).astype(int)),
                 tuple(np.round(bar.centre + d).astype(int)), colour, thick + 1, cv2.LINE_AA)
    out["2-bars"] = _fit(bars_img, width)
    tiles_img = dim.copy()
    kept_ids = {id(t) for t in kept}
    for hyp in stages["hypotheses"]:
        good = id(hyp) in kept_ids and hyp.confidence >= params.min_confidence
        colour = (0, 220, 0) if good else ((0, 160, 255) if id(hyp) in kept_ids else (90, 90, 90))
        cv2.polylines(tiles_img, [np.round(hyp.corners).astype(np.int32)], True, colour, thick,
                      cv2.LINE_AA)
    out["3-tiles"] = _fit(tiles_img, width)
    # canonical halves of the kept tiles (ink distance, white = far from the face colour)
    c = params.canon_width_px
    cells = []
    for hyp in kept[:24]:
        pts = hyp.corners
        halves = []
        mid0, mid1 = (pts[0] + pts[3]) / 2, (pts[1] + pts[2]) / 2  # the half line
        for outer in (pts[0], pts[3]):
            src = np.float32([mid0, mid1, outer])
            dst = np.float32([[0, 0], [c, 0], [0, c]])
            matrix = cv2.getAffineTransform(dst, src)
            patch = cv2.warpAffine(work, matrix, (c, c), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
            lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
            face = np.median(lab.reshape(-1, 3), axis=0)
            dist = _ink_distance(work, matrix, (c, c), face, params.pip_min_contrast, True)
            vis = cv2.cvtColor(np.clip(dist * 2, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
            halves.append(np.hstack([patch, vis]))
        cell = np.vstack(halves)
        cv2.putText(cell, f"{hyp.pips[0]}|{hyp.pips[1]}", (3, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (0, 255, 255), 1, cv2.LINE_AA)
        cells.append(cv2.copyMakeBorder(cell, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=(40, 40, 40)))
    if cells:
        per_row = max(1, min(len(cells), 6))
        while len(cells) % per_row:
            cells.append(np.zeros_like(cells[0]))
        rows = [np.hstack(cells[i : i + per_row]) for i in range(0, len(cells), per_row)]
        out["4-halves"] = _fit(np.vstack(rows), width)
    obs = scan(image, params)
    out["5-result"] = _fit(annotate(image, obs), width)
    return out
