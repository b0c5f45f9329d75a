# Entry point for the MicroPython unix port (tests): the same firmware with FakeHardware.
# usage: micropython unix_main.py CONFIG.json
# stdin lines: "marker SLOT 0|1", "press BUTTON", "leds", "freeze 0|1", "quit"
# stdout lines: "EVENT kind detail", "LEDS rrggbb ...", "READY"
import asyncio
import json
import sys

from hubapp import HubApp
from mqttlite import MQTTClient
from seam import FakeHardware


def hexes(frame):
    return " ".join("{:02x}{:02x}{:02x}".format(*c) for c in frame)


async def control(app, hw):
    stdin = asyncio.StreamReader(sys.stdin)
    while True:
        line = await stdin.readline()
        if not line:
            return
        words = line.decode().split()
        if not words:
            continue
        if words[0] == "marker":
            hw.set_marker(words[1], words[2] == "1")
        elif words[0] == "press":
            hw.hold(words[1])
            await asyncio.sleep(0.2)
            hw.hold(words[1], False)
        elif words[0] == "leds":
            print("LEDS", hexes(app.frame(hw.ticks_ms())))
        elif words[0] == "freeze":
            app.client.frozen = words[1] == "1"
            print("EVENT frozen", words[1])
        elif words[0] == "quit":
            sys.exit(0)


async def main(cfg):
    hw = FakeHardware(boot_file=cfg.get("boot_file"))

    def factory(**kw):
        return MQTTClient(ticks=hw.ticks_ms, **kw)

    app = HubApp(cfg, hw, factory)
    app.on_change = lambda kind, detail: print("EVENT", kind, detail)
    asyncio.create_task(control(app, hw))
    print("READY")
    await app.run()


with open(sys.argv[1]) as f:
    asyncio.run(main(json.load(f)))
