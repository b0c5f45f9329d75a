"""The hub side of the Domino Table Companion: MQTT protocol codec (`protocol`, pure),
scene builder (`scenes`, pure), paho wrapper (`client`), the companion's link to its hubs
(`bridge.HubLink`), brokers (`broker`), virtual hubs (`simulator`) and the MicroPython
firmware (`firmware/`). See docs/protocol.md.

`HubLink` is imported lazily so that `firmware_bridge.protocol` never pulls in paho.
"""

from .protocol import Scene
from .scenes import (
    button_action,
    marker_mismatch,
    player_slot,
    scene_from_mapping,
    scene_from_summary,
    scene_from_table_view,
)

__all__ = ["HubEvent", "HubLink", "Scene", "button_action", "marker_mismatch", "player_slot",
           "scene_from_mapping", "scene_from_summary", "scene_from_table_view",
           "start_local_broker"]


def __getattr__(name: str):
    if name in ("HubLink", "HubEvent"):
        from . import bridge
        return getattr(bridge, name)
    if name == "start_local_broker":
        from .broker import start_local_broker
        return start_local_broker
    raise AttributeError(name)
