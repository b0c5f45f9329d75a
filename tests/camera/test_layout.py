"""Attaching a tile to open ends by geometry and pips; calibration forms."""

from __future__ import annotations

import numpy as np
import pytest

from companion.camera.layout import (
    Anchor,
    Calibration,
    LayoutParams,
    candidates_for,
    decide,
    end_points,
)
from vision.video import Placement, tile_corners

W = 40.0
P = LayoutParams()


def corners(pair, centre, angle):
    return tile_corners(Placement(pair, centre, angle), W)


def test_end_points_follow_the_halves():
    c = corners((3, 5), (100, 100), 0.0)  # vertical, 3 on top
    top, bottom = end_points(c)
    assert np.allclose(top, (100, 60)) and np.allclose(bottom, (100, 140))


def test_a_tile_touching_an_open_end_with_the_matching_number_attaches():
    anchors = [Anchor("p1", 5, "end", point=np.array([100.0, 140.0])),
               Anchor("p2", 5, "end", point=np.array([400.0, 140.0]))]
    c = corners((5, 2), (100, 186), 0.0)  # its 5 half starts 6 px below p1's end
    kind, cands = decide(candidates_for((5, 2), c, anchors, None, W, P), P)
    assert kind == "attach" and cands[0].target == "p1"


def test_a_touching_tile_without_the_number_is_left_to_the_session_to_refuse():
    anchors = [Anchor("p1", 4, "end", point=np.array([100.0, 140.0]))]
    c = corners((5, 2), (100, 186), 0.0)
    kind, cands = decide(candidates_for((5, 2), c, anchors, None, W, P), P)
    assert kind == "refusable" and cands[0].target == "p1"


def test_a_tile_far_from_every_end_is_not_a_play():
    anchors = [Anchor("p1", 5, "end", point=np.array([100.0, 140.0]))]
    c = corners((5, 2), (400, 400), 0.0)
    assert decide(candidates_for((5, 2), c, anchors, None, W, P), P)[0] == "none"


def test_first_tile_at_the_hub_follows_the_slot_direction_and_asks_when_between_two():
    hub = np.array([300.0, 300.0])
    anchors = [Anchor("p1", 9, "hub", direction=np.array([1.0, 0.0])),
               Anchor("mx", 9, "hub", direction=np.array([0.0, 1.0])),
               Anchor("p2", 9, "hub", direction=np.array([-1.0, 0.0]))]
    # straight out along p1 (tile axis along +x, its 9 half toward the hub)
    c = corners((9, 4), (300 + 1.9 * W + W, 300), -90.0)
    kind, cands = decide(candidates_for((9, 4), c, anchors, hub, W, P), P)
    assert kind == "attach" and cands[0].target == "p1"
    # halfway between p1 (+x) and mx (+y)
    d = np.array([1.0, 1.0]) / np.sqrt(2)
    centre = hub + d * (1.9 * W + W)
    c = corners((9, 4), tuple(centre), -45.0)
    kind, cands = decide(candidates_for((9, 4), c, anchors, hub, W, P), P)
    assert kind == "ask" and sorted(x.target for x in cands) == ["mx", "p1"]


def test_a_double_across_an_open_end_touches_it_with_its_side():
    anchors = [Anchor("l2", 5, "end", point=np.array([100.0, 140.0]))]
    c = corners((5, 5), (100, 140 + 6 + W / 2), 90.0)  # long side across the line
    kind, cands = decide(candidates_for((5, 5), c, anchors, None, W, P), P)
    assert kind == "attach" and cands[0].target == "l2"


def test_toes_touch_the_double_anywhere_round_it():
    double = corners((5, 5), (200, 200), 90.0)
    anchors = [Anchor("l2", 5, "tile", corners=double)]
    toe = corners((5, 1), (200 + W / 2 + 6 + W, 200 + 30), -90.0)  # right of the double, 5 first
    kind, cands = decide(candidates_for((5, 1), toe, anchors, None, W, P), P)
    assert kind == "attach" and cands[0].target == "l2"


def test_calibration_forms():
    cal = Calibration.from_taps((0, 0), [(10, 0), (0, 10)], ["p1", "p2", "mx"])
    assert np.allclose(cal.direction("p2"), (0, 1)) and cal.direction("mx") is None
    again = Calibration.from_dict(cal.to_dict())
    assert again == cal
    assert Calibration.from_dict(None) == Calibration()
    with pytest.raises(ValueError, match="taps"):
        Calibration.from_taps((0, 0), [(1, 1)] * 4, ["p1", "mx"])
    with pytest.raises(ValueError, match="numbers"):
        Calibration.from_dict({"hub": ["a", 1]})
    with pytest.raises(ValueError):
        Calibration.from_dict({"slots": [1, 2]})
