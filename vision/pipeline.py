"""The library entry point: ``scan(image, params) -> Observation`` (pure, no I/O)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from .angled import read_tile_angled
from .bars import Bar, find_bars, find_ridge_bars
from .cvcompat import convex_overlap
from .imageio import validate_image
from .observation import Observation, TileReading
from .params import Params, parse_set
from .tiles import TileHypothesis, read_tile


def _working_image(image: np.ndarray, params: Params) -> tuple[np.ndarray, float]:
    h, w = image.shape[:2]
    scale = min(1.0, params.work_max_side_px / max(h, w))
    if max(h, w) < params.work_min_side_px:  # thumbnails: give the masks room to work
        scale = params.work_min_side_px / max(h, w)
    if scale != 1.0:
        image = cv2.resize(image, (round(w * scale), round(h * scale)),
                           interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    return image, scale


def _suppress(hyps: list[TileHypothesis], params: Params) -> list[TileHypothesis]:
    """Keep the most confident of overlapping hypotheses."""
    # most confident first; among equals, the one whose outline was seen on more sides
    hyps = sorted(hyps, key=lambda t: (-round(t.confidence, 1), -t.debug["measured"],
                                       -t.confidence, -t.width_px))
    kept: list[TileHypothesis] = []
    polys, areas = [], []
    lows = np.empty((len(hyps), 2), np.float32)  # bounding boxes of the kept ones
    highs = np.empty((len(hyps), 2), np.float32)
    for hyp in hyps:
        poly = hyp.corners.astype(np.float32)
        area = abs(cv2.contourArea(poly))
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        k = len(kept)
        near = np.flatnonzero(~((lo > highs[:k]).any(axis=1) | (hi < lows[:k]).any(axis=1)))
        if not any(convex_overlap(poly, polys[j]) > params.overlap_max * min(area, areas[j])
                   for j in near):
            lows[k], highs[k] = lo, hi
            kept.append(hyp)
            polys.append(poly)
            areas.append(area)
    return kept


def _reread_with_consensus_width(work: np.ndarray, hyps: list[TileHypothesis], params: Params
                                 ) -> list[TileHypothesis]:
    """One set of tiles has one bar-to-width ratio. Tiles that read well with both long
    sides measured give it; a tile that touches others along its long sides (its width
    ran on) or read poorly is read again with that ratio."""
    good = [h.debug["ratio"] for h in hyps
            if h.confidence >= 0.8 and h.debug["width_measured"] and h.debug["measured"] >= 3]
    if len(good) < 3:
        return hyps
    ratio = float(np.median(good))
    out = []
    for hyp in hyps:
        if hyp.debug.get("angled"):
            pass  # measured in its own skewed frame: the square-on ratio does not apply
        elif hyp.confidence < 0.8 or abs(hyp.debug["ratio"] - ratio) > 0.1 * ratio:
            again = read_tile(work, None, hyp.bar, params, ratio_hint=ratio, fixed_width=True)
            # an unmeasured width is a guess: the frame's ratio is the better one on a tie
            margin = 0.05 if not hyp.debug["width_measured"] else 0.0
            if again is not None and again.confidence > hyp.confidence - margin:
                hyp = again
        out.append(hyp)
    return out


def _new_bars(more: list, bars: list) -> list:
    """The bars of ``more`` that are not already among ``bars`` (same centre and axis)."""
    if not bars or not more:
        return more
    cen = np.array([b.centre for b in bars])
    dirs = np.array([b.direction for b in bars])
    out = []
    for b in more:
        near = np.linalg.norm(cen - b.centre, axis=1) < 0.3 * b.length
        if not (near & (np.abs(dirs @ b.direction) > 0.9)).any():
            out.append(b)
    return out


def _angled_instead(work: np.ndarray, hyp: TileHypothesis, params: Params,
                    angled_scene: bool) -> TileHypothesis:
    """A face that leans in its bar's frame is read again in its own skewed frame. In a
    scene seen at an angle (some face leans) so is one whose outline was partly guessed
    (an edge not found: foreshortened faces run past the searched extents); when the two
    readings disagree, the more confident one stands, in doubt."""
    leans = abs(hyp.debug.get("shear", 0.0)) > params.shear_max
    guessed = angled_scene and hyp.debug.get("measured", 4) <= params.angled_check_measured
    # (junk is not worth a second read, which costs several square-on ones: a leaning
    # face's confidence already carries the 0.3 of read_tile's shear doubt)
    if not ((leans and hyp.confidence >= 0.3 * params.drop_confidence)
            or (guessed and hyp.confidence >= 0.5 * params.drop_confidence)):
        return hyp
    again = read_tile_angled(work, hyp.bar, params)
    if again is None:
        if guessed and not leans:
            # seen at an angle, a square-on outline that is partly guessed is no proof
            hyp.confidence *= params.angled_disagreement ** 2
        return hyp
    if leans:
        return again if again.confidence > hyp.confidence else hyp
    if again.pips == hyp.pips or tuple(reversed(again.pips)) == hyp.pips:
        return hyp
    # a measured outline beats a guessed one
    if again.confidence >= params.min_confidence:
        again.confidence *= params.angled_disagreement
        return again
    hyp.confidence *= params.angled_disagreement ** 2
    return hyp


def _leaning(hyps: list[TileHypothesis], params: Params) -> bool:
    """Whether the frame was taken at an angle: some face that is not plainly junk leans
    in its bar's frame, or some fully measured face has the wrong proportions."""
    # (a leaning face's confidence already carries the 0.3 of read_tile's shear doubt)
    lo, hi = params.face_aspect_range
    return any(abs(h.debug.get("shear", 0.0)) > params.shear_max
               or (h.debug.get("measured") == 4 and not lo <= h.debug.get("aspect", 2.0) <= hi)
               for h in hyps if h.confidence >= 0.3 * params.drop_confidence)


