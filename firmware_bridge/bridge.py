"""HubLink: the companion's side of the hub protocol (the API the scorekeeper calls).

    from firmware_bridge import HubLink, scene_from_table_view
    link = HubLink(url=None, instance="venue-1", on_event=handle)  # None: $MQTT_URL or a
    link.start()                                   # local broker; connects in the background
    link.send_scene("h-0001", scene_from_table_view(table.view()))  # on every table change
    link.identify("h-0001"); link.snapshot("h-0001"); link.online_hubs()
    link.stop()

`on_event(HubEvent)` is called on the link's own thread for kinds "online", "offline",
"marker" (`MarkerEvt`: slot, on), "button" (`ButtonEvt`: btn; see `scenes.button_action`),
"state" (`State`: sensed markers in `mk`; compare with `scenes.marker_mismatch`), "ack" and
"info". An exception in it is logged and counted (`link.stats["handler_errors"]`), never
fatal. Without `on_event`, events go to `link.events` (a queue.Queue). `send_scene` is
thread-safe, returns the command id, remembers the scene as the hub's desired scene and
delivers it: resent with the same id every `ack_timeout` s until acked, paused while the hub
is offline, resent on its next `online`, on a new `boot` and on a `seq` gap (both also send
`cmd/rebirth`). Pure builders: `scenes.scene_from_summary`, `scenes.scene_from_table_view`.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import protocol as p
from .client import MqttClient

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HubEvent:
    kind: str  # online | offline | marker | button | state | ack | info
    hub: str
    message: Any = None  # the decoded protocol message (MarkerEvt, ButtonEvt, State, Ack...)
    received: float = 0.0  # wall time (time.time()) of receipt: the hub has no clock


@dataclass
class HubView:
    """What the link knows about one hub."""

    hub: str
    online: bool = False
    boot: int | None = None
    seq: int | None = None
    info: p.Info | None = None
    state: p.State | None = None
    desired: p.SceneCmd | None = None  # the scene it should show
    acked: bool = False
    sent_at: float = 0.0
    clock_offset: float | None = None  # min(receipt monotonic ms - hub t) for this boot
    last_seen: float = 0.0  # monotonic s of the last message from the hub
    silent: bool = False  # declared offline by the watchdog (no message for 1.5 x ka)
    seen: deque = field(default_factory=lambda: deque(maxlen=64))  # recent (boot, seq)


class HubLink:
    def __init__(self, url: str | None = None, instance: str = "companion", *,
                 on_event: Callable[[HubEvent], None] | None = None,
                 username: str | None = None, password: str | None = None,
                 ack_timeout: float = 2.0, scene_exp_ms: int = 5000, keepalive: int = 10,
                 id_prefix: str | None = None, broker_dir: str | None = None,
                 mqtt5: bool = True) -> None:
        """url: the broker; None = $MQTT_URL, else a local broker started by `start()`
        (mosquitto on loopback, or embedded amqtt) and stopped by `stop()`. mqtt5=False for
        a 3.1.1-only broker (no per-message expiry then; hubs still check `exp`)."""
        self.instance = p.check_id(instance, "instance")
        self.url = url or os.environ.get("MQTT_URL") or None
        self.events: queue.Queue[HubEvent] = queue.Queue()
        self.ack_timeout = ack_timeout
        self.scene_exp_ms = scene_exp_ms
        self.hubs: dict[str, HubView] = {}
        self.decoder = p.Decoder(log)
        self.stats: Counter[str] = Counter()
        self.broker = None
        self.on_event: Callable[[HubEvent], None] = on_event or self.events.put
        self._lock = threading.RLock()
        self._outbox: deque[HubEvent] = deque()  # events to deliver outside the lock
        # unique across restarts: a hub acks a remembered id without applying it again
        prefix = id_prefix or f"c{int(time.time()):x}{secrets.token_hex(2)}"
        self._ids = (f"{prefix}-{n}" for n in itertools.count(1))
        self._client_args: dict[str, Any] = {
            "client_id": f"companion-{instance}", "keepalive": keepalive,
            "will": p.encode(instance, p.CompanionStatus(False)),
            "subscriptions": [(f"{p.ROOT}hub/+/#", 1)], "username": username,
            "password": password, "on_connect": self._connected, "on_message": self._message,
            "on_tick": self._tick, "on_disconnect": self._disconnected, "stats": self.stats}
        self._broker_dir = broker_dir
        self.client: MqttClient | None = None
        if self.url:
            self.client = MqttClient(self.url, mqtt5=mqtt5, **self._client_args)

    # ------------------------------------------------------------------ public API
    def start(self) -> HubLink:
        if self.client is None:
            from .broker import start_local_broker
            self.broker = start_local_broker(self._broker_dir)
            self.url = self.broker.url
            from .broker import EmbeddedBroker
            mqtt5 = not isinstance(self.broker, EmbeddedBroker)  # amqtt speaks 3.1.1 only
            self.client = MqttClient(self.url, mqtt5=mqtt5, **self._client_args)
        self.client.start()
        return self

    def stop(self) -> None:
        if self.client:
            self.client.stop(final=p.encode(self.instance, p.CompanionStatus(False)))
        if self.broker:
            self.broker.close()
            self.broker = None

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self.client.wait_connected(timeout)

    def send_scene(self, hub: str, scene: p.Scene) -> str:
        """Make `scene` the hub's desired scene and deliver it; returns the command id.
        The same scene again (without an alert) keeps its id and sends nothing new."""
        p.check_id(hub, "hub")
        with self._lock:
            view = self._view(hub)
            if view.desired and view.desired.scene == scene and not scene.alert:
                return view.desired.id  # unchanged (an alert always flashes again)
            cmd_id = next(self._ids)
            view.desired = p.SceneCmd.of(scene, id=cmd_id, exp=self.scene_exp_ms)
            view.acked = False
            if view.online:
                self._send_desired(view)
        return cmd_id

    def identify(self, hub: str, ms: int = 3000) -> str:
        """Blink the hub for `ms` (pairing, "find my hub"); fire and forget."""
        cmd_id = next(self._ids)
        self.client.publish(p.encode(hub, p.IdentifyCmd(id=cmd_id, ms=ms)), 5)
        return cmd_id

    def rebirth(self, hub: str) -> None:
        self.stats["rebirths"] += 1
        self.client.publish(p.encode(hub, p.RebirthCmd(id=next(self._ids))), 5)

    def snapshot(self, hub: str) -> dict[str, Any]:
        """Plain view of one hub for the tablet: online, boot, sensed markers, held-button
        mask, the desired scene id and whether the hub acked it."""
        with self._lock:
            v = self.hubs.get(hub) or HubView(hub)
            return {"hub": hub, "online": v.online, "boot": v.boot,
                    "markers": list(v.state.mk) if v.state else [],
                    "buttons": v.state.btn if v.state else 0,
                    "scene": v.desired.id if v.desired else None, "scene_acked": v.acked,
                    "fw": v.info.fw if v.info else None}

    def online_hubs(self) -> list[str]:
        with self._lock:
            return sorted(h for h, v in self.hubs.items() if v.online)

    # ------------------------------------------------------------- dispatcher thread
    def _view(self, hub: str) -> HubView:
        if hub not in self.hubs:
            self.hubs[hub] = HubView(hub)
        return self.hubs[hub]

    def _emit(self, kind: str, hub: str, message: Any = None) -> None:
        """Queue an event; `_flush` delivers it once the lock is released (so a handler may
        call back into the link, or take its own locks, without a deadlock)."""
        self._outbox.append(HubEvent(kind, hub, message, time.time()))

    def _flush(self) -> None:
        while self._outbox:
            event = self._outbox.popleft()
            try:
                self.on_event(event)
            except Exception:  # the owner's bug must not stop the link
                self.stats["handler_errors"] += 1
                log.exception("on_event failed for %s %s", event.kind, event.hub)

    def _disconnected(self) -> None:
        self.stats["disconnects"] += 1

    def _connected(self, session_present: bool) -> None:
        self.client.publish(p.encode(self.instance, p.CompanionStatus(True)))
        with self._lock:
            for view in self.hubs.values():
                view.last_seen = time.monotonic()  # we were away, not the hubs
                if view.online and view.desired:
                    self._send_desired(view)

    def _send_desired(self, view: HubView) -> None:
        cmd = view.desired
        if view.clock_offset is not None:  # hub clock now, so the hub can apply `exp`
            hub_now = int(time.monotonic() * 1000 - view.clock_offset)
            cmd = p.SceneCmd(**{**cmd.__dict__, "t": max(0, hub_now)})
        view.sent_at = time.monotonic()
        self.client.publish(p.encode(view.hub, cmd), cmd.exp / 1000)
        self.stats["scenes_sent"] += 1

    def _tick(self) -> None:
        try:
            self._check_hubs()
        finally:
            self._flush()

    def _check_hubs(self) -> None:
        now = time.monotonic()
        with self._lock:
            for view in self.hubs.values():
                ka = view.info.ka if view.info else None
                if (view.online and ka and self.client.connected.is_set()
                        and now - view.last_seen > 1.5 * ka):
                    view.silent = True  # frozen: the broker's will may come much later
                    self.stats["silent"] += 1
                    self._status(view, False)
                if (view.online and view.desired and not view.acked
                        and now - view.sent_at >= self.ack_timeout):
                    self.stats["resent"] += 1
                    self._send_desired(view)

    def _message(self, topic: str, payload: bytes) -> None:
        try:
            self._handle(topic, payload)
        finally:
            self._flush()

    def _handle(self, topic: str, payload: bytes) -> None:
        decoded = self.decoder(topic, payload)
        if decoded is None:
            return
        if decoded.kind in ("scene", "identify", "rebirth", "leds", "companion", "log"):
            return  # our own commands echoed, other companions, hub logs
        hub, msg = decoded.owner, decoded.message
        with self._lock:
            view = self._view(hub)
            if decoded.kind == "status":
                view.silent = False
                self._status(view, msg.online)
                view.last_seen = time.monotonic()
                return
            view.last_seen = time.monotonic()
            if decoded.kind == "info":
                view.info = msg
                self._boot(view, msg.boot, authoritative=True)
                self._emit("info", hub, msg)
                return
            if not self._sequence(view, msg):
                return
            if view.silent:  # it speaks again: online after all
                view.silent = False
                self._status(view, True)
            if decoded.kind == "state":
                view.state = msg
            elif decoded.kind == "ack":
                self.stats["acks"] += 1
                if view.desired and msg.id == view.desired.id:
                    if msg.ok:
                        view.acked = True
                    elif msg.err != "expired":  # expired: the resend timer tries again
                        view.acked = True
                        log.warning("hub %s refused scene %s: %s", hub, msg.id, msg.err)
            self._emit(decoded.kind, hub, msg)

    def _status(self, view: HubView, online: bool) -> None:
        if online == view.online:
            return
        view.online = online
        self._emit("online" if online else "offline", view.hub)
        if online and view.desired:
            view.acked = False
            self._send_desired(view)

    def _boot(self, view: HubView, boot: int, authoritative: bool = False) -> bool:
        """Track the hub's boot; a new one resets seq and clock; True if it changed.
        `info` is authoritative: a lower boot there means the hub's counter was reset."""
        if view.boot == boot:
            return False
        new_boot = view.boot is not None and (boot > view.boot or authoritative)
        if view.boot is None or new_boot:
            view.boot, view.seq, view.clock_offset = boot, None, None
        if new_boot and view.desired:
            view.acked = False
            if view.online:
                self._send_desired(view)
        return new_boot

    def _sequence(self, view: HubView, msg: Any) -> bool:
        """Dedupe by (boot, seq); on a gap in the current boot send rebirth + the scene.
        Returns False for a duplicate (already delivered)."""
        key = (msg.boot, msg.seq)
        if msg.boot is not None and key in view.seen:
            self.stats["duplicates"] += 1
            return False
        if msg.boot is not None:
            view.seen.append(key)
            if view.boot is not None and msg.boot < view.boot:
                return True  # a late message of an earlier boot: deliver, do not track
            self._boot(view, msg.boot)
            if view.seq is not None and msg.seq > view.seq + 1:
                self.stats["seq_gaps"] += 1
                log.info("hub %s seq gap %s -> %s: rebirth", view.hub, view.seq, msg.seq)
                self.rebirth(view.hub)
                if view.desired and view.online:
                    self._send_desired(view)
            view.seq = msg.seq if view.seq is None else max(view.seq, msg.seq)
        t = getattr(msg, "t", None)
        if t:
            offset = time.monotonic() * 1000 - t
            if view.clock_offset is None or offset < view.clock_offset:
                view.clock_offset = offset
        return True
