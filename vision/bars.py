"""Stage 2: divider-bar candidates, the one thin straight stroke every tile carries.

A bar fixes a tile's centre, orientation, half line and scale, and separates touching
tiles that a face segmentation would merge. Candidates come from a local (adaptive)
threshold of three channels (see ``ink_channels``): dark ink on light faces (luminance,
and the minimum of B, G, R so coloured strokes count as dark) and light ink on dark faces
(the maximum of B, G, R). A cheap vectorised contrast test then drops table lines, grain,
weave and tile edges before any tile is read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .params import Params


@dataclass(frozen=True)
class Bar:
    centre: np.ndarray  # (x, y) working pixels
    direction: np.ndarray  # unit vector along the bar
    length: float
    thickness: float
    polarity: int  # 0: dark ink on light face, 1: light ink on dark face
    contrast: float = 255.0  # grey levels between the bar and the face beside it
    #: the gap a pin cuts in its middle (working px), when the bar was joined from two
    #: collinear pieces; 0.0 for a bar found whole
    pin: float = 0.0

    @property
    def joined(self) -> bool:
        return self.pin > 0.0

    def scaled(self, factor: float) -> Bar:
        return Bar(self.centre * factor, self.direction, self.length * factor,
                   self.thickness * factor, self.polarity, self.contrast, self.pin * factor)


#: polarity of each ink channel: 0 dark ink on a light face, 1 light ink on a dark face.
CHANNEL_POLARITY = (0, 0, 1)


def ink_channels(image: np.ndarray) -> list[np.ndarray]:
    """Grey images where ink is dark: luminance (black bars, even on cream faces lying on
    a white table), min(B, G, R) (coloured bars) and 255 - max(B, G, R) (light bars on
    dark tiles)."""
    b, g, r = cv2.split(image)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    low = cv2.min(cv2.min(b, g), r)
    high = cv2.max(cv2.max(b, g), r)
    return [grey, low, cv2.bitwise_not(high)]


def dedupe_bars(bars: list[Bar]) -> list[Bar]:
    """One candidate per physical bar (several channels find the same one); the one with
    the highest contrast stays."""
    if len(bars) < 2:
        return bars
    bars = sorted(bars, key=lambda b: -b.contrast)
    cen = np.array([b.centre for b in bars])
    dirs = np.array([b.direction for b in bars])
    lens = np.array([b.length for b in bars])
    same = np.linalg.norm(cen[:, None] - cen[None], axis=2) < 0.15 * np.minimum.outer(lens, lens)
    same &= np.abs(dirs @ dirs.T) > 0.97
    same &= np.abs(np.log(lens[:, None] / lens[None])) < 0.3
    dropped = np.zeros(len(bars), bool)
    for i in range(len(bars)):
        if not dropped[i]:
            row = same[i].copy()
            row[: i + 1] = False
            dropped |= row
    return [b for b, d in zip(bars, dropped) if not d]


def _not_among(bars: list[Bar], others: list[Bar]) -> list[Bar]:
    """The bars of ``bars`` that ``others`` does not hold (the test of ``dedupe_bars``)."""
    if not bars or not others:
        return bars
    cen = np.array([b.centre for b in others])
    dirs = np.array([b.direction for b in others])
    lens = np.array([b.length for b in others])
    out = []
    for bar in bars:
        same = np.linalg.norm(cen - bar.centre, axis=1) < 0.15 * np.minimum(lens, bar.length)
        same &= np.abs(dirs @ bar.direction) > 0.97
        same &= np.abs(np.log(lens / bar.length)) < 0.3
        if not same.any():
            out.append(bar)
    return out


def ink_masks(image: np.ndarray, params: Params, channels: list | None = None) -> list[np.ndarray]:
    """Binary ink masks (uint8 0/255), one per channel of ``ink_channels``."""
    h, w = image.shape[:2]
    win = int(params.ink_window_frac * max(h, w)) | 1
    win = max(win, 15)
    channels = channels or ink_channels(image)
    return [cv2.adaptiveThreshold(ch, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                  win, params.ink_offset) for ch in channels]


def _sample(channel: np.ndarray, pts: np.ndarray) -> np.ndarray:
    h, w = channel.shape
    x = np.clip(np.round(pts[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.round(pts[..., 1]).astype(np.intp), 0, h - 1)
    return channel[y, x].astype(np.float32)


def bar_contrasts(channel: np.ndarray, centre: np.ndarray, direction: np.ndarray,
                  length: np.ndarray, thickness: np.ndarray, params: Params,
                  one_end: bool = False) -> np.ndarray:
    """Cheap test of K candidates at once (``channel`` has ink dark): how much darker each
    bar is than the face on *both* sides of it and just past *both* its ends. Table lines,
    wood grain and tile edges have a different colour on one side or run on, and score 0."""
    normal = np.stack([-direction[:, 1], direction[:, 0]], 1)
    t = np.linspace(-0.4, 0.4, 11)
    on = centre[:, None, :] + (t[None, :, None] * length[:, None, None]) * direction[:, None, :]
    bar = np.median(_sample(channel, on), axis=1)
    width = length / params.bar_to_width
    sides = []
    for sign in (1.0, -1.0):
        pts = [on + sign * np.maximum(k * width, 0.5 * thickness + 2.0)[:, None, None]
               * normal[:, None, :] for k in (0.07, 0.11)]
        # the face is the bright part of the strip beside the bar (pips may sit close to it)
        sides.append(np.percentile(_sample(channel, np.concatenate(pts, 1)), 75, axis=1))
    ends = []
    for sign in (1.0, -1.0):
        tip = centre + sign * (0.5 * length + np.maximum(0.05 * width, 2.0))[:, None] * direction
        spread = (np.array([-0.06, 0.0, 0.06])[None, :, None] * width[:, None, None]) * normal[:, None, :]
        ends.append(np.median(_sample(channel, tip[:, None, :] + spread), axis=1))
    side_a, side_b = sides[0] - bar, sides[1] - bar
    low, high = np.minimum(side_a, side_b), np.maximum(side_a, side_b)
    # seen at a grazing angle a bar reaches the near (foreshortened) edge of its face:
    # ``one_end`` asks for face past one end only
    end_low = (np.maximum if one_end else np.minimum)(ends[0], ends[1]) - bar
    # a very dark bar on a bright face needs no bright ends: seen at an angle, a bar
    # reaches the (foreshortened) edges of its tile
    ends_ok = (end_low >= params.bar_end_contrast * low) | (low >= params.bar_sure_contrast)
    ok = (low >= params.bar_side_balance * high) & ends_ok
    return np.where(ok, low, 0.0)


def bar_candidates(mask: np.ndarray, polarity: int, params: Params,
                   channel: np.ndarray | None = None, one_end: bool = False) -> list[Bar]:
    """Thin straight components of an ink mask (and, given ``channel``, with contrast).

    Components are screened by their bounding boxes, then shaped by second moments: a
    rectangle of length L and thickness t has variances L^2/12 and t^2/12 along its axes."""
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return []
    bw = stats[:, cv2.CC_STAT_WIDTH].astype(np.float64)
    bh = stats[:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    diag2 = bw * bw + bh * bh
    ok = diag2 >= (0.9 * params.bar_min_length_px) ** 2
    # a bar of length L, thickness t and fill <= 1.05 (an ellipse) has diag^2 >= L^2 >=
    # 3 x area at the least elongation; a round pip (2.55) fails this before its moments
    ok &= diag2 / np.maximum(area, 1) >= params.bar_screen_elongation * params.bar_min_elongation
    ok &= area >= 6
    # no bar is longer than half the frame (that tile would not fit): table stripes are
    ok &= diag2 <= (0.5 * max(mask.shape)) ** 2
    ok[0] = False
    if not ok.any():
        return []
    idx = np.nonzero(ok)[0]
    sxx, syy, sxy = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in idx:
        x, y, w, h = stats[i, :4]
        mom = cv2.moments((labels[y : y + h, x : x + w] == i).view(np.uint8), binaryImage=True)
        sxx[i], syy[i], sxy[i] = mom["mu20"], mom["mu02"], mom["mu11"]
    sxx, syy, sxy = (v / np.maximum(area, 1) for v in (sxx, syy, sxy))
    tr, det = sxx + syy, sxx * syy - sxy * sxy
    disc = np.sqrt(np.maximum(tr * tr / 4 - det, 0))
    l1, l2 = tr / 2 + disc, np.maximum(tr / 2 - disc, 0)
    length = np.sqrt(12 * l1)
    thick = np.maximum(np.sqrt(12 * l2), 1.0)
    fill = area / np.maximum(length * thick, 1)
    ok &= length >= params.bar_min_length_px
    ok &= length / thick >= params.bar_min_elongation
    ok &= fill >= params.bar_min_fill
    theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)
    idx = np.nonzero(ok)[0]
    centres = cents[idx].astype(np.float64)
    dirs = np.stack([np.cos(theta[idx]), np.sin(theta[idx])], 1)
    contrast = np.full(len(idx), 255.0)
    if channel is not None and len(idx):
        contrast = bar_contrasts(channel, centres, dirs, length[idx], thick[idx], params,
                                 one_end)
    return [Bar(centres[k], dirs[k], float(length[i]), float(thick[i]), polarity, float(contrast[k]))
            for k, i in enumerate(idx) if contrast[k] >= params.bar_min_quick_contrast]


def join_split_bars(bars: list[Bar], params: Params) -> list[Bar]:
    """Add the whole bar for each collinear pair of pieces (a bar cut by a metal pin)."""
    if len(bars) < 2:
        return bars
    cen = np.array([b.centre for b in bars])
    dirs = np.array([b.direction for b in bars])
    lens = np.array([b.length for b in bars])
    thick = np.array([b.thickness for b in bars])
    pol = np.array([b.polarity for b in bars])
    delta = cen[None, :, :] - cen[:, None, :]
    dist = np.linalg.norm(delta, axis=2)
    along = np.abs((delta * dirs[:, None, :]).sum(axis=2))
    across = np.abs(delta[..., 0] * dirs[:, None, 1] - delta[..., 1] * dirs[:, None, 0])
    gap = along - 0.5 * (lens[:, None] + lens[None, :])
    span = along + 0.5 * (lens[:, None] + lens[None, :])
    ok = np.abs(dirs @ dirs.T) > 0.97
    ok &= across < np.maximum(1.5, 0.8 * np.maximum(thick[:, None], thick[None, :]))
    ok &= (gap > -0.5 * thick[:, None]) & (gap < params.bar_join_gap * span)
    # a pin is a few bar thicknesses wide; the bars of two tiles lying side by side are
    # collinear too, but a quarter of a tile width apart
    ok &= gap < 2.5 * np.maximum(thick[:, None], thick[None, :])
    ok &= (lens[:, None] < 1.6 * lens[None, :]) & (lens[None, :] < 1.6 * lens[:, None])
    ok &= pol[:, None] == pol[None, :]
    ok &= dist > 0
    out = list(bars)
    for i, j in zip(*np.nonzero(np.triu(ok, 1))):
        a, b = bars[i], bars[j]
        d = a.direction if float(a.direction @ (b.centre - a.centre)) >= 0 else -a.direction
        start = a.centre - d * a.length / 2
        end = b.centre + d * b.length / 2
        centre = (start + end) / 2
        length = float(np.linalg.norm(end - start))
        pin = max(1.0, float(np.linalg.norm(b.centre - a.centre)) - 0.5 * (a.length + b.length))
        out.append(Bar(centre, d, length, max(a.thickness, b.thickness), a.polarity,
                       min(a.contrast, b.contrast), pin))
    return out


def _first(flags: np.ndarray) -> np.ndarray:
    """Per row, the index of the first true entry (the row's length when there is none)."""
    return np.where(flags.any(axis=1), flags.argmax(axis=1), flags.shape[1])


def _continuations(ink: np.ndarray, limit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``ink`` (samples along a line past a bar's end, single missing samples
    bridged): the first sample of the ink run that starts past a gap, within ``limit``
    samples, and the first sample after that run (both = the row length when none)."""
    n = ink.shape[1]
    filled = ink.copy()
    filled[:, 1:-1] |= ink[:, :-2] & ink[:, 2:]
    idx = np.arange(n)[None, :]
    gap = _first(~filled)  # (the piece's own ink may reach past its end)
    start = _first(filled & (idx > gap[:, None]))
    start = np.where(start < limit, start, n)
    stop = _first(~filled & (idx > start[:, None]))
    return start, stop


def extend_across_pins(bars: list[Bar], masks: list[np.ndarray], channels: list[np.ndarray],
                       params: Params) -> list[Bar]:
    """Whole bars for pin-split bars of which only one piece was found: a pin's dark rim
    that merges with the other piece makes that piece a blob, no bar. Past either end of
    a piece, across a gap of at most a pin (3 bar thicknesses, 0.75 of the piece), the ink
    of its polarity must run on for another piece's length (0.6 to 2 of it: the run may
    hold the pin's rim), with face beside it; the whole bar must then pass the contrast
    test of any bar."""
    samples = 48
    pieces = [b for b in bars if not b.joined]
    if not pieces:
        return []
    cen = np.array([b.centre for b in pieces])
    dirs = np.array([b.direction for b in pieces])
    lens = np.array([b.length for b in pieces])
    thick = np.array([b.thickness for b in pieces])
    pols = np.array([b.polarity for b in pieces])
    gaps = np.minimum(3.0 * thick + 1.0, 0.75 * lens)
    step = (gaps + 2.0 * lens) / samples
    t = (np.arange(samples) + 0.5)[None, :] * step[:, None]
    out = []
    for pol in sorted(set(CHANNEL_POLARITY)):
        rows = np.flatnonzero(pols == pol)
        if not len(rows):
            continue
        ink_mask = masks[CHANNEL_POLARITY.index(pol)]
        for k, p in enumerate(CHANNEL_POLARITY):
            if p == pol and masks[k] is not ink_mask:
                ink_mask = cv2.bitwise_or(ink_mask, masks[k])
        found = []
        for sign in (1.0, -1.0):
            d = sign * dirs[rows]
            ends = cen[rows] + (0.5 * lens[rows])[:, None] * d
            pts = ends[:, None, :] + t[rows][..., None] * d[:, None, :]
            start, stop = _continuations(_sample(ink_mask, pts) > 0, gaps[rows] / step[rows])
            run = (stop - start) * step[rows]
            ok = (start < samples) & (run >= 0.6 * lens[rows]) & (run <= 2.0 * lens[rows])
            # a piece of bar is thin: beside the run lies face on both sides (not the
            # table or a shadow past the tile's end)
            along = np.arange(samples)[None, :]
            in_run = (along >= start[:, None]) & (along < stop[:, None])
            normal = np.stack([-d[:, 1], d[:, 0]], 1)
            off = np.maximum(0.5 * thick[rows] + 2.0, 0.2 * lens[rows])[:, None, None]
            for side in (1.0, -1.0):
                beside = _sample(ink_mask, pts + side * off * normal[:, None, :]) > 0
                ok &= (beside & in_run).sum(axis=1) <= 0.3 * np.maximum(1, in_run.sum(axis=1))
            for r in np.flatnonzero(ok):
                k = rows[r]
                tail = cen[k] - 0.5 * lens[k] * d[r]
                head = ends[r] + stop[r] * step[k] * d[r]
                found.append((k, 0.5 * (tail + head), d[r], float(np.linalg.norm(head - tail)),
                              max(1.0, float(start[r] * step[k]))))
        if not found:
            continue
        contrast = bar_contrasts(channels[CHANNEL_POLARITY.index(pol)],
                                 np.array([f[1] for f in found]), np.array([f[2] for f in found]),
                                 np.array([f[3] for f in found]), thick[[f[0] for f in found]],
                                 params)
        out += [Bar(c, d, length, float(thick[k]), pol, float(q), pin)
                for (k, c, d, length, pin), q in zip(found, contrast)
                if q >= params.bar_min_quick_contrast]
    # (both pieces may reach across to the other: one bar)
    return _not_among(dedupe_bars(out), [b for b in bars if b.joined])


def find_bars(image: np.ndarray, params: Params) -> list[Bar]:
    """All bar candidates of a BGR image (deduplicated, pin-split bars joined, capped)."""
    channels = ink_channels(image)
    out = []
    masks = ink_masks(image, params, channels)
    for k, mask in enumerate(masks):
        out += bar_candidates(mask, CHANNEL_POLARITY[k], params, channels[k])
    out = dedupe_bars(out)
    out = join_split_bars(out, params)
    out += extend_across_pins(out, masks, channels, params)
    if len(out) > params.max_bars:
        out = sorted(out, key=lambda b: -b.contrast)[: params.max_bars]
    return out


def find_ridge_bars(image: np.ndarray, params: Params) -> list[Bar]:
    """Bars that touch a dark edge (angled views): on a tile seen at a low angle the bar
    runs into the tile's shaded side face or shadow, and in the local-mean masks both are
    one component. A grey closing along rows (columns) fills dark strokes narrower than
    ``ridge_kernel_frac`` of the frame across them, so the difference to the image marks
    strokes that are dark between brighter pixels on *both* sides in that direction: a
    near-vertical bar is marked by the row closing, the horizontal shadow band below it
    is not (it runs along the rows), and the two come apart.

    A pip next to the bar joins it in that mask too; an opening of the mask with a line
    along the bars it marks, half the closing's length, keeps the bar and drops the pips.
    The bars of both masks are kept, also where they are the same bar: measured
    differently they may read differently, and the reads compete in the suppression.

    Both are made from the luminance and from min(B, G, R): a coloured bar on a coloured
    face (yellow on pink) differs little in luminance, and in the local-mean masks it
    runs into the darker band along the face's own edge on a light table."""
    grey, low, _ = ink_channels(image)
    k = max(15, int(params.ridge_kernel_frac * max(grey.shape[:2])) | 1)
    half = max(7, k // 2)
    found: dict[int, list[Bar]] = {0: [], 1: []}  # per channel
    for kernel, along in ((np.ones((1, k), np.uint8), np.ones((half, 1), np.uint8)),
                          (np.ones((k, 1), np.uint8), np.ones((1, half), np.uint8))):
        for c, channel in enumerate((grey, low)):
            ridge = cv2.subtract(cv2.morphologyEx(channel, cv2.MORPH_CLOSE, kernel), channel)
            mask = cv2.threshold(ridge, params.ridge_offset, 255, cv2.THRESH_BINARY)[1]
            for m in (mask, cv2.morphologyEx(mask, cv2.MORPH_OPEN, along)):
                found[c] += dedupe_bars([b for b in bar_candidates(m, 0, params, channel,
                                                                   one_end=True)
                                         if b.length >= params.ridge_min_elongation * b.thickness])
    # (each is read by the slower angled reader: the most contrasted ones only)
    grey_bars, low_bars = (sorted(found[c], key=lambda b: -b.contrast)[: params.ridge_max_bars]
                           for c in (0, 1))
    # a black bar is found in both channels alike: min(B, G, R) adds only bars of its own
    out = grey_bars + _not_among(low_bars, grey_bars)
    if len(out) > params.ridge_max_bars:
        out = sorted(out, key=lambda b: -b.contrast)[: params.ridge_max_bars]
    return out
