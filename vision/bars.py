"""Stage 2: divider-bar candidates, the one thin straight stroke every tile carries.

A bar fixes a tile's centre, orientation, half line and scale, and separates touching
tiles that a face segmentation would merge. Candidates come from a local (adaptive)
threshold in two polarities: dark ink on light faces (minimum of B, G, R, so coloured
strokes count as dark) and light ink on dark faces (maximum of B, G, R).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .cvcompat import min_area_rect
from .params import Params


@dataclass(frozen=True)
class Bar:
    centre: np.ndarray  # (x, y) working pixels
    direction: np.ndarray  # unit vector along the bar
    length: float
    thickness: float
    polarity: int  # 0: dark ink on light face, 1: light ink on dark face


def ink_masks(image: np.ndarray, params: Params) -> list[np.ndarray]:
    """Binary ink masks (uint8 0/255), one per polarity."""
    h, w = image.shape[:2]
    win = int(params.ink_window_frac * max(h, w)) | 1
    win = max(win, 15)
    low = image.min(axis=2)
    high = image.max(axis=2)
    masks = []
    for channel in (low, 255 - high):
        masks.append(cv2.adaptiveThreshold(channel, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                           cv2.THRESH_BINARY_INV, win, params.ink_offset))
    return masks


def bar_candidates(mask: np.ndarray, polarity: int, params: Params) -> list[Bar]:
    """Thin straight components of an ink mask."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return []
    bw = stats[1:, cv2.CC_STAT_WIDTH].astype(np.float64)
    bh = stats[1:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    diag2 = bw * bw + bh * bh
    ok = (diag2 >= (0.9 * params.bar_min_length_px) ** 2)
    ok &= diag2 / np.maximum(area, 1) >= 0.8 * params.bar_min_elongation
    ok &= area >= 6
    bars = []
    for idx in np.nonzero(ok)[0]:
        i = idx + 1
        x, y, ww, hh = stats[i, :4]
        roi = labels[y : y + hh, x : x + ww] == i
        pts = np.argwhere(roi)[:, ::-1] + (x, y)
        centre, length, thick, direction = min_area_rect(pts)
        thick = max(thick, 1.0)
        if length < params.bar_min_length_px or length / thick < params.bar_min_elongation:
            continue
        if area[idx] / (length * thick) < params.bar_min_fill:
            continue
        bars.append(Bar(centre, direction, length, thick, polarity))
    return bars


def find_bars(image: np.ndarray, params: Params) -> list[Bar]:
    """All bar candidates of both polarities in a working-resolution BGR image."""
    out = []
    for polarity, mask in enumerate(ink_masks(image, params)):
        out += bar_candidates(mask, polarity, params)
    return out
