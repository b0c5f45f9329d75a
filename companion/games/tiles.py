"""Tiles and tile sets, shared by every game: one canonical text form, ``"6-4"`` (higher first)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self

from .errors import InvalidMoveError

SET_MAX_PIPS = {"double-6": 6, "double-9": 9, "double-12": 12, "double-15": 15, "double-18": 18}


class Tile(tuple):
    """An unordered pair of pip counts, stored high end first: ``Tile(4, 6) == Tile(6, 4)``."""

    __slots__ = ()

    def __new__(cls, a: int, b: int) -> Self:
        return tuple.__new__(cls, (a, b) if a >= b else (b, a))

    def __getnewargs__(self):
        return tuple(self)

    @property
    def high(self) -> int:
        return self[0]

    @property
    def low(self) -> int:
        return self[1]

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Parse ``"6-4"`` (or ``"4-6"``, ``"6:4"``); raise InvalidMoveError when it is not a tile."""
        cleaned = text.strip().replace(":", "-").replace("|", "-")
        parts = cleaned.split("-")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise InvalidMoveError(f"{text!r} is not a tile; write it like 6-4")
        a, b = (int(p) for p in parts)
        if a > 18 or b > 18:
            raise InvalidMoveError(f"{text!r} is not a tile: no set has more than 18 pips a half")
        return cls(a, b)

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"

    @property
    def pips(self) -> int:
        return self[0] + self[1]

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    def has(self, number: int) -> bool:
        return self.high == number or self.low == number

    def other_end(self, number: int) -> int:
        """The end left open when this tile is joined on ``number``."""
        if self.high == number:
            return self.low
        if self.low == number:
            return self.high
        raise ValueError(f"{self} has no {number}")


def parse_tile(text: str) -> Tile:
    return Tile.parse(text)


def set_max_pips(set_name: str) -> int:
    """``"double-12"`` -> 12; raise ValueError for an unknown set."""
    try:
        return SET_MAX_PIPS[set_name]
    except KeyError:
        raise ValueError(f"unknown tile set {set_name!r}; sets: {', '.join(SET_MAX_PIPS)}") from None


def full_set(max_pips: int) -> list[Tile]:
    """Every tile of a double-N set, exactly once: (N+1)(N+2)/2 tiles."""
    return [Tile(a, b) for a in range(max_pips + 1) for b in range(a + 1)]


def in_set(tile: Tile, max_pips: int) -> bool:
    return 0 <= tile.low and tile.high <= max_pips


def pip_total(tiles: Iterable[Tile], double_blank: int = 0) -> int:
    """Penalty pips of a hand; ``double_blank`` is the house value of 0-0 (0 or 50)."""
    return sum(double_blank if t == (0, 0) else t.high + t.low for t in tiles)


def format_tiles(tiles: Iterable[Tile]) -> str:
    return " ".join(str(t) for t in tiles)


def parse_tiles(text: str) -> list[Tile]:
    """Parse a space- or comma-separated list of tiles."""
    return [Tile.parse(part) for part in text.replace(",", " ").split()]
