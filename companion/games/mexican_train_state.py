"""Mexican Train data: the option table, the hand-size table, trains and the round state."""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import GameState, OptionSpec, choice
from .dealing import hand_size_value
from .tiles import Tile

MEXICAN = "mx"
# MT-5 (GR) hand sizes by players; the rows for 5-8 players on double-9 and for 9-12 players
# on double-15/18 are this project's extension (docs/rules/mexican-train.md).
HAND_SIZES = {
    9: {2: 15, 3: 13, 4: 10, 5: 8, 6: 7, 7: 6, 8: 5},
    12: {2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9},
    15: {2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9, 9: 11, 10: 10, 11: 9, 12: 8},
    18: {2: 16, 3: 16, 4: 15, 5: 14, 6: 12, 7: 10, 8: 9, 9: 13, 10: 12, 11: 11, 12: 10},
}

OPTIONS = (
    OptionSpec("set", "double-12", choice("double-12", "double-9", "double-15", "double-18"),
               "tile set", "MT-1"),
    OptionSpec("hand_size", "gr", hand_size_value, "tiles dealt: gr (table), wg (15) or a number",
               "MT-5"),
    OptionSpec("rounds", "full", lambda v: str(v).strip().lower(),
               "full ladder to 0-0, wg (6 rounds from 12-12), or START:COUNT", "MT-4/MT-22"),
    OptionSpec("double_blank", 50, int, "value of 0-0 left in hand", "MT-20", (50, 0)),
    OptionSpec("double_rule", "satisfy-by-all",
               choice("satisfy-by-all", "follow-up-by-player-only", "none"),
               "what a double demands", "MT-14/MT-15"),
    OptionSpec("extra_after_double", "any-train", choice("any-train", "on-double"),
               "where the extra tile after a double goes", "MT-14"),
    OptionSpec("multiple_doubles", "in-order", choice("in-order", "reverse-order", "one-per-turn"),
               "several doubles in one turn", "MT-16"),
    OptionSpec("first_turn", "one-tile", choice("one-tile", "run"),
               "the starter's first turn", "MT-9"),
    OptionSpec("end_on_double", "round-ends", choice("round-ends", "must-be-covered"),
               "a last tile that is a double", "MT-18"),
)


@dataclass(slots=True)
class Train:
    """One train: its owner seat (None for the Mexican train), tiles, open end, marker."""

    owner: int | None
    open_end: int
    tiles: list[Tile] = field(default_factory=list)
    marker: bool = False

    def copy(self) -> Train:
        return Train(self.owner, self.open_end, list(self.tiles), self.marker)


@dataclass(kw_only=True)
class MexicanTrainState(GameState):
    engine: int
    max_pips: int
    starter: int
    trains: dict[str, Train]
    open_doubles: list[str] = field(default_factory=list)  # trains ending in a double, in order
    phase: str = "start"  # start | extra (after a double) | run (first-turn run)
    has_drawn: bool = False
    drawn: Tile | None = None
    doubles_this_turn: int = 0
    passes: int = 0  # consecutive passes (blocked round detection)
    out: int | None = None
    pending_last_double: tuple[int, str] | None = None  # end_on_double=must-be-covered
    starter_done: bool = False
    announced: set[int] = field(default_factory=set)
    with_number: list[int] = field(default_factory=list)  # non-double tiles on table per number

    def snapshot(self):
        return (
            super().snapshot(),
            {name: train.copy() for name, train in self.trains.items()},
            list(self.open_doubles), self.phase, self.has_drawn, self.drawn,
            self.doubles_this_turn, self.passes, self.out, self.pending_last_double,
            self.starter_done, set(self.announced), list(self.with_number),
        )

    def restore(self, snap) -> None:
        (
            base, self.trains, self.open_doubles, self.phase, self.has_drawn, self.drawn,
            self.doubles_this_turn, self.passes, self.out, self.pending_last_double,
            self.starter_done, self.announced, self.with_number,
        ) = snap
        super().restore(base)


def train_label(name: str) -> str:
    return "the Mexican train" if name == MEXICAN else f"{name}'s train"
