"""Fixtures: an app on a temporary database, a client, and staff/device credentials."""

from __future__ import annotations

import base64

import pytest

from companion import create_app

ADMIN_PASSWORD = "correct horse battery"
STAFF = {"Authorization": "Basic " + base64.b64encode(f"staff:{ADMIN_PASSWORD}".encode()).decode()}


@pytest.fixture
def app(tmp_path):
    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'test.db'}",
        "ADMIN_PASSWORD": ADMIN_PASSWORD,
        "SQLITE_SYNCHRONOUS": "OFF",
        "SSE_KEEPALIVE_S": 0.2,
        "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000",
    })
    yield app
    app.extensions["companion.broker"].shutdown()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


class TableClient:
    """A device paired to one table, posting with its Bearer token."""

    def __init__(self, client, table_id: int, token: str):
        self.client = client
        self.id = table_id
        self.headers = {"Authorization": f"Bearer {token}"}

    def post(self, path: str, json=None, **kw):
        headers = dict(self.headers, **kw.pop("headers", {}))
        return self.client.post(f"/api/tables/{self.id}{path}", json=json, headers=headers, **kw)

    def move(self, text: str, **extra):
        return self.post("/moves", json={"move": text, **extra})

    def state(self) -> dict:
        return self.client.get(f"/api/tables/{self.id}").get_json()


def new_table(client, name: str = "Table 1") -> TableClient:
    response = client.post("/api/tables", json={"name": name}, headers=STAFF)
    assert response.status_code == 201, response.get_json()
    table_id = response.get_json()["id"]
    token = client.post(f"/admin/api/tables/{table_id}/tokens", json={"label": "test"},
                        headers=STAFF).get_json()["token"]
    return TableClient(client, table_id, token)


@pytest.fixture
def table(client) -> TableClient:
    return new_table(client)


@pytest.fixture
def mt_table(table) -> TableClient:
    """A table with four players and a Mexican Train match started (round 0, engine 12-12)."""
    response = table.post("/match", json={"game": "mexican-train",
                                           "players": ["Ann", "Ben", "Cat", "Dan"]})
    assert response.status_code == 200, response.get_json()
    return table
