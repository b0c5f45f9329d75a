"""HubLink without a network: messages are injected into its handler and the exact
publishes are asserted (the paho client is never started)."""

import json

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.bridge import HubLink
from firmware_bridge.scenes import scene_from_summary

HUB = "h-1"


@pytest.fixture
def link():
    events = []
    link = HubLink("mqtt://127.0.0.1:1", "unit", on_event=events.append, id_prefix="c")
    link.sent = []
    link.client.publish = lambda out, expiry_s=None: link.sent.append((out, expiry_s)) or True
    link.client.connected.set()
    link.got = events
    return link


def inject(link, suffix, body):
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    link._message(p.hub_topic(HUB, suffix), payload)


def topics(link):
    return [out.topic.rsplit("/", 2)[-2:] for out, _ in link.sent]


def bring_online(link, boot=1, ka=None):
    inject(link, "info", {"v": 1, "hub": HUB, "fw": "1", "hw": "x", "boot": boot, "ka": ka})
    inject(link, "state", {"v": 1, "boot": boot, "seq": 1, "mk": [], "t": 1000})
    inject(link, "status", b"online")


def test_scene_to_an_online_hub_is_published_once_with_exact_payload(link):
    bring_online(link)
    cmd_id = link.send_scene(HUB, scene_from_summary(turn="p2", markers=["p1"]))
    assert cmd_id == "c-1"
    (out, expiry), = link.sent
    assert (out.topic, out.qos, out.retain, expiry) == (
        "dominoes/v1/hub/h-1/cmd/scene", 1, False, 5.0)
    body = json.loads(out.payload)
    assert {k: body[k] for k in ("v", "id", "exp", "turn", "open")} == {
        "v": 1, "id": "c-1", "exp": 5000, "turn": "p2", "open": ["p1"]}
    assert isinstance(body["t"], int)  # the hub clock, learned from state.t
    assert [e.kind for e in link.got] == ["info", "state", "online"]


def test_scene_waits_while_offline_and_is_sent_on_online_then_resent_until_acked(link):
    cmd_id = link.send_scene(HUB, p.Scene(turn="p1"))
    assert link.sent == []
    bring_online(link)
    assert [json.loads(o.payload)["id"] for o, _ in link.sent] == [cmd_id]
    link.hubs[HUB].sent_at -= 5  # the ack timeout passes
    link._tick()
    assert [json.loads(o.payload)["id"] for o, _ in link.sent] == [cmd_id, cmd_id]
    inject(link, "ack", {"v": 1, "id": cmd_id, "ok": 1, "seq": 2, "boot": 1})
    link.hubs[HUB].sent_at -= 5
    link._tick()
    assert len(link.sent) == 2 and link.hubs[HUB].acked
    inject(link, "status", b"offline")
    assert link.got[-1].kind == "offline"


def test_seq_gap_sends_rebirth_then_the_scene_and_duplicates_are_dropped(link):
    bring_online(link)
    cmd_id = link.send_scene(HUB, p.Scene(turn="p1"))
    link.sent.clear()
    marker = {"v": 1, "boot": 1, "seq": 2, "slot": "p3", "on": 1, "t": 5}
    inject(link, "evt/marker", marker)
    inject(link, "evt/marker", marker)  # QoS 1 duplicate
    assert [e.kind for e in link.got].count("marker") == 1 and link.stats["duplicates"] == 1
    assert link.sent == []
    inject(link, "evt/marker", {**marker, "seq": 5})
    assert topics(link) == [["cmd", "rebirth"], ["cmd", "scene"]]
    assert json.loads(link.sent[1][0].payload)["id"] == cmd_id
    assert link.stats["seq_gaps"] == 1


