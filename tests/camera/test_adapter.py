"""The worker wired to the real service: moves land in the event log with source camera,
status reaches the tablet view, and the Flask routes serve the picture and answers."""

from __future__ import annotations

import base64
import time

import pytest

from companion import create_app
from companion.camera import WorkerParams
from companion.camera.adapter import TablesLink
from companion.camera.demo import rewind

PASSWORD = "camera test password"
STAFF = {"Authorization": "Basic " + base64.b64encode(f"staff:{PASSWORD}".encode()).decode()}


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "ADMIN_PASSWORD": PASSWORD,
                      "DATABASE_URL": f"sqlite:///{tmp_path / 'camera.db'}",
                      "SQLITE_SYNCHRONOUS": "OFF", "INSTANCE_PATH": str(tmp_path),
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    # create_app installed the cameras; run recorded videos as fast as they decode
    app.extensions["companion.cameras"].params = WorkerParams(realtime=False)
    yield app
    app.extensions["companion.cameras"].stop_all()
    app.extensions["companion.broker"].shutdown()


def test_camera_moves_reach_the_event_log_and_the_tablet(app, mt_script, mt_video):
    tables = app.extensions["companion.tables"]
    cameras = app.extensions["companion.cameras"]
    table_id = tables.store.create_table("Camera table")
    tables.execute(table_id, lambda s: s.command_start(mt_script.game, mt_script.options,
                                                       ["Ann", "Ben", "Cat"]), source="system")
    link = TablesLink(tables, table_id)
    assert link.check(mt_script.moves[0]) is None
    assert "cannot go on" in link.check("9-5>p2")
    assert tables.session(table_id).match.moves == []  # checking wrote nothing

    worker = cameras.configure(table_id, mt_video, mt_script.calibration.to_dict())
    worker.join(60)
    events = tables.store.events(table_id)
    camera_moves = [e.payload["move"] for e in events if e.source == "camera"]
    assert camera_moves == mt_script.moves
    status = tables.view(table_id)["status"]["camera"]
    assert status["online"] is False and "video ended" in status["text"]
    assert status["text"].count(mt_script.moves[-1]) == 1

    client = app.test_client()
    picture = client.get(f"/api/tables/{table_id}/camera/frame.png")
    assert picture.status_code == 200 and picture.mimetype == "image/png"
    full = client.get(f"/api/tables/{table_id}/camera").get_json()
    assert full["moves"][-1] == mt_script.moves[-1]
    assert full["setting"]["source"] == mt_video
    answer = client.post(f"/api/tables/{table_id}/camera/answer",
                         json={"question": "q0", "move": "ignore"}, headers=STAFF)
    assert answer.status_code == 404 and answer.get_json()["error"] == "unknown_question"
    assert client.get("/api/tables/999/camera").status_code == 404
    assert client.put(f"/api/tables/{table_id}/camera", json={"source": None}).status_code in (401, 403)
    assert client.get("/camera/static/camera-panel.js").status_code == 200
    bad = client.post(f"/api/tables/{table_id}/camera/calibrate", json={"taps": 3}, headers=STAFF)
    assert bad.status_code == 400
    taps = [mt_script.calibration.slots[n] for n in ("p1", "p2", "p3", "mx")]
    calibrated = client.post(f"/api/tables/{table_id}/camera/calibrate", headers=STAFF,
                             json={"hub": mt_script.calibration.hub, "taps": taps})
    assert calibrated.status_code == 200
    assert cameras.setting(table_id)["calibration"]["slots"]["p3"] == list(taps[2])
    off = client.put(f"/api/tables/{table_id}/camera", json={"source": None}, headers=STAFF)
    assert off.status_code == 200 and off.get_json()["setting"] is None
    assert "camera" not in tables.view(table_id)["status"]

    assert rewind(tables, table_id) == len(mt_script.moves)
    assert tables.session(table_id).match.moves == []


def test_a_question_answered_over_http_is_played(app):
    from companion.camera.scripts import mexican_train
    from vision.camera import write_video

    script = mexican_train(players=2, plays=2, seed=0, ambiguous=True, nudge=False)
    tables = app.extensions["companion.tables"]
    cameras = app.extensions["companion.cameras"]
    path = str(app.instance_path) + "/ambiguous.avi"
    write_video(script.frames(), path, script.spec.fps)
    table_id = tables.store.create_table("Ambiguous")
    tables.execute(table_id, lambda s: s.command_start(script.game, script.options,
                                                       ["Ann", "Ben"]), source="system")
    worker = cameras.start(table_id, path, script.calibration.to_dict(),
                           params=WorkerParams(realtime=False, stop_at_end=False))
    assert worker.source_done.wait(60)
    client = app.test_client()
    status = client.get(f"/api/tables/{table_id}/camera").get_json()
    [question] = status["questions"]
    assert question["candidates"] == script.questions[0]["candidates"]
    assert tables.view(table_id)["status"]["camera"]["questions"][0]["id"] == question["id"]
    crop = client.get(f"/api/tables/{table_id}/camera/questions/{question['id']}.png")
    assert crop.status_code == 200 and crop.mimetype == "image/png"
    wrong = client.post(f"/api/tables/{table_id}/camera/answer", headers=STAFF,
                        json={"question": question["id"], "move": "9-6>p2"})
    assert wrong.status_code == 422
    answered = client.post(f"/api/tables/{table_id}/camera/answer", headers=STAFF,
                           json={"question": question["id"], "move": script.questions[0]["answer"]})
    assert answered.status_code == 202
    deadline = time.monotonic() + 10
    while len(worker.tracker.submitted) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    moves = [e.payload["move"] for e in tables.store.events(table_id) if e.source == "camera"]
    assert moves == script.moves  # the second tile waited for the answer about the first
    assert worker.tracker.problems == []
    assert worker.running  # a recorded table keeps answering until it is stopped
