"""Chicken Foot, exactly as ``shared/rules/chicken_foot.md`` (rule ids CF-x), options as data.

Targets: ``c`` is the starting double in the middle (the opening lines start there);
``l1``, ``l2``, ... are lines, numbered in the order they were started. A double laid at the
end of line ``l3`` grows a foot: its toes are played with target ``l3`` and each toe starts
a new line.
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
    choice,
    record_claim,
)
from .dealing import deal, hand_size_value
from .errors import IllegalMoveError, InvalidMoveError
from .moves import Move
from .registry import register
from .tiles import Tile, full_set, set_max_pips
from .turns import (
    TurnRuleIds,
    check_draw,
    check_pass,
    check_tile,
    draw_tile,
    next_turn,
    out_or_blocked,
)

CENTRE = "c"
TURN_IDS = TurnRuleIds(tile_exists="CF-1", holds="CF-3", no_tiles="CF-10", draw_once="CF-9",
                       draw_first="CF-9")
HAND_SIZES = {2: 21, 3: 14, 4: 11, 5: 8, 6: 7, 7: 6, 8: 5}  # CF-3, for a double-9 set


def lines_value(value: object) -> str | int:
    text = str(value).strip().lower()
    if text == "players":
        return text
    if text.isdigit() and 1 <= int(text) <= 18:
        return int(text)
    raise ValueError("write players or a number of lines")


def reserve_value(value: object) -> str | int:
    text = str(value).strip().lower()
    if text == "auto":
        return text
    if text.isdigit():
        return int(text)
    raise ValueError("write auto or a number of tiles")


OPTIONS = (
    OptionSpec("set", "double-9", choice("double-9", "double-6", "double-12", "double-15",
                                         "double-18"), "tile set", "CF-1"),
    OptionSpec("hand_size", "cf", hand_size_value, "tiles dealt: cf (CF-3 table) or a number",
               "CF-3"),
    OptionSpec("opening_lines", "players", lines_value,
               "lines round the starting double before play opens up", "CF-5/CF-6"),
    OptionSpec("toes", 3, int, "tiles a double needs", "CF-8", (1, 2, 3)),
    OptionSpec("double_blank", 0, int, "value of 0-0 left in hand", "CF-13", (0, 50)),
    OptionSpec("yard_reserve", "auto", reserve_value,
               "tiles that may not be drawn: auto = 2 for 2 players, else 1", "CF-10"),
)


@dataclass(slots=True)
class Line:
    """A line of tiles leading out from the centre or from a foot."""

    open_end: int
    tiles: list[Tile] = field(default_factory=list)
    parent: str = CENTRE
    closed: bool = False

    def copy(self) -> Line:
        return Line(self.open_end, list(self.tiles), self.parent, self.closed)


@dataclass(kw_only=True)
class ChickenFootState(GameState):
    centre: int
    max_pips: int
    starter: int
    lines: dict[str, Line] = field(default_factory=dict)
    foot: tuple[str, int] | None = None  # (line ending in a double, toes still needed)
    has_drawn: bool = False
    drawn: Tile | None = None
    passes: int = 0
    out: int | None = None
    with_number: list[int] = field(default_factory=list)  # tiles on the table per number

    def snapshot(self):
        return (
            super().snapshot(), {n: line.copy() for n, line in self.lines.items()}, self.foot,
            self.has_drawn, self.drawn, self.passes, self.out, list(self.with_number),
        )

    def restore(self, snap) -> None:
        (base, self.lines, self.foot, self.has_drawn, self.drawn, self.passes, self.out,
         self.with_number) = snap
        super().restore(base)


class ChickenFoot(Rules):
    name = "chicken-foot"
    aliases = ("cf", "chickenfoot")
    title = "Chicken Foot"
    option_specs = OPTIONS
    round_end_rule = "CF-10"
    turn_rule = "CF-7"

    # -- options and plan ---------------------------------------------------------------
    def check_options(self, players: int, options: dict) -> None:
        max_pips = set_max_pips(options["set"])
        tiles = (max_pips + 1) * (max_pips + 2) // 2
        if self.hand_size(players, options) * players + 1 + self.reserve(players, options) > tiles:
            raise ValueError(f"{players} hands do not fit a {options['set']} set (CF-3)")
        if self.opening_lines(players, options) > max_pips:
            raise ValueError(f"a double-{max_pips} set cannot make that many opening lines (CF-6)")

    def hand_size(self, players: int, options: dict) -> int:
        value = options["hand_size"]
        if isinstance(value, int):
            return value
        if value != "cf":
            raise ValueError("Chicken Foot hand_size is cf or a number (CF-3)")
        max_pips = set_max_pips(options["set"])
        # CF-3 is for double-9 (55 tiles); other sets scale it by their size.
        return max(1, HAND_SIZES[players] * (max_pips + 1) * (max_pips + 2) // 2 // 55)

    def reserve(self, players: int, options: dict) -> int:
        value = options["yard_reserve"]
        return (2 if players == 2 else 1) if value == "auto" else value  # CF-10

    def opening_lines(self, players: int, options: dict) -> int:
        value = options["opening_lines"]
        return players if value == "players" else value  # CF-5, CF-6

    def round_plan(self, players: int, options: dict) -> list[int]:
        return list(range(set_max_pips(options["set"]), -1, -1))  # CF-4

    # -- a round ------------------------------------------------------------------------
    def new_round(self, players, options, round_index=0, *, mode=SIMULATION, seed=None,
                  previous=None, **table) -> ChickenFootState:
        check_mode(mode)
        max_pips = set_max_pips(options["set"])
        centre = self.round_plan(players, options)[round_index]
        double = Tile(centre, centre)
        size = self.hand_size(players, options)
        hands = boneyard = None
        if mode == SIMULATION and "hands" in table:  # an explicit deal (scripted rounds)
            hands = [list(hand) for hand in table["hands"]]
            boneyard = list(table["boneyard"])
            starter = int(table.get("starter", 0))
            current = int(table.get("current", starter))
            hand_sizes = [len(hand) for hand in hands]
            boneyard_count = len(boneyard)
        elif mode == SIMULATION:
            rng = random.Random(seed)
            if round_index == 0:
                # CF-2: whoever draws the double first begins; the rest is reshuffled and dealt.
                starter = rng.randrange(players)
                hands, boneyard = deal(max_pips, [size] * players, rng, exclude=double)
                current = starter
            else:
                hands, boneyard = deal(max_pips, [size] * players, rng)
                starter = self._find_holder(hands, boneyard, double, round_index % players)
                hands[starter].remove(double)
                current = (starter + 1) % players  # placing the double was the starter's turn
            hand_sizes = [len(hand) for hand in hands]
            boneyard_count = len(boneyard)
        else:
            starter = int(table.get("starter", round_index % players))
            current = int(table.get("current", starter if round_index == 0 else starter + 1))
            current %= players
            hand_sizes = list(table.get("hand_sizes") or [size] * players)
            all_tiles = len(full_set(max_pips)) - 1
            boneyard_count = int(table.get("boneyard_count", all_tiles - sum(hand_sizes)))
        with_number = [0] * (max_pips + 1)
        with_number[centre] = 1
        state = ChickenFootState(
            game=self.name, options=options, players=players, mode=mode,
            round_index=round_index, current=current, hand_sizes=hand_sizes, hands=hands,
            boneyard=boneyard, boneyard_count=boneyard_count, played={double}, centre=centre,
            max_pips=max_pips, starter=starter, with_number=with_number,
        )
        state.setup = {"starter": starter, "current": current, "hand_sizes": list(hand_sizes),
                       "boneyard_count": boneyard_count}
        return state

    @staticmethod
    def _find_holder(hands, boneyard, double: Tile, seat: int) -> int:
        """CF-4: the first player holding the double begins; if it is in the yard, players
        draw in turn (from ``seat``) until one finds it (a decision: docs/rules)."""
        for holder, hand in enumerate(hands):
            if double in hand:
                return holder
        while True:
            tile = boneyard.pop()
            hands[seat].append(tile)
            if tile == double:
                return seat
            seat = (seat + 1) % len(hands)

    # -- where a tile may go ------------------------------------------------------------
    def remaining_off_table(self, state: ChickenFootState, number: int) -> int:
        """Tiles carrying ``number`` not yet on the table (the double counts once)."""
        return state.max_pips + 1 - state.with_number[number]

    def active_foot(self, state: ChickenFootState) -> tuple[str, int] | None:
        """The foot that must be completed first (CF-8), unless no tile can ever complete it."""
        if state.foot is None:
            return None
        line = state.lines[state.foot[0]]
        return state.foot if self.remaining_off_table(state, line.open_end) > 0 else None

    def in_opening(self, state: ChickenFootState) -> bool:
        """CF-5: lines round the starting double are still wanted (and still possible)."""
        wanted = self.opening_lines(state.players, state.options)
        return len(state.lines) < wanted and self.remaining_off_table(state, state.centre) > 0

    def targets(self, state: ChickenFootState) -> list[tuple[str, int]]:
        """(target, number it takes) for every place a tile may go now."""
        foot = self.active_foot(state)
        if foot is not None:
            return [(foot[0], state.lines[foot[0]].open_end)]
        if self.in_opening(state):
            return [(CENTRE, state.centre)]
        return [(name, line.open_end) for name, line in state.lines.items() if not line.closed]

    def _plays(self, state: ChickenFootState, tiles) -> list[Move]:
        targets = self.targets(state)
        moves = []
        for tile in tiles:
            a, b = tile
            for name, end in targets:
                if a == end or b == end:
                    moves.append(Move("play", tile, name))
        return moves

    def _candidate_tiles(self, state: ChickenFootState) -> list[Tile]:
        if state.simulated:
            return [state.drawn] if state.has_drawn and state.drawn else state.hands[state.current]
        return [t for t in full_set(state.max_pips) if t not in state.played]

    def can_draw(self, state: ChickenFootState) -> bool:
        return state.boneyard_count > self.reserve(state.players, state.options)  # CF-10

    def legal_moves(self, state: ChickenFootState) -> list[Move]:
        if self.is_round_over(state):
            return []
        plays = self._plays(state, self._candidate_tiles(state))
        if plays and state.simulated:
            return plays
        words = []
        if not state.has_drawn and self.can_draw(state):
            words.append(Move("draw"))
        else:
            words.append(Move("pass"))
        return plays + words

    # -- checking -----------------------------------------------------------------------
    def check(self, state: ChickenFootState, move: Move) -> None:
        self.require_turn_holder(state)
        if move.kind == "play":
            self._check_play(state, move)
        elif move.kind == "draw":
            check_draw(state, TURN_IDS, self.can_draw(state), IllegalMoveError(
                "CF-10", "The last tiles of the chicken yard may not be drawn: pass instead."))
            self._refuse_if_can_play(state, "draw")
        elif move.kind == "pass":
            check_pass(state, TURN_IDS, self.can_draw(state))
            self._refuse_if_can_play(state, "pass")
        else:
            raise InvalidMoveError(f"{move} is not a Chicken Foot move")

    def _refuse_if_can_play(self, state: ChickenFootState, word: str) -> None:
        if state.simulated:
            plays = self._plays(state, self._candidate_tiles(state))
            if plays:
                rule = "CF-9" if state.has_drawn else "CF-7"
                raise IllegalMoveError(rule, f"p{state.current + 1} can play {plays[0]}, so may not {word}.")

    def _check_play(self, state: ChickenFootState, move: Move) -> None:
        tile, name = move.tile, move.target
        check_tile(state, tile, TURN_IDS, state.max_pips)
        if name is None:
            raise IllegalMoveError("CF-7", f"{tile} fits nowhere on the table now.")
        if name != CENTRE and name not in state.lines:
            raise IllegalMoveError("CF-7", f"There is no line {name} on the table.")
        foot = self.active_foot(state)
        if foot is not None and name != foot[0]:
            raise IllegalMoveError(
                "CF-8", f"The double at the end of {foot[0]} needs {foot[1]} more toe(s) first.")
        opening = self.in_opening(state)
        if opening and name != CENTRE:
            raise IllegalMoveError(
                "CF-5", "Every player must first start a line on the starting double.")
        if not opening and name == CENTRE:
            raise IllegalMoveError("CF-7", "The opening lines are complete: play on a line's end.")
        end = state.centre if name == CENTRE else state.lines[name].open_end
        if name != CENTRE and state.lines[name].closed:
            raise IllegalMoveError("CF-8", f"Line {name} ends in a completed foot and takes no tile.")
        if not tile.has(end):
            raise IllegalMoveError("CF-7", f"{tile} cannot go on {name}: its open end is {end}.")

    # -- applying -----------------------------------------------------------------------
    def _apply(self, state: ChickenFootState, move: Move) -> None:
        if move.kind == "play":
            self._apply_play(state, move)
        elif move.kind == "draw":
            draw_tile(state)
        elif move.kind == "pass":
            record_claim(state, "pass", self.targets(state))
            state.passes += 1
            next_turn(state)

    def _apply_play(self, state: ChickenFootState, move: Move) -> None:
        tile, name, seat = move.tile, move.target, state.current
        if state.simulated:
            state.hands[seat].remove(tile)
        state.hand_sizes[seat] -= 1
        state.played.add(tile)
        state.with_number[tile[0]] += 1
        if not tile.is_double:
            state.with_number[tile[1]] += 1
        state.passes = 0
        if name == CENTRE or (state.foot is not None and name == state.foot[0]):
            end = state.centre if name == CENTRE else state.lines[name].open_end
            new_name = f"l{len(state.lines) + 1}"
            state.lines[new_name] = Line(tile.other_end(end), [tile], parent=name)
            if name != CENTRE:
                toes_left = state.foot[1] - 1
                state.foot = (name, toes_left) if toes_left else None
                if not toes_left:
                    state.lines[name].closed = True
        else:
            line = state.lines[name]
            if state.foot is not None:  # a foot no tile can complete is closed off
                state.lines[state.foot[0]].closed = True
                state.foot = None
            line.tiles.append(tile)
            line.open_end = tile.other_end(line.open_end)
            if tile.is_double:
                state.foot = (name, int(state.options["toes"]))  # CF-8
        if state.hand_sizes[seat] == 0:
            state.out = seat  # CF-10
            return
        next_turn(state)

    # -- end of round -------------------------------------------------------------------
    def is_round_over(self, state: ChickenFootState) -> bool:
        if state.out is not None:
            return True
        return state.passes >= state.players and not self.can_draw(state)  # CF-10

    def round_result(self, state: ChickenFootState, revealed=None) -> RoundResult:
        if not self.is_round_over(state):
            raise ValueError("the round is not over yet (CF-10)")
        return out_or_blocked(self, state, revealed, "CF-9")  # CF-11, CF-12

    def describe(self, state: ChickenFootState) -> dict:
        view = super().describe(state)
        foot = self.active_foot(state)
        view.update({
            "engine": f"{state.centre}-{state.centre}",
            "starter": state.starter,
            "has_drawn": state.has_drawn,
            "opening": self.in_opening(state),
            "opening_lines": self.opening_lines(state.players, state.options),
            "lines": [
                {"name": name, "parent": line.parent, "open_end": line.open_end,
                 "count": len(line.tiles), "tiles": [str(t) for t in line.tiles],
                 "closed": line.closed}
                for name, line in state.lines.items()
            ],
            "foot": {"line": foot[0], "toes_needed": foot[1]} if foot else None,
            "must_cover": foot[0] if foot else None,
            "out": state.out,
        })
        return view


CHICKEN_FOOT = register(ChickenFoot())

# The option matrix the conformance suite runs (tests/games/test_conformance.py).
CONFORMANCE_OPTIONS = [
    {"players": players, "opening_lines": lines, "toes": toes, "double_blank": blank}
    for players in (2, 3, 4, 6, 8)
    for lines in ("players", 4, 8)
    for toes in (3, 1)
    for blank in (0, 50)
    if lines == "players" or players == 4
] + [
    {"players": 4, "yard_reserve": 0},
    {"players": 3, "set": "double-6"},
    {"players": 6, "set": "double-12"},
    {"players": 8, "set": "double-15", "hand_size": 10},
]
