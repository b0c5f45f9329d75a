"""The few OpenCV calls whose output shape or speed changed between versions, wrapped once."""

from __future__ import annotations

import cv2
import numpy as np


def find_contours(binary: np.ndarray, mode: int = cv2.RETR_EXTERNAL,
                  method: int = cv2.CHAIN_APPROX_SIMPLE) -> list[np.ndarray]:
    """Contours as a list of (N, 2) int arrays, whatever OpenCV 3/4/5 returns."""
    out = cv2.findContours(binary, mode, method)
    contours = out[0] if len(out) == 2 else out[1]
    return [c.reshape(-1, 2) for c in contours]


def min_area_rect(points: np.ndarray) -> tuple[np.ndarray, float, float, np.ndarray]:
    """Centre, long side, short side and unit direction of the long side of a point set."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(points.astype(np.float32).reshape(-1, 1, 2))
    a = np.deg2rad(angle)
    d = np.array([np.cos(a), np.sin(a)])
    if h > w:
        w, h = h, w
        d = np.array([-d[1], d[0]])
    return np.array([cx, cy]), float(w), float(h), d


def convex_overlap(poly_a: np.ndarray, poly_b: np.ndarray) -> float:
    """Intersection area of two convex polygons (float32 (N, 2))."""
    area, _ = cv2.intersectConvexConvex(poly_a.astype(np.float32), poly_b.astype(np.float32))
    return float(max(area, 0.0))


_CCL = getattr(cv2, "CCL_SPAGHETTI", None)


def components_with_stats(binary: np.ndarray) -> tuple:
    """``cv2.connectedComponentsWithStats`` (8-connected) of a small mask: the sequential
    Spaghetti labeller where OpenCV has it (the default one is a parallel labeller whose
    thread start-up costs more than a 96 px mask takes to label; the same output)."""
    if _CCL is None:
        return cv2.connectedComponentsWithStats(binary, connectivity=8)
    return cv2.connectedComponentsWithStatsWithAlgorithm(binary, 8, cv2.CV_32S, _CCL)


def small_to_lab(bgr: np.ndarray) -> np.ndarray:
    """BGR to Lab of a small patch, converted as one row: OpenCV splits a conversion into
    row stripes for its threads, which on a 96 px patch costs more than it saves
    (the same output)."""
    h, w = bgr.shape[:2]
    return cv2.cvtColor(bgr.reshape(1, h * w, 3), cv2.COLOR_BGR2LAB).reshape(h, w, 3)
