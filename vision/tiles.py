"""Stages 3-4: from a bar candidate to a read tile (outline, pips, confidence).

Around each bar a probe crop is sampled in the bar's frame (u along the bar, v across it)
at a canonical scale, so every later threshold is a fraction of the tile width ``C``. The
face colour is the median of the strips just beside the bar (pip-free in every layout);
every pixel's Lab distance to it separates face from
ink for any pip colour or polarity. The face's extent along u and v gives the outline
(each half measured separately, which absorbs mild perspective); each half is resampled
to a C x C square and its pips are counted as round components.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .bars import Bar
from .cvcompat import components_with_stats, small_to_lab
from .params import Params


@dataclass
class TileHypothesis:
    pips: tuple[int, int]
    corners: np.ndarray  # (4, 2) working pixels
    confidence: float
    width_px: float  # tile width in working pixels
    polarity: int
    debug: dict
    bar: Bar | None = None


def _median(values, axis: int | None = None):
    """``np.median`` (same values, NaN-free input) without its overhead on small arrays."""
    a = np.asarray(values)
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    n = a.shape[axis]
    k = n // 2
    if n % 2:
        return np.take(np.partition(a, k, axis=axis), k, axis=axis)
    part = np.partition(a, (k - 1, k), axis=axis)
    return 0.5 * (np.take(part, k - 1, axis=axis) + np.take(part, k, axis=axis))


def _first_edge(profile: np.ndarray, start: int, stop: int, window: int, level: float) -> int | None:
    """First index in [start, stop) where the profile stays below ``level`` for ``window``
    (past the end: what is left of the window)."""
    n = len(profile)
    stop = min(stop, n)
    if start >= stop:
        return None
    # how many values at or above the level precede each index: a window is clear when
    # that count does not grow across it
    above = np.zeros(n + 1, np.int32)
    np.cumsum(profile.astype(np.float32) >= np.float32(level), out=above[1:])
    idx = np.arange(start, stop)
    hits = np.flatnonzero(above[np.minimum(idx + window, n)] == above[idx])
    return int(start + hits[0]) if len(hits) else None


def _outline(facemask: np.ndarray, mu: int, mv: int, q: int, cp: int, ratio: float,
             fixed_width: bool, params: Params) -> tuple | None:
    """Where the face ends on each of the four sides of the probe (bar at (mu, mv)).
    ``None`` when the outlined face is too small or not face enough."""
    win = max(2, round(0.2 * cp))
    prof_v = facemask[:, mu - q : mu + q].mean(axis=1)
    lo_v, hi_v = (int(f * cp) for f in params.half_extent_range)
    down = _first_edge(prof_v[mv:], lo_v, hi_v, win, params.edge_face_fraction)
    up = _first_edge(prof_v[:mv][::-1], lo_v, hi_v, win, params.edge_face_fraction)
    a, b = int(0.15 * cp), int(0.85 * cp)  # the rows of both halves, away from the bar
    prof_u = (np.count_nonzero(facemask[mv - b : mv - a], axis=0)
              + np.count_nonzero(facemask[mv + a : mv + b], axis=0)) / (2 * (b - a))
    lc = ratio * cp
    lo_u, hi_u = (int(0.5 * f * lc) for f in params.width_extent_range)
    right = left = None
    if not fixed_width:  # else: the width is bar length / ratio_hint
        right = _first_edge(prof_u[mu:], lo_u, hi_u, win, params.edge_face_fraction)
        left = _first_edge(prof_u[:mu][::-1], lo_u, hi_u, win, params.edge_face_fraction)
    measured = sum(v is not None for v in (up, down, left, right))
    half_w = 0.5 * cp
    if left is not None and right is not None:
        half_w = 0.5 * (left + right)
    el = left if left is not None else (right if right is not None else half_w)
    er = right if right is not None else (left if left is not None else half_w)
    width = el + er
    et = up if up is not None else (down if down is not None else width)
    eb = down if down is not None else (up if up is not None else width)
    et, eb = min(et, 1.3 * width), min(eb, 1.3 * width)
    if min(el, er, et, eb) < 3:
        return None
    region = facemask[int(mv - et) : int(mv + eb), int(mu - el) : int(mu + er)]
    face_fraction = np.count_nonzero(region) / max(1, region.size)
    if face_fraction < params.face_min_fraction:
        return None
    return el, er, et, eb, width, measured, face_fraction, left is not None and right is not None

def _count_half(dist: np.ndarray, band: int, params: Params, t_pip: float,
                close: bool = False, layout_slack: float | None = None
                ) -> tuple[int, list, int, int, float]:
    """Pips in one C x C half (bar side at row 0, ``band`` rows ignored there).
    Returns count, pip areas, strokes, merges and layout asymmetry (see ``_asymmetry``)."""
    c = dist.shape[0]
    ink = dist > t_pip
    margin = max(1, round(params.half_margin * c))
    ink[:band, :] = False
    ink[:, :margin] = False
    ink[:, c - margin :] = False
    ink[c - margin :, :] = False
    ink = ink.view(np.uint8)
    if close:
        # repair glossy pips: grow each pip down to a lower cut (hysteresis), then fill the
        # hole its white highlight leaves, so it is one round blob again
        low = (dist > params.pip_low_factor * t_pip).view(np.uint8)
        low[:band, :] = 0
        low[:, :margin] = 0
        low[:, c - margin :] = 0
        low[c - margin :, :] = 0
        m, labels = cv2.connectedComponents(low, connectivity=8)
        seeded = np.zeros(m, bool)
        seeded[np.unique(labels[ink > 0])] = True
        seeded[0] = False
        ink = seeded[labels].view(np.uint8)
        holes = 1 - ink
        cv2.floodFill(holes, None, (0, c - 1), 0)
        ink = ink | holes
    _, _, stats, cents = components_with_stats(ink)
    min_area = params.pip_min_area * c * c
    max_area = params.pip_max_area * c * c
    # a row of touching pips is a pip thick: from the smallest pip's diameter (less 20%)
    # to the largest one's (blurred big pips of a 6 merge into columns 0.25 W wide)
    min_pip_width = 0.8 * (4.0 * min_area / np.pi) ** 0.5
    max_pip_width = (4.0 * max_area / np.pi) ** 0.5
    areas, strokes, merged_areas, centres = [], 0, [], []
    specks = 0
    # native numbers: the loop does scalar arithmetic on a few dozen components
    for (x, y, w, h, a), (cx, cy) in zip(stats[1:].tolist(), cents[1:].tolist()):
        if a < min_area:
            specks += a >= 0.25 * min_area
            continue
        if min(cx, c - cx, c - cy) < 0.1 * c:
            continue
        elong = max(w, h) / max(1, min(w, h))
        if y <= band + 1 and w > 2 * h and w > 0.3 * c:
            continue  # the rest of a thick or slanted bar
        if ((x <= margin or x + w >= c - margin) and h > 2 * w and w < 0.15 * c) or (
                y + h >= c - margin and w > 2 * h and h < 0.15 * c):
            continue  # a thin strip along the outline: tile edge, gap or neighbour
        if elong > 2.6:
            if a / float(w * h) >= 0.5 and min_pip_width <= min(w, h) <= max_pip_width:
                merged_areas.append((a, min(w, h)))  # a row or column of touching pips
                centres.append((cx, cy))
            else:
                strokes += 1
            continue
        if a > max_area:
            merged_areas.append((a, min(w, h) / 2))
            centres.append((cx, cy))
            continue
        if a / float(w * h) < params.pip_min_fill:
            strokes += 1
            continue
        areas.append((a, elong, min(w, h)))
        centres.append((cx, cy))
    # two or three touching pips look like one big or oblong pip: compare with the round
    # ones; when every blob is oblong, a pip is about as wide as the blobs are thin
    round_areas = [a for a, e, _ in areas if e < 1.4]
    if round_areas:
        single = float(_median(round_areas))
    elif areas:
        single = float(_median([0.8 * short * short for _, _, short in areas]))
    else:
        single = None
    merges = 0
    count = 0
    for a, elong, _ in areas:
        k = 1
        if single and (a > params.pip_merge_area * single
                       or (elong >= 1.6 and a > 1.3 * single)):
            k = max(2, round(a / single))
            merges += 1
        count += k
    for a, short in merged_areas:
        ref = single if single else 0.8 * short * short
        count += max(1, round(a / ref))
        merges += 1
    areas = [a for a, _, _ in areas]
    return (count, areas, strokes + specks // params.specks_per_stroke, merges,
            _asymmetry(centres, c, layout_slack))


def _shear(facemask: np.ndarray, mu: int, mv: int, el: float, er: float, et: float,
           eb: float, cp: int) -> float:
    """How far the face leans in the bar's frame: the slope of the middle of each row's
    face extent against the row (0 for a face seen square-on, whose long axis is
    perpendicular to the bar; about the tangent of the shear when seen at an angle)."""
    pad = round(0.15 * cp)
    lo, hi = max(0, int(mu - el) - pad), min(facemask.shape[1], int(mu + er) + pad + 1)
    rows = np.concatenate((np.arange(int(mv - 0.85 * et), int(mv - 0.25 * et)),
                           np.arange(int(mv + 0.25 * eb), int(mv + 0.85 * eb))))
    rows = rows[(rows >= 0) & (rows < facemask.shape[0])]
    if len(rows) < 4 or hi - lo < 4:
        return 0.0
    sub = facemask[rows, lo:hi]
    has = sub.any(axis=1)
    if has.sum() < 4:
        return 0.0
    first = sub.argmax(axis=1)
    last = sub.shape[1] - 1 - sub[:, ::-1].argmax(axis=1)
    mid = 0.5 * (first + last)[has]
    v = (rows - mv)[has].astype(np.float64)
    v = v - v.mean()
    return float((v * (mid - mid.mean())).sum() / max(1e-6, (v * v).sum()))


def _count_halves(halves: list, band: int, params: Params, t_pip: float,
                  layout_slack: float | None = None
                  ) -> tuple[list[int], bool, int, int, float]:
    """Pips of both halves, with the glossy-pip and touching-pip retries. Returns counts,
    irregular pip sizes, strokes, merges and the worst layout asymmetry."""
    counts, irregular, strokes, merges, asymmetry = [], False, 0, 0, 0.0
    for half in halves:
        k, areas, st, mg, asym = _count_half(half, band, params, t_pip, False, layout_slack)
        if st:  # broken glossy pips: retry with them repaired
            retry = _count_half(half, band, params, t_pip, True, layout_slack)
            if retry[2] < st and retry[3] <= mg:
                k, areas, st, mg, asym = retry
        if mg:  # touching pips: the valleys between them are lighter, try a higher cut
            retry = _count_half(half, band, params, t_pip * params.pip_split_factor,
                                False, layout_slack)
            if retry[3] < mg and retry[2] <= st and retry[0] >= k - 1:
                k, areas, st, mg, asym = retry
        counts.append(k)
        asymmetry = max(asymmetry, asym)
        irregular |= len(areas) >= 2 and max(areas) > 3.5 * min(areas)
        strokes += st
        merges += mg
    return counts, irregular, strokes, merges, asymmetry


def _asymmetry(centres: list, c: int, layout_slack: float | None = None) -> float:
    """Every pip layout is symmetric under a half turn about the half's centre: mean
    distance (fraction of W) from each blob's mirror image to the nearest blob.

    With ``layout_slack`` (a fraction of W) the half's outline is itself in doubt (a face
    measured at a low angle, where a visible side or a bevel shifts it a little): the
    layout is turned about its own middle instead, and its offset from the half's centre
    counts only beyond the slack."""
    if not centres:
        return 0.0
    pts = np.asarray(centres, np.float64)
    offset = 0.0
    if layout_slack is None:
        mirror = c - pts
    else:
        middle = 0.5 * (pts.min(axis=0) + pts.max(axis=0))
        mirror = 2 * middle - pts
        offset = max(0.0, float(np.linalg.norm(middle - 0.5 * c)) / c - layout_slack)
    gaps = np.sqrt(np.square(mirror[:, None, :] - pts[None, :, :]).sum(axis=2).min(axis=1))
    return float(gaps.mean() / c) + offset


_ONES = np.ones((1, 3), np.float32)


def _norm3(diff: np.ndarray) -> np.ndarray:
    """Per-pixel Euclidean norm of a float32 (H, W, 3) array (OpenCV, no temporaries)."""
    return cv2.sqrt(cv2.transform(cv2.multiply(diff, diff), _ONES))


def _lab_distance(lab: np.ndarray, face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's Lab distance to ``face`` (float32) and its squared per-channel
    differences, from a uint8 Lab image through one lookup table (the face is one colour:
    no float copy of the image, no broadcast subtraction)."""
    table = np.square(np.arange(256, dtype=np.float32)[:, None] - face).reshape(256, 1, 3)
    sq = cv2.LUT(lab, table)
    return cv2.sqrt(cv2.transform(sq, _ONES)), sq


