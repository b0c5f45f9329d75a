"""The real server in a subprocess: 20 SSE clients, actions posted, kill -9 mid-stream,
restart, and every client ends with every event exactly once, in order."""

from __future__ import annotations

import threading
import time

import pytest

from companion.bench import Api, ServerProcess, SSEClients, new_table, table_actions

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path):
    process = ServerProcess(instance=str(tmp_path), threads=48).start()
    yield process
    process.stop()
    process.log.close()


def test_twenty_clients_survive_kill_and_restart(server):
    staff = Api(server.port)
    table_id, token = new_table(staff, "integration")
    api = Api(server.port, token)
    clients = SSEClients(server.port, table_id, 20).start()
    actions = table_actions(table_id, seed=5)
    accepted: list[int] = []

    def post(count: int) -> None:
        for _ in range(count):
            path, body = next(actions)
            accepted.append(api.post_until_answered(path, body, retry_for=30)["seq"])

    try:
        post(40)
        assert clients.wait_for(accepted[-1], 10)
        # kill -9 while a poster is mid-stream; it retries with the same keys meanwhile
        poster = threading.Thread(target=post, args=(60,))
        poster.start()
        deadline = time.monotonic() + 20
        while len(accepted) < 60 and time.monotonic() < deadline:
            time.sleep(0.005)
        server.kill()
        assert poster.is_alive()  # killed mid-stream
        time.sleep(0.5)
        server.start()
        poster.join(60)
        assert not poster.is_alive()
        post(20)
        last = accepted[-1]
        assert clients.wait_for(last, 20), [c[-3:] for c in clients.seqs]
    finally:
        clients.close()
    # nothing accepted is lost, nothing duplicated, and the log has no holes
    assert accepted == sorted(accepted) and len(set(accepted)) == len(accepted) == 120
    _status, log = staff.request("GET", f"/api/tables/{table_id}/events?since=0&limit=5000")
    assert [e["seq"] for e in log["events"]] == list(range(1, log["seq"] + 1))
    assert set(accepted) <= set(range(1, log["seq"] + 1)) and log["seq"] == last
    for seqs in clients.seqs:
        assert seqs == list(range(1, last + 1))
    assert clients.reconnects >= 20
