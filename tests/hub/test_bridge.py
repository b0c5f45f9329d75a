"""HubLink against a real Mosquitto and simulated hubs (the firmware on CPython)."""

import json

import paho.mqtt.client as paho
import pytest

from firmware_bridge import protocol as p
from firmware_bridge.scenes import scene_from_summary

from .conftest import needs_mosquitto, wait_until

pytestmark = [needs_mosquitto, pytest.mark.broker]
SCENE = scene_from_summary(turn="p2", markers=["p1"], open_double="p3")


def raw_client(port, client_id, username=None, password=None):
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id)
    if username:
        c.username_pw_set(username, password)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def online(link, hub):
    wait_until(lambda: link.recorder.of("online", hub), 10)


def test_command_is_acked_and_applied(broker, make_link, make_fleet):
    fleet = make_fleet(broker.url, ["h-1"])
    link = make_link(broker.url)
    online(link, "h-1")
    cmd_id = link.send_scene("h-1", SCENE)
    ack = wait_until(lambda: link.recorder.of("ack", "h-1"))[0]
    assert (ack.message.id, ack.message.ok) == (cmd_id, True)
    roles = fleet.call(lambda: dict(fleet["h-1"].app.roles))
    assert (roles["p2"], roles["p1"], roles["p3"], roles["eng"]) == ("turn", "open", "dbl", "idle")
    state = wait_until(lambda: [e for e in link.recorder.of("state", "h-1")
                                if e.message.scene == cmd_id])
    assert state[0].message.mk == ()
    assert link.hubs["h-1"].acked and link.stats["resent"] == 0


def test_same_command_id_twice_is_applied_once_and_acked_twice(broker, make_link, make_fleet):
    fleet = make_fleet(broker.url, ["h-1"])
    link = make_link(broker.url)
    online(link, "h-1")
    cmd = p.SceneCmd.of(SCENE, id="c-dup-1")
    link.client.publish(p.encode("h-1", cmd))
    link.client.publish(p.encode("h-1", cmd))
    acks = wait_until(lambda: len(link.recorder.of("ack")) >= 2 and link.recorder.of("ack"))
    assert [a.message.id for a in acks] == ["c-dup-1", "c-dup-1"]
    assert all(a.message.ok for a in acks) and acks[0].message.seq < acks[1].message.seq
    applied = fleet.call(lambda: [c for c in fleet["h-1"].changes if c[0] == "scene"])
    assert applied == [("scene", "c-dup-1")]


def test_expired_command_is_ignored(broker, make_link, make_fleet):
    fleet = make_fleet(broker.url, ["h-1"])
    link = make_link(broker.url)
    online(link, "h-1")
    hub_now = fleet.call(lambda: fleet["h-1"].hw.ticks_ms())
    late = p.SceneCmd.of(SCENE, id="c-late", exp=1000, t=max(0, hub_now - 5000))
    if hub_now < 5000:  # the hub clock starts at 0: make the command older than exp anyway
        late = p.SceneCmd.of(SCENE, id="c-late", exp=0, t=0)
    link.client.publish(p.encode("h-1", late))
    ack = wait_until(lambda: link.recorder.of("ack", "h-1"))[0]
    assert (ack.message.ok, ack.message.err) == (False, "expired")
    assert fleet.call(lambda: fleet["h-1"].app.scene) is None


def test_link_stamps_the_hub_clock_so_fresh_scenes_are_not_expired(broker, make_link, make_fleet):
    make_fleet(broker.url, ["h-1"])
    link = make_link(broker.url)
    online(link, "h-1")
    wait_until(lambda: link.hubs["h-1"].clock_offset is not None)
    link.send_scene("h-1", SCENE)
    ack = wait_until(lambda: link.recorder.of("ack", "h-1"))[0]
    assert ack.message.ok


def test_seq_gap_triggers_rebirth_and_scene(broker, make_link, make_fleet):
    fleet = make_fleet(broker.url, ["h-1"])
    link = make_link(broker.url)
    online(link, "h-1")
    link.send_scene("h-1", SCENE)
    wait_until(lambda: link.recorder.of("ack", "h-1"))
    infos = len(link.recorder.of("info", "h-1"))

    def skip_and_press():
        fleet["h-1"].app.seq += 3  # as if three messages were lost
        fleet["h-1"].hw.set_marker("p4", True)
    fleet.call(skip_and_press)
    wait_until(lambda: link.stats["seq_gaps"] == 1)
    wait_until(lambda: len(link.recorder.of("info", "h-1")) > infos)  # rebirth answered
    wait_until(lambda: len(link.recorder.of("ack", "h-1")) >= 2)  # scene sent again
    assert link.stats["rebirths"] == 1


def test_frozen_hub_is_reported_offline_within_one_and_a_half_keepalive(
        broker, make_link, make_fleet):
    fleet = make_fleet(broker.url, ["h-1"], keepalive=2)
    link = make_link(broker.url)
    online(link, "h-1")
    import time
    start = time.monotonic()
    fleet.call(lambda: fleet["h-1"].freeze())
    wait_until(lambda: link.recorder.of("offline", "h-1"), timeout=1.5 * 2 + 1)
    assert time.monotonic() - start <= 1.5 * 2 + 1


