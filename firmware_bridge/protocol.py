"""The hub <-> companion MQTT contract (docs/protocol.md), implemented once.

Pure: no paho, no sockets. Typed message dataclasses; one table (`SPECS`) says, per message
kind, its topic, QoS, retain flag and JSON fields; `encode` and `decode` are written once
against that table. `decode` raises `ProtocolError` with a short reason code; `Decoder` wraps
it for adapters (counts and logs rejections, never raises).
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import fields
from typing import Any, NamedTuple

from .messages import (
    SLOTS,
    VERSION,
    Ack,
    ButtonEvt,
    CompanionStatus,
    HubLog,
    HubStatus,
    IdentifyCmd,
    Info,
    LedsCmd,
    MarkerEvt,
    RebirthCmd,
    Scene,
    SceneCmd,
    State,
)

__all__ = ["BUTTONS", "MAX_PAYLOAD", "ROOT", "SLOTS", "SPECS", "VERSION", "Ack", "ButtonEvt",
           "CompanionStatus", "Decoded", "Decoder", "HubLog", "HubStatus", "IdentifyCmd",
           "Info", "LedsCmd", "MarkerEvt", "Outgoing", "ProtocolError", "RebirthCmd", "Scene",
           "SceneCmd", "State", "check_id", "decode", "encode", "is_id"]

ROOT = "dominoes/v1/"
MAX_PAYLOAD = 1024
BUTTONS = ("done", "draw", "undo", "menu")
LOG_LEVELS = ("debug", "info", "warning", "error")
_ID = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\Z")
_CODE = re.compile(r"[A-Za-z0-9_.:-]{1,32}\Z")
_COLOUR = re.compile(r"[0-9a-f]{6}\Z")
_MAX_INT = 2**53
log = logging.getLogger(__name__)


class ProtocolError(ValueError):
    """A payload or topic that breaks the contract; `reason` is a short code for counters."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def is_id(text: object) -> bool:
    """True for a valid hub/instance/command id: lowercase [a-z0-9-], no edge '-'."""
    return isinstance(text, str) and _ID.match(text) is not None


def check_id(text: str, what: str = "id") -> str:
    """Return `text` if it is a valid id, else raise ValueError naming `what`."""
    if not is_id(text):
        raise ValueError(f"{what} must be lowercase [a-z0-9-] without edge '-': {text!r}")
    return text


# ------------------------------------------------------------------------ field kinds
def _uint(x: Any) -> int:
    if type(x) is not int or not 0 <= x < _MAX_INT:
        raise ValueError
    return x


def _flag(x: Any) -> bool:
    if x in (0, 1) and type(x) in (int, bool):
        return bool(x)
    raise ValueError


def _ident(x: Any) -> str:
    if not is_id(x):
        raise ValueError
    return x


def _slot(x: Any) -> str:
    if x not in SLOTS or type(x) is not str:
        raise ValueError
    return x


def _slots(x: Any) -> tuple[str, ...]:
    if type(x) is not list or len(set(map(_slot, x))) != len(x):
        raise ValueError
    return tuple(x)


def _code(x: Any) -> str:
    if type(x) is not str or not _CODE.match(x):
        raise ValueError
    return x


def _text(limit: int) -> Callable[[Any], str]:
    def check(x: Any) -> str:
        if type(x) is not str or len(x) > limit:
            raise ValueError
        return x
    return check


def _list(item: Callable[[Any], Any], limit: int) -> Callable[[Any], tuple]:
    def check(x: Any) -> tuple:
        if type(x) is not list or len(x) > limit:
            raise ValueError
        return tuple(item(i) for i in x)
    return check


def _button(x: Any) -> str:
    if x not in BUTTONS or type(x) is not str:
        raise ValueError
    return x


def _colour(x: Any) -> str:
    if type(x) is not str or not _COLOUR.match(x):
        raise ValueError
    return x


