"""``python -m companion bench``: the real server in a subprocess, N SSE clients, actions
posted through the API; prints p50/p99 ms from an accepted POST to the event on every
client, and accepted actions/s. The helpers (server process, API client, SSE clients,
table traffic) are shared with the integration tests.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from .demo import DEMO_PLAYERS, simulated_round

ADMIN = "bench-admin-password"
_ID_LINE = re.compile(rb"^id: (\d+)$", re.MULTILINE)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``python -m companion serve`` on a port, with its own instance folder."""

    def __init__(self, instance: str | None = None, port: int | None = None, threads: int = 96):
        self.instance = instance or tempfile.mkdtemp(prefix="companion-")
        self.port = port or free_port()
        self.threads = threads
        self.proc: subprocess.Popen | None = None
        self.log = open(os.path.join(self.instance, "server.log"), "ab")  # noqa: SIM115

    def start(self, timeout: float = 20) -> ServerProcess:
        env = dict(os.environ, COMPANION_ADMIN_PASSWORD=ADMIN, PYTHONUNBUFFERED="1")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--port", str(self.port),
             "--instance", self.instance, "--threads", str(self.threads)],
            cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; see "
                                   f"{self.instance}/server.log")
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        """kill -9: no shutdown handlers run."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()

    def cleanup(self) -> None:
        self.stop()
        self.log.close()
        shutil.rmtree(self.instance, ignore_errors=True)


class Api:
    """A keep-alive JSON client; retries a POST (same idempotency key) across restarts."""

    def __init__(self, port: int, token: str | None = None):
        self.port = port
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        else:
            basic = base64.b64encode(f"staff:{ADMIN}".encode()).decode()
            self.headers["Authorization"] = f"Basic {basic}"
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: dict | None = None,
                headers: dict | None = None) -> tuple[int, dict]:
        if self.conn is not None and method == "GET":
            try:
                return self._request(method, path, body, headers)
            except (OSError, http.client.HTTPException):
                pass  # a keep-alive connection to a server that went away: once more
        return self._request(method, path, body, headers)

    def _request(self, method: str, path: str, body: dict | None,
                 headers: dict | None) -> tuple[int, dict]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        data = json.dumps(body).encode() if body is not None else None
        try:
            self.conn.request(method, path, data, dict(self.headers, **(headers or {})))
            response = self.conn.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise

    def post_until_answered(self, path: str, body: dict, retry_for: float = 30) -> dict:
        """POST with an idempotency key, retrying through a dead or restarting server."""
        key = uuid.uuid4().hex
        deadline = time.monotonic() + retry_for
        while True:
            try:
                status, answer = self.request("POST", path, body, {"Idempotency-Key": key})
            except (OSError, http.client.HTTPException):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
                continue
            if status != 200:
                raise RuntimeError(f"{path} {body} -> {status} {answer}")
            return answer


def new_table(api: Api, name: str) -> tuple[int, str]:
    """Create a table and a device token for it (staff)."""
    status, table = api.request("POST", "/api/tables", {"name": name})
    assert status == 201, table
    status, made = api.request("POST", f"/admin/api/tables/{table['id']}/tokens",
                               {"label": "bench"})
    assert status == 201, made
    return table["id"], made["token"]


def table_actions(table_id: int, seed: int = 1):
    """Endless (path, body) actions for a table: a match, each round's moves, its finish."""
    base = f"/api/tables/{table_id}"
    match = 0
    while True:
        yield f"{base}/match", {"game": "mexican-train", "players": DEMO_PLAYERS}
        from .games import get_rules

        options = get_rules("mexican-train").resolve_options(len(DEMO_PLAYERS), {})
        for round_index in range(13):
            sim = simulated_round("mexican-train", len(DEMO_PLAYERS), options, round_index,
                                  seed * 1000 + match * 20 + round_index)
            for text in sim.moves:
                yield f"{base}/moves", {"move": text}
            yield f"{base}/round/finish", {"hands": sim.hands}
        match += 1