def bar_too_weak(contrast: float, face_lightness: float, params: Params) -> bool:
    """Whether a bar's Lab contrast against its face is too low for a tile. Dim frames
    have less contrast everywhere: the floor follows the face's lightness."""
    return contrast < min(params.bar_min_contrast, max(
        params.bar_min_contrast_dim, params.bar_contrast_per_lightness * face_lightness))


def counting_doubt(counts: list[int], irregular: bool, strokes: int, merges: int,
                   asymmetry: float, params: Params, merge_penalty: float) -> float:
    """Confidence factor from what counting the pips noticed: strokes (texture, a wrong
    outline), a layout that is not symmetric under a half turn (letters, texture),
    merged blobs (``merge_penalty`` each), a count above the set, pips of very different
    sizes in one half."""
    factor = 1.0
    if strokes:
        factor *= params.stroke_penalty ** min(strokes, 3)
    if asymmetry > params.layout_max_asymmetry:
        factor *= 0.5
    factor *= merge_penalty ** merges
    if max(counts) > (params.set_size or 18):
        factor *= 0.2
    if irregular:
        factor *= 0.6
    return factor


def cut_by_border(corners: np.ndarray, width: float, shape: tuple) -> bool:
    """Whether an outline (working px) reaches past the frame's border by more than 5% of
    the tile ``width``: part of the face is not seen."""
    h, w = shape[:2]
    slack = 0.05 * width
    return bool(corners.min() < -slack or corners[:, 0].max() > w - 1 + slack
                or corners[:, 1].max() > h - 1 + slack)


