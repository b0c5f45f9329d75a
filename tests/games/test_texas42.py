"""Texas 42 (TX-x): golden hands with explicit deals, then invariants over the option matrix."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.games import TABLE, InvalidMoveError, full_set, get_rules
from companion.games.match import play_random_match, table_replay
from companion.games.texas42 import CONFORMANCE_OPTIONS
from companion.games.texas42_tricks import COUNT_TILES, bid_text, parse_bid, raises

from .scripted import assert_refused

RULES = get_rules("42")

# Seats 0-3; team 0 = p1 and p3, team 1 = p2 and p4.
DEAL_A = [
    "6-6 6-5 6-4 6-3 6-2 1-0 2-0",
    "6-1 5-5 5-4 5-3 4-4 4-3 3-3",
    "5-0 4-1 3-2 5-2 5-1 2-2 1-1",
    "6-0 4-2 4-0 3-1 3-0 2-1 0-0",
]
DEAL_MARKS = [
    "6-6 6-5 6-4 6-3 6-2 5-5 1-0",
    "6-1 1-1 5-4 5-3 4-4 4-3 3-3",
    "5-2 5-1 5-0 4-2 4-1 3-2 2-2",
    "6-0 4-0 3-1 3-0 2-1 2-0 0-0",
]
DEAL_PLUNGE = [  # p2 holds four doubles
    "6-6 6-5 6-4 6-3 6-2 1-0 2-0",
    "2-2 5-5 5-4 5-3 4-4 4-3 3-3",
    "5-0 4-1 3-2 5-2 5-1 6-1 1-1",
    "6-0 4-2 4-0 3-1 3-0 2-1 0-0",
]


def deal(shaker: int, hands=DEAL_A, **options):
    state = RULES.new_round(4, RULES.resolve_options(4, options), 0, hands=hands, shaker=shaker)
    return state


def play(state, moves: str) -> None:
    """Space-separated words; "bid 30" and "trumps fives" are kept together."""
    words = moves.split()
    while words:
        word = words.pop(0)
        if word in ("bid", "trumps"):
            word += " " + words.pop(0)
        RULES.play(state, word)


def refused(state, move: str, rule: str):
    return assert_refused(RULES, state, move, rule)


def winners_of_tricks(state) -> list[int]:
    return [winner for winner, _ in state.tricks]


def test_deals_are_whole_sets():
    for hands in (DEAL_A, DEAL_MARKS, DEAL_PLUNGE):
        tiles = [t for hand in hands for t in hand.split()]
        assert sorted(tiles) == sorted(str(t) for t in full_set(6))


# -- golden hands ----------------------------------------------------------------------------
def test_points_bid_made_by_the_bidders():
    state = deal(shaker=3)
    assert state.current == 0  # TX-6: bidding starts left of the shaker
    refused(state, "bid 29", "TX-7")
    refused(state, "bid 43", "TX-9")
    refused(state, "trumps fives", "TX-11")
    play(state, "bid 30 pass pass pass")
    refused(state, "pass", "TX-6")
    play(state, "trumps sixes 6-6")
    refused(state, "4-4", "TX-14")  # p2 holds 6-1, a trump, and must follow trumps
    play(state, "6-1 5-0 6-0")
    play(state, "6-5 5-5 4-1 4-2  6-4 5-4 3-2 4-0  6-3 5-3 5-2 3-1  6-2 4-4 5-1 3-0")
    play(state, "1-0 4-3")
    refused(state, "2-2", "TX-14")  # p3 holds 1-1 and must follow ones
    play(state, "1-1 2-1  2-2 0-0 2-0 3-3")
    assert winners_of_tricks(state) == [0, 0, 0, 0, 0, 2, 2]
    assert state.team_points == [42, 0]
    result = RULES.round_result(state)
    assert (result.scores, result.ended, result.winners) == ([1, 0, 1, 0], "made", [0, 2])
    refused(state, "6-6", "TX-15")


def test_end_early_stops_once_the_points_bid_is_made():
    state = deal(shaker=3, end_early=True)
    play(state, "bid 30 pass pass pass trumps sixes")
    play(state, "6-6 6-1 5-0 6-0  6-5 5-5 4-1 4-2")
    assert not RULES.is_round_over(state)
    play(state, "6-4 5-4 3-2 4-0")  # 38 points: 30 is made
    assert RULES.is_round_over(state)
    assert RULES.round_result(state).scores == [1, 0, 1, 0]


def test_a_set_gives_the_mark_to_the_opponents():
    state = deal(shaker=0)
    play(state, "pass pass bid 30 pass trumps blanks")
    assert state.current == 3  # TX-12: the bidder leads
    play(state, "0-0 1-0 3-3 5-0  6-0 2-0 4-3 2-2  4-0 6-6 4-4 1-1  3-0 6-5 5-3 5-2")
    play(state, "4-2 6-4 5-4 4-1  6-3 6-1 3-2 2-1  6-2 5-5 5-1 3-1")
    assert winners_of_tricks(state) == [3, 3, 3, 3, 0, 0, 0]
    assert state.team_points == [33, 9]
    result = RULES.round_result(state)
    assert (result.scores, result.ended, result.winners) == ([1, 0, 1, 0], "set", [0, 2])


@pytest.mark.parametrize("end_early", [True, False])
def test_a_marks_bid_lost_on_the_sixth_trick(end_early):
    state = deal(shaker=3, hands=DEAL_MARKS, end_early=end_early)
    play(state, "bid 2m pass pass pass trumps sixes")
    play(state, "6-6 6-1 2-2 6-0  6-5 3-3 4-2 0-0  6-4 4-3 3-2 2-0  6-3 5-3 5-2 2-1")
    play(state, "6-2 5-4 4-1 3-0  1-0 1-1 5-1 3-1")  # TX-10: 1-1 takes the sixth trick
    assert winners_of_tricks(state) == [0, 0, 0, 0, 0, 1]
    assert RULES.is_round_over(state) is end_early
    if not end_early:
        play(state, "4-4 5-0 4-0 5-5")
        assert state.team_points == [25, 17]
    result = RULES.round_result(state)
    assert (result.scores, result.ended) == ([0, 2, 0, 2], "set")


def test_follow_me_has_no_trumps():
    state = deal(shaker=3)
    play(state, "bid 31 pass pass pass trumps follow-me 6-6")
    assert [str(m) for m in RULES.legal_moves(state)] == ["6-1"]
    play(state, "6-1 5-0 6-0  6-5 5-5 5-2 4-2")  # 5-5 is no six: it cannot take the trick
    assert winners_of_tricks(state) == [0, 0]


def test_doubles_as_trumps():
    state = deal(shaker=3)
    play(state, "bid 30 pass pass pass trumps doubles 6-5")
    refused(state, "5-5", "TX-14")  # 5-5 is a trump now, and p2 must follow sixes with 6-1
    play(state, "6-1 2-2 6-0")  # p3 trumps with 2-2
    assert winners_of_tricks(state) == [2]
    play(state, "1-1")
    assert [str(m) for m in RULES.legal_moves(state)] == ["0-0"]  # follow doubles
    play(state, "0-0 6-6")
    assert {str(m) for m in RULES.legal_moves(state)} == {"5-5", "4-4", "3-3"}
    play(state, "3-3")
    assert winners_of_tricks(state) == [2, 0]


def test_the_first_tile_led_names_trumps_when_none_was_named():
    state = deal(shaker=3)
    play(state, "bid 30 pass pass pass 6-4")  # TX-11
    assert RULES.describe(state)["trump"] == "sixes"
    assert [str(m) for m in RULES.legal_moves(state)] == ["6-1"]


def test_nel_o():
    state = deal(shaker=2, nel_o=True)
    play(state, "bid 42 pass pass pass")
    refused(state, "trumps nel-o", "TX-18")  # needs 2 marks
    state = deal(shaker=2)
    play(state, "bid 2m pass pass pass")
    refused(state, "trumps nel-o", "TX-18")  # option off
    state = deal(shaker=2, nel_o=True, end_early=True)
    play(state, "bid 2m pass pass pass trumps nello")
    assert state.sitting_out == 1 and state.current == 3  # TX-18: the bidder leads
    play(state, "0-0 2-0")
    assert state.current == 2  # p2 sits out
    play(state, "5-0")
    assert winners_of_tricks(state) == [3] and RULES.is_round_over(state)
    assert state.hand_sizes == [6, 7, 6, 6]
    result = RULES.round_result(state)
    assert (result.scores, result.ended) == ([2, 0, 2, 0], "set")


def test_sevens():
    state = deal(shaker=3, sevens=True)
    play(state, "bid 41 pass pass pass")
    refused(state, "trumps sevens", "TX-19")  # needs a mark
    state = deal(shaker=3, sevens=True)
    play(state, "bid 42 pass pass pass trumps sevens")
    play(state, "6-2 5-5 3-2 4-2")  # no suits to follow; 6-2 and 4-2 tie at 1: first played
    assert winners_of_tricks(state) == [0]
    play(state, "6-3 6-1 5-2 2-1")  # 6-1 and 5-2 make 7: p2 played first
    assert winners_of_tricks(state) == [0, 1]
    assert RULES.is_round_over(state)  # TX-19: the other team won a trick
    assert RULES.round_result(state).scores == [0, 1, 0, 1]


def test_plunge_refusals():
    state = deal(shaker=3, hands=DEAL_PLUNGE, plunge=True)
    refused(state, "bid plunge", "TX-20")  # p1 holds one double
    play(state, "bid 30")
    refused(state, "bid plunge", "TX-20")  # someone has already bid


def test_plunge_partner_names_trumps_and_leads():
    state = deal(shaker=0, hands=DEAL_PLUNGE, plunge=True, end_early=True)
    play(state, "bid plunge")
    assert [str(m) for m in RULES.legal_moves(state)] == ["pass", "bid 5m"]
    play(state, "pass pass pass")
    assert (state.bidder, state.high_bid, state.declarer, state.current) == (1, 168, 3, 3)
    play(state, "trumps fours 6-0")
    assert "6-4" not in {str(m) for m in RULES.legal_moves(state)}  # 6-4 is a trump
    play(state, "6-6 5-3 6-1")
    assert RULES.is_round_over(state)  # the plungers lost a trick
    assert RULES.round_result(state).scores == [4, 0, 4, 0]


def test_splash():
    state = deal(shaker=3, splash=True)
    play(state, "bid 2m bid splash")  # p2 holds three doubles: a splash over 2 marks is 3
    refused(state, "bid splash", "SPLASH")  # p3 holds two doubles
    play(state, "pass pass")
    view = RULES.describe(state)
    assert (view["high_bid"], view["special"], view["declarer"]) == ("3m", "splash", 3)


def test_forced_bid_and_redeal_when_all_pass():
    state = deal(shaker=3)
    play(state, "pass pass pass pass")
    assert (state.bidder, state.high_bid, state.current) == (3, 30, 3)  # TX-8
    state = deal(shaker=3, all_pass="redeal")
    play(state, "pass pass pass pass")
    result = RULES.round_result(state)
    assert (result.scores, result.ended) == ([0, 0, 0, 0], "redeal")


def test_a_renege_is_detected_at_the_table():
    options = RULES.resolve_options(4, {})
    state = RULES.new_round(4, options, 0, mode=TABLE, shaker=3)
    play(state, "bid 30 pass pass pass trumps sixes 6-6 6-1 5-0 4-2")  # p4 keeps 6-0 back
    assert not RULES.problems(state)
    refused(state, "6-6", "TX-1")
    play(state, "6-5 5-5 4-1 6-0")  # proof: p4 holds a trump after not following trumps
    problems = RULES.problems(state)
    assert problems == [("TX-14: p4 did not follow trumps in trick 1 but plays 6-0 of that "
                         "suit in trick 2: a renege.")]
    assert RULES.describe(state)["reneges"] == [
        {"seat": 3, "suit": "trump", "tile": "6-0", "void_trick": 1, "trick": 2}]
    RULES.undo(state)
    assert not RULES.problems(state)
    simulated = deal(shaker=3)
    play(simulated, "bid 30 pass pass pass trumps sixes 6-6 6-1 5-0")
    refused(simulated, "4-2", "TX-14")  # with the hands known, the renege is refused


def test_a_false_plunge_is_flagged_at_the_table():
    options = RULES.resolve_options(4, {"plunge": True})
    state = RULES.new_round(4, options, 0, mode=TABLE, shaker=0)
    play(state, "bid plunge pass pass pass trumps follow-me")
    assert state.current == 3  # p4 names trumps and leads for the plunger p2
    play(state, "6-0 6-1 6-2 6-3  5-0 5-1 5-2 5-3  4-0 4-1 4-2 4-3  3-0")
    assert winners_of_tricks(state) == [2, 1, 0]
    assert RULES.problems(state) == []
    play(state, "3-1")  # p2's fourth tile that is not a double: 4 doubles are impossible
    assert RULES.problems(state)[0].startswith("TX-20: p2 bid plunge")


def test_move_text_forms():
    state = deal(shaker=3)
    assert str(RULES.parse_move(state, "bid 1m")) == "bid 42"
    assert str(RULES.parse_move(state, "bid 84")) == "bid 2m"
    assert str(RULES.parse_move(state, "plunge")) == "bid plunge"
    assert str(RULES.parse_move(state, "trumps 5")) == "trumps fives"
    assert str(RULES.parse_move(state, "trumps no-trumps")) == "trumps follow-me"
    with pytest.raises(InvalidMoveError):
        RULES.parse_move(state, "bid lots")
    play(state, "bid 30 pass pass pass trumps sixes")
    with pytest.raises(InvalidMoveError):
        RULES.play(state, "6-6>p2")
    assert raises(0)[0] == 30 and raises(41) == [42, 84] and raises(84) == [126]
    assert [bid_text(b) for b in (35, 42, 84, 126)] == ["35", "42", "2m", "3m"]
    assert parse_bid("3m") == 126


def test_shaker_is_drawn_then_rotates():
    options = RULES.resolve_options(4, {})
    first = RULES.new_round(4, options, 0, seed=7)
    assert first.current == (first.shaker + 1) % 4
    second = RULES.new_round(4, options, 1, seed=8, previous=first)
    assert second.shaker == (first.shaker + 1) % 4
    assert RULES.new_round(4, options, 0, mode=TABLE, **first.setup).shaker == first.shaker


# -- invariants over the option matrix ---------------------------------------------------------
def check_hand(state) -> None:
    tiles = Counter(state.played)
    for hand in state.hands:
        tiles.update(hand)
    assert sorted(tiles) == sorted(full_set(6)) and max(tiles.values()) == 1  # 28 tiles
    legal = RULES.legal_moves(state)
    assert len(legal) == len(set(legal))
    assert bool(legal) != RULES.is_round_over(state)
    active = 3 if state.sitting_out is not None else 4
    points = [0, 0]
    for winner, plays in state.tricks:
        assert len(plays) == active and len({seat for seat, _ in plays}) == active
        assert winner in {seat for seat, _ in plays}  # one winner per trick, a player in it
        points[winner % 2] += 1 + sum(COUNT_TILES.get(tile, 0) for _, tile in plays)
    assert points == state.team_points
    if len(state.tricks) == 7 and active == 4:
        assert sum(state.team_points) == 42  # TX-5


@pytest.mark.parametrize("options", CONFORMANCE_OPTIONS, ids=str)
def test_random_hands_keep_the_invariants(options):
    options = dict(options)
    resolved = RULES.resolve_options(options.pop("players"), options)
    for seed in range(60):
        rng = random.Random(seed)
        state = RULES.new_round(4, resolved, 0, seed=seed)
        start = state.snapshot()
        while not RULES.is_round_over(state):
            check_hand(state)
            legal = RULES.legal_moves(state)
            RULES.play(state, legal[rng.randrange(len(legal))])
        check_hand(state)
        result = RULES.round_result(state)
        assert result.scores[0] == result.scores[2] and result.scores[1] == result.scores[3]
        table = table_replay(RULES, state)
        assert RULES.round_result(table).scores == result.scores
        assert not RULES.problems(table)
        while state.history:
            RULES.undo(state)
        assert state.snapshot() == start


@pytest.mark.parametrize("options", CONFORMANCE_OPTIONS, ids=str)
def test_whole_matches(options):
    options = dict(options)
    players = options.pop("players")
    goal = 7 if RULES.resolve_options(4, options)["goal"] == "marks" else 250
    for seed in range(5):
        record = play_random_match(RULES, players, options, seed=seed)
        result = record.to_json(RULES)
        totals = result["totals"]
        assert max(totals) >= goal and totals[0] == totals[2] and totals[1] == totals[3]
        assert result["winners"] in ([0, 2], [1, 3])


@pytest.mark.parametrize("options", CONFORMANCE_OPTIONS, ids=str)
def test_random_table_hands_end_and_flag_only_with_proof(options):
    """Table mode accepts any unseen tile; every flag it raises names a tile really seen."""
    options = dict(options)
    resolved = RULES.resolve_options(options.pop("players"), options)
    for seed in range(20):
        rng = random.Random(seed)
        state = RULES.new_round(4, resolved, 0, mode=TABLE, shaker=seed % 4)
        while not RULES.is_round_over(state):
            legal = RULES.legal_moves(state)
            RULES.play(state, legal[rng.randrange(len(legal))])
        assert RULES.round_result(state).ended in ("made", "set", "redeal")
        for renege in state.reneges:
            assert renege["void_trick"] < renege["trick"]
            assert any(str(t) == renege["tile"] for _, plays in state.tricks for _, t in plays) \
                or renege["tile"] in {str(t) for _, t in state.trick}

