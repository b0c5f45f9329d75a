# The hub program: protocol lifecycle, scenes -> LEDs, markers and buttons -> events.
# MicroPython and CPython alike; all hardware goes through the seam object `hw`
# (see seam.py): hw.slots, hw.buttons, hw.led_count, hw.write_leds(colours),
# hw.read_markers(), hw.read_buttons(), hw.ticks_ms(), hw.ticks_diff(a, b), hw.random(),
# hw.load_boot(), hw.save_boot(n), await hw.network_up().
import asyncio
import json

FW_VERSION = "0.4.0"
ROOT = "dominoes/v1/"
MAX_PAYLOAD = 1024
REMEMBERED_IDS = 16
# theme: role -> colour; the scene names roles, the hub picks colours
THEME = {
    "idle": (8, 8, 8), "turn": (0, 160, 40), "open": (200, 110, 0), "dbl": (0, 60, 255),
    "alert": (255, 0, 0), "over": (180, 140, 0), "identify": (255, 255, 255), "off": (0, 0, 0),
}
ALERT_MS = 3000


def _is_id(s):
    if not isinstance(s, str) or not 0 < len(s) <= 64 or s[0] == "-" or s[-1] == "-":
        return False
    for c in s:
        if not ("a" <= c <= "z" or "0" <= c <= "9" or c == "-"):
            return False
    return True


