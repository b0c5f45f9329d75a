"""Table layout as the camera learns it: the hub, each train's slot direction, and where
every open end lies in the picture (pure geometry, no I/O).

Targets come from the public game view (Mexican Train ``trains``, Chicken Foot ``c`` and
``lines``); their positions come from the tiles the camera has tracked. A new tile is
matched to targets by where its ends lie and which numbers they carry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

Point = tuple[float, float]


@dataclass
class Calibration:
    """Where the hub is and one point on each train's slot direction (tablet taps in slot
    order, or a mapping). Missing slots are learnt from the first answered question."""

    hub: Point | None = None
    slots: dict[str, Point] = field(default_factory=dict)

    @classmethod
    def from_taps(cls, hub: Point, taps: list[Point], names: list[str]) -> Calibration:
        """Taps on the trains in slot order (p1, p2, ..., mx) -> a calibration."""
        if len(taps) > len(names):
            raise ValueError(f"{len(taps)} taps for {len(names)} trains")
        return cls(tuple(map(float, hub)), {n: tuple(map(float, t)) for n, t in zip(names, taps)})

    @classmethod
    def from_dict(cls, data: dict | None) -> Calibration:
        """``{"hub": [x, y], "slots": {"p1": [x, y], ...}}`` (JSON form)."""
        if not data:
            return cls()
        if not isinstance(data, dict):
            raise ValueError("calibration must be an object with hub and slots")  # noqa: TRY004
        hub = data.get("hub")
        slots = data.get("slots") or {}
        if not isinstance(slots, dict):
            raise ValueError("calibration slots must map a train name to [x, y]")  # noqa: TRY004
        try:
            return cls(None if hub is None else (float(hub[0]), float(hub[1])),
                       {str(k): (float(v[0]), float(v[1])) for k, v in slots.items()})
        except (TypeError, ValueError, IndexError):
            raise ValueError("calibration points must be [x, y] numbers") from None

    def to_dict(self) -> dict:
        return {"hub": list(self.hub) if self.hub else None,
                "slots": {k: list(v) for k, v in self.slots.items()}}

    def direction(self, name: str) -> np.ndarray | None:
        if self.hub is None or name not in self.slots:
            return None
        d = np.array(self.slots[name]) - np.array(self.hub)
        norm = float(np.hypot(*d))
        return d / norm if norm > 1e-6 else None


# -- tile geometry ------------------------------------------------------------------------
def centre(corners: np.ndarray) -> np.ndarray:
    return np.asarray(corners, float).mean(axis=0)


def tile_width(corners: np.ndarray) -> float:
    """Short side: the mean length of the two short edges (corners 0-1 and 2-3)."""
    c = np.asarray(corners, float)
    return float((np.hypot(*(c[1] - c[0])) + np.hypot(*(c[2] - c[3]))) / 2)


def end_points(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Midpoints of the short edges: of half 0 (corners 0-1) and half 1 (corners 2-3)."""
    c = np.asarray(corners, float)
    return (c[0] + c[1]) / 2, (c[2] + c[3]) / 2


def polygon_distance(point: np.ndarray, corners: np.ndarray) -> float:
    """Distance from a point to a tile outline (0 inside)."""
    contour = np.asarray(corners, np.float32).reshape(-1, 1, 2)
    signed = cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True)
    return max(0.0, -float(signed))


def angle_between(a: np.ndarray, b: np.ndarray) -> float:
    """Unsigned angle in degrees between two direction vectors."""
    cos = float(np.dot(a, b) / max(1e-9, np.hypot(*a) * np.hypot(*b)))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


@dataclass
class Anchor:
    """Where a target's open end is. ``kind``: "end" (a point: the free short edge of the
    last tile), "tile" (anywhere round a double or the centre tile), "hub" (an empty train:
    near the hub, along ``direction`` when known), "unknown" (its last tile was not seen)."""

    target: str
    value: int
    kind: str
    point: np.ndarray | None = None
    corners: np.ndarray | None = None
    direction: np.ndarray | None = None


@dataclass
class Candidate:
    target: str
    value_match: bool
    score: float  # lower is better: distance in tile widths, or angle/45 at the hub
    end: int  # which half of the new tile touches (0 or 1)


