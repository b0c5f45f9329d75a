"""TableHubs with a stand-in for the companion's Tables, and (when the companion package is
importable) with the real one: table changes become hub scenes, hub events name the table."""

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.bridge import HubEvent, HubLink
from firmware_bridge.tables import TableHubs


class FakeTables:
    def __init__(self):
        self.listeners = []
        self.views = {}

    def subscribe(self, listener):
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def view(self, table_id):
        return self.views[table_id]

    def change(self, table_id, view):
        self.views[table_id] = view
        for listener in self.listeners:
            listener(table_id, {"kind": "move"}, view)


def make_link():
    link = HubLink("mqtt://127.0.0.1:1", "unit")
    link.sent = []
    link.client.publish = lambda out, expiry_s=None: link.sent.append(out) or True
    return link


def round_view(current, seq=1):
    return {"seq": seq, "round": {"current": current, "round_over": False, "trains": [
        {"name": "mx", "owner": None, "marker": False, "open_double": False}]}}


def test_pairing_sends_scenes_and_routes_hub_events():
    tables, link, got = FakeTables(), make_link(), []
    hubs = TableHubs(link, tables, on_hub_event=lambda t, e: got.append((t, e.kind)))
    tables.views[7] = round_view(0)
    hubs.pair(7, "h-1")
    assert link.hubs["h-1"].desired.scene == p.Scene(turn="p1", open=("mx",))
    tables.change(7, round_view(2, seq=2))
    assert link.hubs["h-1"].desired.turn == "p3"
    tables.change(8, round_view(1))  # not paired: nothing
    assert set(link.hubs) == {"h-1"}
    link.on_event(HubEvent("button", "h-1"))
    link.on_event(HubEvent("button", "h-9"))
    assert got == [(7, "button"), (None, "button")]
    hubs.pair(8, "h-1")  # the hub moves to table 8
    assert hubs.hub_for(7) is None and hubs.table_for("h-1") == 8
    hubs.close()
    assert tables.listeners == []


def test_with_the_companions_tables(tmp_path):
    store = pytest.importorskip("companion.store")
    service = pytest.importorskip("companion.service")
    demo = pytest.importorskip("companion.demo")
    tables = service.Tables(store.SQLiteStore(str(tmp_path / "t.db")))
    link = make_link()
    hubs = TableHubs(link, tables)
    table_id = demo.seed_demo(tables)
    hubs.pair(table_id, "h-demo")
    scene = link.hubs["h-demo"].desired.scene
    current = tables.view(table_id)["round"]["current"]
    assert scene.turn == f"p{current + 1}" and "mx" in scene.open