def test_exception_in_a_handler_does_not_stop_the_bridge(broker, make_link, make_fleet):
    seen = []

    def explode(event):
        seen.append(event)
        if event.kind == "marker":
            raise RuntimeError("handler bug")
    fleet = make_fleet(broker.url, ["h-1"])
    link = make_link(broker.url, on_event=explode)
    wait_until(lambda: any(e.kind == "online" for e in seen), 10)
    fleet.call(lambda: fleet["h-1"].set_marker("p1", True))
    wait_until(lambda: link.stats["handler_errors"] == 1)
    fleet.call(lambda: fleet["h-1"].set_marker("p2", True))
    wait_until(lambda: link.stats["handler_errors"] == 2)
    link.send_scene("h-1", SCENE)
    wait_until(lambda: any(e.kind == "ack" for e in seen))


def test_malformed_and_oversize_payloads_are_rejected_and_counted(broker, make_link):
    link = make_link(broker.url)
    raw = raw_client(broker.port, "h-bad")
    try:
        base = "dominoes/v1/hub/h-bad/"
        for payload in (b"{", b"x" * 2000, b'{"v":1,"boot":1,"seq":1,"slot":"p99","on":1}',
                        b"\xff\xfe"):
            raw.publish(base + "evt/marker", payload, 1).wait_for_publish(2)
        raw.publish(base + "evt/marker", json.dumps(
            {"v": 1, "boot": 1, "seq": 2, "slot": "p1", "on": 1}).encode(), 1)
        wait_until(lambda: link.recorder.of("marker", "h-bad"))
        assert link.decoder.rejected == {"json": 1, "oversize": 1, "invalid": 1, "utf8": 1}
    finally:
        raw.loop_stop()
        raw.disconnect()


def test_no_qos1_event_is_lost_across_a_broker_restart(broker, make_link, make_fleet):
    fleet = make_fleet(broker.url, ["h-1"])
    link = make_link(broker.url, instance="persist")
    online(link, "h-1")
    link.stop()  # the companion is away: its persistent session queues hub events
    for slot in ("p1", "p2", "p3"):
        fleet.call(lambda s=slot: fleet["h-1"].set_marker(s, True))
        wait_until(lambda s=slot: fleet.call(lambda: s in fleet["h-1"].app.markers))
    wait_until(lambda: fleet.call(lambda: not fleet["h-1"].app.client._inflight))
    broker.restart()  # SIGTERM: mosquitto saves its store; then it starts again
    fleet.call(lambda: fleet["h-1"].set_marker("p4", True))  # during/after the outage
    link2 = make_link(broker.url, instance="persist")
    got = wait_until(lambda: {e.message.slot for e in link2.recorder.of("marker", "h-1")}
                     >= {"p1", "p2", "p3", "p4"} and link2.recorder.of("marker", "h-1"), 15)
    slots = [e.message.slot for e in got]
    assert sorted(slots) == ["p1", "p2", "p3", "p4"]  # each exactly once


def test_acl_stops_a_hub_publishing_into_another_hubs_topics(tmp_path, make_link):
    from firmware_bridge.broker import MosquittoBroker
    with MosquittoBroker(tmp_path / "venue", hubs=["h-1", "h-2"]) as venue:
        creds = venue.credentials
        link = make_link(venue.url, username="companion", password=creds["companion"])
        seen = []
        spy = raw_client(venue.port, "spy", "companion", creds["companion"])
        spy.on_message = lambda c, u, m: seen.append(m.topic)
        spy.subscribe("dominoes/v1/hub/+/cmd/#", 1)
        intruder = raw_client(venue.port, "h-1", "h-1", creds["h-1"])
        refused = []
        bad = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="h-2")
        bad.username_pw_set("h-2", "wrong-password")
        bad.on_connect = lambda c, u, f, rc, p: refused.append(rc.is_failure)
        try:
            wait_until(lambda: spy.is_connected() and intruder.is_connected())
            msg = json.dumps({"v": 1, "boot": 1, "seq": 1, "slot": "p1", "on": 1}).encode()
            for topic in ("dominoes/v1/hub/h-2/evt/marker", "dominoes/v1/hub/h-2/cmd/scene",
                          "dominoes/v1/hub/h-1/cmd/scene", "dominoes/v1/hub/h-1/evt/marker"):
                intruder.publish(topic, msg, 1).wait_for_publish(2)
            wait_until(lambda: link.recorder.of("marker", "h-1"))  # its own topic works
            assert link.recorder.of("marker", "h-2") == []
            assert seen == []  # no command written by a hub reached anyone
            bad.connect("127.0.0.1", venue.port)
            bad.loop_start()
            assert wait_until(lambda: refused) == [True]
        finally:
            for c in (spy, intruder, bad):
                c.loop_stop()
                c.disconnect()
