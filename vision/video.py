"""Synthetic overhead table video: tiles laid one by one by a hand (pure: frames out).

Reuses the tile drawing of :mod:`vision.render`. A video is a list of tiles already on the
table and a list of actions (place a tile, nudge one, take one away, wait); each action is
acted out by a hand coming in from a seat, doing it and leaving, then a quiet spell. The
lighting drifts slowly and every frame carries sensor noise, so a motion gate sees what a
real camera gives it. Nothing here knows the rules of any game: callers decide which tiles
go where (``companion.camera.scripts`` builds Mexican Train and Chicken Foot rounds).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .observation import TileReading
from .render import RenderSpec, _background, _draw_tile

SKIN = (120, 160, 215)  # BGR


@dataclass(frozen=True)
class Placement:
    """A tile on the table: ``pair[0]`` is the half toward ``-axis`` (the near end of a
    train), centre in pixels, ``angle`` in degrees (0: long side vertical, pair[0] on top)."""

    pair: tuple[int, int]
    centre: tuple[float, float]
    angle: float

    def moved(self, dx: float, dy: float, dangle: float = 0.0) -> Placement:
        return Placement(self.pair, (self.centre[0] + dx, self.centre[1] + dy),
                         self.angle + dangle)


@dataclass(frozen=True)
class Action:
    """One thing a hand does. ``kind``: "place" (``placement`` appears), "nudge" (tile
    ``index`` shifts by ``offset`` = (dx, dy, dangle)), "remove" (tile ``index`` leaves),
    "wait" (``frames`` of nothing). ``seat`` is the table edge point the hand comes from;
    ``label`` is for the caller (e.g. the move it shows)."""

    kind: str
    placement: Placement | None = None
    index: int | None = None
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    seat: tuple[float, float] = (0.0, 0.0)
    frames: int = 0
    label: str = ""


@dataclass
class VideoSpec:
    """How the video looks and how long each phase lasts (in frames)."""

    width: int = 1280
    height: int = 720
    tile_width: float = 40.0
    background: str = "cloth"
    fps: float = 10.0
    seed: int = 0
    noise: float = 2.0  # grey levels of per-frame sensor noise
    drift: float = 0.08  # peak relative change of the lighting
    drift_period: float = 240.0  # frames for one full cycle of the drift
    lead_in: int = 6  # still frames at the start
    approach: int = 6
    hold: int = 2
    withdraw: int = 5
    settle: int = 8  # still frames after each action
    hand: bool = True
    extra: dict = field(default_factory=dict)


def axis_angle(direction: tuple[float, float]) -> float:
    """Tile angle (degrees) whose long axis runs along ``direction``, pair[0] first."""
    dx, dy = direction
    return math.degrees(math.atan2(-dx, dy))


def tile_corners(p: Placement, tile_width: float) -> np.ndarray:
    """Corners in the pipeline's order (pair[0]'s short edge first)."""
    a = math.radians(p.angle)
    e1 = np.array([math.cos(a), math.sin(a)])
    e2 = np.array([-math.sin(a), math.cos(a)])
    c = np.array(p.centre, float)
    tw = tile_width
    return np.array([c - tw / 2 * e1 - tw * e2, c + tw / 2 * e1 - tw * e2,
                     c + tw / 2 * e1 + tw * e2, c - tw / 2 * e1 + tw * e2])


def truth(placements: list[Placement], tile_width: float) -> list[TileReading]:
    """Exact labels of the tiles on the table."""
    return [TileReading(tuple(int(v) for v in p.pair),
                        tuple((float(x), float(y)) for x, y in tile_corners(p, tile_width)), 1.0)
            for p in placements]


class _Scene:
    """Background plus the tiles on the table, re-drawn only when the tiles change."""

    def __init__(self, spec: VideoSpec):
        self.spec = spec
        self.render_spec = RenderSpec(width=spec.width, height=spec.height,
                                      background=spec.background, seed=spec.seed)
        rng = np.random.default_rng(spec.seed)
        self.base = np.clip(_background(self.render_spec, rng), 0, 255).astype(np.uint8)
        self._static: np.ndarray | None = None

    def draw_tiles(self, image: np.ndarray, placements: list[Placement]) -> np.ndarray:
        layer = image.copy()
        for p in placements:
            rng = np.random.default_rng(abs(hash(p.pair)) % (2**32))  # same face tint every frame
            _draw_tile(layer, np.array(p.centre, float), p.angle, self.spec.tile_width, p.pair,
                       self.render_spec, rng)
        shadow = np.all(layer == 0, axis=2)
        layer[shadow] = (image[shadow] * 0.55).astype(np.uint8)
        return layer

    def static(self, placements: list[Placement]) -> np.ndarray:
        if self._static is None:
            self._static = self.draw_tiles(self.base, placements)
        return self._static

    def invalidate(self) -> None:
        self._static = None


def _draw_hand(image: np.ndarray, start: np.ndarray, tip: np.ndarray, tw: float) -> None:
    """An arm from the table edge ``start`` to a hand at ``tip`` (drawn in place)."""
    d = tip - start
    length = float(np.hypot(*d))
    if length < 1:
        return
    u = d / length
    n = np.array([-u[1], u[0]])
    shadow = image.copy()
    off = np.array([0.25, 0.35]) * tw

    def shape(img, shift, colour):
        s = start + shift
        t = tip + shift
        heading = math.degrees(math.atan2(u[1], u[0]))
        wrist = t - u * 1.0 * tw
        arm = np.array([s + n * 0.75 * tw, wrist + n * 0.6 * tw, wrist - n * 0.6 * tw,
                        s - n * 0.75 * tw])
        cv2.fillConvexPoly(img, np.round(arm * 16).astype(np.int32), colour, cv2.LINE_AA, 4)
        cv2.ellipse(img, (tuple(t - u * 0.2 * tw), (2.0 * tw, 1.9 * tw), heading), colour, -1,
                    cv2.LINE_AA)
        for k, reach in ((-1.5, 0.8), (-0.5, 1.05), (0.5, 1.0), (1.5, 0.75)):
            finger = t + u * reach * tw + n * k * 0.36 * tw
            cv2.ellipse(img, (tuple(finger), (1.0 * tw, 0.34 * tw), heading), colour, -1,
                        cv2.LINE_AA)
        thumb = t - u * 0.3 * tw + n * 1.0 * tw
        cv2.ellipse(img, (tuple(thumb), (0.9 * tw, 0.36 * tw), heading + 50), colour, -1,
                    cv2.LINE_AA)

    shape(shadow, off, (0, 0, 0))
    dark = np.all(shadow == 0, axis=2)
    image[dark] = (image[dark] * 0.6).astype(np.uint8)
    shape(image, np.zeros(2), SKIN)


def _finish(frame: np.ndarray, index: int, spec: VideoSpec, noise: list[np.ndarray]) -> np.ndarray:
    phase = 2 * math.pi * index / max(1.0, spec.drift_period)
    gain = 1.0 + spec.drift * math.sin(phase)
    tint = np.array([1.0 + 0.02 * math.sin(phase), 1.0, 1.0 - 0.02 * math.sin(phase)], np.float32)
    out = frame.astype(np.float32) * (gain * tint)
    if noise:
        out += noise[index % len(noise)]
    return np.clip(out, 0, 255).astype(np.uint8)


def render_video(spec: VideoSpec, initial: list[Placement], actions: list[Action]
                 ) -> Iterator[tuple[np.ndarray, dict]]:
    """Yield ``(frame, info)`` for the whole video. ``info``: ``index``, ``action`` (index
    of the action being acted out or None), ``phase`` ("still" | "hand"), ``tiles`` (the
    placements on the table once the frame is shown)."""
    scene = _Scene(spec)
    rng = np.random.default_rng(spec.seed + 1)
    noise = ([rng.normal(0, spec.noise, (spec.height, spec.width, 3)).astype(np.float32)
              for _ in range(5)] if spec.noise > 0 else [])
    tiles = list(initial)
    index = 0
    tw = spec.tile_width

    def emit(frame, action, phase):
        nonlocal index
        out = _finish(frame, index, spec, noise)
        info = {"index": index, "action": action, "phase": phase, "tiles": list(tiles)}
        index += 1
        return out, info

    for _ in range(spec.lead_in):
        yield emit(scene.static(tiles), None, "still")
    for k, action in enumerate(actions):
        if action.kind == "wait":
            for _ in range(action.frames):
                yield emit(scene.static(tiles), k, "still")
            continue
        if action.kind == "place":
            target = np.array(action.placement.centre, float)
        else:
            target = np.array(tiles[action.index].centre, float)
        start = np.array(action.seat, float)
        carried = action.placement if action.kind == "place" else None
        hand_off = (start - target)
        hand_off = hand_off / max(1e-6, float(np.hypot(*hand_off))) * 0.9 * tw
        if spec.hand:
            for i in range(1, spec.approach + 1):
                f = i / spec.approach
                pos = start + (target - start) * f
                frame = scene.static(tiles)
                if carried is not None:
                    pose = replace(carried, centre=tuple(pos),
                                   angle=carried.angle + (1 - f) * 40.0)
                    frame = scene.draw_tiles(frame, [pose])
                else:
                    frame = frame.copy()
                _draw_hand(frame, start, pos + hand_off, tw)
                yield emit(frame, k, "hand")
        if action.kind == "place":
            tiles.append(action.placement)
        elif action.kind == "nudge":
            dx, dy, da = action.offset
            tiles[action.index] = tiles[action.index].moved(dx, dy, da)
        elif action.kind == "remove":
            tiles.pop(action.index)
        else:
            raise ValueError(f"unknown action kind {action.kind!r}")
        scene.invalidate()
        if spec.hand:
            for _ in range(spec.hold):
                frame = scene.static(tiles).copy()
                _draw_hand(frame, start, target + hand_off, tw)
                yield emit(frame, k, "hand")
            for i in range(1, spec.withdraw + 1):
                f = i / spec.withdraw
                pos = target + (start - target) * f
                frame = scene.static(tiles).copy()
                _draw_hand(frame, start, pos + hand_off, tw)
                yield emit(frame, k, "hand")
        for _ in range(spec.settle):
            yield emit(scene.static(tiles), k, "still")


def frame_count(spec: VideoSpec, actions: list[Action]) -> int:
    per = (spec.approach + spec.hold + spec.withdraw if spec.hand else 0) + spec.settle
    return spec.lead_in + sum(a.frames if a.kind == "wait" else per for a in actions)
