"""The firmware's hub program on CPython with a recording MQTT client: commands, the id
memory, expiry, bad input, LED frames and sensing, without a broker."""

import asyncio
import json

from firmware_bridge import protocol as p
from firmware_bridge.firmware.hubapp import REMEMBERED_IDS, THEME, HubApp
from firmware_bridge.firmware.seam import FakeHardware

BASE = "dominoes/v1/hub/h-t/"


class RecordingClient:
    def __init__(self, **kw):
        self.kw = kw
        self.published = []
        self.subscribed = []
        self.connected = True
        self.frozen = False

    def publish(self, topic, payload, qos=0, retain=False):
        self.published.append((topic, payload, qos, retain))

    def subscribe(self, topics):
        self.subscribed.extend(topics)


def make_app():
    hw = FakeHardware()
    app = HubApp({"hub": "h-t", "host": "x", "port": 1, "keepalive": 4}, hw, RecordingClient)
    return app, hw, app.client


def decoded(client, suffix=None):
    """Every publish decoded by the codec (so the firmware speaks the contract)."""
    out = []
    for topic, payload, qos, retain in client.published:
        d = p.decode(topic, payload if isinstance(payload, bytes) else payload.encode())
        spec = p.BY_KIND[d.kind]
        assert (qos, retain) == (spec.qos, spec.retain), topic
        if suffix is None or topic.endswith(suffix):
            out.append(d.message)
    return out


def command(app, kind, body):
    app._on_message(BASE + "cmd/" + kind, json.dumps({"v": 1, **body}).encode())


def test_connect_publishes_info_state_then_online_with_the_will_set():
    app, hw, client = make_app()
    asyncio.run(app._on_connect())
    assert client.kw["will"] == (BASE + "status", b"offline", 1, True)
    assert client.subscribed == [BASE + "cmd/#", "dominoes/v1/companion/+/status"]
    msgs = decoded(client)
    assert [type(m).__name__ for m in msgs] == ["Info", "State", "HubStatus"]
    assert msgs[0].boot == 1 and msgs[0].ka == 4 and msgs[2].online
    assert hw.load_boot() == 1


def test_scene_ack_state_and_the_memory_of_the_last_16_ids():
    app, _hw, client = make_app()
    command(app, "scene", {"id": "c-0", "turn": "p1", "open": ["mx"], "dbl": "p2"})
    ack, state = decoded(client)
    assert (ack.id, ack.ok, ack.seq, state.scene, state.seq) == ("c-0", True, 1, "c-0", 2)
    for i in range(1, REMEMBERED_IDS + 1):
        command(app, "scene", {"id": f"c-{i}", "turn": "p3"})
    client.published.clear()
    command(app, "scene", {"id": "c-5", "turn": "p1"})  # remembered: acked, not applied
    assert [type(m).__name__ for m in decoded(client)] == ["Ack"] and app.roles["p3"] == "turn"
    command(app, "scene", {"id": "c-0", "turn": "p1"})  # forgotten: applied again
    assert app.roles["p1"] == "turn"


def test_expired_bad_and_unknown_commands():
    app, hw, client = make_app()
    hw.ticks_ms = lambda: 100_000
    command(app, "scene", {"id": "c-old", "turn": "p1", "exp": 10, "t": 99_000})
    command(app, "scene", {"id": "c-new", "turn": "p2", "exp": 5000, "t": 99_000})
    command(app, "scene", {"id": "c-bad", "turn": "zz"})
    command(app, "nope", {"id": "c-x"})
    command(app, "identify", {"id": "c-i", "ms": 999999})
    command(app, "leds", {"id": "c-l", "rgb": ["zzzzzz"]})
    errs = [(a.id, a.err) for a in decoded(client, "/ack")]
    assert errs == [("c-old", "expired"), ("c-new", None), ("c-bad", "bad_slot"),
                    ("c-x", "unknown_cmd"), ("c-i", "bad_ms"), ("c-l", "bad_rgb")]
    assert app.scene["id"] == "c-new"
    command(app, "scene", {"id": "c-old", "turn": "p1"})  # an expired id was not remembered
    assert app.scene["id"] == "c-old"
    app._on_message(BASE + "cmd/scene", b"{not json")
    app._on_message(BASE + "cmd/scene", b"{" + b" " * 2000 + b"}")
    assert app.rejected == 2
    assert [t for t, *_ in client.published[-2:]] == [BASE + "log/warning"] * 2


def test_frames_map_roles_to_theme_colours_with_blink_alert_and_raw_leds():
    app, hw, _client = make_app()
    command(app, "scene", {"id": "c-1", "turn": "p1", "open": ["mx"], "dbl": "p2"})
    on, off = app.frame(0), app.frame(250)  # blink phases
    assert on[1] == THEME["turn"] and on[9] == THEME["open"] and on[0] == THEME["idle"]
    assert (on[2], off[2]) == (THEME["dbl"], THEME["off"])
    command(app, "scene", {"id": "c-2", "turn": "p1", "alert": "MT-8"})
    t = hw.ticks_ms()
    flashes = {app.frame(t + 10 + d)[5] for d in (0, 250)}
    assert THEME["alert"] in flashes
    assert app.frame(t + 5000)[5] == THEME["idle"]  # the alert lasts 3 s
    command(app, "scene", {"id": "c-3", "over": 1, "turn": "p1"})
    assert set(app.frame(0)) == {THEME["over"]}
    command(app, "leds", {"id": "c-4", "rgb": ["ff0000", "00ff00"]})
    assert app.frame(0)[:3] == [(255, 0, 0), (0, 255, 0), THEME["off"]]


def test_sensing_debounces_markers_and_reports_button_presses():
    app, hw, client = make_app()

    async def run():
        task = asyncio.ensure_future(app.sense_loop(period_ms=5))
        hw.set_marker("p3", True)
        await asyncio.sleep(0.05)
        hw.hold("done")
        await asyncio.sleep(0.03)
        hw.hold("done", False)
        await asyncio.sleep(0.03)
        task.cancel()
    asyncio.run(run())
    msgs = decoded(client)
    markers = [m for m in msgs if isinstance(m, p.MarkerEvt)]
    buttons = [m for m in msgs if isinstance(m, p.ButtonEvt)]
    assert [(m.slot, m.on) for m in markers] == [("p3", True)]
    assert [b.btn for b in buttons] == ["done"]
    assert next(m.mk for m in msgs if isinstance(m, p.State)) == ("p3",)
    seqs = [m.seq for m in msgs]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_companion_online_makes_the_hub_republish_within_two_seconds():
    app, hw, client = make_app()
    hw.random = lambda: 0.01

    async def run():
        app._on_message("dominoes/v1/companion/venue-1/status", b"online")
        await asyncio.sleep(0.1)
    asyncio.run(run())
    assert [type(m).__name__ for m in decoded(client)] == ["Info", "State"]
