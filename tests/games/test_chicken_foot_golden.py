"""Golden scripted Chicken Foot rounds: the opening, feet, the yard reserve, scoring (CF-x)."""

from __future__ import annotations

from companion.games import TABLE, get_rules
from companion.games.tiles import parse_tiles

from .scripted import assert_refused as refused
from .scripted import play_all, scripted_round

HANDS = ["9-1 9-2 2-2 5-5", "3-3 4-4 5-1", "9-3 1-0 6-6", "8-8 7-7 4-0"]
DRAWS = "6-5 9-4 3-0 2-1 8-2 7-2"  # drawn in this order




def test_opening_follows_the_rule_book_example():
    rules, state = scripted_round("cf", HANDS, draws=DRAWS)
    assert rules.describe(state)["opening"]
    play_all(rules, state, "9-1>c")
    refused(rules, state, "pass", "CF-9")  # p2 must draw first
    play_all(rules, state, "draw pass")  # p2 draws 6-5, no match
    play_all(rules, state, "9-3>c")  # p3
    play_all(rules, state, "draw")  # p4 draws 9-4: it matches, so it must be played
    refused(rules, state, "pass", "CF-9")
    play_all(rules, state, "9-4>c 9-2>c")  # p4, then p1 plays the fourth line
    view = rules.describe(state)
    assert not view["opening"] and len(view["lines"]) == 4
    refused(rules, state, "5-1>c", "CF-7")


def test_a_double_needs_three_toes_before_anything_else():
    rules, state = scripted_round("cf", HANDS, draws=DRAWS)
    play_all(rules, state, "9-1>c draw pass 9-3>c draw 9-4>c 9-2>c")
    play_all(rules, state, "5-1>l1 draw 3-0>l2 4-0>l3 2-2>l4")
    assert rules.describe(state)["foot"] == {"line": "l4", "toes_needed": 3}
    refused(rules, state, "6-5>l1", "CF-8")
    play_all(rules, state, "draw 2-1>l4")  # p2: first toe starts line l5
    play_all(rules, state, "draw 8-2>l4")  # p3: second toe
    play_all(rules, state, "draw 7-2>l4")  # p4: third toe completes the foot
    view = rules.describe(state)
    assert view["foot"] is None
    assert [line["name"] for line in view["lines"]] == ["l1", "l2", "l3", "l4", "l5", "l6", "l7"]
    assert next(line for line in view["lines"] if line["name"] == "l4")["closed"]
    play_all(rules, state, "5-5>l1")  # p1: a new foot on l1
    assert rules.describe(state)["foot"]["line"] == "l1"


def test_the_yard_reserve_and_a_blocked_round():
    rules = get_rules("cf")
    for blank, expected, winners in ((0, [1, 9], [0]), (50, [51, 9], [1])):
        options = rules.resolve_options(2, {"double_blank": blank})
        state = rules.new_round(2, options, 0, mode=TABLE, starter=0, hand_sizes=[2, 2],
                                boneyard_count=2)
        refused(rules, state, "draw", "CF-10")  # 2 players: the last two tiles stay
        play_all(rules, state, "pass pass")
        assert rules.is_round_over(state)
        result = rules.round_result(state, {0: parse_tiles("0-0 1-0"), 1: parse_tiles("5-3 1-0")})
        assert result.ended == "blocked"
        assert result.scores == expected and result.winners == winners
        assert result.details["problems"]  # 1-0 was shown twice


def test_three_players_keep_one_tile_in_the_yard():
    rules = get_rules("cf")
    options = rules.resolve_options(3, {})
    state = rules.new_round(3, options, 0, mode=TABLE, starter=0, hand_sizes=[3, 3, 3],
                            boneyard_count=2)
    play_all(rules, state, "draw")
    play_all(rules, state, "pass")
    refused(rules, state, "draw", "CF-10")


def test_going_out_scores_zero_and_later_rounds_step_down_the_ladder():
    rules = get_rules("cf")
    options = rules.resolve_options(2, {})
    assert rules.round_plan(2, options) == list(range(9, -1, -1))  # CF-4
    rules_, state = scripted_round("cf", ["9-1", "9-2 6-6"])
    play_all(rules_, state, "9-1>c")
    result = rules_.round_result(state)
    assert result.ended == "out" and result.scores == [0, 23]


def test_later_rounds_are_begun_by_the_holder_of_the_double():
    rules = get_rules("cf")
    options = rules.resolve_options(4, {})
    state = rules.new_round(4, options, 3, seed=11)  # the 6-6 round
    assert state.centre == 6
    assert all(tile != (6, 6) for hand in state.hands for tile in hand)
    assert state.current == (state.starter + 1) % 4  # placing the double was the holder's turn
