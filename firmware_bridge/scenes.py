"""Game summary -> hub `Scene` (pure). The companion calls this on every table change.

    scene = scene_from_summary(turn="p3", markers=["p2"], open_double="p1",
                               round_over=False, alert="MT-8")
    link.send_scene("h-0001", scene)

Player n (0-based seat) sits on slot `player_slot(n)` = "p{n+1}"; the Mexican train is "mx",
the engine "eng". A free-text alert (a sentence) is reduced to the code "refused".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .protocol import SLOTS, Scene

_CODE = re.compile(r"[A-Za-z0-9_.:-]{1,32}\Z")


def player_slot(seat: int) -> str:
    """0-based seat -> "p1".."p8"."""
    if not 0 <= seat < 8:
        raise ValueError(f"seat must be 0..7, got {seat}")
    return f"p{seat + 1}"


def _slot(value: str | int | None, what: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, int):
        return player_slot(value)
    if value not in SLOTS:
        raise ValueError(f"{what} must be one of {SLOTS} or a seat number: {value!r}")
    return value


def alert_code(reason: str | None) -> str | None:
    """A rule id like "MT-8" stays; a sentence or anything else becomes "refused"."""
    if not reason:
        return None
    return reason if _CODE.match(reason) else "refused"


def scene_from_summary(
    turn: str | int | None = None,
    markers: Iterable[str | int] = (),
    open_double: str | int | None = None,
    round_over: bool = False,
    alert: str | None = None,
    mexican_train_open: bool = False,
    fx: str | None = None,
) -> Scene:
    """Build the scene for a table: whose turn, trains open to all (marker carried; plus the
    Mexican train when `mexican_train_open`), the open double to satisfy, round over, alert.
    Slots may be given as names ("p3") or 0-based seats (2). Raises ValueError on a bad slot."""
    open_slots = {_slot(m, "markers") for m in markers}
    if mexican_train_open:
        open_slots.add("mx")
    return Scene(
        turn=None if round_over else _slot(turn, "turn"),
        open=tuple(s for s in SLOTS if s in open_slots),
        dbl=None if round_over else _slot(open_double, "open_double"),
        alert=alert_code(alert),
        over=bool(round_over),
        fx=fx,
    )


def scene_from_mapping(summary: Mapping[str, Any]) -> Scene:
    """Same as `scene_from_summary`, from a plain dict with those keys (others ignored)."""
    keys = ("turn", "markers", "open_double", "round_over", "alert", "mexican_train_open", "fx")
    return scene_from_summary(**{k: summary[k] for k in keys if k in summary})


# default meaning of the hub's buttons for the game; a table may configure its own
BUTTON_ACTIONS = {"done": "pass", "draw": "draw"}


def button_action(button: str, mapping: Mapping[str, str] | None = None) -> str | None:
    """Hub button name -> game action ("pass", "draw"...) or None when unmapped."""
    return (BUTTON_ACTIONS if mapping is None else mapping).get(button)


def marker_mismatch(sensed: Iterable[str], expected: Iterable[str]) -> dict[str, list[str]]:
    """Compare the hub's sensed markers (`State.mk`) with the game's: slots with a marker the
    game does not know (`extra`) and game markers the hub does not sense (`missing`). Empty
    lists = agreement. Shown on the tablet, never silently "fixed"."""
    sensed_set, expected_set = set(sensed), set(expected)
    return {"extra": [s for s in SLOTS if s in sensed_set - expected_set],
            "missing": [s for s in SLOTS if s in expected_set - sensed_set]}


def scene_from_table_view(view: Mapping[str, Any]) -> Scene | None:
    """The companion's public table view (its JSON: `round.current`, `round.round_over`,
    `round.trains[{name, owner, marker, open_double}]`, `round.must_cover`, `last_refusal`)
    -> the hub scene; None before a round starts. Names that are not hub slots (Chicken Foot
    lines, say) are left out: the hub then only shows whose turn it is."""
    rnd = view.get("round")
    if not isinstance(rnd, Mapping):
        return None
    trains = [t for t in rnd.get("trains") or [] if isinstance(t, Mapping)]
    markers = [t["name"] for t in trains if t.get("marker") and t.get("name") in SLOTS]
    mexican_open = any(t.get("owner") is None and t.get("name") == "mx" for t in trains)
    double = rnd.get("must_cover")
    if double not in SLOTS:
        double = next((t["name"] for t in trains
                       if t.get("open_double") and t.get("name") in SLOTS), None)
    refusal = view.get("last_refusal")
    alert = None
    if isinstance(refusal, Mapping) and refusal.get("seq") == view.get("seq"):
        alert = refusal.get("rule") or refusal.get("error") or "refused"
    current = rnd.get("current")
    over = bool(rnd.get("round_over")) or bool((view.get("match") or {}).get("over"))
    return scene_from_summary(
        turn=current if isinstance(current, int) and 0 <= current < 8 else None,
        markers=markers, open_double=double, round_over=over, alert=alert,
        mexican_train_open=mexican_open)