def _unexplained(hyps: list[TileHypothesis], params: Params) -> bool:
    """Whether the square-on reading leaves the frame unexplained: fewer than
    ``ridge_gate_tiles`` sure tiles and either none at all or some bar read only unsure
    (a frame of one or two clearly read tiles, such as a camera's crop, is explained; so
    is an unsure tile cut by the frame's border beside them: a crop cuts its neighbours,
    and no reader sees the rest of them)."""
    sure = sum(h.confidence >= params.min_confidence for h in hyps)
    if sure >= params.ridge_gate_tiles:
        return False
    return sure == 0 or any(h.confidence < params.min_confidence and not h.debug.get("cut")
                            for h in hyps)


def _read_either_way(work: np.ndarray, bar: Bar, params: Params) -> TileHypothesis | None:
    """The square-on reading of a bar; when it is unsure (not junk), or fails on a strongly
    contrasted bar, the bar is read again pointing the other way, then with the face
    colour from the clean (lighter, for dark ink) half of the strips beside the bar, until
    a reading is sure; the most confident reading stands, doubted when its counts differ
    from the one it replaces. (The probe's pixel grid is not symmetric under a half turn
    about the bar, so the two directions take the face colour from strips one pixel
    apart; where pips crowd the bar that matters, and there the strips hold nearly as much
    pip as face. A frame turned by 90 degrees read some tiles only one way.)"""
    hyp = read_tile(work, None, bar, params)
    if hyp is not None and not params.drop_confidence <= hyp.confidence < params.min_confidence:
        return hyp  # sure, or junk
    if hyp is None and bar.contrast < params.reread_min_contrast:
        return None  # (most failed bars are texture: not worth a second read)
    for other, clean in ((dataclasses.replace(bar, direction=-bar.direction), False),
                         (bar, True)):
        again = read_tile(work, None, other, params, clean_face=clean)
        if again is None:
            continue
        if hyp is not None:
            if sorted(hyp.pips) != sorted(again.pips):
                again.confidence *= params.angled_disagreement ** 2  # two counts: in doubt
            if again.confidence <= hyp.confidence:
                continue
        hyp = again
        if hyp.confidence >= params.min_confidence:
            break
    return hyp


