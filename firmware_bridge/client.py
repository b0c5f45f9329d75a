"""The one wrapper around paho-mqtt 2.x (callback API v2).

paho callbacks run on paho's network thread and an exception there silently kills it, so
every callback here only puts a tuple on `inbox` and never raises. One dispatcher thread
takes them off and calls the owner's handlers inside try/except (an error is logged and
counted, the link goes on). `connect_async` + `loop_start`, reconnect delay capped at a few
seconds, bounded outgoing queue, subscriptions renewed on every connect, MQTT 5 persistent
session (clean_start False + session expiry) so QoS 1 messages wait in the broker for us.
"""

from __future__ import annotations

import logging
import math
import queue
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import paho.mqtt.client as paho
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from .protocol import Outgoing

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        """`mqtt://[user:pass@]host[:1883]` or `mqtts://...` (TLS, default port 8883)."""
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts", "tcp", "ssl"):
            raise ValueError(f"MQTT URL must start with mqtt:// or mqtts://: {url!r}")
        tls = parts.scheme in ("mqtts", "ssl")
        return cls(parts.hostname or "127.0.0.1", parts.port or (8883 if tls else 1883), tls,
                   unquote(parts.username) if parts.username else None,
                   unquote(parts.password) if parts.password else None)


class MqttClient:
    """A paho client whose events reach `handlers` on one dispatcher thread.

    handlers: on_connect(session_present), on_disconnect(), on_message(topic, payload),
    on_tick() (about every `tick` seconds, for timers). Any of them may raise: it is logged.
    """

    def __init__(self, url: str, client_id: str, *, will: Outgoing | None = None,
                 subscriptions: list[tuple[str, int]] = (), keepalive: int = 10,
                 max_queued: int = 2000, session_expiry: int = 7 * 86400,
                 username: str | None = None, password: str | None = None,
                 on_connect: Callable[[bool], None] = lambda present: None,
                 on_disconnect: Callable[[], None] = lambda: None,
                 on_message: Callable[[str, bytes], None] = lambda t, p: None,
                 on_tick: Callable[[], None] = lambda: None, tick: float = 0.1,
                 stats: Counter[str] | None = None, mqtt5: bool = True) -> None:
        self.address = BrokerAddress.parse(url)
        self.subscriptions = list(subscriptions)
        self.keepalive = keepalive
        self.stats: Counter[str] = Counter() if stats is None else stats
        self.connected = threading.Event()
        self.ready = threading.Event()  # connected and every subscription acknowledged
        self._pending_subs: set[int] = set()
        self.inbox: queue.Queue = queue.Queue(maxsize=100_000)
        self._handlers = (on_connect, on_disconnect, on_message, on_tick)
        self._tick = tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.mqtt5 = mqtt5  # MQTT 3.1.1 for brokers without 5 (amqtt): no message expiry
        c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id,
                        protocol=paho.MQTTv5 if mqtt5 else paho.MQTTv311,
                        clean_session=None if mqtt5 else False)
        c.reconnect_delay_set(min_delay=1, max_delay=3)
        c.max_queued_messages_set(max_queued)
        c.max_inflight_messages_set(100)
        user = username or self.address.username
        if user:
            c.username_pw_set(user, password or self.address.password)
        if self.address.tls:
            c.tls_set()
        if will:
            c.will_set(will.topic, will.payload, will.qos, will.retain)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_subscribe = self._on_subscribe
        c.on_socket_open = self._on_socket_open
        self._session_expiry = session_expiry
        self.paho = c

    # -- paho's network thread: enqueue only, never raise
    def _put(self, item: tuple) -> None:
        try:
            self.inbox.put_nowait(item)
        except Exception:  # noqa: BLE001 - queue full: count it, never raise into paho
            self.stats["inbox_dropped"] += 1

    def _on_socket_open(self, client, userdata, sock) -> None:
        try:  # small packets both ways: without this Nagle adds tens of ms per command
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (OSError, AttributeError):
            pass

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        try:
            if not reason_code.is_failure:
                self.connected.set()
            self._put(("connect", bool(getattr(flags, "session_present", False)),
                       str(reason_code)))
        except Exception:  # noqa: BLE001 - never into paho's thread
            self.stats["callback_errors"] += 1

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.connected.clear()
        self.ready.clear()
        self._put(("disconnect",))

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        self._put(("suback", mid))

    def _on_message(self, client, userdata, message) -> None:
        try:
            self._put(("message", message.topic, bytes(message.payload)))
        except Exception:  # noqa: BLE001 - e.g. a topic that is not UTF-8
            self.stats["callback_errors"] += 1

    # -- lifecycle
    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._dispatch, name="mqtt-dispatch",
                                        daemon=True)
        self._thread.start()
        if self.mqtt5:
            props = Properties(PacketTypes.CONNECT)
            props.SessionExpiryInterval = self._session_expiry
            self.paho.connect_async(self.address.host, self.address.port, self.keepalive,
                                    clean_start=False, properties=props)
        else:
            self.paho.connect_async(self.address.host, self.address.port, self.keepalive)
        self.paho.loop_start()

    def stop(self, final: Outgoing | None = None) -> None:
        """Publish `final` (e.g. our `offline` status), disconnect, stop both threads."""
        if final and self.connected.is_set():
            info = self.paho.publish(final.topic, final.payload, final.qos, final.retain)
            try:
                info.wait_for_publish(2)
            except (RuntimeError, ValueError):
                pass
        self.paho.disconnect()
        self.paho.loop_stop()
        self._stop.set()
        if self._thread and self._thread is not threading.current_thread():
            self._thread.join(5)

    def wait_connected(self, timeout: float = 10.0) -> bool:
        """True once connected with all subscriptions acknowledged by the broker."""
        return self.ready.wait(timeout)

    def publish(self, out: Outgoing, expiry_s: float | None = None) -> bool:
        """Queue a publish (thread-safe). False when the bounded queue is full."""
        props = None
        if expiry_s and self.mqtt5:
            props = Properties(PacketTypes.PUBLISH)
            props.MessageExpiryInterval = max(1, math.ceil(expiry_s))
        info = self.paho.publish(out.topic, out.payload, out.qos, out.retain, properties=props)
        if info.rc == paho.MQTT_ERR_QUEUE_SIZE:
            self.stats["publish_dropped"] += 1
            return False
        self.stats["published"] += 1
        return True

    # -- dispatcher thread
    def _dispatch(self) -> None:
        on_connect, on_disconnect, on_message, on_tick = self._handlers
        next_tick = time.monotonic()
        while not self._stop.is_set():
            try:
                item = self.inbox.get(timeout=max(0.0, next_tick - time.monotonic()))
            except queue.Empty:
                item = None
            try:
                if item is None:
                    pass
                elif item[0] == "message":
                    on_message(item[1], item[2])
                elif item[0] == "connect":
                    if self.connected.is_set():
                        self._pending_subs = set()
                        for topic, qos in self.subscriptions:
                            rc, mid = self.paho.subscribe(topic, qos)
                            if rc == paho.MQTT_ERR_SUCCESS:
                                self._pending_subs.add(mid)
                        if not self._pending_subs:
                            self.ready.set()
                        on_connect(item[1])
                    else:
                        log.warning("MQTT connect refused: %s", item[2])
                elif item[0] == "suback":
                    self._pending_subs.discard(item[1])
                    if not self._pending_subs and self.connected.is_set():
                        self.ready.set()
                elif item[0] == "disconnect":
                    on_disconnect()
                if time.monotonic() >= next_tick:
                    next_tick = time.monotonic() + self._tick
                    on_tick()
            except Exception:
                self.stats["handler_errors"] += 1
                log.exception("error handling %s", item[:2] if item else "tick")