def _optional(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda x: None if x is None else check(x)


class Field(NamedTuple):
    check: Callable[[Any], Any]  # JSON value -> Python value, ValueError when invalid
    required: bool = False
    flag: bool = False  # a bool written as 0/1


# one spec per kind: topic suffix (after hub/{hub}/ or companion/{id}/), qos, retain, fields
class Spec(NamedTuple):
    kind: str
    cls: type
    suffix: str
    qos: int
    retain: bool
    fields: dict[str, Field] | None  # None: a plain-text payload




def _version(x: Any) -> int:
    if type(x) is not int or not 1 <= x < 1000:
        raise ValueError
    return x


_V = Field(_version, True)  # schema minor; every JSON payload carries it
SPECS: tuple[Spec, ...] = (
    Spec("status", HubStatus, "status", 1, True, None),
    Spec("info", Info, "info", 1, True, {
        "v": _V, "hub": Field(_ident, True), "fw": Field(_text(32), True),
        "hw": Field(_text(32), True), "boot": Field(_uint, True),
        "slots": Field(_slots), "leds": Field(_uint),
        "sense": Field(_list(_text(16), 8)), "ka": Field(_optional(_uint))}),
    Spec("state", State, "state", 1, True, {
        "v": _V, "boot": Field(_uint, True), "seq": Field(_uint, True), "mk": Field(_slots),
        "btn": Field(_uint), "scene": Field(_optional(_ident)), "t": Field(_optional(_uint))}),
    Spec("marker", MarkerEvt, "evt/marker", 1, False, {
        "v": _V, "boot": Field(_uint, True), "seq": Field(_uint, True),
        "slot": Field(_slot, True), "on": Field(_flag, True, True), "t": Field(_uint)}),
    Spec("button", ButtonEvt, "evt/button", 1, False, {
        "v": _V, "boot": Field(_uint, True), "seq": Field(_uint, True),
        "btn": Field(_button, True), "t": Field(_uint)}),
    Spec("ack", Ack, "ack", 1, False, {
        "v": _V, "id": Field(_ident, True), "ok": Field(_flag, True, True),
        "seq": Field(_uint, True), "err": Field(_optional(_code)),
        "boot": Field(_optional(_uint)), "t": Field(_optional(_uint))}),
    Spec("log", HubLog, "log", 0, False, None),
    Spec("scene", SceneCmd, "cmd/scene", 1, False, {
        "v": _V, "id": Field(_ident, True), "exp": Field(_uint), "turn": Field(_optional(_slot)),
        "open": Field(_slots), "dbl": Field(_optional(_slot)), "alert": Field(_optional(_code)),
        "over": Field(_flag, False, True), "fx": Field(_optional(_code)),
        "t": Field(_optional(_uint))}),
    Spec("identify", IdentifyCmd, "cmd/identify", 1, False, {
        "v": _V, "id": Field(_ident, True), "ms": Field(_uint), "exp": Field(_uint),
        "t": Field(_optional(_uint))}),
    Spec("rebirth", RebirthCmd, "cmd/rebirth", 1, False, {"v": _V, "id": Field(_ident, True)}),
    Spec("leds", LedsCmd, "cmd/leds", 1, False, {
        "v": _V, "id": Field(_ident, True), "rgb": Field(_list(_colour, 64)),
        "exp": Field(_uint), "t": Field(_optional(_uint))}),
    Spec("companion", CompanionStatus, "status", 1, True, None),
)
BY_KIND = {s.kind: s for s in SPECS}
BY_CLASS = {s.cls: s for s in SPECS}
_HUB_SUFFIX = {s.suffix: s for s in SPECS if s.kind not in ("companion", "log")}


# ---------------------------------------------------------------------------- topics
def hub_topic(hub: str, suffix: str) -> str:
    return f"{ROOT}hub/{check_id(hub, 'hub')}/{suffix}"


def companion_topic(instance: str) -> str:
    return f"{ROOT}companion/{check_id(instance, 'instance')}/status"


class Decoded(NamedTuple):
    kind: str  # a Spec.kind
    owner: str  # hub id, or companion instance for kind "companion"
    message: Any
    extra: str = ""  # the log level for kind "log"


class Outgoing(NamedTuple):
    topic: str
    payload: bytes
    qos: int
    retain: bool


def parse_topic(topic: str) -> tuple[Spec, str, str]:
    """Topic -> (spec, owner id, extra); ProtocolError('topic') when it is not ours."""
    if not topic.startswith(ROOT):
        raise ProtocolError("topic", topic[:80])
    parts = topic[len(ROOT):].split("/")
    if len(parts) >= 3 and is_id(parts[1]):
        if parts[0] == "companion" and len(parts) == 3 and parts[2] == "status":
            return BY_KIND["companion"], parts[1], ""
        if parts[0] == "hub":
            rest = "/".join(parts[2:])
            if rest in _HUB_SUFFIX:
                return _HUB_SUFFIX[rest], parts[1], ""
            if len(parts) == 4 and parts[2] == "log" and parts[3] in LOG_LEVELS:
                return BY_KIND["log"], parts[1], parts[3]
    raise ProtocolError("topic", topic[:80])


# --------------------------------------------------------------------- encode / decode
def encode(owner: str, message: Any, extra: str = "info") -> Outgoing:
    """A message object -> topic, compact JSON (or text) payload, QoS, retain."""
    spec = BY_CLASS[type(message)]
    if spec.kind == "companion":
        topic = companion_topic(owner)
    elif spec.kind == "log":
        topic = hub_topic(owner, f"log/{extra}")
    else:
        topic = hub_topic(owner, spec.suffix)
    if spec.fields is None:
        text = message.text if spec.kind == "log" else ("online" if message.online else "offline")
        return Outgoing(topic, text.encode()[:MAX_PAYLOAD], spec.qos, spec.retain)
    body: dict[str, Any] = {}
    for name, fld in spec.fields.items():
        value = getattr(message, name)
        if value is None or (fld.flag and value is False and not fld.required):
            continue
        value = int(value) if fld.flag else (list(value) if isinstance(value, tuple) else value)
        try:
            fld.check(value)
        except (ValueError, TypeError):
            raise ValueError(f"{spec.kind}.{name} invalid: {value!r}") from None
        body[name] = value
    payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"{spec.kind} payload {len(payload)} bytes > {MAX_PAYLOAD}")
    return Outgoing(topic, payload, spec.qos, spec.retain)


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def decode(topic: str, payload: bytes) -> Decoded:
    """Topic + payload -> Decoded; ProtocolError(reason) on anything off-contract."""
    spec, owner, extra = parse_topic(topic)
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError("oversize", f"{len(payload)} bytes")
    try:
        text = bytes(payload).decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("utf8") from None
    if spec.fields is None:
        if spec.kind == "log":
            return Decoded("log", owner, HubLog(text), extra)
        if text not in ("online", "offline"):
            raise ProtocolError("invalid:status", text[:40])
        return Decoded(spec.kind, owner, spec.cls(text == "online"))
    try:
        body = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ProtocolError("json") from None
    if type(body) is not dict:
        raise ProtocolError("shape", "not an object")
    values: dict[str, Any] = {}
    for name, fld in spec.fields.items():
        if name not in body:
            if fld.required:
                raise ProtocolError(f"missing:{name}")
            continue
        if body[name] is None and not fld.required:
            try:
                values[name] = fld.check(None)
            except ValueError:
                raise ProtocolError(f"invalid:{name}") from None
            continue
        try:
            values[name] = fld.check(body[name])
        except (ValueError, TypeError):
            raise ProtocolError(f"invalid:{name}", repr(body[name])[:40]) from None
    if spec.kind == "info" and values["hub"] != owner:
        raise ProtocolError("invalid:hub", "info.hub differs from topic")
    return Decoded(spec.kind, owner, spec.cls(**values))


class Decoder:
    """`decode` for adapters: returns None instead of raising, counts and logs rejections."""

    def __init__(self, logger: logging.Logger = log) -> None:
        self.rejected: Counter[str] = Counter()
        self.accepted = 0
        self._log = logger

    def __call__(self, topic: str, payload: bytes) -> Decoded | None:
        try:
            decoded = decode(topic, payload)
        except ProtocolError as exc:
            self._count(exc.reason, topic, payload)
            return None
        except Exception:  # noqa: BLE001 - a codec bug must not reach the network thread
            self._count("internal", topic, payload)
            return None
        self.accepted += 1
        return decoded

    def _count(self, reason: str, topic: str, payload: bytes) -> None:
        self.rejected[reason.split(":")[0]] += 1
        self._log.warning("rejected %s on %s: %r", reason, topic[:120], bytes(payload[:80]))

    @property
    def rejected_total(self) -> int:
        return sum(self.rejected.values())


def field_names(cls: type) -> tuple[str, ...]:
    """Dataclass field names of a message class (docs and tests)."""
    return tuple(f.name for f in fields(cls))