class HubApp:
    def __init__(self, config, hw, client_factory):
        self.cfg = config
        self.hw = hw
        self.hub = config["hub"]
        self.base = ROOT + "hub/" + self.hub + "/"
        self.boot = hw.load_boot()
        self.seq = 0
        self.scene = None  # the last applied cmd/scene as a dict (kept when the broker goes)
        self.roles = {}  # slot -> role
        self.recent = []  # [(id, ok, err)], last REMEMBERED_IDS commands
        self.markers = set(hw.read_markers())
        self._pressed = set()
        self.rejected = 0
        self.on_change = None  # tests/simulator: callable(kind, detail)
        self._alert_until = None
        self._identify_until = None
        self._raw = None
        self._last_frame = None
        self.keepalive = config.get("keepalive", 10)
        self._last_pub = 0
        self.client = client_factory(
            client_id=self.hub, host=config["host"], port=config["port"],
            user=config.get("user"), password=config.get("password"),
            keepalive=self.keepalive,
            will=(self.base + "status", b"offline", 1, True),
            on_connect=self._on_connect, on_message=self._on_message)

    # ------------------------------------------------------------------ outgoing
    def _json(self, suffix, body, retain=False, qos=1):
        body["v"] = 1
        self._last_pub = self.hw.ticks_ms()
        self.client.publish(self.base + suffix, json.dumps(body, separators=(",", ":")), qos, retain)

    def _stamp(self, body):
        self.seq += 1
        body["boot"] = self.boot
        body["seq"] = self.seq
        body["t"] = self.hw.ticks_ms() & 0x3FFFFFFF
        return body

    def publish_info(self):
        self._json("info", {"hub": self.hub, "fw": FW_VERSION, "hw": self.cfg.get("hw", "mth-r2"),
                            "boot": self.boot, "slots": list(self.hw.slots),
                            "leds": self.hw.led_count, "sense": ["marker", "button"],
                            "ka": self.keepalive}, True)

    def publish_state(self):
        mask = 0
        for i, b in enumerate(self.hw.buttons):
            if b in self._pressed:
                mask |= 1 << i
        mk = [s for s in self.hw.slots if s in self.markers]
        self._json("state", self._stamp({"mk": mk, "btn": mask,
                                         "scene": self.scene["id"] if self.scene else None}), True)

    def log(self, level, text):
        self.client.publish(self.base + "log/" + level, text[:200], 0, False)

    def _notify(self, kind, detail):
        if self.on_change:
            self.on_change(kind, detail)

    # ------------------------------------------------------------------ lifecycle
    async def _on_connect(self):
        self.boot += 1
        self.seq = 0
        self.hw.save_boot(self.boot)
        self.client.subscribe([self.base + "cmd/#", ROOT + "companion/+/status"])
        self.publish_info()
        self.publish_state()
        self.client.publish(self.base + "status", b"online", 1, True)
        self._notify("online", self.boot)

    def _on_message(self, topic, payload):
        if topic.startswith(ROOT + "companion/"):
            if payload == b"online":
                asyncio.create_task(self._rebirth_later(self.hw.random() * 2))
            return
        if not topic.startswith(self.base + "cmd/"):
            return
        kind = topic[len(self.base) + 4:]
        try:
            if len(payload) > MAX_PAYLOAD:
                raise ValueError("oversize")
            cmd = json.loads(payload)
            if not isinstance(cmd, dict) or not _is_id(cmd.get("id")):
                raise ValueError("bad_id")
        except Exception as exc:  # noqa: BLE001 - a bad command is counted, not fatal
            self.rejected += 1
            self.log("warning", "rejected " + kind + ": " + str(exc))
            return
        self.command(kind, cmd)

    async def _rebirth_later(self, seconds):
        await asyncio.sleep(seconds)
        self.publish_info()
        self.publish_state()

    def command(self, kind, cmd):
        cmd_id = cmd["id"]
        for rid, ok, err in self.recent:
            if rid == cmd_id:  # a repeat: ack again, do not apply again
                self._ack(cmd_id, ok, err)
                return
        t, exp = cmd.get("t"), cmd.get("exp")
        if isinstance(t, int) and isinstance(exp, int) and self.hw.ticks_diff(
                self.hw.ticks_ms() & 0x3FFFFFFF, t) > exp:
            self._ack(cmd_id, 0, "expired")  # not remembered: a fresh resend may apply
            self._notify("expired", cmd_id)
            return
        err = None
        if kind == "scene":
            err = self.apply_scene(cmd)
        elif kind == "identify":
            ms = cmd.get("ms", 3000)
            if not isinstance(ms, int) or not 0 <= ms <= 60000:
                err = "bad_ms"
            else:
                self._identify_until = self.hw.ticks_ms() + ms
        elif kind == "rebirth":
            self.publish_info()
            self.publish_state()
            return  # rebirth is answered by info + state, not an ack
        elif kind == "leds":
            err = self._raw_leds(cmd.get("rgb"))
        else:
            err = "unknown_cmd"
        ok = 0 if err else 1
        self.recent.append((cmd_id, ok, err))
        if len(self.recent) > REMEMBERED_IDS:
            self.recent.pop(0)
        self._ack(cmd_id, ok, err)
        if kind == "scene" and ok:
            self.publish_state()

    def _ack(self, cmd_id, ok, err):
        body = {"id": cmd_id, "ok": ok}
        if err:
            body["err"] = err
        self._json("ack", self._stamp(body))

    # ------------------------------------------------------------------ scenes
    def apply_scene(self, cmd):
        slots = self.hw.slots
        turn, dbl, opened = cmd.get("turn"), cmd.get("dbl"), cmd.get("open", [])
        if turn is not None and turn not in slots or dbl is not None and dbl not in slots:
            return "bad_slot"
        if not isinstance(opened, list) or any(s not in slots for s in opened):
            return "bad_slot"
        roles = {}
        for s in slots:
            roles[s] = "idle"
        for s in opened:
            roles[s] = "open"
        if turn:
            roles[turn] = "turn"
        if dbl:
            roles[dbl] = "dbl"
        if cmd.get("over"):
            for s in slots:
                roles[s] = "over"
        self.roles = roles
        self.scene = cmd
        self._raw = None
        alert = cmd.get("alert")
        self._alert_until = self.hw.ticks_ms() + ALERT_MS if alert else None
        self._notify("scene", cmd["id"])
        return None

    def _raw_leds(self, rgb):
        if not isinstance(rgb, list) or len(rgb) > self.hw.led_count:
            return "bad_rgb"
        try:
            self._raw = [(int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)) for c in rgb]
        except Exception:  # noqa: BLE001
            return "bad_rgb"
        return None

    def frame(self, now):
        """The LED colours at time `now` (ms): roles through the theme, with animations."""
        if self._raw is not None:
            return self._raw + [THEME["off"]] * (self.hw.led_count - len(self._raw))
        blink = (now // 250) % 2 == 0
        if self._identify_until is not None and self.hw.ticks_diff(self._identify_until, now) > 0:
            return [THEME["identify"] if blink else THEME["off"]] * self.hw.led_count
        alert = self._alert_until is not None and self.hw.ticks_diff(self._alert_until, now) > 0
        out = []
        for s in self.hw.slots:
            role = self.roles.get(s, "idle")
            if alert:
                role = "alert" if blink else role
            elif role == "dbl" and not blink:
                role = "off"
            out.append(THEME[role])
        return out

    # ------------------------------------------------------------------ loops
    async def sense_loop(self, period_ms=50):
        """Poll hall switches (debounced over two reads) and buttons (press edges)."""
        last = set(self.hw.read_markers())
        while True:
            await asyncio.sleep(period_ms / 1000)
            now_markers = set(self.hw.read_markers())
            if now_markers == last and now_markers != self.markers:
                for s in self.hw.slots:
                    if (s in now_markers) != (s in self.markers):
                        on = 1 if s in now_markers else 0
                        self._json("evt/marker", self._stamp({"slot": s, "on": on}))
                        self._notify("marker", s + " " + str(on))
                self.markers = now_markers
                self.publish_state()
            last = now_markers
            pressed = set(self.hw.read_buttons())
            for b in self.hw.buttons:
                if b in pressed and b not in self._pressed:
                    self._json("evt/button", self._stamp({"btn": b}))
                    self._notify("button", b)
            self._pressed = pressed

    async def heartbeat_loop(self):
        """Republish state when nothing went out for keepalive/2 s, so the companion can
        tell a frozen hub within 1.5 x keepalive (mosquitto 2.0 checks only every ~6 s)."""
        half = self.keepalive * 500
        while True:
            await asyncio.sleep(0.25)
            idle = self.hw.ticks_diff(self.hw.ticks_ms(), self._last_pub)
            if self.client.connected and not self.client.frozen and idle >= half:
                self.publish_state()

    async def render_loop(self, period_ms=50):
        while True:
            frame = self.frame(self.hw.ticks_ms())
            if frame != self._last_frame:
                self.hw.write_leds(frame)
                self._last_frame = frame
            await asyncio.sleep(period_ms / 1000)

    async def run(self):
        await self.hw.network_up()
        loops = [asyncio.create_task(self.sense_loop()), asyncio.create_task(self.render_loop()),
                 asyncio.create_task(self.heartbeat_loop())]
        try:
            await self.client.run()
        finally:
            for task in loops:
                task.cancel()
