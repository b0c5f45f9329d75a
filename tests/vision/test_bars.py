"""Bar candidates (vision/bars.py) on drawn ink: a bar cut by a pin, whose pin's dark rim
merged with one piece, is found whole from the other piece; a whole bar is not extended
past its tile's end into a dark table."""

from __future__ import annotations

import cv2
import numpy as np

from vision import RenderSpec, render_table
from vision.bars import Bar, find_bars
from vision.params import Params

PARAMS = Params()


def _tile_image(pin_rim: bool) -> np.ndarray:
    """A light face 60 x 120 px on a dark table, its bar 2 px thick from x = 18 to 62 on
    y = 100, cut at x = 37..43 by a shiny pin; with ``pin_rim`` the pin's dark rim (its
    shadow, down and to the right) joins the right piece into a blob."""
    image = np.full((200, 200, 3), 50, np.uint8)
    cv2.rectangle(image, (10, 40), (69, 159), (235, 235, 235), -1)
    cv2.rectangle(image, (18, 100), (62, 101), (20, 20, 20), -1)
    if pin_rim:
        cv2.circle(image, (43, 103), 6, (20, 20, 20), -1)
    cv2.circle(image, (40, 100), 3, (250, 250, 250), -1)
    return image


def _whole_bars(image: np.ndarray) -> list[Bar]:
    return [b for b in find_bars(image, PARAMS) if b.joined]


def test_a_pin_split_bar_is_found_whole_from_one_piece():
    whole = _whole_bars(_tile_image(pin_rim=True))
    assert len(whole) == 1
    bar = whole[0]
    assert abs(bar.direction[1]) < 0.05
    assert 38 <= bar.length <= 50  # 44 px drawn
    assert 34 <= bar.centre[0] <= 46 and abs(bar.centre[1] - 100) < 3
    assert 3 <= bar.pin <= 12  # the gap the pin left


def test_both_pieces_are_joined_once():
    assert len(_whole_bars(_tile_image(pin_rim=False))) == 1  # each reaches the other: one bar


def test_no_whole_bar_is_run_on_into_the_table_past_its_tile():
    # rendered tiles: past a bar's end lie the face, the tile's darker rim and its shadow,
    # in line with the bar and within a pin's gap of it
    image, _ = render_table(RenderSpec(n_tiles=60, width=1920, height=1080, seed=1))
    assert len(find_bars(image, PARAMS)) >= 60
    assert not _whole_bars(image)
