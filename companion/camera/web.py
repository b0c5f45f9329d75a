"""Flask routes for the table camera (a thin adapter; register with
``app.register_blueprint(companion.camera.web.bp)`` once ``app.extensions["companion.cameras"]``
holds a ``Cameras``).

- ``GET  /api/tables/<id>/camera``: the worker's full status (404 when no camera).
- ``GET  /api/tables/<id>/camera/frame.png``: the latest annotated frame.
- ``GET  /api/tables/<id>/camera/questions/<qid>.png``: the crop shown with a question.
- ``POST /api/tables/<id>/camera/answer`` ``{"question": "q3", "move": "9-6>p1"}`` (or
  ``"move": "ignore"``): a person settles a question (writer only).
- ``POST /api/tables/<id>/camera/calibrate`` ``{"hub": [x, y], "taps": [[x, y], ...]}``:
  the tablet's calibration step (hub, then one tap per train in slot order p1.., mx)
  (writer only; saved with the table's camera setting).
- ``PUT  /api/tables/<id>/camera`` ``{"source": "0" | path | URL | null, "calibration":
  {"hub": [x, y], "slots": {"p1": [x, y], ...}}, "loop": false}``: the table's camera
  setting (staff only), saved and applied at once.
- ``GET  /camera/static/camera-panel.js``: the tablet panel (frame, status, questions with
  their answer buttons, problems, calibration taps); include it in the tablet page.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from .. import auth
from ..session import CommandError
from .layout import Calibration

bp = Blueprint("camera", __name__, url_prefix="/api/tables/<int:table_id>/camera")
assets = Blueprint("camera_assets", __name__, static_folder="static",
                   static_url_path="/camera/static")


def cameras():
    found = current_app.extensions.get("companion.cameras")
    if found is None:
        raise CommandError("no_camera", "Cameras are not enabled on this server.", status=404)
    return found


def worker_for(table_id: int):
    worker = cameras().get(table_id)
    if worker is None:
        raise CommandError("no_camera", f"Table {table_id} has no camera.", status=404)
    return worker


def _png(data: bytes | None, what: str) -> Response:
    if data is None:
        raise CommandError("no_frame", f"No {what} yet.", status=404)
    response = Response(data, mimetype="image/png")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("")
def status(table_id: int):
    worker = worker_for(table_id)
    return jsonify(dict(worker.status(), setting=cameras().setting(table_id)))


@bp.get("/frame.png")
def frame(table_id: int):
    return _png(worker_for(table_id).latest_png(), "camera frame")


@bp.get("/questions/<qid>.png")
def question_picture(table_id: int, qid: str):
    return _png(worker_for(table_id).question_png(qid), "picture for that question")


@bp.post("/answer")
def answer(table_id: int):
    auth.require_table_writer(table_id)
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("question"), str) \
            or not isinstance(data.get("move"), str):
        raise CommandError("invalid", 'send {"question": "q3", "move": "9-6>p1" or "ignore"}',
                           status=400)
    worker = worker_for(table_id)
    question = worker.tracker.questions.get(data["question"])
    if question is None:
        raise CommandError("unknown_question", "That camera question is no longer open.",
                           status=404)
    if data["move"] != "ignore" and data["move"] not in question.candidates:
        raise CommandError("invalid", "move must be one of the question's candidates or ignore")
    if not worker.answer(data["question"], data["move"]):
        raise CommandError("busy", "The camera is busy; try again in a moment.", status=503)
    return jsonify({"queued": True}), 202


@bp.post("/calibrate")
def calibrate(table_id: int):
    auth.require_table_writer(table_id)
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("taps"), list) or not data.get("hub"):
        raise CommandError("invalid", 'send {"hub": [x, y], "taps": [[x, y], ...]} (taps in '
                           "slot order p1, p2, ..., mx)", status=400)
    worker = worker_for(table_id)
    view = cameras().tables.view(table_id).get("round") or {}
    names = [t["name"] for t in view.get("trains", [])]
    if not names:
        raise CommandError("invalid", "Calibration needs a Mexican Train round in play.")
    try:
        calibration = Calibration.from_taps(tuple(data["hub"]), [tuple(t) for t in data["taps"]],
                                            names)
    except (TypeError, ValueError) as exc:
        raise CommandError("invalid", f"calibration points must be [x, y] numbers: {exc}") from None
    worker.calibrate(calibration)
    saved = cameras().setting(table_id) or {}
    if saved.get("source") is not None:
        cameras().save(table_id, saved["source"], calibration.to_dict(),
                       loop=bool(saved.get("loop")))
    return jsonify({"calibration": calibration.to_dict()})


@bp.put("")
def configure(table_id: int):
    auth.require_admin()
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or "source" not in data:
        raise CommandError("invalid", 'send {"source": "0" | path | URL | null, '
                           '"calibration": {...}}', status=400)
    try:
        cameras().configure(table_id, data["source"], data.get("calibration"),
                            loop=bool(data.get("loop", False)))
    except ValueError as exc:
        raise CommandError("invalid", str(exc)) from None
    return jsonify({"setting": cameras().setting(table_id)})
