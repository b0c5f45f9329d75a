"""The output of the pipeline: tiles with pips, corners and confidence, plus the total."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TileReading:
    """One tile. ``pips[0]`` is the half next to ``corners[0]``-``corners[1]``,
    ``pips[1]`` the half next to ``corners[2]``-``corners[3]``; corners are (x, y) image
    pixels going round the tile. ``confidence`` in [0, 1]."""

    pips: tuple[int, int]
    corners: tuple[tuple[float, float], ...]
    confidence: float

    @property
    def pair(self) -> tuple[int, int]:
        """Unordered pair, low first (the labels' form)."""
        a, b = self.pips
        return (a, b) if a <= b else (b, a)

    @property
    def text(self) -> str:
        """Canonical text form, higher first: ``"6-4"``."""
        lo, hi = self.pair
        return f"{hi}-{lo}"

    def to_dict(self) -> dict:
        return {
            "pips": [int(self.pips[0]), int(self.pips[1])],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(float(self.confidence), 3),
        }


@dataclass(frozen=True)
class Observation:
    """Everything seen in one frame. ``total`` sums the confident tiles only;
    ``low_confidence`` counts the tiles left out of it."""

    tiles: tuple[TileReading, ...] = field(default_factory=tuple)
    min_confidence: float = 0.5

    @property
    def confident(self) -> tuple[TileReading, ...]:
        return tuple(t for t in self.tiles if t.confidence >= self.min_confidence)

    @property
    def total(self) -> int:
        return sum(sum(t.pips) for t in self.confident)

    @property
    def low_confidence(self) -> int:
        return len(self.tiles) - len(self.confident)

    def to_dict(self) -> dict:
        return {
            "tiles": [t.to_dict() for t in self.tiles],
            "total": self.total,
            "low_confidence": self.low_confidence,
        }
