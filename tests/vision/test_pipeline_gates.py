"""The pipeline's decisions around the angled reader (vision/pipeline.py): when a frame is
left unexplained by the square-on reading, when it shows it was taken at an angle, and
which of two disagreeing readings stands. The angled reader itself is replaced by a stub
here (a unit test of one module); tests/vision/test_angled*.py run it for real."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision import Params, pipeline
from vision.bars import Bar
from vision.tiles import TileHypothesis

PARAMS = Params()
BAR = Bar(np.array([50.0, 50.0]), np.array([0.0, 1.0]), 30.0, 3.0, 0)


def hyp(pips=(3, 4), confidence=1.0, measured=4, shear=0.0, aspect=2.0, angled=False,
        cut=False):
    debug = {"measured": measured, "shear": shear, "aspect": aspect, "cut": cut}
    if angled:
        debug["angled"] = True
    corners = np.array([[0.0, 0.0], [40.0, 0.0], [40.0, 80.0], [0.0, 80.0]])
    return TileHypothesis(pips, corners, confidence, 40.0, 0, debug, BAR)


def test_a_frame_of_clearly_read_tiles_is_explained():
    assert not pipeline._unexplained([hyp(), hyp()], PARAMS)  # a camera's crop
    assert not pipeline._unexplained([hyp(), hyp(), hyp(), hyp(confidence=0.3)], PARAMS)


def test_few_or_doubtful_tiles_leave_the_frame_unexplained():
    assert pipeline._unexplained([], PARAMS)
    assert pipeline._unexplained([hyp(confidence=0.3)], PARAMS)
    assert pipeline._unexplained([hyp(), hyp(confidence=0.4)], PARAMS)
    assert pipeline._unexplained([hyp(confidence=0.3, cut=True)], PARAMS)  # nothing sure


def test_a_crop_that_cuts_a_neighbour_is_explained_by_its_sure_tiles():
    # a camera's crop of two clearly read tiles cuts the next tile of the train: that
    # tile reads unsure (x 0.3 for the cut) and no reader could see the rest of it
    assert not pipeline._unexplained([hyp(), hyp(), hyp(confidence=0.12, cut=True)], PARAMS)
    assert pipeline._unexplained([hyp(), hyp(), hyp(confidence=0.12)], PARAMS)


def test_angled_scene_evidence():
    assert not pipeline._leaning([hyp(), hyp(shear=0.1)], PARAMS)
    # a leaning face (its confidence already cut by the shear doubt) shows it
    assert pipeline._leaning([hyp(), hyp(confidence=0.2, shear=0.35)], PARAMS)
    # so does a fully measured face of the wrong proportions, but not a guessed one
    assert pipeline._leaning([hyp(aspect=3.2)], PARAMS)
    assert not pipeline._leaning([hyp(aspect=3.2, measured=2)], PARAMS)
    # junk does not count
    assert not pipeline._leaning([hyp(confidence=0.01, shear=0.5)], PARAMS)


@pytest.fixture
def angled_reads(monkeypatch):
    """Stub the angled reader with a queue of answers and count its calls."""
    answers, calls = [], []

    def fake(work, bar, params):
        calls.append(bar)
        return answers.pop(0)

    monkeypatch.setattr(pipeline, "read_tile_angled", fake)
    return answers, calls


def test_a_square_on_face_is_not_read_again(angled_reads):
    _answers, calls = angled_reads
    original = hyp(measured=2)
    assert pipeline._angled_instead(None, original, PARAMS, angled_scene=False) is original
    assert calls == []


def test_a_leaning_face_takes_the_more_confident_reading(angled_reads):
    answers, calls = angled_reads
    answers += [hyp((5, 6), 0.85, angled=True), hyp((5, 6), 0.2, angled=True)]
    leaning = hyp(confidence=0.3, shear=0.4)
    assert pipeline._angled_instead(None, leaning, PARAMS, False).pips == (5, 6)
    assert pipeline._angled_instead(None, leaning, PARAMS, False) is leaning
    assert len(calls) == 2


def test_in_an_angled_scene_a_measured_outline_beats_a_guessed_one(angled_reads):
    answers, _ = angled_reads
    answers.append(hyp((2, 7), 0.85, angled=True))
    out = pipeline._angled_instead(None, hyp((2, 6), 1.0, measured=1), PARAMS, True)
    assert out.pips == (2, 7)
    assert out.confidence == pytest.approx(0.85 * PARAMS.angled_disagreement)


def test_in_an_angled_scene_agreement_keeps_the_square_on_reading(angled_reads):
    answers, _ = angled_reads
    answers.append(hyp((6, 2), 0.6, angled=True))
    original = hyp((2, 6), 1.0, measured=2)
    out = pipeline._angled_instead(None, original, PARAMS, True)
    assert out is original and out.confidence == 1.0


def test_in_an_angled_scene_an_unconfirmed_guess_is_doubted(angled_reads):
    answers, _ = angled_reads
    answers += [None, hyp((1, 1), 0.3, angled=True)]
    out = pipeline._angled_instead(None, hyp((2, 6), 1.0, measured=0), PARAMS, True)
    assert out.confidence == pytest.approx(PARAMS.angled_disagreement ** 2)
    assert out.confidence < PARAMS.min_confidence
    # an unsure angled reading that disagrees doubts it just as much
    out = pipeline._angled_instead(None, hyp((2, 6), 1.0, measured=0), PARAMS, True)
    assert out.pips == (2, 6)
    assert out.confidence == pytest.approx(PARAMS.angled_disagreement ** 2)


def _reader(by_direction: dict):
    """A stub square-on reader: the hypothesis for the y component of the bar's direction
    (key "clean" when the face colour is taken from the clean half of its samples)."""
    calls = []

    def read(work, lab, bar, params, clean_face=False, **kw):
        key = "clean" if clean_face else float(bar.direction[1])
        calls.append(key)
        found = by_direction.get(key)
        return None if found is None else dataclasses.replace(found)
    return read, calls


def test_an_unsure_or_failed_read_is_tried_the_other_way(monkeypatch):
    strong = Bar(np.array([50.0, 50.0]), np.array([0.0, 1.0]), 30.0, 3.0, 0, 200.0)
    read, calls = _reader({1.0: hyp(confidence=0.3), -1.0: hyp(confidence=0.9)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    assert pipeline._read_either_way(None, strong, PARAMS).confidence == 0.9
    assert calls == [1.0, -1.0]
    # a failed read of a strong bar, too; the more confident of two reads stands
    read, calls = _reader({-1.0: hyp(confidence=0.7)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    assert pipeline._read_either_way(None, strong, PARAMS).confidence == 0.7
    read, calls = _reader({1.0: hyp(confidence=0.4), -1.0: hyp(confidence=0.3)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    assert pipeline._read_either_way(None, strong, PARAMS).confidence == 0.4
    # two different counts: the better one stands, in doubt
    read, calls = _reader({1.0: hyp((2, 7), confidence=0.3), -1.0: hyp((3, 7), confidence=0.9)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    again = pipeline._read_either_way(None, strong, PARAMS)
    assert again.pips == (3, 7) and again.confidence < PARAMS.min_confidence
    # (and a doubted count does not displace a more confident one)
    read, calls = _reader({1.0: hyp((2, 7), confidence=0.4), -1.0: hyp((3, 7), confidence=0.7)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    assert pipeline._read_either_way(None, strong, PARAMS).pips == (2, 7)


def test_a_face_colour_from_the_clean_samples_is_the_last_try(monkeypatch):
    strong = Bar(np.array([50.0, 50.0]), np.array([0.0, 1.0]), 30.0, 3.0, 0, 200.0)
    read, calls = _reader({"clean": hyp((6, 6), confidence=0.9)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    assert pipeline._read_either_way(None, strong, PARAMS).pips == (6, 6)
    assert calls == [1.0, -1.0, "clean"]
    # a sure reading the other way round needs no third read
    read, calls = _reader({-1.0: hyp(confidence=0.9), "clean": hyp(confidence=1.0)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    assert pipeline._read_either_way(None, strong, PARAMS).confidence == 0.9
    assert calls == [1.0, -1.0]


def test_a_sure_or_junk_read_or_a_failed_weak_bar_is_read_once(monkeypatch):
    strong = Bar(np.array([50.0, 50.0]), np.array([0.0, 1.0]), 30.0, 3.0, 0, 200.0)
    weak = Bar(np.array([50.0, 50.0]), np.array([0.0, 1.0]), 30.0, 3.0, 0, 60.0)
    for first in (0.8, 0.1):  # sure; junk (below drop_confidence)
        read, calls = _reader({1.0: hyp(confidence=first), -1.0: hyp(confidence=1.0)})
        monkeypatch.setattr(pipeline, "read_tile", read)
        assert pipeline._read_either_way(None, strong, PARAMS).confidence == first
        assert calls == [1.0]
    read, calls = _reader({-1.0: hyp(confidence=1.0)})
    monkeypatch.setattr(pipeline, "read_tile", read)
    assert pipeline._read_either_way(None, weak, PARAMS) is None  # texture: not read again
    assert calls == [1.0]
