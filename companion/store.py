"""The event store: an append-only log per table in SQLite (WAL), chosen by URL.

DESIGN.md §3: every accepted action is an event ``(table, seq, time, kind, payload,
source)``; an append commits before it returns, so an answered request is on disk. The
store also keeps idempotency keys (answered in the same transaction as their event),
paired devices and pairing codes, and small projections (seats, matches, rounds) that the
admin page lists. ``open_store(url)`` picks the backend; SQL is kept plain so a PostgreSQL
backend can be added behind the same methods.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any

SOURCES = ("tablet", "camera", "hub", "system")

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created REAL NOT NULL,
    last_seq INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    time REAL NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS idempotency (
    table_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    seq INTEGER NOT NULL,
    status INTEGER NOT NULL,
    response TEXT NOT NULL,
    PRIMARY KEY (table_id, key)
);
CREATE TABLE IF NOT EXISTS seats (
    table_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS matches (
    table_id INTEGER NOT NULL,
    started_seq INTEGER NOT NULL,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    players INTEGER NOT NULL,
    PRIMARY KEY (table_id, started_seq)
);
CREATE TABLE IF NOT EXISTS rounds (
    table_id INTEGER NOT NULL,
    match_seq INTEGER NOT NULL,
    round_index INTEGER NOT NULL,
    scores TEXT NOT NULL,
    ended TEXT NOT NULL,
    finished_seq INTEGER NOT NULL,
    PRIMARY KEY (table_id, match_seq, round_index)
);
CREATE TABLE IF NOT EXISTS devices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    created REAL NOT NULL,
    revoked REAL
);
CREATE TABLE IF NOT EXISTS pairing (
    code TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    device_id INTEGER,
    token TEXT
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class StaleSequence(Exception):
    """``expected_seq`` is not the table's last sequence number (HTTP 409)."""

    def __init__(self, expected: int, actual: int):
        super().__init__(f"expected seq {expected}, the table is at {actual}")
        self.expected = expected
        self.actual = actual


class UnknownTable(LookupError):
    """No table with this id."""


@dataclass(frozen=True)
class Event:
    """One committed event of a table's log."""

    table_id: int
    seq: int
    time: float
    kind: str
    payload: dict
    source: str

    def to_json(self) -> dict:
        return {"table": self.table_id, "seq": self.seq, "time": round(self.time, 3),
                "kind": self.kind, "payload": self.payload, "source": self.source}


@dataclass(frozen=True)
class Remembered:
    """The first answer given for an idempotency key."""

    fingerprint: str
    seq: int
    status: int
    response: dict


def open_store(url: str, synchronous: str = "FULL") -> SQLiteStore:
    """Open the store named by ``url``: ``sqlite:///path/to/file.db`` (the default)."""
    if url.startswith("sqlite:///"):
        return SQLiteStore(url[len("sqlite:///"):], synchronous)
    if url.startswith(("postgresql://", "postgres://")):
        raise ValueError("a PostgreSQL store is not built yet; use sqlite:///PATH (docs/service.md)")
    raise ValueError(f"unknown database URL {url!r}; expected sqlite:///PATH")


