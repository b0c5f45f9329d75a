"""Binding camera workers to the service's tables (no Flask: ``web`` holds the routes).

``TablesLink`` is a ``TableLink`` over ``companion.service.Tables``: moves go through
``Tables.execute`` with ``source="camera"`` (same checks, log and SSE as the tablet), the
view is the table's public round, and the worker's status (with its open questions and
problems) is shown on the tablet through ``Tables.set_status(table, "camera", ...)``.
``Cameras`` starts and stops one worker per table and keeps each table's camera setting
(source + calibration) in the store's settings, so it survives a restart.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from .layout import Calibration
from .types import Problem, Question, SubmitResult
from .worker import CameraWorker, WorkerParams

log = logging.getLogger(__name__)
SETTING = "camera.{table_id}"


class TablesLink:
    """A table of the service, seen from the camera worker."""

    def __init__(self, tables, table_id: int):
        self.tables = tables
        self.table_id = table_id

    def submit(self, move_text: str, source: str = "camera") -> SubmitResult:
        from ..session import CommandError

        try:
            self.tables.execute(self.table_id, lambda s: s.command_move(move_text),
                                source=source, move_text=move_text)
        except CommandError as exc:
            return SubmitResult(False, exc.message, exc.rule)
        return SubmitResult(True)

    def check(self, move_text: str) -> str | None:
        """None when the session would take ``move_text`` now (nothing is written)."""
        from ..session import CommandError

        with self.tables.lock(self.table_id):
            try:
                self.tables.session(self.table_id).command_move(move_text)
            except CommandError as exc:
                return exc.message
        return None

    def view(self) -> dict | None:
        return self.tables.view(self.table_id).get("round")

    # questions and problems travel in the status the worker pushes; nothing else to do
    def ask(self, question: Question) -> None:
        log.info("camera table %s asks: %s %s", self.table_id, question.text, question.candidates)

    def report(self, problem: Problem) -> None:
        log.warning("camera table %s: %s", self.table_id, problem.text)

    def withdraw(self, question_id: str) -> None:
        pass


def tablet_status(status: dict, table_id: int) -> dict:
    """The worker's status in the shape the tablet's device chips read (``online``, ``text``)
    plus the questions, problems and where to fetch the pictures."""
    state = status.get("state")
    online = state in ("watching", "motion", "live")
    words = {"watching": "watching", "motion": "hands on the table", "ended": "video ended",
             "unavailable": "camera unavailable", "reconnecting": "reconnecting",
             "failed": "camera failed", "connecting": "connecting", "closed": "off"}
    text = words.get(state, state or "?")
    if status.get("moves"):
        text += f" · last {status['moves'][-1]}"
    if status.get("questions"):
        text += f" · {len(status['questions'])} question(s)"
    if status.get("problems"):
        text += f" · {len(status['problems'])} problem(s)"
    if state in ("unavailable", "reconnecting", "failed") and status.get("message"):
        text += f" — {status['message']}"
    base = f"/api/tables/{table_id}/camera"
    return {"online": online, "text": text, "state": state, "message": status.get("message"),
            "questions": status.get("questions", []), "problems": status.get("problems", []),
            "frame_url": f"{base}/frame.png", "question_url": f"{base}/questions/{{id}}.png",
            "answer_url": f"{base}/answer", "calibrated": status.get("calibrated", False),
            "hub": status.get("hub")}


class Cameras:
    """One worker per table: ``start``, ``stop``, ``get``, ``configure`` (persisted)."""

    def __init__(self, tables, params: WorkerParams | None = None):
        self.tables = tables
        # a recorded source that ends keeps its worker, so late answers are still played
        self.params = params or WorkerParams(stop_at_end=False)
        self._workers: dict[int, CameraWorker] = {}
        self._lock = threading.Lock()
        self._unsubscribe = tables.subscribe(self._on_event)

    def _on_event(self, table_id: int, event: dict, state: dict) -> None:
        """A move entered elsewhere (tablet, hub): the worker re-reads the game. Only
        enqueues, so the writer holding the table lock is never slowed down."""
        if event.get("source") == "camera" or event.get("kind") == "status":
            return
        worker = self._workers.get(table_id)
        if worker is not None:
            worker.refresh()

    def setting(self, table_id: int) -> dict | None:
        raw = self.tables.store.setting(SETTING.format(table_id=table_id))
        return json.loads(raw) if raw else None

    def save(self, table_id: int, source: str | int | None, calibration: dict | None = None,
             *, loop: bool = False) -> None:
        """Store the table's camera setting (validated) without touching the worker."""
        if calibration is not None:
            Calibration.from_dict(calibration)  # validate before saving
        if source is not None:
            from vision.camera import parse_source

            parse_source(source)
        self.tables.store.set_setting(SETTING.format(table_id=table_id), json.dumps(
            None if source is None else {"source": source, "calibration": calibration,
                                         "loop": loop}))

    def configure(self, table_id: int, source: str | int | None,
                  calibration: dict | None = None, *, loop: bool = False,
                  start: bool = True) -> CameraWorker | None:
        """Save the table's camera (None: no camera) and (re)start its worker."""
        self.save(table_id, source, calibration, loop=loop)
        self.stop(table_id)
        if source is None or not start:
            return None
        return self.start(table_id, source, calibration, loop=loop)

    def start(self, table_id: int, source: str | int, calibration: dict | None = None, *,
              loop: bool = False, params: WorkerParams | None = None) -> CameraWorker:
        self.stop(table_id)
        link = TablesLink(self.tables, table_id)

        def publish(status: dict[str, Any]) -> None:
            self.tables.set_status(table_id, "camera", tablet_status(status, table_id))

        worker = CameraWorker(source, link, calibration, params=params or self.params,
                              on_status=publish, name=f"camera-{table_id}", loop=loop)
        with self._lock:
            self._workers[table_id] = worker
        return worker.start()

    def start_saved(self) -> list[int]:
        """Start every table's saved camera (at server start)."""
        started = []
        for info in self.tables.store.tables():
            saved = self.setting(info["id"])
            if saved and saved.get("source") is not None:
                self.start(info["id"], saved["source"], saved.get("calibration"),
                           loop=bool(saved.get("loop")))
                started.append(info["id"])
        return started

    def get(self, table_id: int) -> CameraWorker | None:
        return self._workers.get(table_id)

    def stop(self, table_id: int) -> None:
        with self._lock:
            worker = self._workers.pop(table_id, None)
        if worker is not None:
            worker.stop()
            self.tables.set_status(table_id, "camera", None)

    def stop_all(self) -> None:
        for table_id in list(self._workers):
            self.stop(table_id)
        self._unsubscribe()


