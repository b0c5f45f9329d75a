"""HTML pages: the pairing screen of an unpaired tablet and the table-side tablet page."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template

from . import auth
from .photo import vision_available

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    who = auth.identity()
    if who.table_id is not None and not who.admin:
        return redirect(f"/t/{who.table_id}")
    tables = current_app.extensions["companion.tables"].store.tables()
    return render_template("index.html", tables=tables, admin=who.admin)


@bp.get("/t/<int:table_id>")
def tablet(table_id: int):
    tables = current_app.extensions["companion.tables"]
    info = tables.store.table(table_id)
    who = auth.identity()
    can_write = who.admin or who.table_id == table_id
    return render_template("tablet.html", table=info, can_write=can_write,
                           csrf=auth.csrf_token(who) if can_write else "",
                           vision=vision_available())
