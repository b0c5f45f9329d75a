# Device entry point (ESP32): copy hubapp.py, mqttlite.py, esp32.py, main.py and a
# config.json onto the board (docs/hub-hardware.md). config.json: hub, host, port, user,
# password, wifi_ssid, wifi_password, hall_pins, button_pins, led_pin.
import asyncio
import json

from esp32 import Esp32Hardware
from hubapp import HubApp
from mqttlite import MQTTClient


def main():
    with open("config.json") as f:
        cfg = json.load(f)
    hw = Esp32Hardware(cfg)

    def factory(**kw):
        return MQTTClient(ticks=hw.ticks_ms, **kw)

    asyncio.run(HubApp(cfg, hw, factory).run())


main()
