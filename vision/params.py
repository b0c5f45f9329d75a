"""Every tunable threshold of the pipeline, in one dataclass (STYLE.md 8).

Lengths are fractions of the tile width ``W`` (the short side of a tile) unless the name
says ``_px``; colour contrasts are Lab distances (0-255 scale as OpenCV stores Lab).
"""

from __future__ import annotations

from dataclasses import dataclass

SET_SIZES = (6, 9, 12, 15, 18)


@dataclass(frozen=True)
class Params:
    """Parameters of :func:`vision.scan`. Defaults were chosen on synthetic frames and
    checked against the shared real photos by folder; see docs/vision.md."""

    #: largest pip count of a half (6, 9, 12, 15, 18) or ``None`` to accept up to 18.
    set_size: int | None = None
    #: frames whose long side exceeds this are downscaled before segmentation (pixels).
    work_max_side_px: int = 2000
    #: smaller frames (thumbnails) are upscaled to this long side first.
    work_min_side_px: int = 600
    #: images with more pixels than this are refused with ``ValueError``.
    max_pixels: int = 40_000_000

    #: bars are searched on a copy whose long side is at most this (tiles are then read
    #: from the working image).
    detect_max_side_px: int = 1000
    #: when the tiles found are narrower than this on the search copy (or none are found),
    #: the search is repeated on a copy of at most ``detect_fine_max_side_px``.
    small_tile_px: float = 32.0
    detect_fine_max_side_px: int = 1600

    # --- divider-bar candidates (stage 2) ---
    #: adaptive-threshold window as a fraction of the working image's long side.
    ink_window_frac: float = 0.04
    #: how much darker than its neighbourhood a pixel must be to count as ink (0-255).
    ink_offset: float = 9.0
    #: smallest bar length accepted, in working pixels (a 10 px tile is unreadable anyway).
    bar_min_length_px: float = 9.0
    #: bar length / bar thickness must be at least this.
    bar_min_elongation: float = 3.2
    #: components are screened before their moments are measured: (bounding-box diagonal)^2
    #: / area must be at least this fraction of ``bar_min_elongation`` (a bar's is above
    #: 0.95 of it, a round pip's 2.55 / 3.2 = 0.8; 0.8 let pips through to the moments).
    bar_screen_elongation: float = 0.92
    #: the bar must fill its fitted rectangle at least this much (straight, not curved).
    bar_min_fill: float = 0.55
    #: bar length as a fraction of tile width (prior, refined from the face extent).
    bar_to_width: float = 0.74
    #: grey levels the bar must be darker than the face strips on both sides of it.
    bar_min_quick_contrast: float = 45.0
    #: the weaker side's contrast must be at least this fraction of the stronger side's.
    bar_side_balance: float = 0.45
    #: just past both bar ends the face must be at least this fraction of the side contrast.
    bar_end_contrast: float = 0.5
    #: bars at least this much darker than the face beside them skip the end test.
    bar_sure_contrast: float = 110.0
    #: at most this many candidates (highest contrast first) are read per frame.
    max_bars: int = 250
    #: collinear bar pieces (a bar split by a metal pin) are joined when the gap is below
    #: this fraction of their joint length.
    bar_join_gap: float = 0.35
    #: angled views: when fewer than ``ridge_gate_tiles`` confident tiles are found, bars
    #: are searched again in directional ridge masks (``bars.find_ridge_bars``): a grey
    #: closing along rows / columns with a line this fraction of the frame's long side
    #: (wider than any bar is thick), ink where the closing exceeds the image by
    #: ``ridge_offset`` grey levels; those bars need face past one end only.
    ridge_gate_tiles: int = 3
    ridge_kernel_frac: float = 0.03
    ridge_offset: float = 30.0
    #: at most this many ridge bars (highest contrast first) per search (each is read by
    #: the slower angled reader).
    ridge_max_bars: int = 40
    #: ridge bars must be at least this elongated (a shadow band under a tile is fatter).
    ridge_min_elongation: float = 4.5

    # --- angled faces (``angled.read_tile_angled``; docs/vision.md, stage 3b) ---
    #: the face region is searched in a square of +- this many bar lengths around the bar.
    angled_window: float = 3.0
    #: Lab distance to the face colour below which a sample beside the bar seeds the face
    #: (a quarter of the samples on each side must), and beyond which a pixel that is
    #: also ``angled_max_darker`` lighter than the face seeds the background (a lit rim,
    #: a lighter table) of the watershed that finds the face region.
    angled_face_distance: float = 38.0
    angled_max_darker: float = 30.0
    #: the face region is opened with a square this fraction of W wide (cuts the thin
    #: bridges where faces meet in the image).
    angled_open: float = 0.12
    #: the face's largest extent is its long axis when it makes at most this cosine with
    #: the bar (it crosses it); otherwise the line through the middles of the face's
    #: slices along the bar is, when it makes at most ``angled_max_lean_cos`` with the bar
    #: (a face seen at a grazing angle is wider along its bar than across it; a strongly
    #: sheared one leans far).
    angled_max_axis_cos: float = 0.6
    angled_max_lean_cos: float = 0.75
    #: bar length / face extent along the bar (0.74 seen square-on; foreshortening
    #: shortens both alike, glare on the rim or a bevel shortens the face a little).
    angled_bar_ratio: tuple[float, float] = (0.45, 1.05)
    #: face extent along its long axis / extent along the bar (2 square-on; more when
    #: foreshortened across the short axis, less across the long one).
    angled_aspect: tuple[float, float] = (1.0, 5.0)
    #: the measured face is widened by this fraction of its width on every side (the
    #: rounded rim, lit or shaded unlike the face, is not in the face region).
    angled_rim: float = 0.04
    #: each fitted side is moved onto the strongest straight edge within this fraction
    #: of the face width (the region leaks into shadows and lit rims of its colour).
    angled_snap: float = 0.15
    #: a side that cuts pips is moved out past them, by at most this fraction of W.
    angled_pip_reach: float = 0.3
    #: when the two halves differ by more than this fraction, the end on the weaker edge
    #: is moved to the mirror image of the other about the bar (the face's middle).
    angled_end_tolerance: float = 0.06
    #: the shorter half must be at least this fraction of the longer one.
    angled_half_balance: float = 0.6
    #: the face region's convex hull must fill its fitted parallelogram this much.
    angled_min_hull_fill: float = 0.8
    #: an angled read is repeated with the outline grown by this fraction of the width on
    #: every outer side; different counts make it unsure.
    angled_recheck_grow: float = 0.04
    #: confidence factor per merged blob in an angled read (0.8 square-on): resampled
    #: foreshortened pips merge more, and splitting them by area is less reliable.
    angled_merge_penalty: float = 0.5
    #: an angled half's pip layout may sit this far (fraction of W) off the half's centre
    #: before it counts as asymmetric (the measured outline is a little off)
    angled_layout_slack: float = 0.1
    #: an angled face is also read against its local lightness: a grey closing with a
    #: disc this fraction of W wide (wider than any pip), inside the face's own extent.
    angled_shading_kernel: float = 0.35
    #: an angled face is cut by the frame's border (confidence x 0.3) when its region runs
    #: along the border for more than this fraction of W.
    angled_border_touch: float = 0.1
    #: confidence factor when the two readings of an angled face disagree.
    angled_disagreement: float = 0.7
    #: confidence of an angled read before the usual pip penalties (a measured outline
    #: in a skewed frame is less certain than a square-on one).
    angled_confidence: float = 0.95

    # --- tile hypothesis and face (stage 3) ---
    #: coarse probe used to find the face colour and outline: pixels per tile width.
    probe_width_px: int = 48
    #: canonical crop: tile width in pixels after warping (length is twice that).
    canon_width_px: int = 96
    #: tiles between this and ``canon_width_px`` wide are sampled at their own width
    #: (96: off; 72 is faster on 1080p frames but less robust on dim textured tables).
    canon_min_width_px: int = 96
    #: a pixel belongs to the face when its Lab distance to the face colour is below this.
    face_max_distance: float = 38.0
    #: a table nearly the face's own colour (median Lab distance to the face below
    #: ``face_max_distance``) would pass as face: the tile is then also read with the face
    #: threshold ``table_split`` x that distance, and the more confident reading wins. Not
    #: when that threshold would fall below ``face_min_distance`` (the "table" is then a
    #: touching tile or the face's very colour). The table is what the probe sees beyond
    #: ``table_ring`` (across, along) x W from the bar centre (outside any tile's face).
    table_split: float = 0.6
    face_min_distance: float = 14.0
    table_ring: tuple[float, float] = (0.62, 1.3)
    #: fraction of the (inset) tile that must be face-coloured.
    face_min_fraction: float = 0.45
    #: searched face extent along the long axis, per half, as a fraction of W.
    half_extent_range: tuple[float, float] = (0.6, 1.25)
    #: a face whose length / width is outside this range is unsure (x 0.4).
    face_aspect_range: tuple[float, float] = (1.4, 2.6)
    #: searched face extent across (full width) as a multiple of the bar length.
    width_extent_range: tuple[float, float] = (1.15, 1.65)
    #: a row of the canonical crop ends the face when fewer than this fraction is face.
    edge_face_fraction: float = 0.45
    #: bar Lab contrast against the face must be at least this, or on dim faces at least
    #: ``bar_contrast_per_lightness`` x the face's Lab lightness, never below the dim floor.
    bar_min_contrast: float = 45.0
    bar_contrast_per_lightness: float = 0.35
    bar_min_contrast_dim: float = 30.0
    #: tiles overlapping more than this (intersection over the smaller) are duplicates.
    overlap_max: float = 0.35

    #: a face that leans in the bar's frame by more than this (slope of its row middles,
    #: about the tangent of the shear; square-on faces measure below 0.18) is seen at an
    #: angle: that reading is unsure and the face is measured again in its own skewed
    #: frame (``tiles.read_tile_angled``).
    shear_max: float = 0.2
    #: a square-on reading whose outline had at most this many of its four edges found
    #: is checked by the angled reader too (foreshortened faces run past the searched
    #: extents); -1: never.
    angled_check_measured: int = 2

    # --- pips (stage 4) ---
    #: pip threshold = max(pip_min_contrast, pip_rel_contrast * bar contrast).
    pip_min_contrast: float = 30.0
    pip_rel_contrast: float = 0.32
    #: margin of each half ignored (tile edge, shadow, bevel), fraction of W.
    half_margin: float = 0.08
    #: band around the bar ignored, fraction of W on each side of the bar centre line.
    bar_band: float = 0.07
    #: smallest pip area as a fraction of W^2 (double-18 pips are about 0.008 W^2).
    pip_min_area: float = 0.0035
    #: largest single pip area as a fraction of W^2.
    pip_max_area: float = 0.06
    #: a pip this many times larger than the half's round pips is counted as several.
    pip_merge_area: float = 1.6
    #: when pips merge, the half is recounted with the threshold times this.
    pip_split_factor: float = 1.8
    #: broken (glossy) pips are regrown down to this fraction of the pip threshold.
    pip_low_factor: float = 0.6
    #: pip must fill at least this fraction of its bounding box (round, not a scratch).
    pip_min_fill: float = 0.45

    #: ink specks smaller than a pip (texture, dirt) count as one stroke per this many.
    specks_per_stroke: int = 4

    # --- confidence ---
    #: pips further than this (fraction of W, on average) from a half-turn symmetric layout
    #: halve the confidence.
    layout_max_asymmetry: float = 0.2
    #: confidence factor per stroke (non-pip ink) inside the halves, up to three.
    stroke_penalty: float = 0.6
    #: a bar whose square-on reading fails is read again pointing the other way when its
    #: contrast is at least this (grey levels; texture bars are weaker): see
    #: ``pipeline._read_either_way``.
    reread_min_contrast: float = 120.0
    #: hypotheses below this are not tiles at all and are dropped.
    drop_confidence: float = 0.2
    #: tiles below this confidence are reported as low-confidence and left out of totals.
    min_confidence: float = 0.5

    def __post_init__(self) -> None:
        if self.set_size is not None and self.set_size not in SET_SIZES:
            raise ValueError(f"set_size must be one of {SET_SIZES} or None, got {self.set_size!r}")


def parse_set(text: str | int | None) -> int | None:
    """``"double-12"``, ``"12"``, ``12``, ``"auto"``/``None`` -> 12 / None."""
    if text is None:
        return None
    if isinstance(text, int):
        value = text
    else:
        t = text.strip().lower()
        if t in ("", "auto"):
            return None
        t = t.removeprefix("double-").removeprefix("d")
        if not t.isdigit():
            raise ValueError(f"set must look like 'double-12' or 'auto', got {text!r}")
        value = int(t)
    if value not in SET_SIZES:
        raise ValueError(f"set must be one of double-{SET_SIZES}, got {text!r}")
    return value