class SQLiteStore:
    """SQLite in WAL mode: one writer connection behind a lock, one reader per thread."""

    def __init__(self, path: str, synchronous: str = "FULL"):
        self.path = path
        self.synchronous = synchronous
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._writer = self._connect()
        self._writer.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    def close(self) -> None:
        self._writer.close()

    def _write(self, fn):
        """Run ``fn(conn)`` in one IMMEDIATE transaction; commit before returning."""
        with self._write_lock:
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return result

    # -- tables and the log -------------------------------------------------------------
    def create_table(self, name: str) -> int:
        def create(conn):
            cur = conn.execute("INSERT INTO tables (name, created) VALUES (?, ?)",
                               (name, time.time()))
            return cur.lastrowid
        return self._write(create)

    def tables(self) -> list[dict]:
        rows = self._reader().execute(
            "SELECT id, name, created, last_seq FROM tables ORDER BY id").fetchall()
        return [{"id": r[0], "name": r[1], "created": r[2], "seq": r[3]} for r in rows]

    def table(self, table_id: int) -> dict:
        row = self._reader().execute(
            "SELECT id, name, created, last_seq FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            raise UnknownTable(table_id)
        return {"id": row[0], "name": row[1], "created": row[2], "seq": row[3]}

    def last_seq(self, table_id: int) -> int:
        return self.table(table_id)["seq"]

    def append(self, table_id: int, kind: str, payload: dict, source: str, *,
               expected_seq: int | None = None, key: str | None = None,
               fingerprint: str = "", respond=None) -> tuple[Event, dict]:
        """Append one event and commit. ``respond(event)`` builds the answer remembered
        under ``key``; a stale ``expected_seq`` raises ``StaleSequence``."""
        if source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}")
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True)

        def append(conn):
            row = conn.execute("SELECT last_seq FROM tables WHERE id = ?", (table_id,)).fetchone()
            if row is None:
                raise UnknownTable(table_id)
            last = row[0]
            if expected_seq is not None and expected_seq != last:
                raise StaleSequence(expected_seq, last)
            seq = last + 1
            event = Event(table_id, seq, time.time(), kind, payload, source)
            conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                         (table_id, seq, event.time, kind, body, source))
            conn.execute("UPDATE tables SET last_seq = ? WHERE id = ?", (seq, table_id))
            self._project(conn, event)
            answer = respond(event) if respond else {"seq": seq}
            if key is not None:
                conn.execute("INSERT INTO idempotency VALUES (?, ?, ?, ?, ?, ?)",
                             (table_id, key, fingerprint, seq, 200, json.dumps(answer)))
            return event, answer
        return self._write(append)

    def events(self, table_id: int, since: int = 0, limit: int | None = None) -> list[Event]:
        sql = ("SELECT seq, time, kind, payload, source FROM events "
               "WHERE table_id = ? AND seq > ? ORDER BY seq")
        args: tuple = (table_id, since)
        if limit is not None:
            sql += " LIMIT ?"
            args += (limit,)
        rows = self._reader().execute(sql, args).fetchall()
        return [Event(table_id, r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def remembered(self, table_id: int, key: str) -> Remembered | None:
        row = self._reader().execute(
            "SELECT fingerprint, seq, status, response FROM idempotency "
            "WHERE table_id = ? AND key = ?", (table_id, key)).fetchone()
        if row is None:
            return None
        return Remembered(row[0], row[1], row[2], json.loads(row[3]))

    def _project(self, conn: sqlite3.Connection, event: Event) -> None:
        """Keep the listing tables (seats, matches, rounds) in step with the log."""
        p = event.payload
        if event.kind == "players.seated":
            conn.execute("DELETE FROM seats WHERE table_id = ?", (event.table_id,))
            conn.executemany("INSERT INTO seats VALUES (?, ?, ?)",
                             [(event.table_id, i, n) for i, n in enumerate(p["players"])])
        elif event.kind == "match.started":
            conn.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?)",
                         (event.table_id, event.seq, p["game"], json.dumps(p["options"]),
                          p["players"]))
        elif event.kind in ("round.finished", "score.edited"):
            conn.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?, ?, ?, ?)",
                         (event.table_id, p["match"], p["round"], json.dumps(p["scores"]),
                          p.get("ended", "edited"), event.seq))

    # -- devices, pairing, settings -----------------------------------------------------
    def setting(self, key: str) -> str | None:
        row = self._reader().execute("SELECT value FROM settings WHERE key = ?",
                                     (key,)).fetchone()
        return row[0] if row else None

    def set_setting(self, key: str, value: str) -> None:
        self._write(lambda c: c.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)",
                                        (key, value)))

    def add_device(self, table_id: int, token_hash: str, label: str) -> int:
        self.table(table_id)
        return self._write(lambda c: c.execute(
            "INSERT INTO devices (table_id, token_hash, label, created) VALUES (?, ?, ?, ?)",
            (table_id, token_hash, label, time.time())).lastrowid)

    def device_by_hash(self, token_hash: str) -> dict | None:
        row = self._reader().execute(
            "SELECT id, table_id, label, created, revoked FROM devices WHERE token_hash = ?",
            (token_hash,)).fetchone()
        if row is None:
            return None
        return {"id": row[0], "table_id": row[1], "label": row[2], "created": row[3],
                "revoked": row[4]}

    def devices(self) -> list[dict]:
        rows = self._reader().execute(
            "SELECT id, table_id, label, created, revoked FROM devices ORDER BY id").fetchall()
        return [{"id": r[0], "table_id": r[1], "label": r[2], "created": r[3], "revoked": r[4]}
                for r in rows]

    def revoke_device(self, device_id: int) -> bool:
        return self._write(lambda c: c.execute(
            "UPDATE devices SET revoked = ? WHERE id = ? AND revoked IS NULL",
            (time.time(), device_id)).rowcount) > 0

    def add_pairing(self, code: str, secret_hash: str) -> None:
        def add(conn):
            conn.execute("DELETE FROM pairing WHERE created < ?", (time.time() - 3600,))
            conn.execute("INSERT INTO pairing (code, secret_hash, created) VALUES (?, ?, ?)",
                         (code, secret_hash, time.time()))
        self._write(add)

    def pairing(self, *, code: str | None = None, secret_hash: str | None = None) -> dict | None:
        column, value = ("code", code) if code is not None else ("secret_hash", secret_hash)
        row = self._reader().execute(
            f"SELECT code, created, device_id, token FROM pairing WHERE {column} = ?",
            (value,)).fetchone()
        if row is None:
            return None
        return {"code": row[0], "created": row[1], "device_id": row[2], "token": row[3]}

    def complete_pairing(self, code: str, device_id: int, token: str) -> None:
        self._write(lambda c: c.execute(
            "UPDATE pairing SET device_id = ?, token = ? WHERE code = ?", (device_id, token, code)))

    def drop_pairing(self, code: str) -> None:
        self._write(lambda c: c.execute("DELETE FROM pairing WHERE code = ?", (code,)))

    def summary(self, table_id: int) -> dict[str, Any]:
        """Seats and the latest match of a table, from the projections (admin page)."""
        conn = self._reader()
        seats = [r[0] for r in conn.execute(
            "SELECT name FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))]
        match = conn.execute(
            "SELECT started_seq, game, players FROM matches WHERE table_id = ? "
            "ORDER BY started_seq DESC LIMIT 1", (table_id,)).fetchone()
        rounds = 0
        if match:
            rounds = conn.execute("SELECT COUNT(*) FROM rounds WHERE table_id = ? AND match_seq = ?",
                                  (table_id, match[0])).fetchone()[0]
        return {"seats": seats, "game": match[1] if match else None, "rounds_finished": rounds}
