"""Motion gate, stillness detector and change map on small synthetic frames."""

from __future__ import annotations

import numpy as np
import pytest

from vision.motion import (
    MotionGate,
    MotionParams,
    StillnessDetector,
    change_map,
    changed_regions,
    merge_boxes,
    small_gray,
)


def table(seed: int = 0, h: int = 240, w: int = 320) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 70, np.uint8)
    img += rng.integers(0, 3, img.shape, dtype=np.uint8)
    return img


def with_block(img: np.ndarray, x: int, y: int, size: int = 30, value: int = 230) -> np.ndarray:
    out = img.copy()
    out[y:y + size, x:x + size] = value
    return out


def test_gate_first_frame_is_motion_then_quiet_frames_are_still():
    gate = MotionGate()
    frame = table()
    assert gate.score(frame) == 1.0
    assert gate.score(table(seed=1)) <= MotionParams().moving_fraction  # sensor noise only


def test_gate_sees_a_hand_sized_change():
    gate = MotionGate()
    frame = table()
    gate.score(frame)
    assert gate.score(with_block(frame, 100, 100, 40)) > MotionParams().moving_fraction


def test_gate_ignores_slow_lighting_drift():
    gate = MotionGate()
    frame = table().astype(np.float32)
    scores = [gate.score(np.clip(frame * (1 + 0.003 * i), 0, 255).astype(np.uint8))
              for i in range(20)]
    assert max(scores[1:]) <= MotionParams().moving_fraction


def test_stillness_fires_once_after_n_still_frames():
    params = MotionParams(still_frames=3)
    still = StillnessDetector(params)
    events = [still.update(s) for s in [1.0, 0, 0, 0, 0, 0]]
    assert events == [False, False, False, True, False, False]
    # motion again, then quiet again: one more event
    events = [still.update(s) for s in [0.5, 0.2, 0, 0, 0]]
    assert events == [False, False, False, False, True]


def test_stillness_restarts_its_count_on_any_motion():
    still = StillnessDetector(MotionParams(still_frames=3))
    events = [still.update(s) for s in [1.0, 0, 0, 0.3, 0, 0, 0]]
    assert events.index(True) == 6


def test_stillness_at_start_without_motion_still_settles():
    still = StillnessDetector(MotionParams(still_frames=2))
    assert [still.update(0.0) for _ in range(3)] == [False, True, False]


def test_change_map_finds_a_new_tile_and_ignores_gain():
    ref = table()
    new = with_block(ref, 200, 60, 24)
    brighter = np.clip(new.astype(np.float32) * 1.08, 0, 255).astype(np.uint8)
    boxes, fraction = changed_regions(ref, brighter)
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    assert x0 <= 200 and y0 <= 60 and x1 >= 224 and y1 >= 84
    assert x1 - x0 < 50 and y1 - y0 < 50
    assert 0 < fraction < 0.05
    cmap = change_map(ref, brighter)
    assert cmap.fraction_in([(200, 60), (224, 60), (224, 84), (200, 84)]) > 0.8
    assert cmap.fraction_in([(20, 20), (44, 20), (44, 44), (20, 44)]) == 0.0


def test_change_map_no_change():
    ref = table()
    assert changed_regions(ref, table(seed=5)) == ([], 0.0)


def test_bad_frames_are_refused_with_the_parameter_name():
    with pytest.raises(ValueError, match="frame"):
        MotionGate().score(np.zeros((10, 10, 3), np.float32))
    with pytest.raises(ValueError, match="differ in size"):
        changed_regions(table(), table(h=200))
    with pytest.raises(ValueError, match="frame"):
        small_gray(np.zeros((4, 4, 4), np.uint8))


def test_merge_boxes_grows_clips_and_merges():
    boxes = merge_boxes([(10, 10, 20, 20), (25, 10, 30, 20), (200, 200, 210, 210)], 5, 220, 212)
    assert sorted(boxes) == [(5, 5, 35, 25), (195, 195, 215, 212)]
