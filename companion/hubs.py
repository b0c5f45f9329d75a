"""Hub wiring: a paired table's every change lights its hub; the hub's buttons and marker
sensors feed back (DESIGN.md §1 "The hub").

A thin adapter between ``firmware_bridge`` (``HubLink``, ``TableHubs``) and ``Tables``:
- scenes: ``TableHubs`` sends ``scene_from_table_view`` on every committed change;
- buttons: ``done`` -> ``pass``, ``draw`` -> ``draw`` (``scenes.button_action``), posted with
  ``source: hub`` and the hub's ``boot``/``seq`` as idempotency key, so a repeated message
  is applied once; a refused press shows its reason on the tablet like any refusal;
- markers: the sensed markers are compared with the game's; a mismatch is shown in the
  tablet's hub status, never "fixed";
- pairings are kept in the store, so a restart keeps them.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from firmware_bridge import HubLink
from firmware_bridge.bridge import HubEvent
from firmware_bridge.protocol import check_id
from firmware_bridge.scenes import button_action, marker_mismatch
from firmware_bridge.tables import TableHubs

from .service import Tables, UnknownTable
from .session import CommandError

log = logging.getLogger(__name__)
PAIRS_SETTING = "hub_pairs"


class HubWiring:
    """Pairs tables with hubs over one ``HubLink`` and turns hub events into table actions."""

    def __init__(self, tables: Tables, link: HubLink, buttons: dict[str, str] | None = None):
        """``buttons`` maps hub buttons to moves (default: done -> pass, draw -> draw)."""
        self.tables = tables
        self.link = link
        self.buttons = buttons
        self._sensed: dict[str, set[str]] = {}
        self._online: dict[str, bool] = {}
        self._lock = threading.Lock()
        self.hubs = TableHubs(link, tables, on_hub_event=self._on_event)
        for table_id, hub in self._saved_pairs().items():
            try:
                self.hubs.pair(int(table_id), hub)
            except UnknownTable:  # a table deleted since: forget the pairing
                log.warning("hub %s: table %s is gone; pairing dropped", hub, table_id)

    # -- pairing ------------------------------------------------------------------------
    def pair(self, table_id: int, hub: str) -> None:
        """Show ``table_id`` on ``hub`` (raises UnknownTable / ValueError for a bad hub id)."""
        check_id(hub, "hub")
        self.tables.view(table_id)
        self.hubs.pair(table_id, hub)
        self._save()
        self._publish_status(table_id, hub)

    def unpair(self, table_id: int) -> None:
        self.hubs.unpair(table_id)
        self._save()
        self.tables.set_status(table_id, "hub", None)

    def pairs(self) -> dict[int, str]:
        """Table id -> hub id, for every paired table."""
        return {t: h for t in self._all_tables() if (h := self.hubs.hub_for(t))}

    def _saved_pairs(self) -> dict[str, str]:
        raw = self.tables.store.setting(PAIRS_SETTING)
        return json.loads(raw) if raw else {}

    def _save(self) -> None:
        pairs = {str(t): h for t, h in self.pairs().items()}
        self.tables.store.set_setting(PAIRS_SETTING, json.dumps(pairs))

    def _all_tables(self) -> list[int]:
        return [table["id"] for table in self.tables.store.tables()]

    def stop(self) -> None:
        self.hubs.close()
        self.link.stop()

    # -- hub events -----------------------------------------------------------------------
    def _on_event(self, table_id: int | None, event: HubEvent) -> None:
        hub, message = event.hub, event.message
        with self._lock:
            if event.kind in ("online", "offline"):
                self._online[hub] = event.kind == "online"
            elif event.kind == "state":
                self._online[hub] = True
                self._sensed[hub] = set(message.mk)
            elif event.kind == "marker":
                sensed = self._sensed.setdefault(hub, set())
                (sensed.add if message.on else sensed.discard)(message.slot)
        if table_id is None:
            return
        if event.kind == "button":
            self._press(table_id, hub, message)
        elif event.kind in ("online", "offline", "state", "marker"):
            self._publish_status(table_id, hub)

    def _press(self, table_id: int, hub: str, message: Any) -> None:
        action = button_action(message.btn, self.buttons)
        if action is None:
            return
        key = f"hub:{hub}:{message.boot}:{message.seq}"
        try:
            self.tables.execute(table_id, lambda session: session.command_move(action, None),
                                source="hub", key=key, body=["hub", hub, action],
                                move_text=action)
        except CommandError as refused:  # already shown on the tablet as the last refusal
            log.info("hub %s: %s refused: %s", hub, action, refused)

    def _publish_status(self, table_id: int, hub: str) -> None:
        """The hub chip on the tablet: online or not, and any marker disagreement."""
        with self._lock:
            online = self._online.get(hub, False)
            sensed = set(self._sensed.get(hub, ()))
        status: dict[str, Any] = {"hub": hub, "online": online}
        expected = game_markers(self.tables.view(table_id))
        mismatch = marker_mismatch(sensed, expected) if online else {"extra": [], "missing": []}
        status["mismatch"] = mismatch
        if not online:
            status["text"] = f"{hub} offline"
        elif mismatch["extra"] or mismatch["missing"]:
            parts = []
            if mismatch["extra"]:
                parts.append("marker on " + ", ".join(mismatch["extra"]) + " not in the game")
            if mismatch["missing"]:
                parts.append("game marker on " + ", ".join(mismatch["missing"]) + " not sensed")
            status["text"] = f"{hub}: " + "; ".join(parts)
        else:
            status["text"] = f"{hub} online"
        self.tables.set_status(table_id, "hub", status)


def game_markers(view: dict) -> list[str]:
    """Slots whose train carries a marker in the game (Mexican Train; others have none)."""
    round_view = (view or {}).get("round") or {}
    return [train["name"] for train in round_view.get("trains") or [] if train.get("marker")]


def parse_buttons(text: str | None) -> dict[str, str] | None:
    """``"done=pass,draw=draw"`` -> a button map; None or "" keeps the default."""
    if not text:
        return None
    mapping = {}
    for part in text.split(","):
        button, sep, move = part.partition("=")
        if not sep or not button.strip() or move.strip() not in ("pass", "draw", "done"):
            raise ValueError(f"{part!r}: write a button map like done=pass,draw=draw")
        mapping[button.strip()] = move.strip()
    return mapping


def start_hubs(tables: Tables, url: str | None = None, instance: str = "companion",
               buttons: dict[str, str] | None = None) -> HubWiring:
    """Start the MQTT link (``url``, else $MQTT_URL, else a local broker) and the wiring."""
    link = HubLink(url=url, instance=instance)
    link.start()
    return HubWiring(tables, link, buttons)
