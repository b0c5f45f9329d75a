"""The worker on synthetic table videos, with the real vision library and the real rules."""

from __future__ import annotations

import numpy as np

from companion.camera import CameraWorker, WorkerParams
from companion.camera.local import LocalTable
from companion.camera.scripts import chicken_foot, mexican_train
from vision import Params
from vision.video import Action, Placement, VideoSpec, axis_angle, render_video

SYNC = WorkerParams(realtime=False)
PNG = b"\x89PNG\r\n\x1a\n"


def feed(worker, frames, on_question=None):
    asked = 0
    for frame in frames:
        worker.process_frame(frame)
        questions = worker.tracker.link.questions
        while on_question and asked < len(questions):
            on_question(questions[asked])
            asked += 1


def test_mexican_train_video_file_becomes_exactly_the_rounds_moves(mt_script, mt_video):
    table = LocalTable(mt_script.game, mt_script.players, mt_script.options)
    pushed = []
    worker = CameraWorker(mt_video, table, mt_script.calibration, params=SYNC,
                          on_status=pushed.append)
    worker.start()
    worker.join(60)
    assert not worker.running
    assert table.accepted == mt_script.moves
    assert table.refused == [] and table.problems == [] and table.questions == []
    status = worker.status()
    assert status["state"] == "ended" and "end of video" in status["message"]
    assert status["moves"][-1] == mt_script.moves[-1]
    assert status["tiles"] == {"engine": 1, "table": len(mt_script.moves)}
    assert pushed and pushed[-1]["state"] == "ended"
    assert worker.latest_png().startswith(PNG)


def test_a_tile_between_two_slots_raises_the_question_and_the_answer_is_played():
    script = mexican_train(players=2, plays=4, seed=0, ambiguous=True, nudge=False)
    table = LocalTable(script.game, script.players, script.options)
    worker = CameraWorker("0", table, script.calibration, params=SYNC)
    expected = script.questions[0]
    seen = []

    def answer(question):
        seen.append(question)
        assert worker.answer(question.id, expected["answer"])
        worker.drain()

    feed(worker, script.frames(), answer)
    assert len(seen) == 1
    q = seen[0]
    assert (q.kind, q.tile, q.candidates) == ("target", expected["tile"], expected["candidates"])
    assert q.crop_png.startswith(PNG)
    assert table.accepted == script.moves
    assert table.refused == [] and worker.tracker.questions == {}


def test_a_vanished_tile_is_a_problem_and_the_game_keeps_it():
    script = mexican_train(players=3, plays=5, seed=1, vanish=True, nudge=False)
    table = LocalTable(script.game, script.players, script.options)
    worker = CameraWorker("0", table, script.calibration, params=SYNC)
    feed(worker, script.frames())
    assert table.accepted == script.moves
    assert [(p.kind, p.tile) for p in table.problems] == [("vanished", script.problems[0]["tile"])]
    assert "gone from view" in table.problems[0].text
    gone = script.problems[0]["tile"]
    assert any(gone in train["tiles"] for train in table.view()["trains"])  # history stands
    assert worker.status()["problems"][0]["kind"] == "vanished"


def test_chicken_foot_lines_and_a_three_toed_foot():
    script = chicken_foot()
    table = LocalTable(script.game, script.players, script.options)
    worker = CameraWorker("0", table, script.calibration, params=SYNC)
    feed(worker, script.frames())
    assert table.accepted == script.moves
    assert table.problems == [] and table.questions == []
    lines = {line["name"]: line for line in table.view()["lines"]}
    assert lines["l2"]["closed"] and lines["l5"]["tiles"] == ["5-4", "6-4"]


def test_low_confidence_asks_which_tile_it_is(mt_script):
    table = LocalTable(mt_script.game, mt_script.players, mt_script.options)
    worker = CameraWorker("0", table, mt_script.calibration, params=SYNC,
                          vision=Params(min_confidence=1.01))  # nothing is sure enough
    frames = mt_script.frames()
    feed(worker, (next(frames) for _ in range(40)))
    assert table.accepted == []
    q = table.questions[0]
    first = mt_script.moves[0]
    assert q.kind == "tile" and "not sure" in q.text and first in q.candidates
    worker.answer(q.id, first)
    worker.drain()
    assert table.accepted == [first]


def _single_tile_video(pair, direction, seat=(640, 720)):
    spec = VideoSpec(tile_width=40, seed=4)
    hub = (640.0, 360.0)
    d = np.array(direction, float) / np.hypot(*direction)
    centre = np.array(hub) + d * (1.9 * 40 + 40)
    place = Placement(pair, tuple(centre), axis_angle(tuple(d)))
    frames = [f for f, _ in render_video(spec, [Placement((9, 9), hub, 0.0)],
                                         [Action("place", place, seat=seat)])]
    return frames


def test_a_tile_the_rules_refuse_is_reported_once_with_the_reason():
    script = mexican_train(players=3, plays=2, seed=0, nudge=False)
    table = LocalTable(script.game, script.players, script.options)
    worker = CameraWorker("0", table, script.calibration, params=SYNC)
    p1 = np.array(script.calibration.slots["p1"]) - np.array(script.calibration.hub)
    frames = _single_tile_video((4, 2), tuple(p1))
    feed(worker, frames + frames[-6:])  # more still frames: no second submission
    assert table.accepted == []
    assert table.refused == [("4-2>p1", "4-2 cannot go on p1's train: the engine 9.")]
    assert [p.kind for p in table.problems] == ["refused"]
    assert "the engine 9" in table.problems[0].text


def test_a_move_entered_on_the_tablet_first_is_not_posted_again(mt_script):
    table = LocalTable(mt_script.game, mt_script.players, mt_script.options)
    first = mt_script.moves[0]
    assert table.submit(first, source="tablet").accepted
    worker = CameraWorker("0", table, mt_script.calibration, params=SYNC)
    feed(worker, mt_script.frames())
    assert table.accepted == mt_script.moves  # the first one once, from the tablet
    assert table.refused == [] and table.problems == []


def _with_extra(script, *actions):
    from dataclasses import replace as dc_replace

    return dc_replace(script, actions=list(script.actions) + list(actions))


def test_a_tile_moved_away_from_its_train_is_a_problem_not_a_move():
    script = mexican_train(players=3, plays=3, seed=0, nudge=False)
    # the first tile played (index 1: the engine is 0) is carried 250 px down the table
    moved = _with_extra(script, Action("nudge", index=1, offset=(0.0, 250.0, 90.0),
                                       seat=(640.0, 720.0)))
    table = LocalTable(script.game, script.players, script.options)
    worker = CameraWorker("0", table, script.calibration, params=SYNC)
    feed(worker, moved.frames())
    assert table.accepted == script.moves
    assert [(p.kind, p.tile) for p in table.problems] == [("moved", script.moves[0].split(">")[0])]
    assert "put it back" in table.problems[0].text


def test_a_second_copy_of_a_tile_on_the_table_is_a_problem():
    script = mexican_train(players=3, plays=3, seed=0, nudge=False)
    first = script.actions[0].placement
    copy = Placement(first.pair, (first.centre[0], 620.0), 90.0)
    doubled = _with_extra(script, Action("place", copy, seat=(640.0, 720.0)))
    table = LocalTable(script.game, script.players, script.options)
    worker = CameraWorker("0", table, script.calibration, params=SYNC)
    feed(worker, doubled.frames())
    assert table.accepted == script.moves and table.refused == []
    assert [p.kind for p in table.problems] == ["duplicate"]
    assert "misread" in table.problems[0].text
