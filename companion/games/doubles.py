"""Doubles, exactly as ``shared/rules/doubles.md`` (rule ids DB-x), options as data.

Every double is a spinner with four sides (DB-4); a number can only be played on once its
double is on the table (DB-6). Each tile exists once, so a play names the table tile it
joins: ``"3-1>6-3"`` lays 3-1 against the open 3 of 6-3, ``"3-3>6-3"`` unlocks threes,
``"6-2>6-6"`` joins a side of the 6-6. Also ``"draw"`` and ``"pass"``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .base import (
    SIMULATION,
    GameState,
    OptionSpec,
    RoundResult,
    Rules,
    check_mode,
    record_claim,
    reveal_problems,
    round_end_pips,
)
from .dealing import deal
from .errors import IllegalMoveError, InvalidMoveError
from .moves import Move
from .registry import register
from .tiles import Tile, full_set, parse_tiles
from .turns import TurnRuleIds, check_draw, check_pass, check_tile, draw_tile, next_turn

SPINNER_SIDES = 4  # DB-4
SET_SIZE = 28  # DB-1: double-6


def tiles_of(value: object) -> list[Tile]:
    return parse_tiles(value) if isinstance(value, str) else list(value)


def hand_size_option(value: object) -> str | int:
    text = str(value).strip().lower()
    if text == "auto":
        return text
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ValueError("write auto or a number of tiles")


def positive(value: object) -> int:
    number = int(value)
    if number <= 0:
        raise ValueError("must be positive")
    return number


def not_negative(value: object) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("must be 0 or more")
    return number


OPTIONS = (
    OptionSpec("hand_size", "auto", hand_size_option,
               "tiles dealt: auto (8 for 2 players, 6 for 3-4) or a number", "DB-2"),
    OptionSpec("target", 100, positive, "points that win the match", "DB-10"),
    OptionSpec("yard_reserve", 2, not_negative, "boneyard tiles that may never be drawn", "DB-7"),
)

TURN_IDS = TurnRuleIds(tile_exists="DB-1", holds="DB-2", no_tiles="DB-7", draw_once="DB-5",
                       draw_first="DB-5")


@dataclass(kw_only=True)
class DoublesState(GameState):
    starter: int
    opening: Tile
    open_ends: dict[Tile, tuple[int, int]] = field(default_factory=dict)  # tile -> (number, free)
    links: list[tuple[Tile, Tile]] = field(default_factory=list)  # (tile, table tile it joins)
    has_drawn: bool = False
    drawn: Tile | None = None
    passes: int = 0  # consecutive passes with the boneyard closed (DB-7)
    out: int | None = None

    def snapshot(self):
        return (super().snapshot(), dict(self.open_ends), list(self.links), self.has_drawn,
                self.drawn, self.passes, self.out)

    def restore(self, snap) -> None:
        (base, self.open_ends, self.links, self.has_drawn, self.drawn, self.passes,
         self.out) = snap
        super().restore(base)

    def unlocked(self, number: int) -> bool:
        """DB-6: a number is unlocked once its double is on the table."""
        return Tile(number, number) in self.played


def highest_double(hands: list[list[Tile]]) -> tuple[int, Tile] | None:
    """DB-3: the seat holding the highest double, and that double."""
    held = [(tile, seat) for seat, hand in enumerate(hands) for tile in hand if tile.is_double]
    if not held:
        return None
    tile, seat = max(held)
    return seat, tile


class Doubles(Rules):
    name = "doubles"
    aliases = ("db",)
    title = "Doubles"
    min_players = 2
    max_players = 4
    lower_total_wins = False
    round_end_rule = "DB-7"
    turn_rule = "DB-7"
    option_specs = OPTIONS

    # -- options and match ---------------------------------------------------------------
    def hand_size(self, players: int, options: dict) -> int:
        value = options["hand_size"]
        return value if isinstance(value, int) else (8 if players == 2 else 6)  # DB-2

    def check_options(self, players: int, options: dict) -> None:
        size = self.hand_size(players, options)
        if size * players > SET_SIZE:
            raise ValueError(f"{players} hands of {size} do not fit a double-6 set (DB-2)")

    def round_plan(self, players: int, options: dict) -> list:
        return []  # rounds continue until a player reaches the target (DB-10)

    def match_over(self, players: int, options: dict, totals: list[int], rounds: int) -> bool:
        return bool(totals) and max(totals) >= options["target"]

    # -- a round -------------------------------------------------------------------------
    def new_round(self, players, options, round_index=0, *, mode=SIMULATION, seed=None,
                  previous=None, **table) -> DoublesState:
        check_mode(mode)
        size = self.hand_size(players, options)
        hands = boneyard = None
        if mode == SIMULATION:
            rng, redeals = random.Random(seed), 0
            while True:
                if "hands" in table:  # an explicit deal (golden rounds); boneyard pops from the end
                    hands = [tiles_of(h) for h in table["hands"]]
                    boneyard = tiles_of(table.get("boneyard", ""))
                else:
                    hands, boneyard = deal(6, [size] * players, rng)
                found = highest_double(hands)
                if found:
                    break
                if "hands" in table:
                    raise ValueError("nobody holds a double in this deal (DB-3)")
                redeals += 1  # DB-3: nobody holds a double, so shuffle and draw again
            starter, opening = found
            hands[starter].remove(opening)
            hand_sizes = [len(hand) for hand in hands]
            boneyard_count = len(boneyard)
        else:
            missing = [fact for fact in ("starter", "opening") if fact not in table]
            if missing:
                raise ValueError(f"a Doubles round at a real table needs {' and '.join(missing)}"
                                 " (who laid the highest double, and which double) (DB-3)")
            starter = int(table["starter"])
            opening = Tile.parse(str(table["opening"]))
            if not opening.is_double:
                raise ValueError(f"the opening tile must be a double, not {opening} (DB-4)")
            hand_sizes = list(table.get("hand_sizes") or
                              [size - (seat == starter) for seat in range(players)])
            boneyard_count = int(table.get("boneyard_count", SET_SIZE - 1 - sum(hand_sizes)))
        state = DoublesState(
            game=self.name, options=options, players=players, mode=mode,
            round_index=round_index, current=(starter + 1) % players, hand_sizes=hand_sizes,
            hands=hands, boneyard=boneyard, boneyard_count=boneyard_count, played={opening},
            starter=starter, opening=opening,
            open_ends={opening: (opening.high, SPINNER_SIDES)},  # DB-4
        )
        if hand_sizes[starter] == 0:
            state.out = starter  # DB-7: the opening double was the starter's last tile
        state.setup = {"starter": starter, "opening": str(opening),
                       "hand_sizes": list(hand_sizes), "boneyard_count": boneyard_count}
        return state

    # -- where a tile may go -------------------------------------------------------------
    def targets(self, state: DoublesState, tile: Tile) -> list[Tile]:
        """Table tiles ``tile`` may join now (DB-5, DB-6: a double unlocks its own number)."""
        return [
            table_tile for table_tile, (number, _) in state.open_ends.items()
            if tile.has(number) and (state.unlocked(number) or tile == Tile(number, number))
        ]

    def _plays(self, state: DoublesState, tiles) -> list[Move]:
        return [Move("play", tile, str(target)) for tile in tiles for target in self.targets(state, tile)]

    def _tiles_to_try(self, state: DoublesState) -> list[Tile]:
        if state.simulated:
            return [state.drawn] if state.has_drawn else state.hands[state.current]
        return [t for t in full_set(6) if t not in state.played]

    def can_draw(self, state: DoublesState) -> bool:
        return state.boneyard_count > state.options["yard_reserve"]  # DB-7

    def legal_moves(self, state: DoublesState) -> list[Move]:
        if self.is_round_over(state):
            return []
        plays = self._plays(state, self._tiles_to_try(state))
        if plays and state.simulated:
            return plays
        if not state.simulated and state.hand_sizes[state.current] == 0:
            plays = []
        if not state.has_drawn and self.can_draw(state):
            return plays + [Move("draw")]
        return plays + [Move("pass")]

    # -- checking ------------------------------------------------------------------------
    def check(self, state: DoublesState, move: Move) -> None:
        self.require_turn_holder(state)
        if move.kind == "play":
            self._check_play(state, move)
        elif move.kind == "draw":
            check_draw(state, TURN_IDS, self.can_draw(state), IllegalMoveError(
                "DB-7", f"Only {state.boneyard_count} tiles remain in the boneyard: nobody may "
                        "draw; pass instead."))
            self._refuse_if_can_play(state, "draw")
        elif move.kind == "pass":
            check_pass(state, TURN_IDS, self.can_draw(state))
            self._refuse_if_can_play(state, "pass")
        else:
            raise InvalidMoveError(f"{move} is not a Doubles move; play, draw or pass")

    def _refuse_if_can_play(self, state: DoublesState, word: str) -> None:
        if state.simulated:
            plays = self._plays(state, self._tiles_to_try(state))
            if plays:
                raise IllegalMoveError("DB-5", f"p{state.current + 1} can play {plays[0]}, so may "
                                               f"not {word}.")

    def _check_play(self, state: DoublesState, move: Move) -> None:
        tile = move.tile
        check_tile(state, tile, TURN_IDS, 6)
        if move.target is None:
            raise IllegalMoveError("DB-5", f"{tile} fits nowhere on the table now.")
        try:
            target = Tile.parse(move.target)
        except InvalidMoveError:
            raise InvalidMoveError(f"{move}: name the table tile it joins, like 3-1>6-3") from None
        if target not in state.played:
            raise IllegalMoveError("DB-4", f"{target} is not on the table.")
        if target not in state.open_ends:
            raise IllegalMoveError("DB-4", f"{target} has no free side left.")
        number = state.open_ends[target][0]
        if not tile.has(number):
            raise IllegalMoveError("DB-5", f"{tile} does not match {target}: its open end is {number}.")
        if not state.unlocked(number) and tile != Tile(number, number):
            raise IllegalMoveError("DB-6", f"{number}s are locked until {number}-{number} is on "
                                           "the table.")

    # -- applying ------------------------------------------------------------------------
    def _apply(self, state: DoublesState, move: Move) -> None:
        seat = state.current
        if move.kind == "draw":
            draw_tile(state)
            state.passes = 0
            return
        if move.kind == "pass":
            record_claim(state, "pass", [(str(t), number, state.unlocked(number))
                                         for t, (number, _) in state.open_ends.items()])
            state.passes = state.passes + 1 if not self.can_draw(state) else 0
            next_turn(state)
            return
        tile, target = move.tile, Tile.parse(move.target)
        if state.simulated:
            state.hands[seat].remove(tile)
        state.hand_sizes[seat] -= 1
        state.played.add(tile)
        number, free = state.open_ends.pop(target)
        if free > 1:
            state.open_ends[target] = (number, free - 1)
        state.open_ends[tile] = (number, SPINNER_SIDES - 1) if tile.is_double else (
            tile.other_end(number), 1)
        state.links.append((tile, target))
        state.passes = 0
        if state.hand_sizes[seat] == 0:
            state.out = seat  # DB-7
            return
        next_turn(state)

    # -- the end of a round --------------------------------------------------------------
    def is_round_over(self, state: DoublesState) -> bool:
        return state.out is not None or state.passes >= state.players

    def round_result(self, state: DoublesState, revealed=None) -> RoundResult:
        if not self.is_round_over(state):
            raise ValueError("the round is not over yet (DB-7)")
        pips = round_end_pips(self, state, revealed)
        if state.out is not None:
            winners, ended = [state.out], "out"  # DB-8
        else:
            best = min(pips)
            winners, ended = [seat for seat, p in enumerate(pips) if p == best], "blocked"  # DB-9
        scores = [sum(p for other, p in enumerate(pips) if other != seat) if seat in winners else 0
                  for seat in range(state.players)]
        problems = reveal_problems(state, revealed) + pass_breaches(state, revealed)
        return RoundResult(scores, ended, winners, pips, details={"problems": problems})

    def describe(self, state: DoublesState) -> dict:
        view = super().describe(state)
        view.update({
            "starter": state.starter, "opening": str(state.opening), "has_drawn": state.has_drawn,
            "can_draw": self.can_draw(state),
            "unlocked": sorted(n for n in range(7) if state.unlocked(n)),
            "open_ends": [{"tile": str(t), "number": number, "free": free,
                           "locked": not state.unlocked(number)}
                          for t, (number, free) in state.open_ends.items()],
            "links": [{"tile": str(t), "joins": str(target)} for t, target in state.links],
            "out": state.out,
        })
        return view


def pass_breaches(state: DoublesState, revealed: dict | None) -> list[str]:
    """Table mode: passes proven wrong by the hands shown at the end (DB-5).

    Like ``base.must_play_breaches`` but lock-aware (DB-6): a locked end only takes its double.
    Only passes after which the player drew no more are judged.
    """
    found = []
    for index, seat, kind, ends in state.claims:
        hand = (revealed or {}).get(seat)
        if kind != "pass" or not isinstance(hand, list):
            continue
        if any(s == seat and k == "draw" and i > index for i, s, k, _ in state.claims):
            continue
        fitting = [(tile, target) for tile in hand for target, number, unlocked in ends
                   if tile.has(number) and (unlocked or tile == Tile(number, number))]
        if fitting:
            tile, target = fitting[0]
            found.append(f"p{seat + 1} passed at move {index} while holding {tile}, "
                         f"which fitted {target} (DB-5).")
    return found


DOUBLES = register(Doubles())

CONFORMANCE_OPTIONS = [
    {"players": 2}, {"players": 3}, {"players": 4},
    {"players": 2, "yard_reserve": 0, "target": 50},
    {"players": 4, "hand_size": 5, "yard_reserve": 4},
]
