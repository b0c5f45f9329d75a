"""Server-Sent Events per table: event id = seq, ``Last-Event-ID`` resumes from the log.

The broker is a ``Tables`` listener: each committed event is formatted once and put on
every connected client's queue. A client first registers its queue, then sends what the
log holds after its last id, then the live queue (skipping seqs it already sent), so an
event committed in between is neither lost nor sent twice.
"""

from __future__ import annotations

import json
import queue
import threading

from flask import Blueprint, Response, current_app, request

from .service import Tables
from .session import CommandError
from .store import Event

bp = Blueprint("stream", __name__, url_prefix="/api")
CLOSE = object()
BATCH_MAX = 64  # events a client gets in one write when it has fallen behind


def sse(data: dict, kind: str, seq: int | None = None) -> str:
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def event_message(event: dict, state: dict | None) -> str:
    body = {"event": event}
    if state is not None:
        body["state"] = state
    return sse(body, event["kind"], event["seq"])


class Broker:
    """Fans committed events out to the SSE clients of each table."""

    def __init__(self, tables: Tables, queue_max: int = 2000):
        self.tables = tables
        self.queue_max = queue_max
        self._clients: dict[int, set[queue.Queue]] = {}
        self._lock = threading.Lock()
        tables.subscribe(self.publish)

    def open(self, table_id: int) -> queue.Queue:
        q: queue.Queue = queue.Queue(self.queue_max)
        with self._lock:
            self._clients.setdefault(table_id, set()).add(q)
        return q

    def close(self, table_id: int, q: queue.Queue) -> None:
        with self._lock:
            self._clients.get(table_id, set()).discard(q)

    def count(self, table_id: int | None = None) -> int:
        with self._lock:
            if table_id is not None:
                return len(self._clients.get(table_id, ()))
            return sum(len(c) for c in self._clients.values())

    def publish(self, table_id: int, event: dict, state: dict) -> None:
        with self._lock:
            clients = list(self._clients.get(table_id, ()))
        if not clients:
            return
        if event["seq"] is None:
            item = (None, sse({"event": event, "state": state}, event["kind"]))
        else:
            item = (event["seq"], event_message(event, state))
        for q in clients:
            try:
                q.put_nowait(item)
            except queue.Full:  # a stalled client: it refills the gap from the log
                pass

    def shutdown(self) -> None:
        with self._lock:
            clients = [q for group in self._clients.values() for q in group]
        for q in clients:
            try:
                q.put_nowait(CLOSE)
            except queue.Full:
                pass


def client_stream(broker: Broker, table_id: int, last_id: int, keepalive: float):
    tables = broker.tables
    q = broker.open(table_id)

    def backlog(after: int, upto: int | None = None):
        limit = None if upto is None else max(upto - after, 0)
        return tables.store.events(table_id, since=after, limit=limit)

    def generate():
        sent = last_id
        try:
            yield "retry: 1000\n\n"
            for event in backlog(sent):
                yield event_message(event.to_json(), None)
                sent = event.seq
            yield sse({"state": tables.view(table_id)}, "state")
            while True:
                try:
                    items = [q.get(timeout=keepalive)]
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                while len(items) < BATCH_MAX:  # what queued meanwhile goes in one write
                    try:
                        items.append(q.get_nowait())
                    except queue.Empty:
                        break
                chunk = []
                for item in items:
                    if item is CLOSE:
                        if chunk:
                            yield "".join(chunk)
                        return
                    seq, text = item
                    if seq is not None:
                        if seq <= sent:
                            continue
                        if seq > sent + 1:  # dropped from a full queue: refill from the log
                            missing: list[Event] = backlog(sent, seq - 1)
                            chunk.extend(event_message(e.to_json(), None) for e in missing)
                        sent = seq
                    chunk.append(text)
                if chunk:
                    yield "".join(chunk)
        finally:
            broker.close(table_id, q)

    return generate()


@bp.get("/tables/<int:table_id>/stream")
def stream(table_id: int):
    broker: Broker = current_app.extensions["companion.broker"]
    last_seq = broker.tables.store.last_seq(table_id)  # 404 for an unknown table
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id") or "0"
    if not raw.strip().isdigit():
        raise CommandError("invalid", "Last-Event-ID must be a seq number", status=400)
    last_id = int(raw)
    if last_id > last_seq:  # an id from another database (reset or restored): start over
        last_id = 0
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])
    response = Response(client_stream(broker, table_id, last_id, keepalive),
                        mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
