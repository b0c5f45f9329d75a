"""Domino vision: frames in, observations out (pure; no files, no windows, no network).

``scan(image)`` reads every face-up tile of a BGR uint8 frame; ``render_table`` draws
synthetic frames with exact labels. ``python -m vision scan|evaluate|bench`` wraps them.
"""

from .imageio import decode_image, load_image, validate_image
from .observation import Observation, TileReading
from .params import Params, parse_set
from .pipeline import scan
from .render import RenderSpec, render_table

__all__ = ["Observation", "Params", "RenderSpec", "TileReading", "decode_image", "load_image",
           "parse_set", "render_table", "scan", "validate_image"]
