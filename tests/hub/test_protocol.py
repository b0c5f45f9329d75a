"""The codec: examples of protocol.md round-trip, off-contract payloads are rejected and
counted, and the decoder never raises anything but ProtocolError (fuzzed)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.scenes import alert_code, player_slot, scene_from_mapping, scene_from_summary

HUB = "h-3c61052a"
EXAMPLES = {
    "info": b'{"v":1,"hub":"h-3c61052a","fw":"0.3.1","hw":"mth-r2","boot":17,'
            b'"slots":["eng","p1","p2","p3","p4","p5","p6","p7","p8","mx"],"leds":10,'
            b'"sense":["marker","button"]}',
    "state": b'{"v":1,"boot":17,"seq":42,"mk":["p2","mx"],"btn":0,"scene":"c-0193"}',
    "evt/marker": b'{"v":1,"boot":17,"seq":43,"slot":"p3","on":1,"t":912345}',
    "evt/button": b'{"v":1,"boot":17,"seq":44,"btn":"done","t":913001}',
    "cmd/scene": b'{"v":1,"id":"c-0194","exp":5000,"turn":"p3","open":["p2","mx"],'
                 b'"dbl":"p1","alert":null,"fx":"pulse"}',
    "ack": b'{"v":1,"id":"c-0195","ok":0,"err":"bad_slot","seq":46}',
}


@pytest.mark.parametrize("suffix", sorted(EXAMPLES))
def test_contract_examples_decode_and_reencode_to_the_same_json(suffix):
    topic = f"dominoes/v1/hub/{HUB}/{suffix}"
    decoded = p.decode(topic, EXAMPLES[suffix])
    assert decoded.owner == HUB
    out = p.encode(HUB, decoded.message)
    assert out.topic == topic
    assert p.decode(out.topic, out.payload) == decoded
    original = {k: v for k, v in json.loads(EXAMPLES[suffix]).items() if v is not None}
    assert json.loads(out.payload) == original


def test_topic_table_qos_and_retain():
    assert p.encode(HUB, p.HubStatus(True)) == (
        f"dominoes/v1/hub/{HUB}/status", b"online", 1, True)
    assert p.encode("tablet-1", p.CompanionStatus(False)) == (
        "dominoes/v1/companion/tablet-1/status", b"offline", 1, True)
    out = p.encode(HUB, p.HubLog("hello"), extra="warning")
    assert (out.topic, out.qos, out.retain) == (f"dominoes/v1/hub/{HUB}/log/warning", 0, False)
    assert p.encode(HUB, p.State(boot=1, seq=2)).retain
    assert not p.encode(HUB, p.SceneCmd(id="c-1")).retain


def test_unknown_fields_are_ignored_and_a_bad_known_field_drops_the_message():
    topic = f"dominoes/v1/hub/{HUB}/evt/marker"
    ok = p.decode(topic, b'{"v":2,"boot":1,"seq":2,"slot":"p1","on":0,"future":[1,2]}')
    assert ok.message == p.MarkerEvt(boot=1, seq=2, slot="p1", on=False, v=2)
    with pytest.raises(p.ProtocolError) as err:
        p.decode(topic, b'{"v":1,"boot":1,"seq":2,"slot":"p9","on":0}')
    assert err.value.reason == "invalid:slot"


@pytest.mark.parametrize("topic,payload,reason", [
    (f"dominoes/v1/hub/{HUB}/ack", b"x" * 1025, "oversize"),
    (f"dominoes/v1/hub/{HUB}/ack", b'{"v":1,"id":"\xff"}', "utf8"),
    (f"dominoes/v1/hub/{HUB}/ack", b"{nope", "json"),
    (f"dominoes/v1/hub/{HUB}/ack", b"[1]", "shape"),
    (f"dominoes/v1/hub/{HUB}/ack", b'{"v":1,"ok":1,"seq":1}', "missing:id"),
    (f"dominoes/v1/hub/{HUB}/ack", b'{"id":"c-1","ok":1,"seq":1}', "missing:v"),
    (f"dominoes/v1/hub/{HUB}/ack", b'{"v":1,"id":"C-1","ok":1,"seq":1}', "invalid:id"),
    (f"dominoes/v1/hub/{HUB}/ack", b'{"v":1,"id":"c-1","ok":true,"seq":-1}', "invalid:seq"),
    (f"dominoes/v1/hub/{HUB}/ack", b'{"v":1,"id":"c-1","ok":1,"seq":NaN}', "json"),
    (f"dominoes/v1/hub/{HUB}/state", b'{"v":1,"boot":1,"seq":1,"mk":["p1","p1"]}', "invalid:mk"),
    (f"dominoes/v1/hub/{HUB}/status", b"maybe", "invalid:status"),
    (f"dominoes/v1/hub/{HUB}/info", EXAMPLES["info"].replace(b"3c61052a", b"other"),
     "invalid:hub"),
    (f"dominoes/v1/hub/{HUB}/cmd/nope", b"{}", "topic"),
    ("dominoes/v1/hub/H-1/ack", b"{}", "topic"),
    ("dominoes/v1/hub/-h/ack", b"{}", "topic"),
    ("other/v1/hub/h-1/ack", b"{}", "topic"),
    (f"dominoes/v1/hub/{HUB}/log/loud", b"x", "topic"),
])
def test_off_contract_payloads_are_rejected_with_a_reason(topic, payload, reason):
    with pytest.raises(p.ProtocolError) as err:
        p.decode(topic, payload)
    assert err.value.reason == reason


def test_decoder_counts_and_logs_rejections_and_never_raises(caplog):
    decoder = p.Decoder()
    assert decoder(f"dominoes/v1/hub/{HUB}/ack", b"x" * 2000) is None
    assert decoder(f"dominoes/v1/hub/{HUB}/ack", b"{") is None
    assert decoder(f"dominoes/v1/hub/{HUB}/state", EXAMPLES["state"]).kind == "state"
    assert decoder.rejected == {"oversize": 1, "json": 1}
    assert (decoder.accepted, decoder.rejected_total) == (1, 2)
    assert f"hub/{HUB}/ack" in caplog.text and "oversize" in caplog.text


def test_encode_refuses_invalid_messages():
    with pytest.raises(ValueError):
        p.encode(HUB, p.SceneCmd(id="c-1", turn="p9"))
    with pytest.raises(ValueError):
        p.encode("Bad/Hub", p.HubStatus(True))
    with pytest.raises(ValueError):
        p.encode(HUB, p.LedsCmd(id="c-1", rgb=("ffffff",) * 200))


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-2**60, 2**60) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=12)
_suffixes = st.sampled_from([s.suffix for s in p.SPECS if s.fields] + ["status", "log/info"])


@settings(max_examples=400, deadline=None)
@given(_suffixes, st.binary(max_size=1500))
def test_fuzz_decoder_on_random_bytes(suffix, payload):
    _decode_or_reason(f"dominoes/v1/hub/{HUB}/{suffix}", payload)


@settings(max_examples=400, deadline=None)
@given(_suffixes, st.sampled_from(sorted(EXAMPLES)), st.dictionaries(st.text(max_size=6), _json))
def test_fuzz_decoder_on_mutated_examples(suffix, example, changes):
    body = json.loads(EXAMPLES[example])
    body.update(changes)
    decoded = _decode_or_reason(f"dominoes/v1/hub/{HUB}/{suffix}", json.dumps(body).encode())
    if isinstance(decoded, p.Decoded) and decoded.kind not in ("log", "status"):
        out = p.encode(HUB, decoded.message)  # whatever decodes, re-encodes validly
        assert p.decode(out.topic, out.payload) == decoded


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.binary(max_size=64))
def test_fuzz_topics(topic, payload):
    decoder = p.Decoder()
    result = decoder(topic, payload)
    assert result is None or result.owner and p.is_id(result.owner)
    assert decoder.rejected_total + decoder.accepted == 1
    assert "internal" not in decoder.rejected


def _decode_or_reason(topic, payload):
    try:
        return p.decode(topic, payload)
    except p.ProtocolError as exc:
        assert exc.reason.split(":")[0] in {"oversize", "utf8", "json", "shape", "missing",
                                            "invalid", "topic"}
        return exc.reason


def test_scene_from_summary():
    scene = scene_from_summary(turn=2, markers=["p2", 0], open_double="p1", alert="MT-8",
                               mexican_train_open=True)
    assert scene == p.Scene(turn="p3", open=("p1", "p2", "mx"), dbl="p1", alert="MT-8")
    over = scene_from_mapping({"turn": "p1", "round_over": True, "alert": "5-3 cannot go",
                               "ignored": 1})
    assert over == p.Scene(turn=None, over=True, alert="refused")
    assert alert_code(None) is None and player_slot(7) == "p8"
    with pytest.raises(ValueError):
        scene_from_summary(turn="p9")
    cmd = p.SceneCmd.of(scene, id="c-7", exp=2000, t=5)
    assert cmd.scene == scene and p.decode(*p.encode("h-1", cmd)[:2]).message == cmd


def test_marker_mismatch_and_button_actions():
    from firmware_bridge.scenes import button_action, marker_mismatch
    assert marker_mismatch(["mx", "p2"], ["p2", "p3"]) == {"extra": ["mx"], "missing": ["p3"]}
    assert marker_mismatch(["p1"], ["p1"]) == {"extra": [], "missing": []}
    assert button_action("done") == "pass" and button_action("draw") == "draw"
    assert button_action("done", {"done": "end-turn"}) == "end-turn"
    assert button_action("menu") is None


def test_scene_from_the_companions_table_view():
    from firmware_bridge.scenes import scene_from_table_view
    assert scene_from_table_view({"round": None}) is None
    view = {"seq": 12, "last_refusal": {"seq": 12, "rule": "MT-8", "message": "..."},
            "round": {"current": 1, "round_over": False, "must_cover": "p3", "trains": [
                {"name": "p1", "owner": 0, "marker": True, "open_double": False},
                {"name": "p2", "owner": 1, "marker": False, "open_double": False},
                {"name": "p3", "owner": 2, "marker": False, "open_double": True},
                {"name": "mx", "owner": None, "marker": False, "open_double": False}]}}
    assert scene_from_table_view(view) == p.Scene(
        turn="p2", open=("p1", "mx"), dbl="p3", alert="MT-8")
    later = {**view, "seq": 13, "round": {**view["round"], "round_over": True}}
    assert scene_from_table_view(later) == p.Scene(open=("p1", "mx"), over=True)
    chicken = {"seq": 1, "round": {"current": 0, "lines": [{"name": "l1"}], "must_cover": "l1"}}
    assert scene_from_table_view(chicken) == p.Scene(turn="p1")
