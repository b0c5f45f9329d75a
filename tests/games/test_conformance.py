"""One conformance suite for every registered game over its option matrix (STYLE.md 7).

Seeded random playouts in simulation mode with invariants checked after every move, undo
back to the start, and the same round replayed in table mode.
"""

from __future__ import annotations

import random
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import IllegalMoveError, Move, full_set, game_names, get_rules
from companion.games.match import play_random_match, table_replay

MAX_MOVES = 3000


def option_matrix(game: str) -> list[dict]:
    module = sys.modules[type(get_rules(game)).__module__]
    return getattr(module, "CONFORMANCE_OPTIONS", [{"players": get_rules(game).min_players}])


CASES = [(game, options) for game in game_names() for options in option_matrix(game)]


def case_id(case) -> str:
    game, options = case
    return game + ":" + ",".join(f"{k}={v}" for k, v in options.items())


def check_invariants(rules, state) -> None:
    """Every tile exactly once; sizes agree; legal moves unique, each passing check()."""
    max_pips = getattr(state, "max_pips", 6)
    everything = Counter(state.played)
    for hand in state.hands:
        everything.update(hand)
    everything.update(state.boneyard or [])
    assert max(everything.values()) == 1, "a tile exists twice"
    assert set(everything) == set(full_set(max_pips)), "a tile went missing"
    assert state.hand_sizes == [len(h) for h in state.hands]
    assert state.boneyard_count == len(state.boneyard or [])
    legal = rules.legal_moves(state)
    assert len(legal) == len(set(legal)), "legal moves repeat"
    for move in legal:
        rules.check(state, move)  # raises if legal_moves and check disagree
    check_obligations(rules, state, legal)


def check_obligations(rules, state, legal) -> None:
    """Open doubles (MT-15) and feet (CF-8) bind every play; nothing else is refused."""
    plays = [m for m in legal if m.kind == "play"]
    if state.game == "mexican-train":
        first = rules.blocking_double(state)
        if (first and state.phase == "start"
                and state.options["double_rule"] == "satisfy-by-all"):
            assert all(m.target == first for m in plays)
        probe_refusals(rules, state, legal, list(state.trains))
    elif state.game == "chicken-foot":
        foot = rules.active_foot(state)
        if foot:
            assert all(m.target == foot[0] for m in plays)
        probe_refusals(rules, state, legal, ["c", *state.lines])


def probe_refusals(rules, state, legal, targets) -> None:
    """Every hand tile on every target that legal_moves omits is refused by check()."""
    legal_set = set(legal)
    for tile in state.hands[state.current]:
        for target in targets:
            move = Move("play", tile, target)
            if move not in legal_set:
                with pytest.raises(IllegalMoveError) as refused:
                    rules.check(state, move)
                assert refused.value.rule and refused.value.sentence
    for word in ("draw", "pass"):
        if Move(word) not in legal_set:
            with pytest.raises(IllegalMoveError):
                rules.check(state, Move(word))


def play_round(game: str, options: dict, seed: int, round_index: int | None = None) -> None:
    rules = get_rules(game)
    options = dict(options)
    players = options.pop("players")
    resolved = rules.resolve_options(players, options)
    plan = rules.round_plan(players, resolved)
    rng = random.Random(seed)
    if round_index is None:
        round_index = rng.randrange(len(plan)) if plan else 0
    state = rules.new_round(players, resolved, round_index, seed=seed)
    snapshots = []
    for _ in range(MAX_MOVES):
        check_invariants(rules, state)
        if rules.is_round_over(state):
            break
        legal = rules.legal_moves(state)
        assert legal, "no legal move in a round that is not over"
        snapshots.append(state.snapshot())
        rules.play(state, legal[rng.randrange(len(legal))])
    else:
        pytest.fail(f"round not over after {MAX_MOVES} moves")
    result = rules.round_result(state)
    assert len(result.scores) == players
    assert result.winners or result.ended == "redeal"  # a 42 hand everyone passed (option)
    if game in ("mexican-train", "chicken-foot"):
        pips = [rules.hand_pips(hand, resolved) for hand in state.hands]
        out = getattr(state, "out", None)
        assert result.scores == [0 if seat == out else pips[seat] for seat in range(players)]
    replayed = table_replay(rules, state)
    assert rules.is_round_over(replayed)
    assert replayed.hand_sizes == state.hand_sizes
    for expected in reversed(snapshots):
        rules.undo(state)
        assert state.snapshot() == expected
    with pytest.raises(IllegalMoveError):
        rules.undo(state)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_option_matrix_playout(case):
    game, options = case
    play_round(game, options, seed=len(case_id(case)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**20))
def test_random_playouts(case, seed):
    play_round(case[0], case[1], seed)


@pytest.mark.parametrize("game", game_names())
def test_whole_match_never_raises(game):
    rules = get_rules(game)
    players = 4 if rules.min_players <= 4 <= rules.max_players else rules.min_players
    for seed in range(3):
        record = play_random_match(rules, players, {}, seed=seed)
        result = record.to_json(rules)
        assert result["winners"]
        assert result["totals"] == [sum(r["scores"][s] for r in result["rounds"])
                                    for s in range(players)]
