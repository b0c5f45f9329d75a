"""Staff pages: sign in with the admin password, see every table, pair and revoke tablets."""

from __future__ import annotations

import secrets
import threading
import time

from flask import Blueprint, current_app, jsonify, redirect, render_template, request, session

from . import auth
from .session import CommandError

bp = Blueprint("admin", __name__, url_prefix="/admin")
_failures: list[float] = []
_failures_lock = threading.Lock()
MAX_FAILURES = 10  # per minute, then 429


def _tables():
    return current_app.extensions["companion.tables"]


@bp.get("")
@bp.get("/")
def index():
    who = auth.identity()
    if not who.admin:
        return render_template("login.html", error=None), 200
    tables = []
    for info in _tables().store.tables():
        view = _tables().view(info["id"])
        tables.append({"view": view, "summary": _tables().store.summary(info["id"])})
    devices = _tables().store.devices()
    broker = current_app.extensions["companion.broker"]
    hubs = current_app.extensions.get("companion.hubs")
    return render_template("admin.html", tables=tables, devices=devices,
                           csrf=auth.csrf_token(who), watchers=broker.count(),
                           hub_pairs=hubs.pairs() if hubs else None)


@bp.post("/login")
def login():
    now = time.time()
    with _failures_lock:
        _failures[:] = [t for t in _failures if now - t < 60]
        if len(_failures) >= MAX_FAILURES:
            return render_template("login.html", error="Too many tries; wait a minute."), 429
    if not auth.check_admin_password(request.form.get("password", "")):
        with _failures_lock:
            _failures.append(now)
        return render_template("login.html", error="That is not the admin password."), 401
    session.clear()
    session["admin"] = True
    session["nonce"] = secrets.token_urlsafe(16)
    return redirect("/admin")


@bp.post("/logout")
def logout():
    session.clear()
    return redirect("/admin")


@bp.get("/api/tables")
def api_tables():
    auth.require_admin()
    out = []
    for info in _tables().store.tables():
        out.append(dict(_tables().view(info["id"]), summary=_tables().store.summary(info["id"])))
    return jsonify({"tables": out, "devices": _tables().store.devices()})


def _body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise CommandError("bad_json", "The body must be a JSON object.", status=400)
    return data


@bp.post("/api/pair")
def pair():
    auth.require_admin()
    data = _body()
    table_id = data.get("table_id")
    if isinstance(table_id, bool) or not isinstance(table_id, int):
        raise CommandError("invalid", "table_id must be a table number")
    _tables().store.table(table_id)
    label = str(data.get("label") or "tablet")[:40]
    device_id = auth.pair(str(data.get("code", "")), table_id, label)
    return jsonify({"device_id": device_id, "table_id": table_id})


@bp.post("/api/tables/<int:table_id>/tokens")
def make_token(table_id: int):
    auth.require_admin()
    data = request.get_json(silent=True) or {}
    label = str(data.get("label") or "script")[:40]
    _tables().store.table(table_id)
    device_id, token = auth.issue_token(table_id, label)
    return jsonify({"device_id": device_id, "table_id": table_id, "token": token}), 201


@bp.post("/api/devices/<int:device_id>/revoke")
def revoke(device_id: int):
    auth.require_admin()
    if not _tables().store.revoke_device(device_id):
        raise CommandError("unknown_device", f"No active device {device_id}.", status=404)
    return jsonify({"revoked": device_id})


def _hubs():
    hubs = current_app.extensions.get("companion.hubs")
    if hubs is None:
        raise CommandError("hubs_off", "The hub link is not running on this server "
                           "(start it with `python -m companion serve`).", status=503)
    return hubs


@bp.post("/api/tables/<int:table_id>/hub")
def pair_hub(table_id: int):
    """Show this table on a hub (its id, like h-0001, is printed on the hub)."""
    auth.require_admin()
    hub = str(_body().get("hub", "")).strip().lower()
    try:
        _hubs().pair(table_id, hub)
    except ValueError as exc:
        raise CommandError("invalid", str(exc)) from None
    return jsonify({"table_id": table_id, "hub": hub})


@bp.delete("/api/tables/<int:table_id>/hub")
def unpair_hub(table_id: int):
    auth.require_admin()
    _tables().store.table(table_id)
    _hubs().unpair(table_id)
    return jsonify({"table_id": table_id, "hub": None})
