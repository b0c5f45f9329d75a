"""Stage 3b: a tile seen at a low angle, read from its face's own outline.

Seen from a low angle (a tablet held over the table, a camera at the table's edge, tiles
standing on their long edge) a face is foreshortened, sheared and, close to the camera, a
trapezoid: the bar no longer predicts the outline and no affine frame fits it. The face is
measured instead (docs/vision.md, stage 3b): its region around the bar by a watershed
from face-coloured seeds, its four sides as robust lines through the region's extent in
slices, each moved onto the crisp edge near it, the weaker end set by the stronger one
about the bar. The two halves, the quadrilaterals between the bar line and either end,
are each mapped to a square by a homography, so foreshortened (elliptic, unevenly spaced)
pips are round and evenly spaced again, and are counted as in :func:`vision.tiles.read_tile`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from .bars import Bar
from .cvcompat import small_to_lab
from .params import Params
from .tiles import (
    TileHypothesis,
    _count_halves,
    _ink_distance,
    _lab_distance,
    _norm3,
    bar_too_weak,
    counting_doubt,
)


def _face_colour(plab: np.ndarray, pc: np.ndarray, d: np.ndarray, lp: float, thickness: float,
                 size: int) -> tuple[np.ndarray, np.ndarray]:
    """Face colour on either side of the bar (rows: the +normal side, the other; a glossy
    face is often lit unevenly), and the sample points (probe px, in pairs: one on each
    side). Foreshortened, dense layouts (10-12 pips) come close to the bar, so the strips
    lie at several distances and the face is the lightest of each side's samples."""
    nrm = np.array([-d[1], d[0]])
    tt = np.linspace(-0.35, 0.35, 9) * lp
    off = np.array([0.5 * thickness + k * lp for k in (0.06, 0.1, 0.14, 0.2)])
    pts = np.concatenate([pc + t * d + sg * o * nrm for t in tt for o in off for sg in (1, -1)]
                         ).reshape(-1, 2)
    ij = np.clip(np.round(pts).astype(int), 0, size - 1)
    faces = []
    for side in plab[ij[:, 1], ij[:, 0]].astype(np.float32).reshape(-1, 2, 3).transpose(1, 0, 2):
        # (near a dense layout most samples are pips: the face is the upper quarter)
        top = np.percentile(side[:, 0], 75)
        faces.append(np.median(side[side[:, 0] >= top - 20], axis=0))
    return np.array(faces), ij