def test_new_boot_resends_the_scene_and_old_boot_messages_are_still_delivered(link):
    bring_online(link, boot=3)
    link.send_scene(HUB, p.Scene(turn="p1"))
    inject(link, "ack", {"v": 1, "id": "c-1", "ok": 1, "seq": 2, "boot": 3})
    link.sent.clear()
    inject(link, "info", {"v": 1, "hub": HUB, "fw": "1", "hw": "x", "boot": 4})
    assert topics(link) == [["cmd", "scene"]]
    inject(link, "evt/button", {"v": 1, "boot": 3, "seq": 9, "btn": "done"})  # late, old boot
    assert link.got[-1].kind == "button" and link.hubs[HUB].boot == 4


def test_a_silent_hub_is_declared_offline_after_one_and_a_half_keepalive(link):
    bring_online(link, ka=2)
    link._tick()
    assert link.hubs[HUB].online
    link.hubs[HUB].last_seen -= 3.1
    link._tick()
    assert link.got[-1].kind == "offline" and link.stats["silent"] == 1
    inject(link, "state", {"v": 1, "boot": 1, "seq": 2})  # it speaks again
    assert link.got[-1].kind == "state" and link.got[-2].kind == "online"


def test_a_raising_handler_and_a_bad_payload_are_counted_not_fatal(link):
    def boom(event):
        raise RuntimeError("bug")
    link.on_event = boom
    bring_online(link)
    assert link.stats["handler_errors"] == 3
    inject(link, "evt/marker", b"{not json")
    assert link.decoder.rejected == {"json": 1}


def test_refused_scene_stops_resending_but_expired_keeps_trying(link):
    bring_online(link)
    link.send_scene(HUB, p.Scene(turn="p1"))
    inject(link, "ack", {"v": 1, "id": "c-1", "ok": 0, "err": "expired", "seq": 2, "boot": 1})
    assert not link.hubs[HUB].acked
    inject(link, "ack", {"v": 1, "id": "c-1", "ok": 0, "err": "bad_slot", "seq": 3, "boot": 1})
    assert link.hubs[HUB].acked


def test_snapshot_for_the_tablet(link):
    assert link.snapshot(HUB)["online"] is False
    bring_online(link)
    inject(link, "state", {"v": 1, "boot": 1, "seq": 2, "mk": ["p2"], "btn": 1})
    cmd_id = link.send_scene(HUB, p.Scene(turn="p1"))
    snap = link.snapshot(HUB)
    assert snap == {"hub": HUB, "online": True, "boot": 1, "markers": ["p2"], "buttons": 1,
                    "scene": cmd_id, "scene_acked": False, "fw": "1"}
    assert link.online_hubs() == [HUB]


def test_an_unchanged_scene_is_not_sent_again_but_an_alert_is(link):
    bring_online(link)
    first = link.send_scene(HUB, p.Scene(turn="p1"))
    assert link.send_scene(HUB, p.Scene(turn="p1")) == first and len(link.sent) == 1
    a = link.send_scene(HUB, p.Scene(turn="p1", alert="MT-8"))
    b = link.send_scene(HUB, p.Scene(turn="p1", alert="MT-8"))
    assert len({first, a, b}) == 3 and len(link.sent) == 3


def test_events_are_delivered_outside_the_links_lock(link):
    import threading
    held = []

    def handler(event):  # another thread must be able to take the lock meanwhile
        def other():
            got = link._lock.acquire(timeout=1)
            held.append(got)
            if got:
                link._lock.release()
        t = threading.Thread(target=other)
        t.start()
        t.join()
    link.on_event = handler
    bring_online(link)
    assert held == [True, True, True]


def test_info_with_a_lower_boot_means_the_counter_was_reset(link):
    bring_online(link, boot=9)
    link.send_scene(HUB, p.Scene(turn="p1"))
    link.sent.clear()
    inject(link, "info", {"v": 1, "hub": HUB, "fw": "2", "hw": "x", "boot": 1})
    assert link.hubs[HUB].boot == 1 and topics(link) == [["cmd", "scene"]]
    inject(link, "state", {"v": 1, "boot": 1, "seq": 1})
    assert link.hubs[HUB].seq == 1
