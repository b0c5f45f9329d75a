"""The JSON API under ``/api/`` (docs/service.md; OpenAPI at ``/api/openapi.json``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from . import auth
from .games import game_names, get_rules
from .openapi import openapi_document
from .service import Tables
from .session import CommandError, TableSession
from .store import SOURCES

bp = Blueprint("api", __name__, url_prefix="/api")
MAX_KEY = 100


def tables() -> Tables:
    return current_app.extensions["companion.tables"]


def json_body() -> dict:
    """The request's JSON object ({} for an empty body); 400/415 otherwise."""
    if not request.get_data(cache=True):
        return {}
    if not request.is_json:
        raise CommandError("unsupported_media_type", "Send JSON with Content-Type: "
                           "application/json.", status=415)
    data = request.get_json(silent=True)
    if data is None:
        raise CommandError("bad_json", "The body is not valid JSON.", status=400)
    if not isinstance(data, dict):
        raise CommandError("bad_json", "The body must be a JSON object.", status=400)
    return data


def act(table_id: int, command, data: dict, move_text: Any = None):
    """Run one state change through ``Tables.execute`` and answer with the new state."""
    auth.require_table_writer(table_id)
    source = data.get("source", "tablet")
    if source not in SOURCES:
        raise CommandError("invalid", f"source must be one of {', '.join(SOURCES)}")
    key = request.headers.get("Idempotency-Key", data.get("key"))
    if key is not None and (not isinstance(key, str) or not 0 < len(key) <= MAX_KEY):
        raise CommandError("invalid", f"the idempotency key must be text of 1-{MAX_KEY} "
                           "characters")
    expected = data.get("expected_seq")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        raise CommandError("invalid", "expected_seq must be a whole number")
    fingerprinted = {k: v for k, v in data.items() if k not in ("key", "expected_seq")}
    answer, replayed = tables().execute(table_id, command, source=source, key=key,
                                        body=[request.path, fingerprinted],
                                        expected_seq=expected, move_text=move_text)
    return jsonify(dict(answer, replayed=replayed, state=tables().view(table_id)))


@bp.get("/health")
def health():
    return jsonify({"ok": True})


@bp.get("/openapi.json")
def openapi():
    return jsonify(openapi_document())


@bp.get("/games")
def games():
    out = []
    for name in game_names():
        rules = get_rules(name)
        out.append({
            "name": rules.name, "title": rules.title, "aliases": list(rules.aliases),
            "players": [rules.min_players, rules.max_players],
            "options": [{"key": s.key, "default": s.default, "doc": s.doc, "rule": s.rule,
                         "choices": list(s.choices)} for s in rules.option_specs],
        })
    return jsonify({"games": out})


@bp.get("/tables")
def list_tables():
    views = []
    for info in tables().store.tables():
        view = tables().view(info["id"])
        views.append({"id": view["id"], "name": view["name"], "seq": view["seq"],
                      "players": [p["name"] for p in view["players"]],
                      "game": (view["match"] or {}).get("title"),
                      "round": (view["match"] or {}).get("round_index"),
                      "current": (view["round"] or {}).get("current"),
                      "over": (view["match"] or {}).get("over", False)})
    return jsonify({"tables": views})


@bp.post("/tables")
def create_table():
    auth.require_admin()
    data = json_body()
    name = data.get("name", "")
    if not isinstance(name, str) or not name.strip() or len(name) > 60:
        raise CommandError("invalid", "name must be text of 1-60 characters")
    view = tables().create_table(name.strip())
    return jsonify(view), 201


@bp.get("/tables/<int:table_id>")
def table_state(table_id: int):
    return jsonify(tables().view(table_id))


@bp.get("/tables/<int:table_id>/events")
def table_events(table_id: int):
    since = request.args.get("since", "0")
    limit = request.args.get("limit", "1000")
    if not since.isdigit() or not limit.isdigit() or not 0 < int(limit) <= 5000:
        raise CommandError("invalid", "since must be a seq >= 0 and limit 1..5000", status=400)
    last = tables().store.last_seq(table_id)
    events = tables().store.events(table_id, since=int(since), limit=int(limit))
    return jsonify({"seq": last, "events": [e.to_json() for e in events]})


@bp.post("/tables/<int:table_id>/players")
def seat_players(table_id: int):
    data = json_body()
    return act(table_id, lambda s: s.command_seat(data.get("players")), data)


