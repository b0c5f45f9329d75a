"""Moves and their canonical text form, shared by every game.

Text forms (STYLE.md 2): ``"6-4>p2"`` play 6-4 on player 2's train, ``"6-4>mx"`` on the
Mexican train, ``"6-4>l3"`` on line 3 (Chicken Foot), ``"6-4"`` a tile with no target
(a trick in 42), ``"draw"``, ``"pass"``, ``"bid 30"``, ``"trumps fives"``, ``"announce p3"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidMoveError
from .tiles import Tile

WORD_MOVES = ("draw", "pass", "done")
VALUE_MOVES = ("bid", "trumps", "announce", "plunge")


@dataclass(frozen=True, slots=True)
class Move:
    """One action. ``kind`` is "play" or a word; ``target`` names where a tile goes."""

    kind: str
    tile: Tile | None = None
    target: str | None = None
    value: str | None = None

    @classmethod
    def play(cls, tile: Tile, target: str | None = None) -> Move:
        return cls("play", tile, target)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse the canonical text form; raise InvalidMoveError on anything else."""
        words = text.strip().lower().split()
        if not words:
            raise InvalidMoveError("an empty move; write a play like 6-4>p2, or draw or pass")
        head = words[0]
        if head in WORD_MOVES and len(words) == 1:
            return cls(head)
        if head in VALUE_MOVES and len(words) == 2:
            return cls(head, value=words[1])
        if len(words) == 1:
            tile_text, _, target = head.partition(">")
            if target == "" and ">" in head:
                raise InvalidMoveError(f"{text!r} names no train after '>'")
            return cls("play", Tile.parse(tile_text), target or None)
        raise InvalidMoveError(
            f"{text!r} is not a move; write a play like 6-4>p2, or draw, pass, bid 30"
        )

    def __str__(self) -> str:
        if self.kind == "play":
            return f"{self.tile}>{self.target}" if self.target else str(self.tile)
        return f"{self.kind} {self.value}" if self.value is not None else self.kind

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def player_slot(index: int) -> str:
    """Seat index 0.. -> train/slot name ``p1``.. (the hub's slot names)."""
    return f"p{index + 1}"


def slot_player(slot: str) -> int | None:
    """``"p3"`` -> 2; None when the name is not a player slot."""
    if len(slot) >= 2 and slot[0] == "p" and slot[1:].isdigit():
        return int(slot[1:]) - 1
    return None