def _face_region(probe: np.ndarray, plab: np.ndarray, faces: np.ndarray, seeds: np.ndarray,
                 params: Params) -> np.ndarray | None:
    """The face around the bar as a boolean mask of the probe, ``None`` when the seeds
    beside the bar are not face or the face runs off the probe.

    A watershed from two sets of markers: the face-coloured seeds beside the bar, and the
    probe's border with everything clearly brighter than the face (a lit rim, a lighter
    table). The face then ends on the strongest outline around the bar, which is its edge
    even where the table or a shadow has nearly the face's colour; pips, enclosed by the
    face, fall to it."""
    size = plab.shape[0]
    dists = [_lab_distance(plab, face)[0] for face in faces]
    pairs = seeds.reshape(-1, 2, 2)
    near = np.stack([dists[k][pairs[:, k, 1], pairs[:, k, 0]] for k in (0, 1)], 1)
    near = near < params.angled_face_distance
    if near.sum(axis=0).min() < 0.25 * len(pairs):
        return None  # not face on both sides of the bar
    near = near.reshape(-1)
    markers = np.zeros((size, size), np.int32)
    brighter = (plab[..., 0] > faces[:, 0].max() + params.angled_max_darker) & (
        cv2.min(dists[0], dists[1]) > params.angled_face_distance)
    markers[brighter] = 1
    markers[:2, :] = markers[-2:, :] = markers[:, :2] = markers[:, -2:] = 1
    for x, y in seeds[near]:
        markers[max(0, y - 1): y + 2, max(0, x - 1): x + 2] = 2
    cv2.watershed(probe, markers)
    comp = markers == 2
    # a thin bridge to a touching face is cut
    k = max(3, round(params.angled_open * params.probe_width_px) | 1)
    comp = cv2.morphologyEx(comp.view(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    _, labels = cv2.connectedComponents(comp, connectivity=4)
    per_side = labels[seeds[:, 1], seeds[:, 0]].reshape(-1, 2)
    out = np.zeros(labels.shape, bool)
    for side in per_side.T:
        side = side[side > 0]
        if len(side) < 0.5 * len(per_side):
            return None
        out |= labels == np.bincount(side).argmax()
    ys, xs = np.nonzero(out)
    if xs.min() <= 2 or ys.min() <= 2 or xs.max() >= size - 3 or ys.max() >= size - 3:
        return None  # the face runs on: a table of its colour, or touching tiles
    return out


def _meet(p: np.ndarray, u: np.ndarray, q: np.ndarray, v: np.ndarray) -> np.ndarray | None:
    """Where the lines p + k u and q + l v cross (``None`` when nearly parallel)."""
    det = u[0] * -v[1] - u[1] * -v[0]
    if abs(det) < 1e-3:
        return None
    k = ((q - p)[0] * -v[1] - (q - p)[1] * -v[0]) / det
    return p + k * u


def _theil_sen(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Intercept and slope of y = a + b x, robust to nearly a third of the points being
    strays (the median of all pairwise slopes)."""
    dx = x[None, :] - x[:, None]
    dy = y[None, :] - y[:, None]
    ok = np.triu(np.abs(dx) > 1e-6, 1)
    if not ok.any():
        return float(np.median(y)), 0.0
    b = float(np.median(dy[ok] / dx[ok]))
    return float(np.median(y - b * x)), b


def _side_lines(region: np.ndarray, pc: np.ndarray, basis: np.ndarray, box: tuple) -> list:
    """The four sides of the face (end at lo_s, long edge at hi_t, end at hi_s, long edge
    at lo_t) as lines, in probe px. The region is cut in slices across each side; each
    slice's extent is one point of that side, and a robust line through those points
    ignores the slices where the region leaked into a shadow or a rim, or lost a bite to
    a pip. The slices near the (rounded) corners are left out."""
    lo_s, hi_s, lo_t, hi_t = box
    ys, xs = np.nonzero(region)
    st = (np.stack([xs, ys], 1).astype(np.float64) - pc) @ np.linalg.inv(basis).T
    lines = []
    for k, (along, across, lo, hi) in enumerate(((1, 0, lo_t, hi_t), (0, 1, lo_s, hi_s),
                                                  (1, 0, lo_t, hi_t), (0, 1, lo_s, hi_s))):
        # k even: an end (extent in s per slice of t); k odd: a long edge (t per slice of s)
        edges = np.linspace(lo + 0.15 * (hi - lo), hi - 0.15 * (hi - lo), 13)
        bins = np.digitize(st[:, along], edges)
        pick = (np.minimum if k in (0, 3) else np.maximum)
        fill = np.inf if k in (0, 3) else -np.inf
        ext = np.full(len(edges) + 1, fill)
        pick.at(ext, bins, st[:, across])
        mids = 0.5 * (edges[1:] + edges[:-1])
        ext = ext[1:-1]
        seen = np.isfinite(ext)
        if seen.sum() < 4:
            return None
        a, b = _theil_sen(mids[seen], ext[seen])
        # the side: across = a + b * along, back to probe px
        p0 = np.zeros(2)
        p1 = np.zeros(2)
        p0[along], p0[across] = 0.0, a
        p1[along], p1[across] = 1.0, a + b
        q0, q1 = pc + basis @ p0, pc + basis @ p1
        u = (q1 - q0) / np.linalg.norm(q1 - q0)
        lines.append((q0, u))
    return lines


def _snapped(lines: list, gx: np.ndarray, gy: np.ndarray, reach: float,
             sides: tuple = (0, 1, 2, 3)) -> tuple[list, list]:
    """Each of ``sides`` moved (within ``reach`` probe px, a few degrees) onto the
    strongest straight edge near it, and every side's edge strength (grey levels per px
    across it). A face region leaks into a shadow or a lit rim of nearly its colour along
    soft boundaries; the face's own edge is a crisp straight line."""
    corners = _corners(lines)
    if corners is None:
        return lines, [0.0] * 4
    h, w = gx.shape
    ends = ((corners[0], corners[1]), (corners[1], corners[2]), (corners[2], corners[3]),
            (corners[3], corners[0]))
    offsets = np.arange(-reach, reach + 0.5, 1.0)
    out, strengths = [], []
    for k, ((p, u), (a, b)) in enumerate(zip(lines, ends)):
        nrm = np.array([-u[1], u[0]])
        spread = offsets if k in sides else np.zeros(1)
        t = np.linspace(0.15, 0.85, 24)
        mid, span = 0.5 * (a + b), float(np.linalg.norm(b - a))
        best, best_line = -1.0, (p, u)
        for tilt in np.radians((-6, -3, 0, 3, 6) if k in sides else (0,)):
            c, s = np.cos(tilt), np.sin(tilt)
            v = np.array([c * u[0] - s * u[1], s * u[0] + c * u[1]])
            n = np.array([-v[1], v[0]])
            base = mid + (t - 0.5)[:, None] * span * v  # along the tilted side
            pts = base[None, :, :] + spread[:, None, None] * nrm[None, None, :]
            x = np.clip(np.round(pts[..., 0]).astype(np.intp), 0, w - 1)
            y = np.clip(np.round(pts[..., 1]).astype(np.intp), 0, h - 1)
            across = np.abs(gx[y, x] * n[0] + gy[y, x] * n[1])
            # an edge is strong all along: the median, not the mean, of the side
            score = np.median(across, axis=1)
            i = int(score.argmax())
            if score[i] > best:
                best, best_line = float(score[i]), (mid + spread[i] * nrm, v)
        out.append(best_line if k in sides else (p, u))
        strengths.append(best)
    return out, strengths


def _grown(lines: list, centre: np.ndarray, by: float) -> list:
    """Each side line moved ``by`` probe px away from ``centre``."""
    out = []
    for p, u in lines:
        nrm = np.array([-u[1], u[0]])
        if float((p - centre) @ nrm) < 0:
            nrm = -nrm
        out.append((p + by * nrm, u))
    return out


def _balanced(lines: list, strengths: list, pc: np.ndarray, d: np.ndarray,
              tolerance: float) -> tuple[list, int | None]:
    """The side lines with the weaker end moved to the mirror image of the stronger one
    about the bar (the face's middle), when the two halves differ by more than
    ``tolerance``; and which end moved (0: lo, 2: hi, ``None``).

    A pip or a shadow next to a face's end bites into the face region, a lit rim or a
    shadow of the face's colour extends it: the end that lies on the crisper edge is
    trusted. (The ends are harmonic conjugates about the bar and the long edges'
    vanishing point, but a vanishing point from two short, nearly parallel fitted edges
    is too unsure to use: the plain mirror image is the better estimate.)"""
    end_lo, long_hi, end_hi, long_lo = lines
    move_lo = strengths[0] < strengths[2]
    new_lo, new_hi = [], []
    moved = False
    for p, u in (long_lo, long_hi):
        bar_at = _meet(pc, d, p, u)
        e_lo, e_hi = _meet(*end_lo, p, u), _meet(*end_hi, p, u)
        if bar_at is None or e_lo is None or e_hi is None:
            return lines, None
        x_lo, x_hi = float((e_lo - bar_at) @ u), float((e_hi - bar_at) @ u)
        if x_lo * x_hi >= 0:
            return lines, None
        ratio = abs(x_lo) / abs(x_hi)
        # (off by half or more: the fit is wrong, not one end)
        if 1 + tolerance < max(ratio, 1 / ratio) < 1.5:
            moved = True
            if move_lo:
                x_lo = -x_hi
            else:
                x_hi = -x_lo
        new_lo.append(bar_at + x_lo * u)
        new_hi.append(bar_at + x_hi * u)
    if not moved:
        return lines, None

    def through(a: np.ndarray, b: np.ndarray, old: tuple) -> tuple:
        step = b - a
        n = np.linalg.norm(step)
        return old if n < 1e-6 else (a, step / n)

    return ([through(*new_lo, end_lo), long_hi, through(*new_hi, end_hi), long_lo],
            0 if move_lo else 2)


def _around_pips(lines: list, ink: np.ndarray, centre: np.ndarray, width: float,
                 params: Params) -> list:
    """The side lines, each moved out past the pip-sized ink blobs it cuts (by at most
    ``angled_pip_reach`` W). A face's pips lie inside it: a side through a pip was set on
    a bite of the face region (pips close to an edge where a lit rim or, at a grazing
    angle, the tile's shaded side meets the face)."""
    corners = _corners(lines)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(ink.view(np.uint8),
                                                               connectivity=8)
    if corners is None or n <= 1:
        return lines
    area = stats[1:, cv2.CC_STAT_AREA]
    box_w, box_h = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    w2 = width * width
    pipish = ((area >= 0.5 * params.pip_min_area * w2) & (area <= params.pip_max_area * w2)
              & (np.maximum(box_w, box_h) <= 0.45 * width) & (area >= 0.4 * box_w * box_h))
    if not pipish.any():
        return lines
    keep = np.concatenate(([False], pipish))[labels]  # the pixels of pip-sized blobs
    ys, xs = np.nonzero(keep)
    which = labels[ys, xs] - 1
    xy = np.stack([xs, ys], 1).astype(np.float64)
    ends = ((corners[0], corners[1]), (corners[1], corners[2]), (corners[2], corners[3]),
            (corners[3], corners[0]))
    out = []
    for (p, u), (a, b) in zip(lines, ends):
        nrm = np.array([-u[1], u[0]])
        if float((p - centre) @ nrm) < 0:
            nrm = -nrm
        dist = (xy - p) @ nrm  # > 0: outside the face
        lo = np.full(n - 1, np.inf)
        hi = np.full(n - 1, -np.inf)
        np.minimum.at(lo, which, dist)
        np.maximum.at(hi, which, dist)
        # a blob on both sides of the line, beside the side (between its corners)
        along = (cents[1:] - a) @ u
        span = sorted((0.0, float((b - a) @ u)))
        cut = pipish & (lo < -0.02 * width) & (hi > 0.02 * width)
        cut &= (along >= span[0]) & (along <= span[1])
        shift = float(hi[cut].max()) + 0.04 * width if cut.any() else 0.0
        out.append((p + min(shift, params.angled_pip_reach * width) * nrm, u))
    return out


def _corners(lines: list) -> np.ndarray | None:
    """Corners (end lo & long lo, end lo & long hi, end hi & long hi, end hi & long lo)."""
    end_lo, long_hi, end_hi, long_lo = lines
    pts = [_meet(*end_lo, *long_lo), _meet(*end_lo, *long_hi), _meet(*end_hi, *long_hi),
           _meet(*end_hi, *long_lo)]
    if any(p is None for p in pts):
        return None
    return np.array(pts)


def _shaded_ink_distance(image: np.ndarray, matrix: np.ndarray, c: int, face: np.ndarray,
                         dark_ink: bool, kernel: float) -> np.ndarray:
    """Each pixel's Lab distance to the face of a ``c`` x ``c`` rectified half, the face's
    lightness taken locally. A face seen at a low angle is lit unevenly (darker towards
    one end or edge), in places more than ink differs from it; a grey closing (opening
    for light ink) with a disc wider than a pip is the face's own lightness there."""
    patch = cv2.warpPerspective(image, matrix, (c, c), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    lab = small_to_lab(patch)
    k = max(3, round(kernel * c) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    lightness = lab[..., 0]
    local = cv2.morphologyEx(lightness, cv2.MORPH_CLOSE if dark_ink else cv2.MORPH_OPEN, disc)
    diff = np.empty(lab.shape, np.float32)
    diff[..., 0] = cv2.subtract(local, lightness, dtype=cv2.CV_32F)
    diff[..., 1] = lab[..., 1] - np.float32(face[1])
    diff[..., 2] = lab[..., 2] - np.float32(face[2])
    return _norm3(diff)


def _inside_face(dist: np.ndarray, band: int, t_pip: float, least: float = 0.4) -> np.ndarray:
    """``dist`` of one rectified half (bar side at row 0) with what lies beyond the face
    zeroed: the outer columns and far rows that are mostly not face colour (a shadow or
    a bevel the outline took in), so that pips next to them do not join them."""
    face = dist[band:] < t_pip
    cols = face.mean(axis=0) >= least
    rows = face.mean(axis=1) >= least
    if cols.sum() < 0.5 * len(cols) or rows.sum() < 0.5 * len(rows):
        return dist  # no clear face: leave it to the counting to doubt
    keep = dist.copy()
    first, last = int(np.argmax(cols)), len(cols) - int(np.argmax(cols[::-1]))
    keep[:, :first] = 0
    keep[:, last:] = 0
    keep[band + len(rows) - int(np.argmax(rows[::-1])):, :] = 0
    return keep


def _plausible(corners: np.ndarray, centre: np.ndarray, region_area: float) -> bool:
    """A convex quadrilateral around ``centre`` with 0.5-1.3 x ``region_area``."""
    quad = corners.astype(np.float32).reshape(-1, 1, 2)
    if not cv2.isContourConvex(quad):
        return False
    if cv2.pointPolygonTest(quad, (float(centre[0]), float(centre[1])), False) < 0:
        return False
    return 0.5 * region_area <= abs(cv2.contourArea(quad)) <= 1.3 * region_area


def _long_axis(xy: np.ndarray, d: np.ndarray) -> np.ndarray | None:
    """The face's long axis: the line through the middles of its slices along the bar
    (``xy``: face pixels about the bar centre). A sheared face leans along it; one seen
    at a grazing angle may be wider along the bar than across it, so the direction of
    the largest extent is not the long axis."""
    nrm = np.array([-d[1], d[0]])
    u, v = xy @ d, xy @ nrm
    edges = np.linspace(v.min(), v.max(), 17)[1:-1]
    bins = np.digitize(v, edges)
    counts = np.bincount(bins, minlength=len(edges) + 1)
    keep = counts[1:-1] > 0
    if keep.sum() < 4:
        return None
    mids_u = (np.bincount(bins, weights=u, minlength=len(edges) + 1)[1:-1][keep]
              / counts[1:-1][keep])
    mids_v = (np.bincount(bins, weights=v, minlength=len(edges) + 1)[1:-1][keep]
              / counts[1:-1][keep])
    _, slope = _theil_sen(mids_v, mids_u)
    axis = slope * d + nrm
    return axis / np.linalg.norm(axis)


@dataclass(frozen=True)
class _Frame:
    """A face measured in the probe: its skewed frame (columns of ``basis``: the long axis
    and the bar) around the bar centre ``pc``, extents ``box`` = (lo_s, hi_s, lo_t, hi_t)
    in it, and what the checks measured."""

    basis: np.ndarray
    box: tuple
    face_fraction: float
    hull: np.ndarray  # the face region's convex hull, filled (bool)
    bar_ratio: float

    @property
    def width(self) -> float:
        return self.box[3] - self.box[2]


def _frame(comp: np.ndarray, pc: np.ndarray, d: np.ndarray, lp: float, params: Params
           ) -> _Frame | None:
    """The skewed frame of the face region ``comp``, ``None`` when the region is not a
    filled quadrilateral of plausible proportions across the bar."""
    size = comp.shape[0]
    ys, xs = np.nonzero(comp)
    # pips on the face's far end bite into its outline: measure the convex hull
    hull = cv2.convexHull(np.stack([xs, ys], 1).astype(np.int32))
    filled = np.zeros((size, size), np.uint8)
    cv2.fillConvexPoly(filled, hull, 1)
    face_fraction = len(xs) / max(1.0, float(filled.sum()))
    ys, xs = np.nonzero(filled)
    xy = np.stack([xs, ys], 1).astype(np.float64) - pc
    _, evecs = np.linalg.eigh(np.cov(xy.T))
    a = evecs[:, 1]  # the direction of the largest extent
    if abs(float(a @ d)) > params.angled_max_axis_cos:
        # near the bar: a strongly sheared face, or one seen at a grazing angle
        a = _long_axis(xy, d)
        if a is None or abs(float(a @ d)) > params.angled_max_lean_cos:
            return None
    basis = np.stack([a, d], 1)  # columns: long axis, bar
    st = xy @ np.linalg.inv(basis).T  # (s, t) coordinates
    lo_s, hi_s = np.percentile(st[:, 0], [0.5, 99.5])
    lo_t, hi_t = np.percentile(st[:, 1], [0.5, 99.5])
    width = hi_t - lo_t
    if width < 4 or -lo_s < 3 or hi_s < 3:
        return None
    halves_ok = min(-lo_s, hi_s) / max(-lo_s, hi_s) >= params.angled_half_balance
    bar_ratio = lp / width
    aspect = (hi_s - lo_s) / width
    box_area = (hi_s - lo_s) * width * abs(np.linalg.det(basis))
    hull_fill = len(xs) / max(1.0, box_area)
    if not (params.angled_bar_ratio[0] <= bar_ratio <= params.angled_bar_ratio[1]
            and params.angled_aspect[0] <= aspect <= params.angled_aspect[1]
            and hull_fill >= params.angled_min_hull_fill
            and face_fraction >= params.face_min_fraction and halves_ok):
        return None
    return _Frame(basis, (lo_s, hi_s, lo_t, hi_t), face_fraction, filled.view(bool), bar_ratio)


def _outline(probe: np.ndarray, comp: np.ndarray, frame: _Frame, pc: np.ndarray,
             d: np.ndarray, params: Params, region: np.ndarray | None = None) -> list | None:
    """The face's four side lines in the probe (stage 3b, steps 3-4) fitted to ``region``
    (``comp`` itself unless given), ``None`` when they do not make a plausible face."""
    lines = _side_lines(comp if region is None else region, pc, frame.basis, frame.box)
    if lines is None:
        return None
    grey = cv2.cvtColor(probe, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    lines, strengths = _snapped(lines, gx, gy, params.angled_snap * frame.width)
    fitted = _corners(lines)
    # the fitted sides must make a convex face around the bar of about the region's size
    # (smaller where the region leaked into a shadow or a rim)
    if fitted is None or not _plausible(fitted, pc, float(np.count_nonzero(comp))):
        return None
    lines, moved = _balanced(lines, strengths, pc, d, params.angled_end_tolerance)
    if moved is not None:  # settle the moved end on its own edge, if it has one nearby
        lines, _ = _snapped(lines, gx, gy, 0.5 * params.angled_snap * frame.width, (moved,))
    return lines


@dataclass(frozen=True)
class _Halves:
    """How to sample and count the two halves of one measured face."""

    image: np.ndarray
    to_work: Callable[[np.ndarray], np.ndarray]  # probe px -> working px
    pc: np.ndarray
    d: np.ndarray
    faces: tuple  # face colour of the lo half, of the hi half
    dark_ink: bool
    t_pip: float
    band: int
    params: Params

    def count(self, lines: list, shaded: bool) -> tuple | None:
        """Both halves inside ``lines``: the quadrilaterals between the bar line and
        either end, each mapped to a square; ``shaded``: against the local lightness."""
        corners = _corners(lines)
        bar_lo = _meet(self.pc, self.d, *lines[3])
        bar_hi = _meet(self.pc, self.d, *lines[1])
        if corners is None or bar_lo is None or bar_hi is None:
            return None
        c = self.params.canon_width_px
        square = np.float32([[0, 0], [c, 0], [c, c], [0, c]])
        halves = []
        for far_lo, far_hi, colour in ((corners[0], corners[1], self.faces[0]),
                                       (corners[3], corners[2], self.faces[1])):
            quad = np.float32([self.to_work(p) for p in (bar_lo, bar_hi, far_hi, far_lo)])
            hm = cv2.getPerspectiveTransform(square, quad)
            if shaded:
                half = _inside_face(_shaded_ink_distance(
                    self.image, hm, c, colour, self.dark_ink, self.params.angled_shading_kernel),
                    self.band, self.t_pip)
            else:
                half = _ink_distance(self.image, hm, (c, c), colour, self.t_pip, self.dark_ink)
            halves.append(half)
        return _count_halves(halves, self.band, self.params, self.t_pip,
                             self.params.angled_layout_slack)

    def judged(self, rim: list, wider: list, shaded: bool) -> tuple | None:
        """Counts, confidence and the counting's notes of one way of reading the face."""
        params = self.params
        read = self.count(rim, shaded)
        if read is None:
            return None
        counts, irregular, strokes, merges, asymmetry = read
        confidence = 0.9 * params.angled_confidence
        # the measured outline is the main doubt of an angled read: a slightly larger one
        # must give the same counts, unless it is the messier read (more strokes or
        # merged blobs: it reached the tile's edge, a shadow or a touching neighbour,
        # which says nothing against this read)
        again = self.count(wider, shaded)
        if again is None or (again[0] != counts and not (
                again[2] > strokes or again[3] > merges)):
            confidence *= 0.4
        confidence *= counting_doubt(counts, irregular, strokes, merges, asymmetry, params,
                                     params.angled_merge_penalty)
        if counts == [0, 0]:
            confidence *= 0.5
        return counts, confidence, strokes, merges, asymmetry


def _read_outline(halves: _Halves, lines: list, centre: np.ndarray, width: float,
                  params: Params) -> tuple | None:
    """Counts, confidence, the counting's notes and the corners (probe px) of one
    measured outline, read twice: against the face colour, and against the face's local
    lightness inside the face's own extent (unevenly lit faces); agreeing reads stand,
    disagreeing ones leave the more confident one in doubt."""
    rim = _grown(lines, centre, params.angled_rim * width)
    plain = _corners(rim)
    if plain is None:
        return None
    wider = _grown(lines, centre, (params.angled_rim + params.angled_recheck_grow) * width)
    reads = [r for r in (halves.judged(rim, wider, False), halves.judged(rim, wider, True))
             if r is not None]
    if not reads:
        return None
    counts, confidence, strokes, merges, asymmetry = max(reads, key=lambda r: r[1])
    if len(reads) == 2 and reads[0][0] != reads[1][0]:
        confidence *= params.angled_disagreement
    return counts, confidence, strokes, merges, asymmetry, plain


def _face_cut_by_border(comp: np.ndarray, to_image: np.ndarray, shape: tuple, width: float,
                        params: Params) -> bool:
    """Whether the face region runs into the frame's border along more than
    ``angled_border_touch`` of the face width: part of the face is then not seen. (The
    measured outline may cross the border where it takes in the tile's side or is grown,
    with the whole face in view.)"""
    size = comp.shape[0]
    seen = cv2.warpAffine(np.ones(shape[:2], np.uint8), to_image, (size, size),
                          flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    beside_unseen = cv2.dilate(1 - seen, np.ones((5, 5), np.uint8)).astype(bool)
    return float((beside_unseen & comp).sum()) > params.angled_border_touch * width


def read_tile_angled(image: np.ndarray, bar: Bar, params: Params) -> TileHypothesis | None:
    """Read the tile of one bar from the face's own outline (strongly angled views).

    ``None`` when the face region is not an isolated, filled quadrilateral of plausible
    proportions around the bar."""
    length = bar.length
    cp = params.probe_width_px
    s = params.bar_to_width * cp / length  # probe pixels per working pixel
    half = params.angled_window * length
    cx, cy = bar.centre
    size = int(2 * half * s) | 1
    x0, y0 = cx - half, cy - half
    m = np.array([[1 / s, 0.0, x0], [0.0, 1 / s, y0]])
    probe = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    plab = cv2.cvtColor(probe, cv2.COLOR_BGR2LAB)  # uint8
    d = bar.direction
    pc = (bar.centre - np.array([x0, y0])) * s
    lp = length * s
    faces, seeds = _face_colour(plab, pc, d, lp, bar.thickness * s, size)
    face = faces.mean(axis=0)
    on_bar = np.clip(np.round(pc + np.linspace(-0.3, 0.3, 9)[:, None] * lp * d).astype(int),
                     0, size - 1)
    bar_lab = plab[on_bar[:, 1], on_bar[:, 0]].astype(np.float32)
    bar_contrast = float(np.median(np.linalg.norm(bar_lab - face, axis=1)))
    if bar_too_weak(bar_contrast, float(face[0]), params):
        return None
    comp = _face_region(probe, plab, faces, seeds, params)
    frame = None if comp is None else _frame(comp, pc, d, lp, params)
    if frame is None:
        return None
    lo_s, hi_s, lo_t, hi_t = frame.box
    width = frame.width
    centre = pc + frame.basis @ [0.5 * (lo_s + hi_s), 0.5 * (lo_t + hi_t)]
    # each half is read against the face colour of its own side of the bar
    hi_on_plus = float((np.linalg.inv(frame.basis) @ np.array([-d[1], d[0]]))[0]) > 0
    c = params.canon_width_px
    halves = _Halves(
        image, lambda p: np.array([x0, y0]) + p / s, pc, d,
        (faces[1], faces[0]) if hi_on_plus else (faces[0], faces[1]),
        float(np.median(bar_lab[:, 0])) < face[0],
        max(params.pip_min_contrast, params.pip_rel_contrast * bar_contrast),
        round(max(params.bar_band * c, 0.5 * bar.thickness * s * c / width + 0.03 * c)),
        params)
    # two outlines: fitted to the face region, and to its convex hull (pips along a
    # lit rim or a shadow bite into the region's side); each is read on its own, and
    # when they disagree the more confident read stands, in doubt
    ink = cv2.min(*(_lab_distance(plab, f)[0] for f in faces)) > halves.t_pip
    reads, seen = [], []
    for region in (None, frame.hull):
        lines = _outline(probe, comp, frame, pc, d, params, region)
        if lines is None:
            continue
        lines = _around_pips(lines, ink, centre, width, params)
        corners = _corners(lines)
        if corners is None or any(np.abs(corners - c).max() < 0.03 * width for c in seen):
            continue  # (the same outline twice reads the same)
        seen.append(corners)
        read = _read_outline(halves, lines, centre, width, params)
        if read is not None:
            reads.append(read)
    if not reads:
        return None
    counts, confidence, strokes, merges, asymmetry, plain = max(reads, key=lambda r: r[1])
    if any(r[0] != counts for r in reads):
        confidence *= params.angled_disagreement
    confidence *= min(1.0, 0.5 + bar_contrast / (4 * params.bar_min_contrast))
    corners = np.array([x0, y0]) + plain / s
    if _face_cut_by_border(comp, m, image.shape, width, params):
        confidence *= 0.3
    debug = {"bar_contrast": bar_contrast, "face_fraction": frame.face_fraction,
             "measured": 4, "strokes": strokes, "merges": merges, "ratio": frame.bar_ratio,
             "width_measured": True, "asymmetry": asymmetry, "angled": True}
    return TileHypothesis((counts[0], counts[1]), corners, float(np.clip(confidence, 0, 1)),
                          width / s, bar.polarity, debug, bar)
