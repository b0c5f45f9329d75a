"""Typed messages of the hub protocol (docs/protocol.md). Pure dataclasses: the table in
`protocol.SPECS` says how each one is encoded; import them from `protocol`."""

from __future__ import annotations

from dataclasses import dataclass

VERSION = 1  # schema minor written by this codec
SLOTS = ("eng", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "mx")


@dataclass(frozen=True)
class Scene:
    """Desired light scene by role (the hub's theme picks colours): no id, no expiry."""

    turn: str | None = None
    open: tuple[str, ...] = ()
    dbl: str | None = None
    alert: str | None = None
    over: bool = False
    fx: str | None = None


@dataclass(frozen=True)
class SceneCmd:
    """`cmd/scene`: a Scene plus command id, expiry ms, and the hub-clock send time `t`."""

    id: str
    exp: int = 5000
    turn: str | None = None
    open: tuple[str, ...] = ()
    dbl: str | None = None
    alert: str | None = None
    over: bool = False
    fx: str | None = None
    t: int | None = None
    v: int = VERSION

    @classmethod
    def of(cls, scene: Scene, id: str, exp: int = 5000, t: int | None = None) -> SceneCmd:
        return cls(id=id, exp=exp, t=t, turn=scene.turn, open=scene.open, dbl=scene.dbl,
                   alert=scene.alert, over=scene.over, fx=scene.fx)

    @property
    def scene(self) -> Scene:
        return Scene(self.turn, self.open, self.dbl, self.alert, self.over, self.fx)


@dataclass(frozen=True)
class IdentifyCmd:
    id: str
    ms: int = 3000
    exp: int = 5000
    t: int | None = None
    v: int = VERSION


@dataclass(frozen=True)
class RebirthCmd:
    id: str
    v: int = VERSION


@dataclass(frozen=True)
class LedsCmd:
    """Diagnostics only: one "rrggbb" per LED."""

    id: str
    rgb: tuple[str, ...] = ()
    exp: int = 5000
    t: int | None = None
    v: int = VERSION


@dataclass(frozen=True)
class Info:
    hub: str
    fw: str
    hw: str
    boot: int
    slots: tuple[str, ...] = SLOTS
    leds: int = len(SLOTS)
    sense: tuple[str, ...] = ("marker", "button")
    ka: int | None = None  # MQTT keepalive s; the hub sends something at least every ka/2
    v: int = VERSION


@dataclass(frozen=True)
class State:
    boot: int
    seq: int
    mk: tuple[str, ...] = ()
    btn: int = 0
    scene: str | None = None
    t: int | None = None
    v: int = VERSION


@dataclass(frozen=True)
class MarkerEvt:
    boot: int
    seq: int
    slot: str
    on: bool
    t: int = 0
    v: int = VERSION


@dataclass(frozen=True)
class ButtonEvt:
    boot: int
    seq: int
    btn: str
    t: int = 0
    v: int = VERSION


@dataclass(frozen=True)
class Ack:
    id: str
    ok: bool
    seq: int
    err: str | None = None
    boot: int | None = None
    t: int | None = None
    v: int = VERSION


@dataclass(frozen=True)
class HubStatus:
    online: bool


@dataclass(frozen=True)
class CompanionStatus:
    online: bool


@dataclass(frozen=True)
class HubLog:
    text: str


