"""Steps shared by the games that draw from a boneyard (Mexican Train, Chicken Foot, Doubles).

Each game names the rule ids it cites; the sentences and the state changes are written once.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import (
    GameState,
    RoundResult,
    Rules,
    must_play_breaches,
    record_claim,
    reveal_problems,
    round_end_pips,
)
from .errors import IllegalMoveError
from .tiles import Tile, in_set


@dataclass(frozen=True)
class TurnRuleIds:
    """The rule ids a game cites for the shared checks."""

    tile_exists: str  # a tile of the set, and only once (MT-1)
    holds: str  # you play what you hold (MT-5)
    no_tiles: str  # a player with no tiles cannot play (MT-19)
    draw_once: str  # one draw per turn (MT-11)
    draw_first: str  # draw before passing while the boneyard is open (MT-11)


def check_tile(state: GameState, tile: Tile, ids: TurnRuleIds, max_pips: int) -> None:
    """The tile exists in the set, is not on the table, and the player can have it."""
    seat = state.current
    if not in_set(tile, max_pips):
        raise IllegalMoveError(ids.tile_exists, f"{tile} is not a tile of a double-{max_pips} set.")
    if tile in state.played:
        raise IllegalMoveError(ids.tile_exists,
                               f"{tile} is already on the table: every tile exists once.")
    if state.simulated and tile not in state.hands[seat]:
        raise IllegalMoveError(ids.holds, f"p{seat + 1} does not hold {tile}.")
    if not state.simulated and state.hand_sizes[seat] == 0:
        raise IllegalMoveError(ids.no_tiles, f"p{seat + 1} has no tiles left to play.")
    drawn = getattr(state, "drawn", None)
    if state.simulated and state.has_drawn and drawn and tile != drawn:
        raise IllegalMoveError(ids.draw_once,
                               f"After drawing, only the drawn tile {drawn} may be played.")


def check_draw(state: GameState, ids: TurnRuleIds, can_draw: bool, closed: IllegalMoveError) -> None:
    """One draw a turn, and only while drawing is allowed (``closed`` says why not)."""
    if state.has_drawn:
        raise IllegalMoveError(ids.draw_once, f"p{state.current + 1} has already drawn this turn.")
    if not can_draw:
        raise closed


def check_pass(state: GameState, ids: TurnRuleIds, can_draw: bool) -> None:
    if not state.has_drawn and can_draw:
        raise IllegalMoveError(ids.draw_first,
                               "Draw a tile before passing; the boneyard is not empty.")


def draw_tile(state: GameState) -> None:
    """The current player takes one tile (known in simulation, counted at a table)."""
    record_claim(state, "draw", [])
    state.has_drawn = True
    state.boneyard_count -= 1
    state.hand_sizes[state.current] += 1
    if state.simulated:
        state.drawn = state.boneyard.pop()
        state.hands[state.current].append(state.drawn)


def next_turn(state: GameState) -> None:
    """The turn passes to the left; nothing drawn yet."""
    state.current = (state.current + 1) % state.players
    state.has_drawn = False
    state.drawn = None


def out_or_blocked(rules: Rules, state: GameState, revealed, breach_rule: str) -> RoundResult:
    """Penalty scoring: the player out scores 0, others their pips; blocked: every hand, the
    lowest wins the round. Revealed hands are cross-checked."""
    pips = round_end_pips(rules, state, revealed)
    details = {"problems": reveal_problems(state, revealed)
               + must_play_breaches(state, revealed, breach_rule)}
    out = state.out
    if out is not None:
        scores = [0 if seat == out else pips[seat] for seat in range(state.players)]
        return RoundResult(scores, "out", [out], pips, details)
    best = min(pips)
    winners = [seat for seat, total in enumerate(pips) if total == best]
    return RoundResult(list(pips), "blocked", winners, pips, details)
