# The hardware seam of the hub firmware, and an in-memory fake behind it.
# A seam object offers: slots (slot names, one LED segment and hall switch each), buttons
# (names), led_count, write_leds(colours), read_markers() -> slot names with a marker,
# read_buttons() -> names held down, ticks_ms(), ticks_diff(a, b), random() in [0, 1),
# load_boot() / save_boot(n) (session counter kept in flash), async network_up().
# esp32.py implements it with machine/neopixel/network; FakeHardware here serves the
# MicroPython unix port tests and the CPython simulator.
import time

try:
    import random as _random
except ImportError:  # pragma: no cover - very small ports
    _random = None

SLOTS = ("eng", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "mx")
BUTTONS = ("done", "draw")

if hasattr(time, "ticks_ms"):  # MicroPython
    ticks_ms, ticks_diff = time.ticks_ms, time.ticks_diff
else:
    _t0 = time.monotonic()

    def ticks_ms():
        return int((time.monotonic() - _t0) * 1000)

    def ticks_diff(a, b):
        return a - b


class FakeHardware:
    """Markers and buttons set by code (tests, terminal keys); LEDs kept as the last frame."""

    def __init__(self, slots=SLOTS, buttons=BUTTONS, boot_file=None):
        self.slots = tuple(slots)
        self.buttons = tuple(buttons)
        self.led_count = len(self.slots)
        self.leds = [(0, 0, 0)] * self.led_count
        self.markers = set()
        self.held = set()
        self.boot_file = boot_file
        self._boot = 0
        self.on_leds = None  # callable(frame) to render somewhere

    def write_leds(self, colours):
        self.leds = list(colours)
        if self.on_leds:
            self.on_leds(self.leds)

    def read_markers(self):
        return self.markers

    def read_buttons(self):
        return self.held

    def ticks_ms(self):
        return ticks_ms()

    def ticks_diff(self, a, b):
        return ticks_diff(a, b)

    def random(self):
        return _random.random() if _random else 0.5

    def load_boot(self):
        if self.boot_file:
            try:
                with open(self.boot_file) as f:
                    return int(f.read())
            except (OSError, ValueError):
                return 0
        return self._boot

    def save_boot(self, n):
        self._boot = n
        if self.boot_file:
            with open(self.boot_file, "w") as f:
                f.write(str(n))

    async def network_up(self):
        return True

    def set_marker(self, slot, on):
        (self.markers.add if on else self.markers.discard)(slot)

    def hold(self, button, down=True):
        (self.held.add if down else self.held.discard)(button)
