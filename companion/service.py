"""Tables: the store plus a cache of replayed sessions, one lock per table, and listeners.

``Tables.execute`` is the one path for every state change: idempotency key, expected_seq,
check against the rules, append + commit, fold into the cached session, tell listeners
(SSE, and later the hub bridge) with ``(table_id, event, public_state)``, answer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .session import CommandError, TableSession
from .store import SQLiteStore, StaleSequence, UnknownTable

log = logging.getLogger(__name__)
Listener = Callable[[int, dict, dict], None]


def fingerprint(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


class Tables:
    """Up-to-date ``TableSession`` objects over a store (LRU cache of ``cache_size``)."""

    def __init__(self, store: SQLiteStore, cache_size: int = 256):
        self.store = store
        self.cache_size = cache_size
        self._sessions: OrderedDict[int, TableSession] = OrderedDict()
        self._locks: dict[int, threading.RLock] = {}
        self._guard = threading.Lock()
        self._listeners: list[Listener] = []

    # -- listeners: in-process hooks called after each committed event ------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(table_id, event, state)`` after every committed event (and with
        ``event["kind"] == "refusal"``, ``seq`` None, for refusals). Returns unsubscribe."""
        with self._guard:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._guard:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return unsubscribe

    def _notify(self, table_id: int, event: dict, state: dict) -> None:
        for listener in list(self._listeners):
            try:
                listener(table_id, event, state)
            except Exception:  # a listener never breaks an accepted action
                log.exception("listener %r failed on table %s", listener, table_id)

    # -- sessions -----------------------------------------------------------------------
    def lock(self, table_id: int) -> threading.RLock:
        with self._guard:
            lock = self._locks.get(table_id)
            if lock is None:
                lock = self._locks[table_id] = threading.RLock()
            return lock

    def session(self, table_id: int) -> TableSession:
        """The table's session, caught up with the log (raises UnknownTable)."""
        with self.lock(table_id):
            info = self.store.table(table_id)
            with self._guard:
                session = self._sessions.get(table_id)
            if session is None:
                session = TableSession(table_id, info["name"])
            if session.seq < info["seq"]:
                for event in self.store.events(table_id, since=session.seq):
                    session.apply(event.to_json(), checked=True)
            with self._guard:
                self._sessions[table_id] = session
                self._sessions.move_to_end(table_id)
                while len(self._sessions) > self.cache_size:
                    self._sessions.popitem(last=False)
            return session

    def evict(self, table_id: int) -> None:
        with self._guard:
            self._sessions.pop(table_id, None)

    def view(self, table_id: int) -> dict:
        with self.lock(table_id):
            return self.session(table_id).view()

    def create_table(self, name: str) -> dict:
        table_id = self.store.create_table(name)
        return self.view(table_id)

    # -- the one write path -------------------------------------------------------------
    def execute(self, table_id: int, command: Callable[[TableSession], tuple[str, dict]], *,
                source: str = "tablet", key: str | None = None, body: Any = None,
                expected_seq: int | None = None, move_text: Any = None) -> tuple[dict, bool]:
        """Check and commit one action. Returns (answer, replayed) where ``replayed`` is
        True when ``key`` was seen before and the first answer is given again."""
        print_ = fingerprint(body)
        with self.lock(table_id):
            session = self.session(table_id)
            if key is not None:
                first = self.store.remembered(table_id, key)
                if first is not None:
                    if first.fingerprint != print_:
                        raise CommandError("idempotency_key_reused",
                                           "This idempotency key was used for a different "
                                           "request.")
                    return first.response, True
            if expected_seq is not None and expected_seq != session.seq:
                raise CommandError("stale", f"expected_seq {expected_seq} is stale: the table "
                                   f"is at seq {session.seq}.", status=409, seq=session.seq)
            try:
                kind, payload = command(session)
            except CommandError as error:
                if error.status == 422:
                    refusal = session.refuse(error, move_text, source)
                    self._notify(table_id, {"kind": "refusal", "seq": None, "table": table_id,
                                            "payload": refusal, "source": source},
                                 session.view())
                raise
            try:
                event, answer = self.store.append(
                    table_id, kind, payload, source, expected_seq=session.seq, key=key,
                    fingerprint=print_,
                    respond=lambda ev: {"seq": ev.seq, "event": ev.to_json()})
            except StaleSequence:  # another process wrote: catch up, ask to retry
                self.evict(table_id)
                raise CommandError("stale", "The table changed meanwhile; try again.",
                                   status=409) from None
            try:
                session.apply(event.to_json(), checked=False)
                session.last_refusal = None
                session.version += 1
            except Exception:
                log.exception("event %s of table %s did not fold; rebuilding", event.seq,
                              table_id)
                self.evict(table_id)
                session = self.session(table_id)
            self._notify(table_id, event.to_json(), session.view())
            return answer, False

    def set_status(self, table_id: int, part: str, status: dict | None) -> None:
        """Hub/camera status shown on the tablet (set by the bridge or camera worker)."""
        with self.lock(table_id):
            session = self.session(table_id)
            if status is None:
                session.status.pop(part, None)
            else:
                session.status[part] = status
            session.version += 1
            self._notify(table_id, {"kind": "status", "seq": None, "table": table_id,
                                    "payload": {part: status}, "source": "system"},
                         session.view())


__all__ = ["CommandError", "Tables", "UnknownTable"]
