"""Pip counting in one rectified half (vision/tiles.py ``_count_half``), on drawn ink
distances: round pips, a row of touching pips, and streaks that are no pips."""

from __future__ import annotations

import cv2
import numpy as np

from vision.params import Params
from vision.tiles import _count_half

PARAMS = Params()
C = 96
T_PIP = 40.0


def _half(pips: list[tuple[int, int]], radius: int = 9) -> np.ndarray:
    dist = np.zeros((C, C), np.float32)
    for x, y in pips:
        cv2.circle(dist, (x, y), radius, 100.0, -1)
    return dist


def test_four_round_pips():
    count, *_ = _count_half(_half([(20, 22), (70, 22), (20, 72), (70, 72)]), 6, PARAMS, T_PIP)
    assert count == 4


def test_a_row_of_touching_pips_counts_each_pip():
    dist = _half([(20, 50), (38, 50), (56, 50)])
    count, *_ = _count_half(dist, 6, PARAMS, T_PIP)
    assert count == 3


def test_a_thin_streak_inside_the_margin_is_no_pip():
    # the edge of a touching tile, two pixels wide, just inside the half's margin
    dist = _half([(20, 22), (70, 22), (20, 72), (70, 72)])
    dist[7:51, 84:86] = 100.0
    count, _, strokes, _, _ = _count_half(dist, 6, PARAMS, T_PIP)
    assert count == 4
    assert strokes == 1


def test_two_columns_of_big_touching_pips_count_six():
    # a blurred 6 whose big pips (0.25 W) merged into two columns
    dist = _half([(22, 24), (22, 46), (22, 68), (72, 24), (72, 46), (72, 68)], radius=12)
    count, _, strokes, merges, _ = _count_half(dist, 6, PARAMS, T_PIP)
    assert count == 6
    assert strokes == 0 and merges == 2
