"""Helpers for golden scripted rounds: an explicit deal and a known draw order."""

from __future__ import annotations

import pytest

from companion.games import IllegalMoveError, Tile, full_set, get_rules
from companion.games.tiles import parse_tiles, set_max_pips


def scripted_round(game: str, hands: list[str], draws: str = "", round_index: int = 0,
                   **options):
    """A simulation round with the given hands; ``draws`` are the next tiles drawn, in order."""
    rules = get_rules(game)
    resolved = rules.resolve_options(len(hands), options)
    max_pips = set_max_pips(resolved["set"])
    engine = rules.round_plan(len(hands), resolved)[round_index]
    dealt = [parse_tiles(hand) for hand in hands]
    next_draws = parse_tiles(draws)
    used = {Tile(engine, engine), *next_draws, *(t for hand in dealt for t in hand)}
    rest = [t for t in full_set(max_pips) if t not in used]
    boneyard = rest + list(reversed(next_draws))
    state = rules.new_round(len(hands), resolved, round_index, hands=dealt, boneyard=boneyard,
                            starter=0)
    return rules, state


def play_all(rules, state, moves: str) -> None:
    """Play space-separated moves; each must be accepted."""
    for text in moves.split():
        rules.play(state, text)


def assert_refused(rules, state, move: str, rule: str) -> IllegalMoveError:
    """``move`` is refused citing ``rule``, and the refusal leaves the state unchanged."""
    before = state.snapshot()
    with pytest.raises(IllegalMoveError) as caught:
        rules.play(state, move)
    assert caught.value.rule == rule, str(caught.value)
    assert state.snapshot() == before, "a refused move changed the state"
    return caught.value