def _search(work: np.ndarray, max_side: int, params: Params) -> tuple[list, list]:
    """Bars searched on a copy of at most ``max_side`` px, tiles read from ``work``."""
    h, w = work.shape[:2]
    det_scale = min(1.0, max_side / max(h, w))
    if det_scale > 0.85:  # not worth a resize
        det_scale = 1.0
    det = work if det_scale == 1.0 else cv2.resize(
        work, (round(w * det_scale), round(h * det_scale)),
        interpolation=cv2.INTER_LINEAR if det_scale >= 0.5 else cv2.INTER_AREA)
    bars = [b.scaled(1.0 / det_scale) for b in find_bars(det, params)]
    hyps = [h for h in (_read_either_way(work, bar, params) for bar in bars) if h is not None]
    angled_scene = _leaning(hyps, params)
    hyps = [_angled_instead(work, h, params, angled_scene) for h in hyps]
    if _unexplained(hyps, params):
        # few tiles: perhaps an angled view whose bars run into the tiles' side faces
        ridges = [b.scaled(1.0 / det_scale) for b in find_ridge_bars(det, params)]
        if det_scale < 0.7:
            # thin bars of foreshortened faces show better at full size (when the search
            # copy is much smaller); the same bar found at both sizes is read twice, and
            # the reads compete in the suppression
            ridges = ridges + find_ridge_bars(work, params)
        # (a bar already read as a sure tile needs no second read; one that gave nothing
        # or an unsure tile gets the angled reader's)
        more = _new_bars(ridges, [h.bar for h in hyps if h.confidence >= params.min_confidence])
        bars = bars + more
        hyps += [h for h in (read_tile_angled(work, bar, params) for bar in more) if h is not None]
    hyps = _reread_with_consensus_width(work, hyps, params)
    return bars, [h for h in hyps if h.confidence >= params.drop_confidence]


def detect(image: np.ndarray, params: Params) -> tuple[list[TileHypothesis], dict]:
    """All stages on a validated image; returns hypotheses in working pixels and stage data."""
    work, scale = _working_image(image, params)
    bars, hyps = _search(work, params.detect_max_side_px, params)
    good = [t.width_px for t in hyps if t.confidence >= params.min_confidence]
    det_scale = min(1.0, params.detect_max_side_px / max(work.shape[:2]))
    if det_scale < 1.0 and (not good or np.percentile(good, 75) * det_scale < params.small_tile_px):
        # small tiles (or none found): search again at the full working resolution
        bars, hyps = _search(work, params.detect_fine_max_side_px, params)
    kept = _suppress(hyps, params)
    if len(kept) >= 3:
        # scale reference: tiles whose face edges were all measured and that read well
        widths = np.array([t.width_px for t in kept
                           if t.confidence >= 0.8 and t.debug["measured"] >= 3])
        if len(widths) < 2:
            widths = np.array([t.width_px for t in kept if t.confidence >= params.min_confidence])
        if len(widths) < 2:  # unsure tiles still show the frame's tile scale
            widths = np.array([t.width_px for t in kept])
        if len(widths) >= 2:
            med = float(np.median(widths))
            for t in kept:
                if not 0.55 * med <= t.width_px <= 1.8 * med:
                    t.confidence *= 0.3
        kept = [t for t in kept if t.confidence >= params.drop_confidence]
    stages = {"work": work, "scale": scale, "bars": bars, "hypotheses": hyps, "kept": kept}
    return kept, stages


def scan(image: np.ndarray, params: Params | None = None, *, set_size: int | str | None = None
         ) -> Observation:
    """Recognise the face-up tiles of a BGR uint8 frame. ``image`` is not modified.

    ``set_size`` (e.g. 12 or ``"double-12"``) overrides ``params.set_size``; counts above it
    make a tile low-confidence.
    """
    params = params or Params()
    validate_image(image, "image", params.max_pixels)
    if set_size is not None:
        params = dataclasses.replace(params, set_size=parse_set(set_size))
    kept, stages = detect(image, params)
    scale = stages["scale"]
    tiles = []
    for hyp in sorted(kept, key=lambda t: (t.corners[:, 1].mean(), t.corners[:, 0].mean())):
        corners = tuple((float(x / scale), float(y / scale)) for x, y in hyp.corners)
        tiles.append(TileReading(hyp.pips, corners, round(float(hyp.confidence), 3)))
    return Observation(tuple(tiles), params.min_confidence)