class SSEClients:
    """N SSE connections read by one thread (selectors); each reconnects with Last-Event-ID
    after a drop. Records, per client, the seqs in arrival order and their arrival times."""

    def __init__(self, port: int, table_id: int, count: int):
        self.port = port
        self.path = f"/api/tables/{table_id}/stream"
        self.count = count
        self.seqs: list[list[int]] = [[] for _ in range(count)]
        self.arrivals: list[dict[int, float]] = [{} for _ in range(count)]
        self.connected = [False] * count
        self.reconnects = 0
        self._sel = selectors.DefaultSelector()
        self._buffers: dict[int, bytes] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self, timeout: float = 20) -> SSEClients:
        for index in range(self.count):
            self._connect(index)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not all(self.connected) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not all(self.connected):
            raise RuntimeError(f"only {sum(self.connected)} of {self.count} clients connected")
        return self

    def _connect(self, index: int) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), 2)
        except OSError:
            return
        last = self.seqs[index][-1] if self.seqs[index] else 0
        sock.sendall((f"GET {self.path} HTTP/1.0\r\nHost: x\r\nAccept: text/event-stream\r\n"
                      f"Last-Event-ID: {last}\r\n\r\n").encode())
        sock.setblocking(False)
        self._buffers[index] = b""
        self._sel.register(sock, selectors.EVENT_READ, index)

    def _run(self) -> None:
        missing: set[int] = set()
        next_retry = 0.0
        while not self._stop.is_set():
            for key, _ in self._sel.select(0.05):
                index, sock = key.data, key.fileobj
                try:
                    data = sock.recv(262144)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._sel.unregister(sock)
                    sock.close()
                    self.connected[index] = False
                    missing.add(index)
                    continue
                self._feed(index, data, time.perf_counter())
            if missing and time.monotonic() >= next_retry:
                for index in list(missing):
                    self.reconnects += 1
                    self._connect(index)
                    if index in self._buffers and any(
                            k.data == index for k in self._sel.get_map().values()):
                        missing.discard(index)
                next_retry = time.monotonic() + 0.1

    def _feed(self, index: int, data: bytes, now: float) -> None:
        buffer = self._buffers[index] + data
        end = buffer.rfind(b"\n\n")
        if end < 0:
            self._buffers[index] = buffer
            return
        complete, self._buffers[index] = buffer[:end + 2], buffer[end + 2:]
        if not self.connected[index] and (b"\r\n\r\n" in complete
                                          or b"event: state" in complete):
            self.connected[index] = True
        arrivals, seqs = self.arrivals[index], self.seqs[index]
        for match in _ID_LINE.finditer(complete):
            seq = int(match.group(1))
            seqs.append(seq)
            arrivals.setdefault(seq, now)

    def wait_for(self, seq: int, timeout: float = 30) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(s and s[-1] >= seq for s in self.seqs):
                return True
            time.sleep(0.01)
        return False

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def run(args) -> int:
    server = ServerProcess(threads=max(96, args.clients + 32)).start()
    try:
        staff = Api(server.port)
        table_id, token = new_table(staff, "bench 1")
        api = Api(server.port, token)
        clients = SSEClients(server.port, table_id, args.clients).start()
        sent: dict[int, float] = {}
        actions = table_actions(table_id)
        start = time.perf_counter()
        for _ in range(args.actions):
            path, body = next(actions)
            t0 = time.perf_counter()
            answer = api.post_until_answered(path, body)
            sent[answer["seq"]] = t0
        elapsed = time.perf_counter() - start
        last = max(sent)
        if not clients.wait_for(last):
            print("warning: not every client saw every event", file=sys.stderr)
        latencies = [(arrivals[seq] - t0) * 1000 for arrivals in clients.arrivals
                     for seq, t0 in sent.items() if seq in arrivals]
        complete = all(clients.seqs[i] == list(range(1, last + 1)) for i in range(args.clients))
        results = {
            "clients": args.clients, "actions": len(sent),
            "p50_ms": round(statistics.median(latencies), 2),
            "p99_ms": round(percentile(latencies, 99), 2),
            "max_ms": round(max(latencies), 2),
            "sequential_actions_per_s": round(len(sent) / elapsed, 1),
            "every_client_every_event_in_order": complete,
        }
        results["parallel_actions_per_s"] = round(
            parallel_rate(server.port, args, (api, actions)), 1)
        clients.wait_for(api.request("GET", f"/api/tables/{table_id}")[1]["seq"])
        results["every_client_every_event_after_parallel"] = all(
            s == list(range(1, s[-1] + 1)) for s in clients.seqs)
        clients.close()
        if args.json:
            print(json.dumps(results))
        else:
            for key, value in results.items():
                unit = "ms" if key.endswith("_ms") else ("actions/s" if "per_s" in key else "")
                print(f"{key} {value} {unit}".rstrip())
        return 0
    finally:
        server.cleanup()


def parallel_rate(port: int, args, watched) -> float:
    """Accepted actions/s with one poster per table on ``args.tables`` tables at once (one of
    them the table the SSE clients watch)."""
    staff = Api(port)
    per_table = max(args.actions // args.tables, 50)
    tables = [new_table(staff, f"bench p{i}") for i in range(args.tables - 1)]
    posters = [(Api(port, token), table_actions(table_id, seed=table_id))
               for table_id, token in tables] + [watched]
    done = []

    def poster(api: Api, actions) -> None:
        for _ in range(per_table):
            path, body = next(actions)
            api.post_until_answered(path, body)
        done.append(per_table)

    threads = [threading.Thread(target=poster, args=p) for p in posters]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / (time.perf_counter() - start)
