"""The geometry of the angled reader (vision/angled.py): robust side fits, the bar as the
face's middle, the shape check, the trim of what lies beyond a face, and whole frames
seen from a low camera (perspective and foreshortening) read or reported unsure."""

from __future__ import annotations

import cv2
import numpy as np

from vision import RenderSpec, render_table, scan
from vision.angled import _balanced, _inside_face, _plausible, _theil_sen


def test_theil_sen_ignores_strays():
    x = np.arange(20, dtype=np.float64)
    y = 2.0 + 0.5 * x
    y[[3, 8, 9, 15, 17]] += 25.0  # a shadow the face region leaked into
    a, b = _theil_sen(x, y)
    assert abs(b - 0.5) < 0.05
    assert abs(a - 2.0) < 0.6


def _box_lines(lo_end: float, hi_end: float, half_width: float = 5.0) -> list:
    """Side lines of an axis-aligned face, the bar on x = 0 (direction (0, 1))."""
    return [(np.array([lo_end, 0.0]), np.array([0.0, 1.0])),
            (np.array([0.0, half_width]), np.array([1.0, 0.0])),
            (np.array([hi_end, 0.0]), np.array([0.0, 1.0])),
            (np.array([0.0, -half_width]), np.array([1.0, 0.0]))]


def _end_x(line: tuple) -> float:
    p, u = line
    assert abs(u[0]) < 1e-6  # still parallel to the bar
    return float(p[0])


def test_the_weaker_end_moves_to_the_mirror_of_the_stronger():
    centre, bar = np.zeros(2), np.array([0.0, 1.0])
    # the hi end came out short (a pip bit into the region) and its edge is weak
    lines, moved = _balanced(_box_lines(-10.0, 7.5), [40.0, 30.0, 12.0, 30.0], centre, bar, 0.06)
    assert moved == 2
    assert abs(_end_x(lines[2]) - 10.0) < 1e-6
    assert abs(_end_x(lines[0]) + 10.0) < 1e-6
    # the lo end ran into a shadow (too long) and the hi end lies on the crisper edge
    lines, moved = _balanced(_box_lines(-12.5, 10.0), [8.0, 30.0, 35.0, 30.0], centre, bar, 0.06)
    assert moved == 0
    assert abs(_end_x(lines[0]) + 10.0) < 1e-6


def test_balanced_halves_and_wild_fits_are_left_alone():
    centre, bar = np.zeros(2), np.array([0.0, 1.0])
    lines = _box_lines(-10.0, 10.4)
    assert _balanced(lines, [40.0, 30.0, 12.0, 30.0], centre, bar, 0.06) == (lines, None)
    # off by half or more: the fit is wrong, not one end
    lines = _box_lines(-10.0, 4.0)
    assert _balanced(lines, [40.0, 30.0, 12.0, 30.0], centre, bar, 0.06)[1] is None


def test_plausible_face_shapes():
    square = np.array([[0.0, 0.0], [20.0, 0.0], [20.0, 10.0], [0.0, 10.0]])
    centre = np.array([10.0, 5.0])
    assert _plausible(square, centre, 200.0)
    assert not _plausible(square, np.array([30.0, 5.0]), 200.0)  # the bar is outside
    assert not _plausible(square, centre, 500.0)  # far smaller than the face region
    bowtie = square[[0, 2, 1, 3]]
    assert not _plausible(bowtie, centre, 200.0)


def test_inside_face_trims_a_band_beyond_the_face():
    c, band, t_pip = 96, 8, 30.0
    dist = np.full((c, c), 5.0, np.float32)  # face
    dist[:, 80:] = 60.0  # a shadow strip the outline took in along one long edge
    dist[40:50, 40:50] = 90.0  # a pip
    trimmed = _inside_face(dist, band, t_pip)
    assert (trimmed[:, 80:] == 0).all()
    assert (trimmed[40:50, 40:50] == 90.0).all()
    # a half that is mostly not face is left to the counting to doubt
    dark = np.full((c, c), 60.0, np.float32)
    assert (_inside_face(dark, band, t_pip) == dark).all()


def test_low_camera_frames_are_read_or_reported_unsure():
    """Tilted table planes (perspective) squashed like a camera at the table's edge."""
    right = wrong = total = 0
    for seed in range(6):
        for persp in (0.12, 0.2):
            image, truth = render_table(RenderSpec(
                n_tiles=6, set_size=12, seed=seed, perspective=persp,
                background=("cloth", "wood", "marble")[seed % 3],
                pips="colour" if seed % 2 else "black"))
            image = cv2.resize(image, None, fx=1.0, fy=0.6, interpolation=cv2.INTER_AREA)
            expected = [tuple(sorted(t.pair)) for t in truth]
            total += len(expected)
            for tile in scan(image).confident:
                pair = tuple(sorted(tile.pips))
                if pair in expected:
                    right += 1
                    expected.remove(pair)
                else:
                    wrong += 1
    # measured when written: 34 right, 7 wrong of 72 (before the homography reader and
    # the angled-scene check: 19 right, 11 wrong); the floors leave a little room
    assert right >= 31
    assert wrong <= 8
