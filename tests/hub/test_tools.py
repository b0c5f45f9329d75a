"""Broker helpers and command lines: venue config, password hashes, the embedded amqtt
fallback, the scripted simulator and a tiny bench."""

import base64
import json
import os
import subprocess
import sys

import pytest

from firmware_bridge import broker as b
from firmware_bridge.__main__ import main as cli
from firmware_bridge.bridge import HubLink
from firmware_bridge.scenes import scene_from_summary

from .conftest import needs_mosquitto, wait_until


def test_password_hash_matches_mosquitto_passwd_format():
    # produced by `mosquitto_passwd -b -c pw u secret` (mosquitto 2.0.11)
    expected = ("$7$101$Zluc/aJ7OWW6mmLr$lPIXFaBl1mOvno5Vf2SZykJsf0PM/XSFVMFY9ylg4BUQ+1mAQi4mX1"
                "oNDKOTUyXMP+O8ajVjbOtkC14CM5le1A==")
    assert b.password_hash("secret", base64.b64decode("Zluc/aJ7OWW6mmLr")) == expected


def test_mosquitto_config_command_writes_passwords_acl_and_persistence(tmp_path, capsys):
    assert cli(["mosquitto-config", "--hubs", "h-1,h-2", "--out", str(tmp_path)]) == 0
    conf = (tmp_path / "mosquitto.conf").read_text()
    for line in ("allow_anonymous false", "persistence true", "max_packet_size 8192",
                 f"acl_file {tmp_path}/acl", "max_queued_messages 10000"):
        assert line in conf
    assert "user root" not in conf  # the venue broker keeps its own service user
    creds = json.loads((tmp_path / "credentials.json").read_text())
    assert sorted(creds) == ["companion", "h-1", "h-2"]
    assert oct((tmp_path / "credentials.json").stat().st_mode & 0o777) == "0o600"
    users = [line.split(":")[0] for line in (tmp_path / "passwd").read_text().splitlines()]
    assert users == ["companion", "h-1", "h-2"]
    acl = (tmp_path / "acl").read_text()
    assert "user h-2\ntopic write dominoes/v1/hub/h-2/status" in acl
    assert "topic read dominoes/v1/hub/h-2/cmd/#" in acl
    assert "topic write dominoes/v1/hub/h-2/cmd" not in acl
    # running it again keeps the passwords already flashed into hubs
    cli(["mosquitto-config", "--hubs", "h-1,h-3", "--out", str(tmp_path)])
    again = json.loads((tmp_path / "credentials.json").read_text())
    assert again["h-1"] == creds["h-1"] and "h-3" in again
    with pytest.raises(SystemExit):
        cli(["mosquitto-config", "--hubs", "H/1", "--out", str(tmp_path)])


def test_embedded_amqtt_fallback_carries_the_protocol(monkeypatch, caplog, make_fleet, tmp_path):
    monkeypatch.setattr(b, "mosquitto_binary", lambda: None)
    monkeypatch.delenv("MQTT_URL", raising=False)
    events = []
    link = HubLink(instance="amqtt", on_event=events.append).start()
    try:
        assert "embedded amqtt" in caplog.text
        assert isinstance(link.broker, b.EmbeddedBroker) and link.url.startswith("mqtt://127.0.0.1:")
        make_fleet(link.url, ["h-a"])
        wait_until(lambda: any(e.kind == "online" for e in events), 15)
        link.send_scene("h-a", scene_from_summary(turn="p1"))
        wait_until(lambda: any(e.kind == "ack" and e.message.ok for e in events), 10)
    finally:
        link.stop()


@needs_mosquitto
def test_scripted_simulator_command_line(broker, make_link):
    link = make_link(broker.url)
    script = "marker p5 1\nsleep 0.3\npress draw\nsleep 0.3\nquit\n"
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run([sys.executable, "-m", "firmware_bridge", "simulator", "--hub", "h-cli",
                          "--url", broker.url, "--script", "-"], input=script, text=True,
                         capture_output=True, timeout=30, env=env, check=False)
    assert out.returncode == 0, out.stderr
    wait_until(lambda: link.recorder.of("marker", "h-cli") and link.recorder.of("button", "h-cli"))
    assert link.recorder.of("marker", "h-cli")[0].message.slot == "p5"
    assert link.recorder.of("button", "h-cli")[0].message.btn == "draw"


@needs_mosquitto
def test_bench_phase_runs_small(broker):
    from firmware_bridge.bench import run_phase
    result = run_phase(broker.url, hubs=3, seconds=0.5, rate=40, burst=20)
    assert result["unacked"] == 0 and result["commands"] == 20
    assert result["events"] == result["events_expected"] == 2000 // 3 * 3
    assert 0 < result["p50_ms"] <= result["p99_ms"]
