# Minimal asyncio MQTT 3.1.1 client for the hub firmware. Runs unchanged on MicroPython
# (ESP32, unix port) and CPython (the simulator). QoS 0/1 publish, QoS 1 subscribe, last
# will, keepalive, reconnect forever. QoS 1 publishes stay queued (bounded) while the broker
# is away and are resent (DUP) after a reconnect, so no event is lost across a restart.
import asyncio
import struct

CONNECT, CONNACK, PUBLISH, PUBACK, SUBSCRIBE, SUBACK = 1, 2, 3, 4, 8, 9
PINGREQ, PINGRESP, DISCONNECT = 12, 13, 14


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | 0x80 if n else byte)
        if not n:
            return bytes(out)


def _str(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("!H", len(b)) + b


def _packet(kind, flags, body):
    return bytes([kind << 4 | flags]) + _varint(len(body)) + body


class MQTTClient:
    """`on_connect()` (async, after CONNACK: subscribe and publish the birth messages),
    `on_message(topic, payload)` (sync). `publish` never blocks: it queues."""

    def __init__(self, client_id, host, port, user=None, password=None, keepalive=10,
                 will=None, on_connect=None, on_message=None, max_queue=64, ticks=None):
        self.client_id = client_id
        self.host, self.port = host, port
        self.user, self.password = user, password
        self.keepalive = keepalive
        self.will = will  # (topic, payload, qos, retain)
        self.on_connect = on_connect
        self.on_message = on_message
        self.max_queue = max_queue
        self.connected = False
        self.frozen = False  # tests: stop talking without closing the socket
        self.dropped = 0
        self.last_tx = 0  # ticks of the last packet written (tests: liveness timing)
        self._queue = []  # packets waiting for a connection: [pid or 0, bytes]
        self._inflight = {}  # pid -> QoS 1 PUBLISH sent, not yet acked
        self._pid = 0
        self._writer = None
        self._wake = asyncio.Event()
        self._ticks = ticks
        self._running = True

    def _next_pid(self):
        self._pid = self._pid % 65535 + 1
        return self._pid

    def publish(self, topic, payload, qos=0, retain=False):
        if isinstance(payload, str):
            payload = payload.encode()
        pid = self._next_pid() if qos else 0
        body = _str(topic) + (struct.pack("!H", pid) if qos else b"") + payload
        pkt = _packet(PUBLISH, (qos << 1) | (1 if retain else 0), body)
        if len(self._queue) >= self.max_queue:
            # drop the oldest QoS 0 message first, else the oldest of all
            for i, item in enumerate(self._queue):
                if item[0] == 0:
                    self._queue.pop(i)
                    break
            else:
                self._queue.pop(0)
            self.dropped += 1
        self._queue.append([pid, pkt])
        self._wake.set()

    def subscribe(self, topics):
        body = struct.pack("!H", self._next_pid())
        for t in topics:
            body += _str(t) + b"\x01"
        self._queue.append([0, _packet(SUBSCRIBE, 2, body)])
        self._wake.set()

    def stop(self):
        self._running = False
        self._close()

    async def run(self):
        delay = 0.2
        while self._running:
            try:
                await self._session()
                delay = 0.2
            except Exception:  # noqa: BLE001, S110 - any network failure: reconnect
                pass
            self._close()
            if not self._running:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 3.0)
            while self.frozen:  # a frozen hub does not come back by itself
                await asyncio.sleep(0.05)

    def _close(self):
        self.connected = False
        w, self._writer = self._writer, None
        if w:
            try:
                w.close()
            except Exception:  # noqa: BLE001, S110 - closing a dead socket may fail
                pass

    def _connect_packet(self):
        flags = 0x02  # clean session
        payload = _str(self.client_id)
        if self.will:
            topic, msg, qos, retain = self.will
            flags |= 0x04 | (qos << 3) | (0x20 if retain else 0)
            payload += _str(topic) + _str(msg)
        if self.user:
            flags |= 0x80
            payload += _str(self.user)
            if self.password:
                flags |= 0x40
                payload += _str(self.password)
        head = _str("MQTT") + bytes([4, flags]) + struct.pack("!H", self.keepalive)
        return _packet(CONNECT, 0, head + payload)

    async def _read_packet(self, reader):
        first = (await reader.readexactly(1))[0]
        n, shift = 0, 0
        while True:
            b = (await reader.readexactly(1))[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        body = await reader.readexactly(n) if n else b""
        return first >> 4, first & 0x0F, body

    async def _session(self):
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port), 5)
        self._writer = writer
        writer.write(self._connect_packet())
        await writer.drain()
        kind, _, body = await asyncio.wait_for(self._read_packet(reader), 5)
        if kind != CONNACK or len(body) < 2 or body[1] != 0:
            raise OSError("connack refused")
        self.connected = True
        backlog, self._queue = self._queue, []
        resend = [[pid, bytes([pkt[0] | 0x08]) + pkt[1:]] for pid, pkt in self._inflight.items()]
        self._inflight = {}
        if self.on_connect:
            await self.on_connect()
        self._queue.extend(resend + backlog)  # birth messages first, then what waited
        self._wake.set()
        self._last_rx = self._now()
        pinger = asyncio.create_task(self._pinger(writer))
        sender = asyncio.create_task(self._sender(writer))
        try:
            while self.connected:
                kind, flags, body = await self._read_packet(reader)
                while self.frozen:
                    await asyncio.sleep(0.05)
                self._last_rx = self._now()
                if kind == PUBLISH:
                    qos = (flags >> 1) & 3
                    tlen = struct.unpack("!H", body[:2])[0]
                    topic = body[2:2 + tlen].decode()
                    pos = 2 + tlen
                    if qos:
                        pid = body[pos:pos + 2]
                        pos += 2
                        writer.write(_packet(PUBACK, 0, pid))
                        self._wake.set()  # the sender drains what write() could not send
                    if self.on_message:
                        try:
                            self.on_message(topic, body[pos:])
                        except Exception as exc:  # noqa: BLE001 - keep the link alive
                            print("on_message error:", exc)
                elif kind == PUBACK:
                    self._inflight.pop(struct.unpack("!H", body[:2])[0], None)
        finally:
            self.connected = False
            pinger.cancel()
            sender.cancel()

    async def _sender(self, writer):
        while self.connected:
            if self.frozen:
                await asyncio.sleep(0.05)
                continue
            while self._queue:
                pid, pkt = self._queue.pop(0)
                if pid:
                    self._inflight[pid] = pkt
                writer.write(pkt)
                self.last_tx = self._now()
            await writer.drain()
            self._wake.clear()
            if not self._queue:
                await self._wake.wait()

    async def _pinger(self, writer):
        while self.connected:
            await asyncio.sleep(self.keepalive / 2)
            if self.frozen:
                continue
            if self._now() - self._last_rx > self.keepalive * 1500:
                self._close()  # the broker went silent: reconnect
                return
            writer.write(_packet(PINGREQ, 0, b""))
            self.last_tx = self._now()
            self._wake.set()

    def _now(self):
        return self._ticks() if self._ticks else 0
