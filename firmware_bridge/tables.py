"""TableHubs: pairs scorekeeper tables with hubs (the wiring the companion plugs in).

    link = HubLink(instance="venue-1").start()
    hubs = TableHubs(link, tables, on_hub_event=lambda table_id, event: ...)
    hubs.pair(table_id, "h-0001")     # sends the table's current scene at once

`tables` is duck-typed: `subscribe(listener)` with `listener(table_id, event, view)` called
after every committed change, and `view(table_id)` returning the public table view (the
companion's `service.Tables`). Every change of a paired table sends
`scene_from_table_view(view)` to its hub; hub events of a paired hub reach
`on_hub_event(table_id, HubEvent)` (unpaired hubs: `table_id` None). Nothing here imports
Flask or the store.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from .bridge import HubEvent, HubLink
from .protocol import check_id
from .scenes import scene_from_table_view

log = logging.getLogger(__name__)


class TableHubs:
    def __init__(self, link: HubLink, tables: Any,
                 on_hub_event: Callable[[int | None, HubEvent], None] | None = None) -> None:
        self.link = link
        self.tables = tables
        self.on_hub_event = on_hub_event
        self._hub_of: dict[int, str] = {}
        self._lock = threading.Lock()
        self._unsubscribe = tables.subscribe(self._table_changed)
        link.on_event = self._hub_event

    def pair(self, table_id: int, hub: str) -> None:
        """Show `table_id` on `hub` (a hub shows one table; pairing moves it)."""
        check_id(hub, "hub")
        with self._lock:
            for other, paired in list(self._hub_of.items()):
                if paired == hub:
                    del self._hub_of[other]
            self._hub_of[table_id] = hub
        self._send(table_id, hub, self.tables.view(table_id))

    def unpair(self, table_id: int) -> None:
        with self._lock:
            self._hub_of.pop(table_id, None)

    def hub_for(self, table_id: int) -> str | None:
        with self._lock:
            return self._hub_of.get(table_id)

    def table_for(self, hub: str) -> int | None:
        with self._lock:
            return next((t for t, h in self._hub_of.items() if h == hub), None)

    def close(self) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()

    def _table_changed(self, table_id: int, event: Any, view: dict) -> None:
        hub = self.hub_for(table_id)
        if hub:
            self._send(table_id, hub, view)

    def _send(self, table_id: int, hub: str, view: dict) -> None:
        try:
            scene = scene_from_table_view(view)
        except ValueError:
            log.exception("table %s: no scene for its view", table_id)
            return
        if scene is not None:
            self.link.send_scene(hub, scene)

    def _hub_event(self, event: HubEvent) -> None:
        if self.on_hub_event:
            self.on_hub_event(self.table_for(event.hub), event)
