"""Doubles (DB-x): golden rounds with explicit deals, then invariants over the option matrix."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.games import (
    TABLE,
    AmbiguousMoveError,
    InvalidMoveError,
    Tile,
    full_set,
    get_rules,
)
from companion.games.doubles import CONFORMANCE_OPTIONS, highest_double
from companion.games.match import play_random_match, table_replay
from companion.games.tiles import parse_tiles

from .scripted import assert_refused

RULES = get_rules("doubles")


def scripted(hands: list[str], boneyard: str = "", **options):
    """A simulated round with explicit hands; the boneyard is drawn from its end."""
    resolved = RULES.resolve_options(len(hands), options)
    if not boneyard:
        used = {t for hand in hands for t in parse_tiles(hand)}
        boneyard = " ".join(str(t) for t in full_set(6) if t not in used)
    return RULES.new_round(len(hands), resolved, 0, hands=hands, boneyard=boneyard)


def play(state, moves: str) -> None:
    for text in moves.split():
        RULES.play(state, text)


def refused(state, move: str, rule: str):
    return assert_refused(RULES, state, move, rule)


# -- golden rounds ------------------------------------------------------------------------------
UNLOCK_HANDS = ["6-6 6-2 6-4 3-3 5-0 4-1 2-1 0-0", "6-1 6-3 3-1 5-2 4-0 2-0 1-0 5-4"]
UNLOCK_BONEYARD = "6-5 6-0 5-3 5-1 4-4 4-3 4-2 3-2 3-0 2-2 1-1 5-5"  # 5-5 drawn first


def test_the_unlock_example_of_db6():
    state = scripted(UNLOCK_HANDS, UNLOCK_BONEYARD)
    assert (state.starter, str(state.opening), state.current) == (0, "6-6", 1)  # DB-3, DB-4
    assert state.hand_sizes == [7, 8]
    play(state, "6-1>6-6 6-2>6-6 6-3>6-6 6-4>6-6")  # four tiles round the spinner
    assert RULES.describe(state)["unlocked"] == [6]
    refused(state, "3-1>6-3", "DB-6")  # threes are locked
    refused(state, "3-1>6-1", "DB-6")  # and so are ones
    refused(state, "2-0>6-6", "DB-4")  # the 6-6 has no free side left
    assert [str(m) for m in RULES.legal_moves(state)] == ["draw"]
    refused(state, "pass", "DB-5")
    play(state, "draw")  # 5-5 fits nowhere
    refused(state, "draw", "DB-5")
    play(state, "pass")
    play(state, "3-3>6-3")  # threes unlocked; 3-3 is a spinner itself
    assert RULES.describe(state)["unlocked"] == [3, 6]
    play(state, "3-1>3-3")
    assert state.open_ends[Tile(3, 3)] == (3, 2)
    play(state, "draw")  # p1 draws 1-1, which fits: it must be played
    refused(state, "pass", "DB-5")
    refused(state, "2-1>6-2", "DB-5")
    with pytest.raises(AmbiguousMoveError):
        RULES.parse_move(state, "1-1")  # it fits the 6-1 and the 3-1
    play(state, "1-1>3-1")
    assert RULES.describe(state)["unlocked"] == [1, 3, 6]
    play(state, "1-0>6-1")  # ones are open now, on every table tile showing a one
    assert ("1-0", "6-1") in {(str(t), str(j)) for t, j in state.links}


def test_a_round_won_by_going_out():
    state = scripted(["6-6 6-1 1-1", "6-2 2-2 5-4"], hand_size=3)
    play(state, "6-2>6-6 6-1>6-6 2-2>6-2 1-1>6-1")
    assert RULES.is_round_over(state)
    refused(state, "5-4>2-2", "DB-7")
    result = RULES.round_result(state)
    assert (result.scores, result.ended, result.winners) == ([9, 0], "out", [0])  # DB-8


def test_a_blocked_round_goes_to_the_lowest_hand():
    hands = ["6-6 5-0 4-0 3-0 2-0 1-0 5-1 4-1", "6-5 5-2 5-3 4-2 4-3 3-2 2-1 3-1"]
    state = scripted(hands, yard_reserve=12)  # nothing may be drawn
    play(state, "6-5>6-6")
    refused(state, "draw", "DB-7")
    refused(state, "5-0>6-5", "DB-6")
    play(state, "pass pass")
    assert RULES.is_round_over(state)
    result = RULES.round_result(state)
    assert result.hand_pips == [26, 40]
    assert (result.scores, result.ended, result.winners) == ([40, 0], "blocked", [0])  # DB-9


def test_the_last_two_tiles_cannot_be_drawn():
    state = scripted(["6-6 6-5 3-0", "4-3 2-1"], boneyard="0-0 1-0 5-5", hand_size=3)
    play(state, "draw")  # p2 draws 5-5: it does not fit
    play(state, "pass")
    refused(state, "draw", "DB-7")  # p1: two tiles left in the boneyard
    play(state, "6-5>6-6")
    assert [str(m) for m in RULES.legal_moves(state)] == ["5-5>6-5"]
    play(state, "5-5>6-5")
    assert [str(m) for m in RULES.legal_moves(state)] == ["pass"]


def test_refusals_name_their_rule():
    state = scripted(UNLOCK_HANDS, UNLOCK_BONEYARD)
    refused(state, "6-6>6-6", "DB-1")  # already on the table
    refused(state, "6-2>6-6", "DB-2")  # p2 does not hold it
    refused(state, "6-1>5-5", "DB-4")  # 5-5 is not on the table
    refused(state, "3-1", "DB-5")  # no target, and it fits nowhere
    with pytest.raises(InvalidMoveError):
        RULES.play(state, "6-1>p2")
    assert str(RULES.parse_move(state, "6-1")) == "6-1>6-6"  # the only place it fits


def test_highest_double_starts_and_no_double_means_redeal():
    hands = [parse_tiles("5-5 1-0"), parse_tiles("2-2 6-0"), parse_tiles("4-4 3-1")]
    assert highest_double(hands) == (0, Tile(5, 5))
    assert highest_double([parse_tiles("1-0 2-0")]) is None
    with pytest.raises(ValueError):
        scripted(["6-5 1-0", "4-3 2-1"], hand_size=2)


def test_table_mode_replay_and_revealed_scores():
    state = scripted(["6-6 6-1 1-1", "6-2 2-2 5-4"], hand_size=3)
    play(state, "6-2>6-6 6-1>6-6 2-2>6-2 1-1>6-1")
    table = table_replay(RULES, state)
    with pytest.raises(ValueError):
        RULES.round_result(table)  # p2's hand must be shown
    assert RULES.round_result(table, {1: parse_tiles("5-4")}).scores == [9, 0]
    options = RULES.resolve_options(2, {})
    fresh = RULES.new_round(2, options, 0, mode=TABLE, starter=1, opening="4-4")
    assert (fresh.hand_sizes, fresh.boneyard_count, fresh.current) == ([8, 7], 12, 0)
    refused(fresh, "4-4>4-4", "DB-1")


def test_a_pass_proven_wrong_by_the_revealed_hands_is_flagged():
    options = RULES.resolve_options(2, {})
    state = RULES.new_round(2, options, 0, mode=TABLE, starter=0, opening="6-6",
                            hand_sizes=[2, 2], boneyard_count=2)  # nobody may draw
    play(state, "6-3>6-6 pass pass")  # p1 claims nothing fits; p2 too
    assert RULES.is_round_over(state)
    shown = {0: parse_tiles("3-1 6-2"), 1: parse_tiles("3-3")}  # 6-2 fitted; 3-3 fitted 6-3
    problems = RULES.round_result(state, shown).details["problems"]
    assert problems == ["p1 passed at move 2 while holding 6-2, which fitted 6-6 (DB-5).",
                        "p2 passed at move 3 while holding 3-3, which fitted 6-3 (DB-5)."]
    honest = {0: parse_tiles("3-1 5-2"), 1: parse_tiles("2-0")}  # 3-1 on a locked 3: no breach
    assert RULES.round_result(state, honest).details["problems"] == []


# -- invariants over the option matrix ----------------------------------------------------------
def check_round(state, previous) -> None:
    tiles = Counter(state.played)
    for hand in state.hands:
        tiles.update(hand)
    tiles.update(state.boneyard)
    assert sorted(tiles) == sorted(full_set(6)) and max(tiles.values()) == 1  # 28 tiles
    legal = RULES.legal_moves(state)
    assert len(legal) == len(set(legal))
    assert bool(legal) != RULES.is_round_over(state)
    if previous is not None and state.links and len(state.links) > len(previous.links):
        tile, joined = state.links[-1]
        number = previous.open_ends[joined][0]
        assert tile.has(number)
        assert previous.unlocked(number) or tile == Tile(number, number)  # DB-6
    assert all(free > 0 for _, free in state.open_ends.values())


@pytest.mark.parametrize("options", CONFORMANCE_OPTIONS, ids=str)
def test_random_rounds_keep_the_invariants(options):
    options = dict(options)
    players = options.pop("players")
    resolved = RULES.resolve_options(players, options)
    for seed in range(40):
        rng = random.Random(seed)
        state = RULES.new_round(players, resolved, 0, seed=seed)
        start, previous = state.snapshot(), None
        while not RULES.is_round_over(state):
            check_round(state, previous)
            legal = RULES.legal_moves(state)
            previous = RULES.new_round(players, resolved, 0, seed=seed)
            previous.restore(state.snapshot())
            RULES.play(state, legal[rng.randrange(len(legal))])
        check_round(state, previous)
        result = RULES.round_result(state)
        pips = [sum(t.pips for t in hand) for hand in state.hands]
        for seat in range(players):
            expected = sum(pips) - pips[seat] if seat in result.winners else 0
            assert result.scores[seat] == expected  # DB-8, DB-9
        table = table_replay(RULES, state)
        revealed = dict(enumerate(state.hands))
        assert RULES.round_result(table, revealed).scores == result.scores
        while state.history:
            RULES.undo(state)
        assert state.snapshot() == start


@pytest.mark.parametrize("options", CONFORMANCE_OPTIONS, ids=str)
def test_whole_matches_reach_the_target(options):
    options = dict(options)
    players = options.pop("players")
    target = RULES.resolve_options(players, options)["target"]
    for seed in range(5):
        result = play_random_match(RULES, players, options, seed=seed).to_json(RULES)
        assert max(result["totals"]) >= target  # DB-10
        assert result["winners"] == [s for s, t in enumerate(result["totals"])
                                     if t == max(result["totals"])]