@dataclass(frozen=True)
class LayoutParams:
    """Geometry thresholds, in tile widths unless named otherwise."""

    #: a tile end touches an open end when they are at most this far apart.
    touch: float = 0.8
    #: a tile end touches a double / centre tile when it is at most this far from its outline.
    touch_tile: float = 0.7
    #: tiles whose near end is this far from the hub centre may start an empty train.
    hub_reach: float = 3.6
    #: a first tile belongs to a slot whose direction is within this many degrees.
    slot_angle: float = 40.0
    #: two candidates closer than this in score are ambiguous (a question).
    ambiguity: float = 0.35


def hub_candidates(anchors: list[Anchor], near: np.ndarray, tile_centre: np.ndarray,
                   hub: np.ndarray, width: float, params: LayoutParams) -> list[tuple[Anchor, float]]:
    """Empty trains a tile near the hub could start, with an angle score (None direction
    scores 0.5: possible but unproven)."""
    if float(np.hypot(*(near - hub))) > params.hub_reach * width:
        return []
    out, angles = [], []
    heading = tile_centre - hub
    for anchor in anchors:
        if anchor.kind != "hub":
            continue
        if anchor.direction is None:
            out.append((anchor, 0.5))
            continue
        angle = angle_between(heading, anchor.direction)
        angles.append((angle, anchor))
        if angle <= params.slot_angle:
            out.append((anchor, angle / 45.0))
    if not out and angles:  # near the hub but along no slot: the nearest slots are meant
        best = min(a for a, _ in angles)
        out = [(anchor, 1.0) for a, anchor in angles if a <= best + params.slot_angle / 2]
    return out


def candidates_for(pips: tuple[int, int], corners: np.ndarray, anchors: list[Anchor],
                   hub: np.ndarray | None, width: float,
                   params: LayoutParams) -> list[Candidate]:
    """Every target the tile could be attached to, best first (value matches first)."""
    ends = end_points(corners)
    middle = centre(corners)
    out: dict[str, Candidate] = {}

    def add(target, value_match, score, end):
        old = out.get(target)
        key = (not value_match, score)
        if old is None or key < (not old.value_match, old.score):
            out[target] = Candidate(target, value_match, score, end)

    for h in (0, 1):
        e, other = ends[h], ends[1 - h]
        for anchor in anchors:
            match = pips[h] == anchor.value
            if anchor.kind == "end":
                d = float(np.hypot(*(e - anchor.point)))
                away = float(np.hypot(*(other - anchor.point))) > d
                if d <= params.touch * width and away:
                    add(anchor.target, match, d / width, h)
            elif anchor.kind == "tile":
                d = polygon_distance(e, anchor.corners)
                away = polygon_distance(other, anchor.corners) > d
                if d <= params.touch_tile * width and away:
                    add(anchor.target, match, d / width, h)
        if hub is not None:
            hub_d_e = float(np.hypot(*(e - hub)))
            if hub_d_e < float(np.hypot(*(other - hub))):
                for anchor, score in hub_candidates(anchors, e, middle, hub, width, params):
                    add(anchor.target, pips[h] == anchor.value, score, h)
    if pips[0] == pips[1]:  # a double may lie across the open end, touching it with a side
        for anchor in anchors:
            if anchor.kind == "end":
                d = polygon_distance(anchor.point, corners)
                if d <= params.touch * width:
                    add(anchor.target, pips[0] == anchor.value, d / width, 0)
    return sorted(out.values(), key=lambda c: (not c.value_match, c.score, c.target))


def decide(cands: list[Candidate], params: LayoutParams) -> tuple[str, list[Candidate]]:
    """"attach" (one clear value-matched target), "ask" (several), "refusable" (touches one
    target whose number does not match: let the session say why), or "none"."""
    matched = [c for c in cands if c.value_match]
    if len(matched) == 1:
        return "attach", matched
    if len(matched) > 1:
        best, second = matched[0], matched[1]
        if second.score - best.score >= params.ambiguity:
            return "attach", [best]
        close = [c for c in matched if c.score - best.score < params.ambiguity]
        return "ask", close
    if len(cands) == 1:
        return "refusable", cands
    if cands:
        return "ask", cands
    return "none", []
