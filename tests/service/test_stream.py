"""SSE through the Flask test client: ids are seqs, Last-Event-ID resumes, refusals live."""

from __future__ import annotations

import json


def messages(response, count):
    """The next ``count`` SSE messages (skipping keepalives) as (id, event, data)."""
    out, buffer = [], ""
    chunks = iter(response.response)
    while len(out) < count:
        chunk = next(chunks)
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            fields = {}
            for line in block.split("\n"):
                if line.startswith(":") or not line:
                    continue
                name, _, value = line.partition(": ")
                fields[name] = value
            if "event" in fields:
                out.append((fields.get("id"), fields["event"], json.loads(fields["data"])))
    return out


def test_resume_and_live(client, mt_table):
    mt_table.move("12-5>p1")
    mt_table.move("12-4>p2")
    response = client.get(f"/api/tables/{mt_table.id}/stream", headers={"Last-Event-ID": "1"},
                          buffered=False)
    assert response.mimetype == "text/event-stream"
    got = messages(response, 3)
    assert [(m[0], m[1]) for m in got] == [("2", "move"), ("3", "move"), (None, "state")]
    assert got[2][2]["state"]["seq"] == 3
    mt_table.move("6-4>p3")  # refused: live, without an id
    mt_table.move("12-3>p3")
    live = messages(response, 2)
    assert live[0][0] is None and live[0][1] == "refusal"
    assert live[0][2]["event"]["payload"]["rule"] == "MT-8"
    assert live[1][0] == "4" and live[1][2]["state"]["seq"] == 4
    response.close()


def test_stream_bad_input(client, mt_table):
    assert client.get("/api/tables/99/stream").status_code == 404
    bad = client.get(f"/api/tables/{mt_table.id}/stream", headers={"Last-Event-ID": "x"})
    assert bad.status_code == 400 and bad.get_json()["error"]


def test_status_reaches_state_and_stream(client, mt_table):
    response = client.get(f"/api/tables/{mt_table.id}/stream", buffered=False)
    assert [m[1] for m in messages(response, 2)] == ["match.started", "state"]
    bad = mt_table.post("/status", json={"part": "toaster"})
    assert bad.status_code == 422
    assert client.post(f"/api/tables/{mt_table.id}/status",
                       json={"part": "hub", "online": True}).status_code == 401
    ok = mt_table.post("/status", json={"part": "hub", "online": False, "text": "hub 3 offline"})
    assert ok.status_code == 200 and ok.get_json()["hub"]["online"] is False
    live = messages(response, 1)[0]
    assert live[1] == "status" and live[2]["state"]["status"]["hub"]["text"] == "hub 3 offline"
    assert mt_table.state()["status"]["hub"]["online"] is False
    response.close()


def test_an_id_from_another_database_starts_over(client, mt_table):
    response = client.get(f"/api/tables/{mt_table.id}/stream",
                          headers={"Last-Event-ID": "9999"}, buffered=False)
    assert [(m[0], m[1]) for m in messages(response, 2)] == [("1", "match.started"),
                                                             (None, "state")]
    response.close()
