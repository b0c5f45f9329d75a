"""The worker thread with a camera that is not there, and the looping demo on the service."""

from __future__ import annotations

import time

from companion import create_app
from companion.camera import CameraWorker, WorkerParams
from companion.camera.adapter import Cameras
from companion.camera.demo import CameraDemo
from companion.camera.local import LocalTable
from companion.camera.scripts import mexican_train


def wait_for(predicate, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_missing_camera_shows_a_clear_status_and_the_worker_stops_promptly():
    table = LocalTable("mexican-train", 3, {"set": "double-9"})
    pushed = []
    worker = CameraWorker(97, table, params=WorkerParams(realtime=True, status_every=0.05),
                          on_status=pushed.append)
    worker.source.retry = (30.0, 60.0)
    worker.start()
    assert wait_for(lambda: worker.status()["state"] == "unavailable", 10)
    assert "camera 97 is not available" in worker.status()["message"]
    assert worker.running  # keeps waiting for the camera to come back
    assert wait_for(lambda: any(s["state"] == "unavailable" for s in pushed), 5)
    t0 = time.monotonic()
    worker.stop(timeout=3)
    assert not worker.running and time.monotonic() - t0 < 3.5
    assert worker.status()["state"] == "closed"


def test_the_demo_plays_its_video_into_the_demo_table(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "ADMIN_PASSWORD": "demo password",
                      "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.db'}",
                      "SQLITE_SYNCHRONOUS": "OFF", "INSTANCE_PATH": str(tmp_path),
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    tables = app.extensions["companion.tables"]
    cameras = Cameras(tables, WorkerParams(realtime=False))
    script = mexican_train(players=3, plays=3, seed=2, nudge=False)
    demo = CameraDemo(tables, cameras, str(tmp_path), pause=30.0, script=script).start()
    try:
        assert wait_for(lambda: demo.table_id is not None and len(
            [e for e in tables.store.events(demo.table_id) if e.source == "camera"]) == 3, 60)
        moves = [e.payload["move"] for e in tables.store.events(demo.table_id)
                 if e.source == "camera"]
        assert moves == script.moves
        assert (tmp_path / "camera-demo-v1.mp4").stat().st_size > 0
        view = tables.view(demo.table_id)
        assert view["name"] == "Camera demo" and [m["move"] for m in view["moves"]] == script.moves
    finally:
        demo.stop()
        cameras.stop_all()
        app.extensions["companion.broker"].shutdown()
