"""Drawing observations for people (returns a new image; the caller writes it)."""

from __future__ import annotations

import cv2
import numpy as np

from .observation import Observation


def annotate(image: np.ndarray, observation: Observation) -> np.ndarray:
    """Copy of ``image`` with each tile's outline (green: confident, red: low confidence),
    its half line and its value drawn."""
    out = image.copy()
    scale = max(image.shape[:2]) / 1000.0
    thick = max(1, round(2 * scale))
    for tile in observation.tiles:
        pts = np.array(tile.corners, np.float32)
        ok = tile.confidence >= observation.min_confidence
        colour = (0, 220, 0) if ok else (0, 0, 255)
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        mid_a, mid_b = (pts[0] + pts[3]) / 2, (pts[1] + pts[2]) / 2
        cv2.line(out, tuple(np.round(mid_a).astype(int)), tuple(np.round(mid_b).astype(int)),
                 (255, 128, 0), max(1, thick // 2), cv2.LINE_AA)
        label = f"{tile.pips[0]}|{tile.pips[1]}" + ("" if ok else f"?{tile.confidence:.2f}")
        centre = pts.mean(axis=0)
        fs = 0.6 * max(0.6, scale)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, thick)
        org = (int(centre[0] - tw / 2), int(centre[1] + th / 2))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, fs, (255, 255, 255), thick, cv2.LINE_AA)
    text = f"total {observation.total}" + (f"  ({observation.low_confidence} unsure)"
                                             if observation.low_confidence else "")
    cv2.putText(out, text, (10, int(30 * max(1, scale))), cv2.FONT_HERSHEY_SIMPLEX,
                0.9 * max(1, scale), (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(out, text, (10, int(30 * max(1, scale))), cv2.FONT_HERSHEY_SIMPLEX,
                0.9 * max(1, scale), (0, 255, 255), thick, cv2.LINE_AA)
    return out
