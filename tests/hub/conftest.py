"""Fixtures: a real Mosquitto on a free loopback port (killed at teardown), HubLinks and
fleets of simulated hubs that are always stopped, and a `wait_until` helper."""

import time

import pytest

from firmware_bridge.bridge import HubLink
from firmware_bridge.broker import MosquittoBroker, mosquitto_binary
from firmware_bridge.simulator import Fleet

needs_mosquitto = pytest.mark.skipif(
    mosquitto_binary() is None, reason="mosquitto binary not installed (apt-get install mosquitto)")


def wait_until(predicate, timeout=5.0, interval=0.02):
    """Poll `predicate` until truthy; return its value or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")
        time.sleep(interval)


@pytest.fixture
def broker(tmp_path):
    if mosquitto_binary() is None:
        pytest.skip("mosquitto binary not installed (apt-get install mosquitto)")
    b = MosquittoBroker(tmp_path / "broker").start()
    yield b
    b.close()


class Recorder:
    """on_event target that keeps every HubEvent."""

    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    def of(self, kind, hub=None):
        return [e for e in self.events if e.kind == kind and (hub is None or e.hub == hub)]


@pytest.fixture
def make_link():
    links = []

    def make(url, instance="test", **kw):
        rec = kw.pop("recorder", None) or Recorder()
        link = HubLink(url, instance, on_event=kw.pop("on_event", rec), **kw)
        link.recorder = rec
        links.append(link)
        link.start()
        assert link.wait_connected(10)
        return link
    yield make
    for link in links:
        link.stop()


@pytest.fixture
def make_fleet():
    fleets = []

    def make(url, hubs, **kw):
        fleet = Fleet(url, hubs, **kw).start()
        fleets.append(fleet)
        return fleet
    yield make
    for fleet in fleets:
        fleet.stop()
