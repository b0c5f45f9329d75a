"""Mexican Train, exactly as ``shared/rules/mexican_train.md`` (rule ids MT-x), options as data.

Trains are named like the hub's slots: ``p1``..``p8`` (players' own trains) and ``mx``
(the Mexican train). A move ``"6-4>p2"`` lays 6-4 on player 2's train.
"""

from __future__ import annotations

import random

from .base import (
    SIMULATION,
    RoundResult,
    Rules,
    check_mode,
    record_claim,
)
from .dealing import deal, parse_ladder
from .errors import IllegalMoveError, InvalidMoveError
from .mexican_train_state import (
    HAND_SIZES,
    MEXICAN,
    OPTIONS,
    MexicanTrainState,
    Train,
    train_label,
)
from .moves import Move, player_slot, slot_player
from .registry import register
from .tiles import Tile, full_set, set_max_pips
from .turns import TurnRuleIds, check_draw, check_pass, check_tile, draw_tile, out_or_blocked

TURN_IDS = TurnRuleIds(tile_exists="MT-1", holds="MT-5", no_tiles="MT-19", draw_once="MT-11",
                       draw_first="MT-11")
class MexicanTrain(Rules):
    name = "mexican-train"
    aliases = ("mt", "mexican")
    title = "Mexican Train"
    min_players = 2
    max_players = 12
    option_specs = OPTIONS
    round_end_rule = "MT-19"
    turn_rule = "MT-7"

    # -- options and plan ---------------------------------------------------------------
    def check_options(self, players: int, options: dict) -> None:
        max_pips = set_max_pips(options["set"])
        parse_ladder(options["rounds"], max_pips, short=(12, 6))
        size = self.hand_size(players, options)
        tiles = (max_pips + 1) * (max_pips + 2) // 2 - 1
        if size * players > tiles:
            raise ValueError(f"{players} hands of {size} do not fit a {options['set']} set (MT-5)")

    def hand_size(self, players: int, options: dict) -> int:
        value = options["hand_size"]
        if isinstance(value, int):
            return value
        if value == "wg":
            return 15
        table = HAND_SIZES[set_max_pips(options["set"])]
        if players not in table:
            raise ValueError(f"MT-5 has no hand size for {players} players on {options['set']}")
        return table[players]

    def round_plan(self, players: int, options: dict) -> list[int]:
        return parse_ladder(options["rounds"], set_max_pips(options["set"]), short=(12, 6))

    # -- a round ------------------------------------------------------------------------
    def new_round(self, players, options, round_index=0, *, mode=SIMULATION, seed=None,
                  previous=None, **table) -> MexicanTrainState:
        check_mode(mode)
        max_pips = set_max_pips(options["set"])
        engine = self.round_plan(players, options)[round_index]
        starter = table.get("starter", round_index % players)  # MT-7; WG: starter rotates
        size = self.hand_size(players, options)
        all_tiles = (max_pips + 1) * (max_pips + 2) // 2 - 1
        hand_sizes = list(table.get("hand_sizes") or [size] * players)
        hands = boneyard = None
        if mode == SIMULATION:
            if "hands" in table:  # an explicit deal (scripted rounds)
                hands = [list(hand) for hand in table["hands"]]
                boneyard = list(table["boneyard"])
                hand_sizes = [len(hand) for hand in hands]
            else:
                hands, boneyard = deal(max_pips, hand_sizes, random.Random(seed),
                                       exclude=Tile(engine, engine))  # MT-4
            boneyard_count = len(boneyard)
        else:
            boneyard_count = int(table.get("boneyard_count", all_tiles - sum(hand_sizes)))
        trains = {player_slot(s): Train(s, engine) for s in range(players)}
        trains[MEXICAN] = Train(None, engine)
        state = MexicanTrainState(
            game=self.name, options=options, players=players, mode=mode,
            round_index=round_index, current=starter, hand_sizes=hand_sizes, hands=hands,
            boneyard=boneyard, boneyard_count=boneyard_count, played={Tile(engine, engine)},
            engine=engine, max_pips=max_pips, starter=starter, trains=trains,
            with_number=[0] * (max_pips + 1),
        )
        state.setup = {"starter": starter, "hand_sizes": list(hand_sizes),
                       "boneyard_count": boneyard_count}
        return state

    # -- where a tile may go ------------------------------------------------------------
    def coverable(self, state: MexicanTrainState, train_name: str) -> bool:
        """MT-17: a double can be covered while some tile of its number is off the table."""
        number = state.trains[train_name].open_end
        return state.with_number[number] < state.max_pips

    def blocking_double(self, state: MexicanTrainState) -> str | None:
        """The open double that must be closed next (MT-15, MT-16), if any."""
        blocking = [name for name in state.open_doubles if self.coverable(state, name)]
        if not blocking:
            return None
        return blocking[-1] if state.options["multiple_doubles"] == "reverse-order" else blocking[0]

    def open_to(self, state: MexicanTrainState, seat: int) -> list[str]:
        """Trains the seat may use (MT-8): its own, the Mexican train, marked trains."""
        return [name for name, train in state.trains.items()
                if train.owner is None or train.owner == seat or train.marker]

    def allowed_targets(self, state: MexicanTrainState) -> list[str]:
        """Trains the current player may play on now, after obligations (MT-8, MT-15, MT-16)."""
        seat = state.current
        if state.phase == "run":
            return [player_slot(seat)]
        trains = self.open_to(state, seat)
        first = self.blocking_double(state)
        if state.phase == "extra":
            # MT-14: the extra tile may go on any train; MT-16: only the first double takes it.
            later = {n for n in state.open_doubles if n != first}
            return [n for n in trains if n not in later]
        if first is not None and state.options["double_rule"] == "satisfy-by-all":
            return [first]  # MT-15
        return trains

    def _plays(self, state: MexicanTrainState, tiles) -> list[Move]:
        targets = [(name, state.trains[name].open_end) for name in self.allowed_targets(state)]
        one_double = state.options["multiple_doubles"] == "one-per-turn" and state.phase == "extra"
        moves = []
        for tile in tiles:
            if one_double and tile.is_double:
                continue
            a, b = tile
            for name, end in targets:
                if a == end or b == end:
                    moves.append(Move("play", tile, name))
        return moves

    def _must_cover_own_double(self, state: MexicanTrainState, moves: list[Move]) -> list[Move]:
        """extra_after_double=on-double: cover your own double when you can."""
        if state.phase != "extra" or state.options["extra_after_double"] != "on-double":
            return moves
        first = self.blocking_double(state)
        covering = [m for m in moves if m.target == first]
        return covering or moves

    def legal_moves(self, state: MexicanTrainState) -> list[Move]:
        if self.is_round_over(state):
            return []
        if state.simulated:
            tiles = [state.drawn] if state.has_drawn and state.drawn else state.hands[state.current]
        else:
            tiles = [t for t in full_set(state.max_pips) if t not in state.played]
        plays = self._must_cover_own_double(state, self._plays(state, tiles))
        if state.phase == "run":
            return plays + [Move("done")]
        if plays and state.simulated:
            return plays
        words = []
        if not state.has_drawn and state.boneyard_count > 0:
            words.append(Move("draw"))
        if state.has_drawn or state.boneyard_count == 0:
            words.append(Move("pass"))
        return plays + words

    # -- checking -----------------------------------------------------------------------
    def check(self, state: MexicanTrainState, move: Move) -> None:
        self.require_turn_holder(state)
        if move.kind == "play":
            self._check_play(state, move)
        elif move.kind == "draw":
            if state.phase == "run":
                raise IllegalMoveError("MT-9", "During a first-turn run, say done to end it.")
            check_draw(state, TURN_IDS, state.boneyard_count > 0, IllegalMoveError(
                "MT-11", "The boneyard is empty: pass instead of drawing."))
            self._refuse_if_can_play(state, "draw")
        elif move.kind == "pass":
            if state.phase == "run":
                raise IllegalMoveError("MT-9", "During a first-turn run, say done to end it.")
            check_pass(state, TURN_IDS, state.boneyard_count > 0)
            self._refuse_if_can_play(state, "pass")
        elif move.kind == "done":
            if state.phase != "run":
                raise IllegalMoveError("MT-9", "Done only ends a first-turn run; play, draw or pass.")
        elif move.kind == "announce":
            target = slot_player(move.value or "")
            if target is None or target >= state.players:
                raise InvalidMoveError(f"announce needs a player like p2, not {move.value!r}")
            if state.hand_sizes[target] != 1:
                raise IllegalMoveError(
                    "MT-13", f"p{target + 1} holds {state.hand_sizes[target]} tiles, not one.")
        else:
            raise InvalidMoveError(f"{move} is not a Mexican Train move")

    def _refuse_if_can_play(self, state: MexicanTrainState, word: str) -> None:
        if not state.simulated:
            return  # hands are hidden: MT-10 cannot be checked at the table
        plays = self._must_cover_own_double(state, self._plays(
            state, [state.drawn] if state.has_drawn and state.drawn else state.hands[state.current]))
        if plays:
            raise IllegalMoveError(
                "MT-10", f"p{state.current + 1} can play {plays[0]}, so may not {word}.")

    def _check_play(self, state: MexicanTrainState, move: Move) -> None:
        tile, name, seat = move.tile, move.target, state.current
        options = state.options
        check_tile(state, tile, TURN_IDS, state.max_pips)
        if name is None:
            raise IllegalMoveError("MT-8", f"{tile} fits no train that p{seat + 1} may use now.")
        if name not in state.trains:
            raise IllegalMoveError("MT-2", f"There is no train {name} at this table.")
        train = state.trains[name]
        if state.phase == "run" and name != player_slot(seat):
            raise IllegalMoveError("MT-9", "A first-turn run goes on your own train only.")
        must_cover = (self.blocking_double(state) == name
                      and state.options["double_rule"] == "satisfy-by-all")
        if name not in self.open_to(state, seat) and not must_cover:  # MT-15 opens it
            raise IllegalMoveError(
                "MT-8", f"{tile} cannot go on {train_label(name)}: it is not p{seat + 1}'s "
                        "and has no marker.")
        if not tile.has(train.open_end):
            what = "the engine" if not train.tiles else "it ends in"
            raise IllegalMoveError(
                "MT-8", f"{tile} cannot go on {train_label(name)}: {what} {train.open_end}.")
        if (state.phase == "extra" and tile.is_double
                and options["multiple_doubles"] == "one-per-turn"):
            raise IllegalMoveError("MT-16", "Only one double may be played in a turn.")
        allowed = self.allowed_targets(state)
        if name not in allowed:
            first = self.blocking_double(state)
            if state.phase == "extra":
                raise IllegalMoveError(
                    "MT-16", f"Open doubles close in the order played: cover {train_label(first)} first.")
            raise IllegalMoveError(
                "MT-15", f"The double on {train_label(first)} is open and must be covered first.")
        if state.simulated:
            choices = self._must_cover_own_double(state, self._plays(state, state.hands[seat]))
            if move not in choices:
                raise IllegalMoveError(
                    "MT-14", f"Cover your own double on {train_label(self.blocking_double(state))} "
                             "when you can (house rule extra_after_double=on-double).")

    # -- applying -----------------------------------------------------------------------
    def _apply(self, state: MexicanTrainState, move: Move) -> None:
        kind = move.kind
        if kind == "play":
            self._apply_play(state, move)
        elif kind == "draw":
            draw_tile(state)
            state.announced.discard(state.current)
            if state.pending_last_double and state.pending_last_double[0] == state.current:
                state.pending_last_double = None
        elif kind == "pass":
            ends = [(n, state.trains[n].open_end) for n in self.allowed_targets(state)]
            record_claim(state, "pass", ends)
            state.trains[player_slot(state.current)].marker = True  # MT-11
            state.passes += 1
            self._end_turn(state)
        elif kind == "done":
            self._end_turn(state)
        elif kind == "announce":
            state.announced.add(slot_player(move.value))

    def _apply_play(self, state: MexicanTrainState, move: Move) -> None:
        tile, name, seat = move.tile, move.target, state.current
        options = state.options
        train = state.trains[name]
        if state.simulated:
            state.hands[seat].remove(tile)
        state.hand_sizes[seat] -= 1
        state.played.add(tile)
        if not tile.is_double:
            state.with_number[tile[0]] += 1
            state.with_number[tile[1]] += 1
        train.tiles.append(tile)
        train.open_end = tile.other_end(train.open_end)
        state.passes = 0
        state.drawn = None
        if train.owner == seat:
            train.marker = False  # MT-12
        if name in state.open_doubles:
            state.open_doubles.remove(name)
            pending = state.pending_last_double
            if pending and pending[1] == name and state.hand_sizes[pending[0]] == 0:
                state.out = pending[0]  # MT-18 must-be-covered: covered now
                return
        if tile.is_double and options["double_rule"] != "none":
            state.open_doubles.append(name)
            if state.hand_sizes[seat] == 0:
                if options["end_on_double"] == "round-ends":
                    state.out = seat  # MT-18
                    return
                state.pending_last_double = (seat, name)
            state.phase = "extra"  # MT-14
            state.has_drawn = False
            state.doubles_this_turn += 1
            return
        if state.hand_sizes[seat] == 0:
            state.out = seat  # MT-19
            return
        first_run = (options["first_turn"] == "run" and seat == state.starter
                     and not state.starter_done and name == player_slot(seat))
        if first_run:
            state.phase = "run"
            return
        self._end_turn(state)

    def _end_turn(self, state: MexicanTrainState) -> None:
        if state.current == state.starter:
            state.starter_done = True
        if state.options["double_rule"] != "satisfy-by-all":
            state.open_doubles.clear()  # nobody else is bound by the double
        state.current = (state.current + 1) % state.players
        state.phase = "start"
        state.has_drawn = False
        state.drawn = None
        state.doubles_this_turn = 0

    # -- end of round -------------------------------------------------------------------
    def is_round_over(self, state: MexicanTrainState) -> bool:
        return state.out is not None or (state.passes >= state.players and state.boneyard_count == 0)

    def round_result(self, state: MexicanTrainState, revealed=None) -> RoundResult:
        if not self.is_round_over(state):
            raise ValueError("the round is not over yet (MT-19)")
        return out_or_blocked(self, state, revealed, "MT-10")  # MT-20, MT-21

    def describe(self, state: MexicanTrainState) -> dict:
        view = super().describe(state)
        first = self.blocking_double(state)
        view.update({
            "engine": f"{state.engine}-{state.engine}",
            "starter": state.starter,
            "phase": state.phase,
            "has_drawn": state.has_drawn,
            "trains": [
                {"name": name, "owner": train.owner, "open_end": train.open_end,
                 "marker": train.marker, "count": len(train.tiles),
                 "tiles": [str(t) for t in train.tiles],
                 "open_double": name in state.open_doubles}
                for name, train in state.trains.items()
            ],
            "must_cover": first,
            "announced": sorted(state.announced),
            "reminders": [f"p{seat + 1} has one tile left: announce it (MT-13)."
                          for seat, size in enumerate(state.hand_sizes)
                          if size == 1 and seat not in state.announced],
            "out": state.out,
        })
        return view


MEXICAN_TRAIN = register(MexicanTrain())

# The option matrix the conformance suite runs (tests/games/test_conformance.py).
CONFORMANCE_OPTIONS = [
    {"players": players, **rule_options}
    for players in (2, 4)
    for rule_options in [
        {"double_rule": rule, "extra_after_double": extra, "multiple_doubles": multiple,
         "first_turn": first, "end_on_double": end}
        for rule in ("satisfy-by-all", "follow-up-by-player-only", "none")
        for extra in ("any-train", "on-double")
        for multiple in ("in-order", "reverse-order", "one-per-turn")
        for first in ("one-tile", "run")
        for end in ("round-ends", "must-be-covered")
    ]
] + [
    {"players": 3, "set": "double-9", "double_blank": 0},
    {"players": 8, "set": "double-12", "hand_size": "gr"},
    {"players": 4, "set": "double-12", "hand_size": "wg", "rounds": "wg"},
    {"players": 10, "set": "double-15"},
    {"players": 12, "set": "double-18"},
    {"players": 5, "set": "double-9", "hand_size": 6},
]
