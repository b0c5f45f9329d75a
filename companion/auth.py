"""Who is asking: staff (admin password), a paired tablet (device token), or a spectator.

Credentials: a device token in the HttpOnly SameSite cookie (writes need the CSRF header
``X-CSRF-Token``), or ``Authorization: Bearer <device token>`` for scripts, the camera and
the hub bridge (no cookie, so no CSRF); staff sign in on ``/admin`` (session cookie + CSRF)
or send ``Authorization: Basic`` with the admin password. No credential: read-only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from flask import current_app, g, request, session
from werkzeug.security import check_password_hash, generate_password_hash

from .session import CommandError

DEVICE_COOKIE = "dtc_device"
PAIRING_COOKIE = "dtc_pairing"
CSRF_HEADER = "X-CSRF-Token"
CODE_ALPHABET = "ACDEFGHJKLMNPQRTUVWXY34679"  # no 0/O, 1/I, 2/Z, 5/S, 8/B look-alikes
CODE_LENGTH = 6
CODE_TTL = 600


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Identity:
    admin: bool = False
    table_id: int | None = None
    device_id: int | None = None
    via: str | None = None  # "cookie" | "session" | "header" | None
    credential: str = ""

    @property
    def anonymous(self) -> bool:
        return not self.admin and self.table_id is None


def store():
    return current_app.extensions["companion.tables"].store


def set_admin_password(password: str) -> None:
    if len(password) < 8:
        raise ValueError("the admin password needs at least 8 characters")
    method = current_app.config.get("PASSWORD_HASH_METHOD", "scrypt")
    store().set_setting("admin_password", generate_password_hash(password, method))
    _checked_passwords.clear()


_checked_passwords: dict[str, bool] = {}


def check_admin_password(password: str) -> bool:
    stored = store().setting("admin_password")
    if not stored or not password:
        return False
    key = hashlib.sha256((stored + "\0" + password).encode()).hexdigest()
    if key not in _checked_passwords:  # the slow hash runs once per distinct password
        if len(_checked_passwords) > 64:
            _checked_passwords.clear()
        _checked_passwords[key] = check_password_hash(stored, password)
    return _checked_passwords[key]


def identity() -> Identity:
    if "identity" in g:
        return g.identity
    g.identity = _identify()
    return g.identity


def _device(token: str, via: str) -> Identity | None:
    device = store().device_by_hash(token_hash(token))
    if device is None or device["revoked"] is not None:
        return None
    return Identity(table_id=device["table_id"], device_id=device["id"], via=via,
                    credential=token)


def _identify() -> Identity:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value:
        return _device(value.strip(), "header") or Identity()
    if scheme.lower() == "basic" and value:
        try:
            _user, _, password = base64.b64decode(value).decode().partition(":")
        except ValueError:
            return Identity()
        return Identity(admin=True, via="header") if check_admin_password(password) else Identity()
    if session.get("admin") and session.get("nonce"):
        return Identity(admin=True, via="session", credential=session["nonce"])
    token = request.cookies.get(DEVICE_COOKIE)
    if token:
        return _device(token, "cookie") or Identity()
    return Identity()


def csrf_token(who: Identity | None = None) -> str:
    """The CSRF header value for the cookie credential of this browser ('' when none)."""
    who = who or identity()
    if who.via not in ("cookie", "session"):
        return ""
    secret = current_app.config["SECRET_KEY"].encode()
    return hmac.new(secret, b"csrf:" + who.credential.encode(), hashlib.sha256).hexdigest()


def _check_csrf(who: Identity) -> None:
    if who.via in ("cookie", "session") and request.method not in ("GET", "HEAD", "OPTIONS"):
        sent = request.headers.get(CSRF_HEADER, "")
        if not sent or not hmac.compare_digest(sent, csrf_token(who)):
            raise CommandError("csrf", f"The {CSRF_HEADER} header is missing or wrong; "
                               "reload the page.", status=403)


def require_admin() -> Identity:
    who = identity()
    if not who.admin:
        raise CommandError("unauthorized", "Staff only: sign in on /admin or send the admin "
                           "password.", status=401 if who.anonymous else 403)
    _check_csrf(who)
    return who


def require_table_writer(table_id: int) -> Identity:
    """Staff, or a device paired to this table; CSRF checked for cookie credentials."""
    if not current_app.config.get("AUTH_REQUIRED", True):
        return Identity(admin=True)
    who = identity()
    if who.anonymous:
        raise CommandError("unauthorized", "Read-only: pair this tablet with the table "
                           "(or send a device token) to change anything.", status=401)
    if not who.admin and who.table_id != table_id:
        raise CommandError("forbidden", f"This device is paired with table {who.table_id}, "
                           f"not table {table_id}.", status=403)
    _check_csrf(who)
    return who


# -- pairing -------------------------------------------------------------------------------
def new_pairing() -> tuple[str, str]:
    """A fresh (code, secret): the code is shown on the tablet, the secret kept in a cookie."""
    for _ in range(20):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if store().pairing(code=code) is None:
            break
    secret = secrets.token_urlsafe(24)
    store().add_pairing(code, token_hash(secret))
    return code, secret


def pair(code: str, table_id: int, label: str = "tablet") -> int:
    """Staff binds a shown code to a table: creates the device and its token."""
    code = (code or "").strip().upper().replace(" ", "")
    pending = store().pairing(code=code)
    if pending is None or time.time() - pending["created"] > CODE_TTL:
        raise CommandError("unknown_code", f"No tablet is showing the code {code!r} "
                           "(codes last 10 minutes).", status=404)
    if pending["device_id"] is not None:
        raise CommandError("already_paired", "That code has already been used.", status=409)
    token = secrets.token_urlsafe(32)
    device_id = store().add_device(table_id, token_hash(token), label or "tablet")
    store().complete_pairing(code, device_id, token)
    return device_id


def issue_token(table_id: int, label: str) -> tuple[int, str]:
    """A device token made by staff for a script, camera or hub bridge (Bearer use)."""
    token = secrets.token_urlsafe(32)
    return store().add_device(table_id, token_hash(token), label), token
