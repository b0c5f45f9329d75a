"""`python -m firmware_bridge bench`: command -> ack latency and event throughput through a
real Mosquitto on loopback, with 1 and with N simulated hubs (the firmware on CPython, in a
child process so that hubs and companion do not share one GIL). Bounded: at most 500 hubs,
a few seconds per phase. Figures depend on the machine's load: say so next to them.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import threading
import time
from typing import Any

from . import protocol as p
from .bridge import HubEvent, HubLink
from .broker import MosquittoBroker, mosquitto_binary, start_local_broker

MAX_HUBS = 500


def _fleet_main(url: str, names: list[str], conn: Any) -> None:
    """Child process: run the hubs; answer ("burst", k) by k marker events per hub."""
    from .simulator import Fleet

    with Fleet(url, names, keepalive=30) as fleet:
        conn.send("started")
        while True:
            cmd = conn.recv()
            if cmd[0] == "burst":
                async def burst(k: int = cmd[1]) -> None:
                    for i in range(k):  # one event per hub per round, the queues kept short
                        for hub in fleet.hubs.values():
                            hub.app._json("evt/marker", hub.app._stamp(
                                {"slot": "p1", "on": i % 2}))
                        while any(len(h.app.client._queue) > 100 for h in fleet.hubs.values()):
                            await asyncio.sleep(0.001)
                fleet.call(burst, timeout=120)
                conn.send("done")
            else:
                break


class _Probe:
    """on_event target: ack latencies by command id, marker counts."""

    def __init__(self) -> None:
        self.sent: dict[str, float] = {}
        self.latency_ms: list[float] = []
        self.markers = 0
        self.online: set[str] = set()
        self.lock = threading.Lock()
        self.acked = threading.Condition(self.lock)

    def __call__(self, event: HubEvent) -> None:
        now = time.perf_counter()
        with self.lock:
            if event.kind == "ack":
                start = self.sent.pop(event.message.id, None)
                if start is not None:
                    self.latency_ms.append((now - start) * 1000)
                    self.acked.notify_all()
            elif event.kind == "marker":
                self.markers += 1
            elif event.kind == "online":
                self.online.add(event.hub)
            elif event.kind == "offline":
                self.online.discard(event.hub)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(q / 100 * (len(values) - 1)))]


def run_phase(url: str, hubs: int, seconds: float = 4.0, rate: float = 200.0,
              burst: int = 50) -> dict:
    """One phase: `hubs` hubs; scenes at `rate`/s in total (round-robin) for `seconds`;
    then `burst` marker events from every hub, counted at the companion."""
    hubs = max(1, min(hubs, MAX_HUBS))
    names = [f"h-bench-{i:04d}" for i in range(hubs)]
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_fleet_main, args=(url, names, child), daemon=True)
    proc.start()
    probe = _Probe()
    link = HubLink(url, f"bench-{hubs}", on_event=probe, ack_timeout=5.0)
    try:
        parent.recv()
        link.start()
        deadline = time.monotonic() + 30
        while len(probe.online) < hubs and time.monotonic() < deadline:
            time.sleep(0.05)
        if len(probe.online) < hubs:
            raise RuntimeError(f"only {len(probe.online)} of {hubs} hubs came online")
        time.sleep(0.5)  # let the births settle
        interval = 1.0 / rate
        n = int(seconds * rate)
        start = time.perf_counter()
        for i in range(n):
            target = start + i * interval
            delay = target - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            hub = names[i % hubs]
            with probe.lock:
                # every scene differs (fx tag), or HubLink would not send an unchanged one
                scene = p.Scene(turn=f"p{1 + i % 8}", open=("mx",), fx=f"bench-{i}")
                cmd_id = link.send_scene(hub, scene)
                probe.sent[cmd_id] = time.perf_counter()
        with probe.lock:
            probe.acked.wait_for(lambda: not probe.sent, timeout=10)
            lost = len(probe.sent)
        latencies = list(probe.latency_ms)
        per_hub = max(burst, 2000 // hubs)
        parent.send(("burst", per_hub))
        t0 = time.perf_counter()
        expected = per_hub * hubs
        while probe.markers < expected and time.perf_counter() - t0 < 30:
            time.sleep(0.005)
        parent.recv()
        elapsed = time.perf_counter() - t0
        return {"hubs": hubs, "commands": n, "rate_per_s": rate, "unacked": lost,
                "p50_ms": round(_percentile(latencies, 50), 2),
                "p99_ms": round(_percentile(latencies, 99), 2),
                "max_ms": round(max(latencies, default=float("nan")), 2),
                "events": probe.markers, "events_expected": expected,
                "events_per_s": round(probe.markers / elapsed, 1),
                "rejected": link.decoder.rejected_total, "resent": link.stats["resent"]}
    finally:
        link.stop()
        try:
            parent.send(("stop",))
        except (BrokenPipeError, OSError):
            pass
        proc.join(10)
        if proc.is_alive():
            proc.kill()


def main(hub_counts: list[int], seconds: float, rate: float, burst: int, as_json: bool,
         url: str | None = None) -> int:
    broker = None
    if url is None:
        if not mosquitto_binary():
            print("warning: no mosquitto binary; measuring the embedded amqtt broker")
        broker = MosquittoBroker().start() if mosquitto_binary() else start_local_broker()
        url = broker.url
    results = []
    try:
        for hubs in hub_counts:
            results.append(run_phase(url, hubs, seconds, rate, burst))
            if not as_json:
                r = results[-1]
                print(f"{r['hubs']:4d} hubs: command->ack p50 {r['p50_ms']:7.2f} ms  "
                      f"p99 {r['p99_ms']:7.2f} ms  max {r['max_ms']:7.2f} ms  "
                      f"({r['commands']} scenes at {r['rate_per_s']:.0f}/s, "
                      f"{r['unacked']} unacked)  events {r['events_per_s']:8.1f}/s "
                      f"({r['events']}/{r['events_expected']})", flush=True)
    finally:
        if broker:
            broker.close()
    if as_json:
        print(json.dumps(results, indent=2))
    else:
        print("(loopback, one machine; figures move with other load on it)")
    return 0 if all(r["unacked"] == 0 for r in results) else 1
