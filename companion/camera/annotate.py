"""Pictures for people: the annotated table frame and the crop shown with a question."""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from .tracker import Seen, TableTracker

COLOURS = {  # BGR
    "engine": (255, 200, 0), "table": (0, 210, 0), "pending": (0, 220, 255),
    "asked": (0, 220, 255), "refused": (0, 0, 255), "missing": (0, 0, 255),
    "moved": (0, 0, 255), "duplicate": (255, 0, 255), "loose": (160, 160, 160),
}


def _text(img, label, org, scale, colour) -> None:
    thick = max(1, round(2 * scale))
    cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale, (0, 0, 0), thick + 2,
                cv2.LINE_AA)
    cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.55 * scale, colour, thick,
                cv2.LINE_AA)


def annotate_frame(frame: np.ndarray, tracker: TableTracker, status_line: str = "") -> np.ndarray:
    """A copy of ``frame`` with every tracked tile outlined (green: in the game, yellow:
    waiting for an answer, red: a problem, grey: not in play), the hub and slot directions,
    and a status line."""
    out = frame.copy()
    scale = max(frame.shape[:2]) / 1000.0
    thick = max(1, round(2 * scale))
    hub = tracker._hub()
    if hub is not None:
        h = tuple(int(v) for v in np.round(hub))
        cv2.circle(out, h, int(tracker.width * 0.3), (255, 200, 0), thick, cv2.LINE_AA)
        names = set(tracker.calibration.slots) | set(tracker.learned)
        for name in sorted(names):
            d = tracker._direction(name)
            if d is None:
                continue
            tip = hub + d * tracker.width * 1.6
            cv2.arrowedLine(out, h, tuple(int(v) for v in np.round(tip)), (255, 200, 0),
                            max(1, thick // 2), cv2.LINE_AA, tipLength=0.25)
            _text(out, name, tuple(int(v) for v in np.round(hub + d * tracker.width * 2.0)),
                  scale, (255, 230, 120))
    for seen in list(tracker.tiles.values()) + list(tracker.extras):
        colour = COLOURS.get(seen.state, (255, 255, 255))
        pts = np.round(seen.corners).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, thick + (1 if seen.state != "table" else 0),
                      cv2.LINE_AA)
        label = seen.text + (f" {seen.target}" if seen.target else "")
        if seen.state not in ("table", "engine"):
            label += f" ({seen.state})"
        c = seen.centre
        _text(out, label, (int(c[0] - tracker.width * 0.8), int(c[1] + tracker.width * 1.3)),
              scale * 0.8, colour)
    if status_line:
        _text(out, status_line, (10, int(24 * max(1.0, scale))), max(1.0, scale), (0, 255, 255))
    return out


def crop_png(frame: np.ndarray, seen: Seen, tracker: TableTracker,
             candidates: list[str] | None = None) -> bytes | None:
    """PNG of the spot round ``seen``: the tile outlined, each candidate target's open end
    marked with its name."""
    width = tracker.width
    pad = int(3.2 * width)
    c = seen.centre
    h, w = frame.shape[:2]
    x0, y0 = max(0, int(c[0]) - pad), max(0, int(c[1]) - pad)
    x1, y1 = min(w, int(c[0]) + pad), min(h, int(c[1]) + pad)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    crop = frame[y0:y1, x0:x1].copy()
    pts = np.round(seen.corners - [x0, y0]).astype(np.int32)
    cv2.polylines(crop, [pts], True, (0, 220, 255), 2, cv2.LINE_AA)
    if candidates:
        view = tracker._view()
        anchors = {a.target: a for a in tracker.anchors(view)}
        hub = tracker._hub()
        for move in candidates:
            name = move.split(">", 1)[1]
            a = anchors.get(name)
            point = None
            if a is not None and a.point is not None:
                point = a.point
            elif a is not None and a.corners is not None:
                point = np.asarray(a.corners).mean(axis=0)
            elif a is not None and a.direction is not None and hub is not None:
                point = hub + a.direction * width * 2.2
            if point is None:
                continue
            p = (int(point[0] - x0), int(point[1] - y0))
            cv2.circle(crop, p, max(3, int(width * 0.15)), (255, 0, 255), -1, cv2.LINE_AA)
            _text(crop, name, (p[0] + 4, p[1] - 4), 0.9, (255, 0, 255))
    if max(crop.shape[:2]) < 320:  # big enough to read at arm's length
        crop = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    ok, data = cv2.imencode(".png", crop)
    return data.tobytes() if ok else None


def png(image: np.ndarray) -> bytes | None:
    ok, data = cv2.imencode(".png", image)
    return data.tobytes() if ok else None
