"""The Flask application factory (STYLE.md 12): config, instance folder, store, blueprints."""

from __future__ import annotations

import logging
import os
import secrets
from typing import Any

from flask import Flask, request

from .errors import register_error_handlers
from .service import Tables
from .store import open_store

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "DATABASE_URL": None,  # default: sqlite:///<instance>/companion.db
    "SQLITE_SYNCHRONOUS": "FULL",  # fsync every commit: accepted means on disk
    "JSON_MAX_BYTES": 64 * 1024,
    "PHOTO_MAX_BYTES": 12 * 1024 * 1024,
    "AUTH_REQUIRED": True,
    "ADMIN_PASSWORD": None,  # set at first start when given; else one is generated
    "SSE_KEEPALIVE_S": 15.0,
    "SSE_QUEUE_MAX": 2000,
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "DEVICE_COOKIE_SECURE": False,  # True behind HTTPS
}


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app; ``test_config`` overrides settings (tests pass a temporary database)."""
    instance = (test_config or {}).get("INSTANCE_PATH") or os.environ.get("COMPANION_INSTANCE_PATH")
    app = Flask(__name__, instance_relative_config=True,
                instance_path=os.path.abspath(instance) if instance else None)
    app.config.from_mapping(DEFAULTS)
    if test_config is None:
        app.config.from_prefixed_env("COMPANION")
    else:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_secret(app.instance_path)
    url = app.config["DATABASE_URL"] or "sqlite:///" + os.path.join(app.instance_path,
                                                                     "companion.db")
    store = open_store(url, app.config["SQLITE_SYNCHRONOUS"])
    tables = Tables(store)
    app.extensions["companion.tables"] = tables

    from . import admin, api, pages, stream
    broker = stream.Broker(tables, app.config["SSE_QUEUE_MAX"])
    app.extensions["companion.broker"] = broker
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(admin.bp)
    app.register_blueprint(pages.bp)
    register_error_handlers(app)

    from .camera.adapter import install_cameras
    install_cameras(app)

    @app.before_request
    def limit_body() -> None:
        photo = request.path.endswith("/photo")
        request.max_content_length = app.config["PHOTO_MAX_BYTES" if photo else "JSON_MAX_BYTES"]
        if request.content_length and request.content_length > request.max_content_length:
            from werkzeug.exceptions import RequestEntityTooLarge
            raise RequestEntityTooLarge()

    with app.app_context():
        _first_start_password(app)
    return app


def _instance_secret(instance_path: str) -> str:
    path = os.path.join(instance_path, "secret_key")
    if os.path.exists(path):
        with open(path) as handle:
            return handle.read().strip()
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key


def _first_start_password(app: Flask) -> None:
    """The admin password is set once, at first start: from config, else generated."""
    from .auth import set_admin_password, store

    if store().setting("admin_password"):
        return
    password = app.config.get("ADMIN_PASSWORD")
    generated = not password
    if generated:
        password = secrets.token_urlsafe(9)
    set_admin_password(password)
    app.config["GENERATED_ADMIN_PASSWORD"] = password if generated else None
    if generated:
        log.warning("first start: the admin password is %s (change it with "
                    "`python -m companion admin-password`)", password)