def _ink_distance(image: np.ndarray, matrix: np.ndarray, size: tuple[int, int], face: np.ndarray,
                  t_pip: float, dark_ink: bool) -> np.ndarray:
    """Sample ``image`` through ``matrix`` (output -> image; 2 x 3 affine or 3 x 3
    perspective) and return each pixel's Lab
    distance to the face colour, zeroed where the pixel is only a brighter (glare) or, on
    dark faces, darker (shadow) copy of the face."""
    warp = cv2.warpPerspective if matrix.shape == (3, 3) else cv2.warpAffine
    patch = warp(image, matrix, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                 borderMode=cv2.BORDER_REPLICATE)
    lab = small_to_lab(patch)
    dist, sq = _lab_distance(lab, face)
    lightness = lab[..., 0]
    if dark_ink:
        if float(lightness.max()) - face[0] <= 0.5 * t_pip:
            return dist  # nothing is a brighter copy of the face: no glare to remove
        light = lightness.astype(np.float32) - face[0]
    else:
        if face[0] - float(lightness.min()) <= 0.5 * t_pip:
            return dist  # nothing is a darker copy of the face
        light = face[0] - lightness.astype(np.float32)
    glare = (light > 0.5 * t_pip) & (sq[..., 1] + sq[..., 2] < (0.6 * t_pip) ** 2)
    dist[glare] = 0.0
    return dist