def install_cameras(app, *, start_saved: bool | None = None,
                    params: WorkerParams | None = None) -> Cameras:
    """Wire cameras into a Flask app made by ``create_app``: ``Cameras`` in
    ``app.extensions["companion.cameras"]``, the camera routes and the tablet panel script,
    and (outside tests) every table's saved camera started."""
    import atexit

    from . import web

    cameras = Cameras(app.extensions["companion.tables"], params)
    app.extensions["companion.cameras"] = cameras
    app.register_blueprint(web.bp)
    app.register_blueprint(web.assets)
    if start_saved if start_saved is not None else not app.testing:
        cameras.start_saved()
    atexit.register(cameras.stop_all)
    return cameras


def start_demo_camera(app, camera: str | int | None = "demo"):
    """``serve --demo`` / ``--camera``: "demo" (or None) plays the recorded synthetic round
    into the "Camera demo" table in a loop; anything else (an index, a file, a folder, a URL)
    watches that source for the same table. Returns the table id."""
    from .demo import CameraDemo, demo_script, seed_camera_table

    cameras = app.extensions.get("companion.cameras") or install_cameras(app, start_saved=False)
    tables = app.extensions["companion.tables"]
    if camera in (None, "demo"):
        demo = CameraDemo(tables, cameras, app.instance_path)
        table_id = demo.prepare()
        demo.start()
        app.extensions["companion.camera_demo"] = demo
        return table_id
    script = demo_script()
    table_id = seed_camera_table(tables, script)
    cameras.configure(table_id, camera, None)
    return table_id
