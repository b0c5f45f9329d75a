"""Cheap motion gating for a fixed overhead camera (pure: frames in, numbers out).

``MotionGate`` scores each frame against the previous one on a small grey copy (about a
millisecond at 1280x720), ``StillnessDetector`` turns the scores into one "settled" event
per quiet spell (still for ``still_frames`` frames after motion), and ``changed_regions``
finds where a settled frame differs from the last accepted one, with the overall gain
(lighting drift) taken out first, so only those regions need recognising.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .cvcompat import find_contours
from .imageio import validate_image


@dataclass(frozen=True)
class MotionParams:
    """Thresholds of the gate and the stillness detector (grey levels are 0-255)."""

    #: frames are shrunk so their long side is this many pixels before any comparison.
    gate_side_px: int = 160
    #: Gaussian sigma applied to the small frame (small-frame pixels): sensor noise out.
    gate_blur: float = 1.0
    #: a small-frame pixel has moved when its grey level changed by more than this.
    pixel_threshold: float = 18.0
    #: the frame is moving when more than this fraction of its pixels moved.
    moving_fraction: float = 0.004
    #: the scene is settled after this many consecutive still frames following motion.
    still_frames: int = 4
    #: a settled frame differs from the reference where grey changed by more than this
    #: (after the gain is matched); on the small frame.
    change_threshold: float = 28.0
    #: changed blobs smaller than this fraction of the small frame are noise.
    change_min_fraction: float = 0.0004
    #: long side of the grid on which settled frames are compared (finer than the gate).
    change_side_px: int = 320


def _validate(frame: np.ndarray, name: str) -> None:
    validate_image(frame, name, 100_000_000)


def small_gray(frame: np.ndarray, params: MotionParams | None = None) -> np.ndarray:
    """The gate's view of a BGR or grey frame: long side ``gate_side_px``, float32, blurred."""
    params = params or MotionParams()
    if frame.ndim == 3:
        _validate(frame, "frame")
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    elif frame.ndim == 2 and frame.dtype == np.uint8 and frame.size:
        gray = frame
    else:
        raise ValueError(f"frame must be an (H, W, 3) or (H, W) uint8 array, got shape "
                         f"{getattr(frame, 'shape', None)} dtype {getattr(frame, 'dtype', None)}")
    h, w = gray.shape
    scale = params.gate_side_px / max(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(gray, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    if params.gate_blur > 0:
        small = cv2.GaussianBlur(small, (0, 0), params.gate_blur)
    return small


class MotionGate:
    """Fraction of moved pixels between consecutive frames (1.0 for the first frame)."""

    def __init__(self, params: MotionParams | None = None):
        self.params = params or MotionParams()
        self._previous: np.ndarray | None = None

    def reset(self) -> None:
        self._previous = None

    def score(self, frame: np.ndarray) -> float:
        small = small_gray(frame, self.params)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            return 1.0
        moved = np.abs(small - previous) > self.params.pixel_threshold
        return float(moved.mean())


class StillnessDetector:
    """Feeds on gate scores; ``update`` returns True exactly once per quiet spell: on the
    ``still_frames``-th consecutive still frame after motion (or after the start)."""

    def __init__(self, params: MotionParams | None = None):
        self.params = params or MotionParams()
        self.still_count = 0
        self.settled = False  # True from the settled event until the next motion

    @property
    def moving(self) -> bool:
        return not self.settled and self.still_count == 0

    def reset(self) -> None:
        self.still_count = 0
        self.settled = False

    def update(self, score: float) -> bool:
        if score > self.params.moving_fraction:
            self.still_count = 0
            self.settled = False
            return False
        self.still_count += 1
        if not self.settled and self.still_count >= self.params.still_frames:
            self.settled = True
            return True
        return False


def match_gain(reference: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """``frame`` scaled so its median grey level matches ``reference`` (lighting drift)."""
    ref_med = float(np.median(reference))
    med = float(np.median(frame))
    if med <= 1e-3:
        return frame
    return frame * (ref_med / med)


@dataclass
class ChangeMap:
    """Where a settled frame differs from the reference, on the gate's small grid."""

    mask: np.ndarray  # uint8 0/1, small frame
    scale: float  # frame pixels per small-frame pixel
    fraction: float  # changed fraction of the whole frame

    def boxes(self, min_fraction: float = 0.0004) -> list[tuple[int, int, int, int]]:
        """Boxes ``(x0, y0, x1, y1)`` in frame pixels around changed blobs."""
        if not self.mask.any():
            return []
        mask = cv2.dilate(self.mask, np.ones((3, 3), np.uint8))
        min_area = min_fraction * mask.size
        out = []
        for contour in find_contours(mask):
            x, y, w, h = cv2.boundingRect(contour.reshape(-1, 1, 2))
            if w * h < min_area:
                continue
            s = self.scale
            out.append((int(x * s), int(y * s), int(np.ceil((x + w) * s)), int(np.ceil((y + h) * s))))
        return out

    def fraction_in(self, corners) -> float:
        """Changed fraction of the pixels inside a polygon given in frame pixels."""
        poly = np.asarray(corners, np.float64) / self.scale
        h, w = self.mask.shape
        x0, y0 = np.floor(poly.min(axis=0)).astype(int)
        x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return 0.0
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, np.round((poly - [x0, y0]) * 16).astype(np.int32), 1,
                           cv2.LINE_8, 4)
        area = int(inside.sum())
        if area == 0:
            return float(self.mask[min(h - 1, max(0, int(poly[:, 1].mean()))),
                                   min(w - 1, max(0, int(poly[:, 0].mean())))])
        return float((self.mask[y0:y1, x0:x1] & inside).sum() / area)


def change_map(reference: np.ndarray, frame: np.ndarray,
               params: MotionParams | None = None) -> ChangeMap:
    """Compare a settled ``frame`` with the last accepted ``reference`` (same size, BGR),
    after matching their overall gain so a slow lighting drift is not a change."""
    params = params or MotionParams()
    _validate(reference, "reference")
    _validate(frame, "frame")
    if reference.shape != frame.shape:
        raise ValueError(f"reference {reference.shape} and frame {frame.shape} differ in size")
    grid = replace(params, gate_side_px=params.change_side_px)
    ref_small = small_gray(reference, grid)
    small = match_gain(ref_small, small_gray(frame, grid))
    mask = (np.abs(small - ref_small) > params.change_threshold).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    return ChangeMap(mask, frame.shape[1] / small.shape[1], float(mask.mean()))


def changed_regions(reference: np.ndarray, frame: np.ndarray,
                    params: MotionParams | None = None) -> tuple[list[tuple[int, int, int, int]], float]:
    """Boxes in ``frame`` pixels where it differs from ``reference``, and the changed
    fraction of the frame (see :func:`change_map`)."""
    params = params or MotionParams()
    cmap = change_map(reference, frame, params)
    return cmap.boxes(params.change_min_fraction), cmap.fraction


def merge_boxes(boxes: list[tuple[int, int, int, int]], pad: int, width: int, height: int
                ) -> list[tuple[int, int, int, int]]:
    """Boxes grown by ``pad`` pixels, clipped to the frame, overlapping ones merged."""
    grown = [(max(0, x0 - pad), max(0, y0 - pad), min(width, x1 + pad), min(height, y1 + pad))
             for x0, y0, x1, y1 in boxes]
    merged = True
    while merged:
        merged = False
        out: list[tuple[int, int, int, int]] = []
        for box in grown:
            for i, other in enumerate(out):
                if box[0] <= other[2] and other[0] <= box[2] and box[1] <= other[3] and other[1] <= box[3]:
                    out[i] = (min(box[0], other[0]), min(box[1], other[1]),
                              max(box[2], other[2]), max(box[3], other[3]))
                    merged = True
                    break
            else:
                out.append(box)
        grown = out
    return grown