def _clear_pin(halves: list[np.ndarray], bar: Bar, column: float, scale: float) -> None:
    """Blank the pin of a pin-split bar in both halves' ink distances (in place): the disc
    of the pin's gap and a bar thickness of dark rim around it, at ``column`` of the bar
    line (row 0); ``scale`` is half px per working px. A pin bulging past the bar's band
    would count as pips."""
    radius = max(1, round((0.5 * bar.pin + bar.thickness) * scale))
    for half in halves:
        cv2.circle(half, (round(column), 0), radius, 0.0, -1)


def read_tile(image: np.ndarray, lab: np.ndarray | None, bar: Bar, params: Params,
              ratio_hint: float | None = None, fixed_width: bool = False,
              clean_face: bool = False) -> TileHypothesis | None:
    """Test the tile hypothesis of one bar; ``None`` when it is not a tile face.

    The face colour is the median of the strips beside the bar; with ``clean_face`` only
    of their half away from the ink's side (lighter for dark ink), for faces whose pips
    crowd the bar so that the strips hold nearly as much pip as face.

    A coarse probe (``probe_width_px`` per tile width) finds the face colour, the bar
    contrast and the outline; each half is then sampled at ``canon_width_px`` for pips."""
    cp = params.probe_width_px
    ratio = ratio_hint or params.bar_to_width
    w0 = bar.length / ratio  # tile width, working px
    s = cp / w0
    pw, ph = int(1.5 * cp), int(2 * (params.half_extent_range[1] + 0.25) * cp)
    u, n = bar.direction, np.array([-bar.direction[1], bar.direction[0]])
    cx, cy = bar.centre
    m = np.array([[u[0] / s, n[0] / s, cx - (pw / 2 * u[0] + ph / 2 * n[0]) / s],
                  [u[1] / s, n[1] / s, cy - (pw / 2 * u[1] + ph / 2 * n[1]) / s]])
    probe = cv2.warpAffine(image, m, (pw, ph), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
    plab = small_to_lab(probe)
    mu, mv = pw // 2, ph // 2
    q = int(0.3 * cp)
    # the strips just beside the bar are face in every layout (pips start at 0.15 W)
    b0 = max(1, round(max(0.06 * cp, 0.5 * bar.thickness * s + 1)))
    b1, bu = max(b0 + 2, round(0.13 * cp) + 1), int(0.35 * cp)
    inner = np.concatenate([plab[mv - b1 : mv - b0, mu - bu : mu + bu],
                            plab[mv + b0 : mv + b1, mu - bu : mu + bu]], 0)
    inner = inner.reshape(-1, 3).astype(np.float32)
    if clean_face:
        lightness, cut = inner[:, 0], _median(inner[:, 0])
        inner = inner[lightness >= cut] if bar.polarity == 0 else inner[lightness <= cut]
    face = _median(inner, axis=0)
    dist, _ = _lab_distance(plab, face)
    # bar contrast and polarity
    bt = max(0, round(min(0.025 * cp, 0.25 * bar.thickness * s)))
    bar_rows = slice(mv - bt, mv + bt + 1)
    bar_cols = slice(mu - int(0.25 * cp), mu + int(0.25 * cp))
    bar_contrast = float(_median(dist[bar_rows, bar_cols]))
    if bar_too_weak(bar_contrast, float(face[0]), params):
        return None
    dark_ink = float(_median(plab[bar_rows, bar_cols, 0].astype(np.float32))) < face[0]

    def finish(outline: tuple, face_thr: float) -> TileHypothesis:
        facemask = dist < face_thr
        el, er, et, eb, width, measured, face_fraction, width_measured = outline
        shear = _shear(facemask, mu, mv, el, er, et, eb, cp)
        # pips: each half sampled to C x C with the bar side at row 0
        # mid-sized tiles are sampled at their own resolution (no upsampling, faster); small
        # ones are upsampled to canon_width_px, where the speck and pip-size rules were set
        source_width = round(width / s)
        c = params.canon_width_px
        if params.canon_min_width_px <= source_width < c:
            c = source_width
        t_pip = max(params.pip_min_contrast, params.pip_rel_contrast * bar_contrast)
        kx = (el + er) / c
        halves = []
        for sign, extent in ((-1.0, et), (1.0, eb)):
            ky = sign * extent / c
            ox, oy = mu - el, mv
            hm = np.array([[m[0, 0] * kx, m[0, 1] * ky, m[0, 0] * ox + m[0, 1] * oy + m[0, 2]],
                           [m[1, 0] * kx, m[1, 1] * ky, m[1, 0] * ox + m[1, 1] * oy + m[1, 2]]])
            halves.append(_ink_distance(image, hm, (c, c), face, t_pip, dark_ink))
        if bar.joined:
            _clear_pin(halves, bar, el / (el + er) * c, c / (width / s))
        band = round(max(params.bar_band * c, 0.5 * bar.thickness * c / (width / s) + 0.03 * c))
        counts, irregular, strokes, merges, asymmetry = _count_halves(halves, band, params, t_pip)
        confidence = 0.9 if bar.joined else 1.0  # whole bars win ties against joined pieces
        confidence *= counting_doubt(counts, irregular, strokes, merges, asymmetry, params, 0.8)
        if counts == [0, 0] and measured < 2:
            confidence *= 0.5  # nothing corroborates a blank-blank but its outline: ask for one
        if abs(shear) > params.shear_max:
            confidence *= 0.3  # seen at an angle: the bar's frame does not fit the face
        aspect = (et + eb) / max(1, width)
        if not params.face_aspect_range[0] <= aspect <= params.face_aspect_range[1]:
            confidence *= 0.4
        confidence *= min(1.0, 0.7 + (face_fraction - params.face_min_fraction) * 3.0)
        confidence *= min(1.0, 0.5 + bar_contrast / (4 * params.bar_min_contrast))
        pts = np.array([[mu - el, mv - et], [mu + er, mv - et], [mu + er, mv + eb], [mu - el, mv + eb]],
                       np.float64)
        corners = pts @ m[:, :2].T + m[:, 2]
        cut = cut_by_border(corners, width / s, image.shape)
        if cut:
            confidence *= 0.3
        debug = {"bar_contrast": bar_contrast, "face_fraction": face_fraction, "measured": measured,
                 "cut": cut,
                 "strokes": strokes, "merges": merges, "ratio": bar.length * s / max(1, width),
                 "width_measured": width_measured,
                 "asymmetry": asymmetry, "shear": shear, "aspect": aspect,
                 "table_dist": table_dist, "face_threshold": face_thr}
        return TileHypothesis((counts[0], counts[1]), corners, float(np.clip(confidence, 0, 1)),
                              width / s, bar.polarity, debug, bar)

    # a table of nearly the face's own colour (light marble, white cloth) passes as face,
    # and the outline runs on into it: the tile is then also read with a threshold
    # between the face and the table around it (the median distance beyond
    # ``table_ring``), and the more confident reading wins (on a tie the tighter one; a
    # shaded face may not survive it, and then the usual outline stays)
    face_thr = params.face_max_distance
    outline = _outline(dist < face_thr, mu, mv, q, cp, ratio, fixed_width, params)
    ring_u, ring_v = int(params.table_ring[0] * cp), int(params.table_ring[1] * cp)
    table = np.concatenate([dist[: mv - ring_v].ravel(), dist[mv + ring_v :].ravel(),
                            dist[:, : mu - ring_u].ravel(), dist[:, mu + ring_u :].ravel()])
    table_dist = float(_median(table)) if len(table) else face_thr
    # (nearer than face_min_distance / table_split, the table is a touching tile or the
    # face's very colour: no threshold tells them apart)
    if (table_dist < params.face_max_distance
            and params.table_split * table_dist >= params.face_min_distance):
        tight_thr = params.table_split * table_dist
        tight = _outline(dist < tight_thr, mu, mv, q, cp, ratio, fixed_width, params)
        if tight is not None:
            hyps = [finish(tight, tight_thr)]
            # (a sure reading with all four edges measured cannot lose the tie: the usual
            # threshold is not read then)
            if outline is not None and not (hyps[0].confidence >= 1.0
                                            and hyps[0].debug["measured"] == 4):
                hyps.append(finish(outline, face_thr))
            return max(hyps, key=lambda h: h.confidence)
    if outline is None:
        return None
    return finish(outline, face_thr)
