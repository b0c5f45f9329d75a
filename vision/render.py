"""Synthetic table frames with exact labels, for tests, the benchmark and camera replays.

``render_table(RenderSpec(...))`` returns ``(image, truth)``: a BGR uint8 frame and one
``TileReading`` per tile (confidence 1.0) with the pips and the corners in image pixels,
in the same convention as the pipeline's output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .observation import TileReading

#: one colour per number for colour sets (BGR), modelled on common double-12 sets.
NUMBER_COLOURS = {
    1: (225, 180, 60), 2: (60, 150, 40), 3: (40, 40, 210), 4: (40, 70, 120),
    5: (170, 70, 20), 6: (20, 170, 235), 7: (150, 40, 200), 8: (150, 150, 20),
    9: (140, 40, 100), 10: (90, 30, 30), 11: (20, 110, 240), 12: (110, 110, 110),
    13: (40, 40, 120), 14: (200, 120, 120), 15: (30, 120, 60), 16: (60, 60, 170),
    17: (170, 120, 40), 18: (80, 80, 40),
}
FACE_COLOURS = {"white": (235, 238, 240), "ivory": (205, 228, 238), "black": (30, 28, 26),
                "pink": (170, 120, 240)}
BACKGROUNDS = ("wood", "cloth", "marble", "white", "black", "green")


def pip_layout(n: int) -> list[tuple[float, float]]:
    """Pip centres of an ``n``-pip half in a unit square (x across, y along the tile)."""
    if not 0 <= n <= 18:
        raise ValueError(f"n must be in 0..18, got {n}")
    lo, mid, hi = 0.25, 0.5, 0.75
    dice = {
        0: [], 1: [(mid, mid)], 2: [(lo, lo), (hi, hi)], 3: [(lo, lo), (mid, mid), (hi, hi)],
        4: [(lo, lo), (hi, lo), (lo, hi), (hi, hi)],
        5: [(lo, lo), (hi, lo), (mid, mid), (lo, hi), (hi, hi)],
        6: [(lo, lo), (lo, mid), (lo, hi), (hi, lo), (hi, mid), (hi, hi)],
    }
    if n in dice:
        return dice[n]
    side = math.ceil(n / 3)
    middle = n - 2 * side
    span = 0.22, 0.78
    pitch = (span[1] - span[0]) / (side - 1)
    pts = []
    for x in (lo, hi):
        pts += [(x, span[0] + i * pitch) for i in range(side)]
    start = 0.5 - pitch * (middle - 1) / 2
    pts += [(mid, start + i * pitch) for i in range(middle)]
    return pts


def pip_radius(n: int) -> float:
    """Pip radius as a fraction of tile width for an ``n``-pip half."""
    side = max(3, math.ceil(n / 3)) if n >= 7 else 3
    pitch = 0.56 / (side - 1)
    return min(0.085, 0.36 * pitch)


@dataclass
class RenderSpec:
    """What to draw. ``tiles`` (pairs) wins over ``n_tiles`` random tiles from ``set_size``."""

    width: int = 1280
    height: int = 720
    tiles: list[tuple[int, int]] | None = None
    n_tiles: int = 10
    set_size: int = 6
    tile_width: float | None = None  # px; None: as large as the layout allows (max 90)
    layout: str = "scatter"  # "scatter" | "touching"
    face: str = "white"  # key of FACE_COLOURS
    pips: str = "black"  # "black" | "colour" | "light"
    background: str = "cloth"
    rotation: bool = True
    perspective: float = 0.0  # 0..0.2: corner displacement as a fraction of the frame
    blur: float = 0.0  # Gaussian sigma, px
    noise: float = 0.0  # Gaussian sigma, grey levels
    glare: float = 0.0  # 0..1 strength of one soft specular blob
    shadow: bool = True
    seed: int = 0
    extra: dict = field(default_factory=dict)


def _background(spec: RenderSpec, rng: np.random.Generator) -> np.ndarray:
    h, w = spec.height, spec.width
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    kind = spec.background
    if kind == "wood":
        grain = np.sin((yy + 8 * np.sin(xx / 97.0)) / 5.5) * 0.5 + 0.5
        base = np.stack([40 + 25 * grain, 80 + 35 * grain, 130 + 40 * grain], -1)
    elif kind == "marble":
        vein = np.abs(np.sin((xx * 0.7 + yy * 0.5 + 40 * np.sin(yy / 60.0)) / 40.0)) ** 8
        base = np.stack([215 - 60 * vein, 212 - 60 * vein, 205 - 40 * vein], -1)
    elif kind == "white":
        base = np.full((h, w, 3), 228, np.float32)
    elif kind == "black":
        base = np.full((h, w, 3), 22, np.float32)
    elif kind == "green":
        base = np.empty((h, w, 3), np.float32)
        base[:] = (60, 130, 40)
    else:  # cloth
        base = np.empty((h, w, 3), np.float32)
        base[:] = (55, 60, 58)
        weave = (np.sin(xx * 1.3) * np.sin(yy * 1.3)) * 8
        base += weave[..., None]
    base += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    return base


def _positions(spec: RenderSpec, n: int, rng: np.random.Generator) -> tuple[list, float]:
    """Centres, angles and tile width for ``n`` tiles."""
    w, h = spec.width, spec.height
    if n == 0:
        return [], float(spec.tile_width or 60.0)
    if spec.layout == "touching":
        cols = max(1, math.ceil(math.sqrt(n * 2 * w / h) / 1.0))
        cols = min(cols, n)
        rows = math.ceil(n / cols)
        tw = spec.tile_width or min(90.0, 0.8 * min(w / (cols * 1.05), h / (rows * 2.05)) / 1.15)
        gap = float(spec.extra.get("gap", 1.0))
        angle = rng.uniform(-25, 25) if spec.rotation else 0.0
        a = math.radians(angle)
        e1, e2 = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        centre = np.array([w / 2, h / 2])
        out = []
        for i in range(n):
            r, c = divmod(i, cols)
            du = (c - (cols - 1) / 2) * (tw + gap)
            dv = (r - (rows - 1) / 2) * (2 * tw + gap)
            out.append((centre + du * e1 + dv * e2, angle))
        return out, tw
    cols = max(1, math.ceil(math.sqrt(n * w / h)))
    rows = math.ceil(n / cols)
    cell = min(w / cols, h / rows)
    tw = spec.tile_width or min(90.0, cell / 2.5)
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    order = rng.permutation(len(cells))[:n]
    out = []
    cw, ch = w / cols, h / rows
    for k in order:
        r, c = cells[k]
        slack_x = max(0.0, (cw - 2.3 * tw) / 2)
        slack_y = max(0.0, (ch - 2.3 * tw) / 2)
        cx = (c + 0.5) * cw + rng.uniform(-slack_x, slack_x)
        cy = (r + 0.5) * ch + rng.uniform(-slack_y, slack_y)
        angle = rng.uniform(0, 360) if spec.rotation else float(rng.choice([0, 90]))
        out.append((np.array([cx, cy]), angle))
    return out, tw


def _to_fixed(points: np.ndarray) -> np.ndarray:
    return np.round(points * 16).astype(np.int32)


def _draw_tile(img, centre, angle, tw, pair, spec, rng) -> np.ndarray:
    a = math.radians(angle)
    e1, e2 = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])

    def pt(u, v):
        return centre + u * e1 + v * e2

    corners = np.array([pt(-tw / 2, -tw), pt(tw / 2, -tw), pt(tw / 2, tw), pt(-tw / 2, tw)])
    face = np.array(FACE_COLOURS[spec.face], np.float64) + rng.normal(0, 2, 3)
    if spec.shadow:
        off = np.array([0.04, 0.06]) * tw
        cv2.fillConvexPoly(img, _to_fixed(corners + off), (0, 0, 0), cv2.LINE_AA, 4)
        img[:] = img  # shadow drawn black, softened by the blend below
    edge = np.clip(face * 0.78, 0, 255)
    cv2.fillConvexPoly(img, _to_fixed(corners), edge.tolist(), cv2.LINE_AA, 4)
    inset = np.array([pt(-tw / 2 + 0.04 * tw, -tw + 0.04 * tw), pt(tw / 2 - 0.04 * tw, -tw + 0.04 * tw),
                      pt(tw / 2 - 0.04 * tw, tw - 0.04 * tw), pt(-tw / 2 + 0.04 * tw, tw - 0.04 * tw)])
    cv2.fillConvexPoly(img, _to_fixed(inset), face.tolist(), cv2.LINE_AA, 4)
    ink_dark = (25, 25, 25) if spec.face != "black" else (235, 235, 235)
    bar_colour = ink_dark if spec.face != "pink" else (40, 200, 230)
    p, q = pt(-0.37 * tw, 0), pt(0.37 * tw, 0)
    thick = max(1, round(0.055 * tw))
    cv2.line(img, tuple(_to_fixed(p)), tuple(_to_fixed(q)), bar_colour, thick, cv2.LINE_AA, 4)
    if spec.extra.get("pin"):  # a brass pin in the middle of the bar, as some sets have
        metal = (120, 190, 215)  # brass
        if spec.extra["pin"] == "shadowed":
            # a shiny steel pin, its dark rim (shadow) on one side merged with one piece
            metal = (215, 218, 222)
            cv2.circle(img, tuple(_to_fixed(pt(0.04 * tw, 0.025 * tw))), round(0.1 * tw * 16),
                       ink_dark, -1, cv2.LINE_AA, 4)
        cv2.circle(img, tuple(_to_fixed(centre)), round(0.07 * tw * 16), metal, -1, cv2.LINE_AA, 4)
    for half, n in enumerate(pair):
        r = pip_radius(n) * tw
        for x, y in pip_layout(n):
            u = (x - 0.5) * tw
            v = (y - 1.0) * tw if half == 0 else y * tw
            if spec.pips == "colour":
                colour = NUMBER_COLOURS[n]
            elif spec.pips == "light" or spec.face == "black":
                colour = (235, 235, 235)
            elif spec.face == "pink":
                colour = (40, 200, 230)
            else:
                colour = (25, 25, 25)
            cv2.circle(img, tuple(_to_fixed(pt(u, v))), round(r * 16), colour, -1,
                       cv2.LINE_AA, 4)
    return corners


def random_tiles(n: int, set_size: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """``n`` distinct tiles of a double-``set_size`` set (repeats only when n exceeds the set)."""
    all_tiles = [(a, b) for a in range(set_size + 1) for b in range(a, set_size + 1)]
    idx = rng.permutation(len(all_tiles))
    picks = [all_tiles[i] for i in idx[:n]]
    while len(picks) < n:
        picks.append(all_tiles[int(rng.integers(len(all_tiles)))])
    return picks


def render_table(spec: RenderSpec) -> tuple[np.ndarray, list[TileReading]]:
    """Draw a table frame; return ``(image, truth)`` (see module docstring)."""
    rng = np.random.default_rng(spec.seed)
    tiles = list(spec.tiles) if spec.tiles is not None else random_tiles(spec.n_tiles, spec.set_size, rng)
    canvas = _background(spec, rng)
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    shadow_layer = img.copy()
    positions, tw = _positions(spec, len(tiles), rng)
    truth = []
    for (centre, angle), pair in zip(positions, tiles):
        if rng.random() < 0.5:
            pair = (pair[1], pair[0])
        corners = _draw_tile(shadow_layer, centre, angle, tw, pair, spec, rng)
        truth.append((pair, corners))
    # shadows: where shadow_layer is pure black and img is table, blend to soften
    black = np.all(shadow_layer == 0, axis=2)
    out = shadow_layer.astype(np.float32)
    out[black] = img[black].astype(np.float32) * 0.55
    if spec.glare > 0:
        yy, xx = np.mgrid[0 : spec.height, 0 : spec.width].astype(np.float32)
        gx, gy = rng.uniform(0.2, 0.8) * spec.width, rng.uniform(0.2, 0.8) * spec.height
        sigma = 0.15 * min(spec.width, spec.height)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)) * 120 * spec.glare
        out += blob[..., None]
    if spec.noise > 0:
        out += rng.normal(0, spec.noise, out.shape).astype(np.float32)
    img = np.clip(out, 0, 255).astype(np.uint8)
    if spec.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), spec.blur)
    if spec.perspective > 0:
        w, h = spec.width, spec.height
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        d = spec.perspective * min(w, h)
        dst = np.float32([[d, d * 0.5], [w - d, d * 0.5], [w, h], [0, h]])
        homog = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, homog, (w, h), borderMode=cv2.BORDER_REPLICATE)
        truth = [(p, cv2.perspectiveTransform(c.reshape(-1, 1, 2).astype(np.float64), homog).reshape(-1, 2))
                 for p, c in truth]
    readings = [TileReading(tuple(int(v) for v in p), tuple((float(x), float(y)) for x, y in c), 1.0)
                for p, c in truth]
    return img, readings