@bp.post("/tables/<int:table_id>/match")
def start_match(table_id: int):
    data = json_body()
    return act(table_id, lambda s: s.command_start(data.get("game"), data.get("options"),
                                                   data.get("players"), data.get("starter"),
                                                   data.get("setup")),
               data)


@bp.post("/tables/<int:table_id>/moves")
def post_move(table_id: int):
    data = json_body()
    player = data.get("player", data.get("seat"))
    return act(table_id, lambda s: s.command_move(data.get("move"), player), data,
               move_text=data.get("move"))


@bp.post("/tables/<int:table_id>/undo")
def undo(table_id: int):
    data = json_body()
    return act(table_id, TableSession.command_undo, data)


@bp.post("/tables/<int:table_id>/fix")
def fix_tile(table_id: int):
    data = json_body()
    return act(table_id, lambda s: s.command_fix(data.get("move_seq"), data.get("move")), data,
               move_text=data.get("move"))


@bp.post("/tables/<int:table_id>/round/preview")
def round_preview(table_id: int):
    auth.require_table_writer(table_id)
    data = json_body()
    with tables().lock(table_id):
        preview = tables().session(table_id).round_preview(data.get("hands"))
    return jsonify(preview)


@bp.post("/tables/<int:table_id>/round/finish")
def finish_round(table_id: int):
    data = json_body()
    return act(table_id, lambda s: s.command_finish(data.get("hands"), data.get("starter"),
                                                    data.get("setup")), data)


@bp.post("/tables/<int:table_id>/scores")
def edit_score(table_id: int):
    data = json_body()
    return act(table_id, lambda s: s.command_edit_score(
        data.get("round"), data.get("player", data.get("seat")), data.get("score"),
        data.get("reason")), data)


@bp.post("/tables/<int:table_id>/status")
def report_status(table_id: int):
    """The hub bridge or camera worker says how it is (shown on the tablet, not logged)."""
    auth.require_table_writer(table_id)
    data = json_body()
    part = data.get("part")
    if part not in ("hub", "camera"):
        raise CommandError("invalid", "part must be hub or camera")
    online = data.get("online", True)
    text = data.get("text", "")
    if not isinstance(online, bool) or not isinstance(text, str) or len(text) > 80:
        raise CommandError("invalid", "online must be true/false and text at most 80 characters")
    tables().set_status(table_id, part, {"online": online, "text": text})
    return jsonify(tables().view(table_id)["status"])


@bp.post("/tables/<int:table_id>/round/photo")
def round_photo(table_id: int):
    from .photo import read_photo

    auth.require_table_writer(table_id)
    upload = request.files.get("image")
    if upload is None:
        data = request.get_data(cache=False)
    else:
        data = upload.read()
    session = tables().session(table_id)
    state = session.match.state if session.match else None
    set_size = getattr(state, "max_pips", None)
    return jsonify(read_photo(data, set_size))


# -- pairing (public: an unpaired tablet asks for a code and polls) -------------------------
@bp.post("/pairing")
def start_pairing():
    code, secret = auth.new_pairing()
    response = jsonify({"code": code, "expires_in": auth.CODE_TTL})
    response.set_cookie(auth.PAIRING_COOKIE, secret, max_age=auth.CODE_TTL, httponly=True,
                        samesite="Strict", secure=current_app.config["DEVICE_COOKIE_SECURE"])
    return response


@bp.get("/pairing")
def pairing_status():
    secret = request.cookies.get(auth.PAIRING_COOKIE)
    pending = auth.store().pairing(secret_hash=auth.token_hash(secret)) if secret else None
    if pending is None:
        raise CommandError("no_pairing", "This browser has no pairing code; ask for one.",
                           status=404)
    if pending["token"] is None:
        return jsonify({"paired": False, "code": pending["code"]})
    device = auth.store().device_by_hash(auth.token_hash(pending["token"]))
    auth.store().drop_pairing(pending["code"])
    response = jsonify({"paired": True, "table_id": device["table_id"]})
    response.set_cookie(auth.DEVICE_COOKIE, pending["token"], max_age=400 * 24 * 3600,
                        httponly=True, samesite="Strict",
                        secure=current_app.config["DEVICE_COOKIE_SECURE"])
    response.delete_cookie(auth.PAIRING_COOKIE)
    return response


@bp.get("/whoami")
def whoami():
    who = auth.identity()
    return jsonify({"admin": who.admin, "table_id": who.table_id, "device_id": who.device_id,
                    "csrf": auth.csrf_token(who)})
