"""Virtual hubs: the real firmware (firmware/hubapp.py + mqttlite.py) on CPython with fake
hardware. One hub in a terminal (LEDs drawn in colour, keys toggle markers and press
buttons), a scripted hub for tests, or many hubs in one asyncio loop for load tests.

    python -m firmware_bridge.simulator --hub h-0001 [--url mqtt://127.0.0.1:1883]
    python -m firmware_bridge.simulator --hub h-0001 --script moves.txt   # scripted
    python -m firmware_bridge.simulator --count 200 --prefix h-sim        # load

Keys: e 1-8 m toggle the marker on eng, p1-p8, mx; d = button done, r = button draw;
q = quit. Script lines: `marker p3 1`, `press done`, `sleep 0.5`, `freeze 1`, `quit`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Self

from .client import BrokerAddress
from .firmware.hubapp import HubApp
from .firmware.mqttlite import MQTTClient
from .firmware.seam import FakeHardware

KEYS = {"e": "eng", **{str(i): f"p{i}" for i in range(1, 9)}, "m": "mx"}


class SimulatedHub:
    """One virtual hub. Methods run on the asyncio loop that runs `run()`."""

    def __init__(self, hub: str, url: str, keepalive: int = 10, username: str | None = None,
                 password: str | None = None) -> None:
        address = BrokerAddress.parse(url)
        self.hw = FakeHardware()
        self.changes: list[tuple[str, Any]] = []
        cfg = {"hub": hub, "host": address.host, "port": address.port, "keepalive": keepalive,
               "user": username or address.username or hub,
               "password": password or address.password, "hw": "sim"}

        def factory(**kw: Any) -> MQTTClient:
            return MQTTClient(ticks=self.hw.ticks_ms, max_queue=256, **kw)

        self.app = HubApp(cfg, self.hw, factory)
        self.app.on_change = lambda kind, detail: self.changes.append((kind, detail))
        self._task: asyncio.Task | None = None

    @property
    def hub(self) -> str:
        return self.app.hub

    async def run(self) -> None:
        await self.app.run()

    def set_marker(self, slot: str, on: bool) -> None:
        self.hw.set_marker(slot, on)

    async def press(self, button: str) -> None:
        self.hw.hold(button)
        await asyncio.sleep(0.15)
        self.hw.hold(button, False)

    def freeze(self, frozen: bool = True) -> None:
        self.app.client.frozen = frozen

    def stop(self) -> None:
        self.app.client.stop()


class Fleet:
    """Many SimulatedHubs on one asyncio loop in a background thread; thread-safe helpers
    for tests and the bench (`call` runs a function or coroutine on the loop)."""

    def __init__(self, url: str, hubs: list[str], **hub_kw: Any) -> None:
        self.url = url
        self.names = list(hubs)
        self.hub_kw = hub_kw
        self.hubs: dict[str, SimulatedHub] = {}
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="sim-fleet",
                                        daemon=True)
        self._tasks: list[asyncio.Task] = []

    def start(self) -> Fleet:
        self._thread.start()
        self.call(self._start_all)
        return self

    async def _start_all(self) -> None:
        for name in self.names:
            hub = SimulatedHub(name, self.url, **self.hub_kw)
            self.hubs[name] = hub
            self._tasks.append(asyncio.ensure_future(self._guard(hub)))

    async def _guard(self, hub: SimulatedHub) -> None:
        try:
            await hub.run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - report, do not take the fleet down
            print(f"simulated hub {hub.hub} stopped: {exc!r}", file=sys.stderr)

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float = 10) -> Any:
        async def wrapper() -> Any:
            result = fn(*args)
            if asyncio.iscoroutine(result):
                result = await result
            return result
        fut: Future = asyncio.run_coroutine_threadsafe(wrapper(), self.loop)
        return fut.result(timeout)

    def __getitem__(self, name: str) -> SimulatedHub:
        return self.hubs[name]

    def connected(self) -> int:
        return self.call(lambda: sum(h.app.client.connected for h in self.hubs.values()))

    def stop(self) -> None:
        if not self.loop.is_running():
            return

        async def shutdown() -> None:
            for hub in self.hubs.values():
                hub.stop()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)
        try:
            self.call(shutdown)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(5)
            self.loop.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ------------------------------------------------------------------------ terminal mode
def render(hub: SimulatedHub) -> str:
    """One terminal line: a coloured block per slot, its name, and a marker dot."""
    cells = []
    for slot, (r, g, b) in zip(hub.hw.slots, hub.hw.leds):
        mark = "*" if slot in hub.hw.markers else " "
        cells.append(f"\x1b[48;2;{r};{g};{b}m  \x1b[0m{slot}{mark}")
    state = "online" if hub.app.client.connected else "offline"
    return "\r" + " ".join(cells) + f"  [{state} boot {hub.app.boot}]\x1b[K"


async def _terminal(hub: SimulatedHub) -> None:
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    keys: asyncio.Queue[str] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    loop.add_reader(fd, lambda: keys.put_nowait(os.read(fd, 1).decode(errors="ignore")))
    hub.hw.on_leds = lambda frame: print(render(hub), end="", flush=True)
    runner = asyncio.ensure_future(hub.run())
    print("keys: e 1-8 m markers, d done, r draw, q quit")
    try:
        while True:
            key = await keys.get()
            if key == "q":
                break
            if key in KEYS:
                hub.set_marker(KEYS[key], KEYS[key] not in hub.hw.markers)
            elif key in "dr":
                await hub.press("done" if key == "d" else "draw")
            print(render(hub), end="", flush=True)
    finally:
        loop.remove_reader(fd)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        hub.stop()
        runner.cancel()
        print()


async def _scripted(hub: SimulatedHub, lines: list[str]) -> None:
    runner = asyncio.ensure_future(hub.run())
    for _ in range(100):
        if hub.app.client.connected:
            break
        await asyncio.sleep(0.05)
    for line in lines:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "marker":
            hub.set_marker(words[1], words[2] == "1")
        elif words[0] == "press":
            await hub.press(words[1])
        elif words[0] == "sleep":
            await asyncio.sleep(float(words[1]))
        elif words[0] == "freeze":
            hub.freeze(words[1] == "1")
        elif words[0] == "quit":
            break
        print(f"{hub.hub}: {line.strip()}", flush=True)
    await asyncio.sleep(0.3)
    hub.stop()
    runner.cancel()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m firmware_bridge.simulator", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hub", default="h-0001")
    ap.add_argument("--url", default=os.environ.get("MQTT_URL", "mqtt://127.0.0.1:1883"))
    ap.add_argument("--script", help="file of script lines ('-' = stdin)")
    ap.add_argument("--count", type=int, default=0, help="run COUNT headless hubs")
    ap.add_argument("--prefix", default="h-sim")
    ap.add_argument("--keepalive", type=int, default=10)
    args = ap.parse_args(argv)
    if args.count:
        fleet = Fleet(args.url, [f"{args.prefix}-{i:04d}" for i in range(args.count)],
                      keepalive=args.keepalive)
        with fleet:
            print(f"{args.count} simulated hubs on {args.url}; Ctrl-C stops")
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                pass
        return 0
    hub = SimulatedHub(args.hub, args.url, keepalive=args.keepalive)
    if args.script:
        if args.script == "-":
            text = sys.stdin.read()
        else:
            with open(args.script) as f:
                text = f.read()
        asyncio.run(_scripted(hub, text.splitlines()))
    elif sys.stdin.isatty():
        asyncio.run(_terminal(hub))
    else:
        asyncio.run(_scripted(hub, sys.stdin.read().splitlines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
