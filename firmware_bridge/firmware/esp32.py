# The real hub hardware behind the seam (see seam.py): ESP32, one WS2812 strip with one
# segment per slot, one hall switch per slot (active low), two buttons (active low).
import asyncio
import time

import machine
import neopixel
import network

SLOTS = ("eng", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "mx")
BUTTONS = ("done", "draw")


class Esp32Hardware:
    def __init__(self, cfg):
        self.slots = SLOTS
        self.buttons = BUTTONS
        self.per_slot = cfg.get("leds_per_slot", 1)
        self.led_count = len(SLOTS)
        self._strip = neopixel.NeoPixel(machine.Pin(cfg.get("led_pin", 4)),
                                        self.led_count * self.per_slot)
        pull = machine.Pin.PULL_UP
        self._hall = [machine.Pin(n, machine.Pin.IN, pull) for n in cfg["hall_pins"]]
        self._btn = [machine.Pin(n, machine.Pin.IN, pull) for n in cfg["button_pins"]]
        self._cfg = cfg
        self._rand = machine.rng if hasattr(machine, "rng") else None

    def write_leds(self, colours):
        i = 0
        for c in colours:
            for _ in range(self.per_slot):
                self._strip[i] = c
                i += 1
        self._strip.write()

    def read_markers(self):
        return [s for s, pin in zip(self.slots, self._hall) if pin.value() == 0]

    def read_buttons(self):
        return [b for b, pin in zip(self.buttons, self._btn) if pin.value() == 0]

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def random(self):
        import random
        return random.random()

    def load_boot(self):
        try:
            with open("boot.txt") as f:
                return int(f.read())
        except (OSError, ValueError):
            return 0

    def save_boot(self, n):
        with open("boot.txt", "w") as f:
            f.write(str(n))

    async def network_up(self):
        wlan = network.WLAN(network.STA_IF)
        wlan.active(True)
        if not wlan.isconnected():
            wlan.connect(self._cfg["wifi_ssid"], self._cfg["wifi_password"])
        while not wlan.isconnected():
            self.write_leds([(0, 0, 16)] * self.led_count)  # dim blue: waiting for Wi-Fi
            await asyncio.sleep(0.5)
        return True
