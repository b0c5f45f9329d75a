"""Golden scripted Mexican Train rounds: explicit deals, moves, refusals and scores (MT-x)."""

from __future__ import annotations

import pytest

from companion.games import TABLE, Tile, get_rules
from companion.games.tiles import parse_tiles

from .scripted import assert_refused as refused
from .scripted import play_all, scripted_round

SET9 = {"set": "double-9"}




def test_double_satisfied_by_the_next_player_after_a_draw():
    rules, state = scripted_round("mt", ["9-5 5-5 9-8 4-4 1-1", "9-3 3-1 6-6 2-2 7-7"],
                                  draws="5-2", **SET9)
    play_all(rules, state, "9-5>p1 9-3>p2 5-5>p1")
    assert state.current == 0 and state.phase == "extra"  # MT-14: the doubler plays again
    play_all(rules, state, "9-8>mx")
    assert rules.describe(state)["must_cover"] == "p1"
    error = refused(rules, state, "3-1>p2", "MT-15")
    assert "must be covered" in error.sentence
    refused(rules, state, "pass", "MT-11")
    play_all(rules, state, "draw")
    assert state.drawn == Tile(5, 2)
    play_all(rules, state, "5-2>p1")  # p1's train has no marker, but the open double opens it
    assert rules.describe(state)["must_cover"] is None
    assert state.current == 0 and not state.trains["p1"].marker


def test_a_player_who_cannot_cover_puts_the_marker_out_and_the_duty_passes():
    rules, state = scripted_round("mt", ["9-5 5-5 9-8 4-4 1-1", "9-3 3-1 6-6 2-2 7-7"],
                                  draws="2-1 0-0", **SET9)
    play_all(rules, state, "9-5>p1 9-3>p2 5-5>p1 9-8>mx draw")
    refused(rules, state, "draw", "MT-11")  # one draw per turn
    refused(rules, state, "2-1>mx", "MT-8")  # mx ends in 8
    play_all(rules, state, "pass")
    assert state.trains["p2"].marker and state.current == 0
    assert rules.describe(state)["must_cover"] == "p1"
    refused(rules, state, "4-4>p2", "MT-8")  # p2's train ends in 3 (its marker is out)


def test_two_doubles_in_one_turn_close_in_the_order_played():
    hands = ["9-8 9-5 5-5 8-8 5-4 8-4", "9-2 2-1 8-0 3-3 6-6 7-7"]
    rules, state = scripted_round("mt", hands, **SET9)
    play_all(rules, state, "9-8>mx 9-2>p2 9-5>p1 2-1>p2 5-5>p1 8-8>mx")
    assert state.current == 0 and state.open_doubles == ["p1", "mx"]
    refused(rules, state, "8-4>mx", "MT-16")
    play_all(rules, state, "5-4>p1")
    assert state.current == 1 and rules.describe(state)["must_cover"] == "mx"
    play_all(rules, state, "8-0>mx")
    assert rules.describe(state)["must_cover"] is None


def test_reverse_order_variation_closes_the_last_double_first():
    hands = ["9-8 9-5 5-5 8-8 5-4 8-4", "9-2 2-1 8-0 3-3 6-6 7-7"]
    rules, state = scripted_round("mt", hands, multiple_doubles="reverse-order", **SET9)
    play_all(rules, state, "9-8>mx 9-2>p2 9-5>p1 2-1>p2 5-5>p1 8-8>mx")
    refused(rules, state, "5-4>p1", "MT-16")
    play_all(rules, state, "8-4>mx")
    assert rules.describe(state)["must_cover"] == "p1"


def test_one_double_per_turn_variation():
    hands = ["9-8 9-5 5-5 8-8 5-4 8-4", "9-2 2-1 8-0 3-3 6-6 7-7"]
    rules, state = scripted_round("mt", hands, multiple_doubles="one-per-turn", **SET9)
    play_all(rules, state, "9-8>mx 9-2>p2 9-5>p1 2-1>p2 5-5>p1")
    refused(rules, state, "8-8>mx", "MT-16")


def _filler(state, used: set) -> str:
    """A non-double tile without a 0 for p2's train or the Mexican train (MT-17 script)."""

    def free(tile: Tile) -> bool:
        return not tile.is_double and 0 not in tile and tile not in used and tile not in state.played

    options = []
    for train in ("p2", "mx"):
        end = state.trains[train].open_end
        for other in range(1, 10):
            tile = Tile(end, other)
            if free(tile):
                onward = sum(free(Tile(other, nxt)) for nxt in range(1, 10)) - 1
                options.append((onward, train, tile))
    assert options, "no filler tile"
    _, train, tile = max(options)
    used.add(tile)
    return f"{tile}>{train}"


def test_a_double_that_can_never_be_covered_does_not_block():
    rules = get_rules("mt")
    options = rules.resolve_options(2, {"set": "double-9", "hand_size": 20})
    state = rules.new_round(2, options, 0, mode=TABLE, starter=0)
    chain = ["9-0", "0-1", "1-2", "2-0", "0-3", "3-4", "4-0", "0-5", "5-6", "6-0", "0-7", "7-8", "8-0"]
    used = set(map(Tile.parse, chain))
    for tile in chain:
        rules.play(state, f"{tile}>p1")
        rules.play(state, _filler(state, used))
    assert state.trains["p1"].open_end == 0
    rules.play(state, "0-0>p1")  # every other 0 is on the table (MT-17)
    assert rules.describe(state)["must_cover"] is None
    play_all(rules, state, "draw pass")
    rules.play(state, _filler(state, used))  # p2 is not held to the 0-0
    assert state.current == 0


def test_going_out_on_a_double_ends_the_round():
    rules, state = scripted_round("mt", ["9-5 5-5", "9-3 3-1 6-6"], **SET9)
    play_all(rules, state, "9-5>p1 9-3>p2 5-5>p1")
    assert rules.is_round_over(state)
    result = rules.round_result(state)
    assert result.ended == "out" and result.winners == [0]
    assert result.scores == [0, 16]


def test_going_out_on_a_double_that_must_be_covered():
    rules, state = scripted_round("mt", ["9-5 5-5", "9-3 3-1 6-6"], draws="5-2",
                                  end_on_double="must-be-covered", **SET9)
    play_all(rules, state, "9-5>p1 9-3>p2 5-5>p1")
    assert not rules.is_round_over(state) and state.current == 0
    play_all(rules, state, "draw 5-2>p1")
    assert rules.is_round_over(state)
    assert rules.round_result(state).scores == [0, 16]


def test_blocked_round_scores_every_hand_and_double_blank_counts_fifty():
    rules = get_rules("mt")
    for blank, expected, winners in ((50, [51, 14], [1]), (0, [1, 14], [0])):
        options = rules.resolve_options(2, {"set": "double-9", "double_blank": blank})
        state = rules.new_round(2, options, 0, mode=TABLE, starter=0, hand_sizes=[2, 2],
                                boneyard_count=0)
        play_all(rules, state, "pass pass")
        assert rules.is_round_over(state)
        assert state.trains["p1"].marker and state.trains["p2"].marker
        result = rules.round_result(state, {0: parse_tiles("0-0 1-0"), 1: parse_tiles("6-5 2-1")})
        assert result.ended == "blocked"
        assert result.scores == expected and result.winners == winners
        with pytest.raises(ValueError, match="p2"):
            rules.round_result(state, {0: parse_tiles("0-0 1-0")})


def test_revealed_hands_are_cross_checked():
    rules = get_rules("mt")
    options = rules.resolve_options(2, {"set": "double-9"})
    state = rules.new_round(2, options, 0, mode=TABLE, starter=0, hand_sizes=[2, 2],
                            boneyard_count=0)
    play_all(rules, state, "9-4>p1 pass pass")
    result = rules.round_result(state, {0: parse_tiles("9-4"), 1: parse_tiles("3-3 3-3 1-1")})
    problems = " ".join(result.details["problems"])
    assert "already on the table" in problems and "shown by both" in problems
    assert "p2 showed 3 tiles but should hold 2" in problems


def test_table_mode_refusals_name_their_rules():
    rules = get_rules("mt")
    options = rules.resolve_options(3, {})
    state = rules.new_round(3, options, 0, mode=TABLE, starter=0)
    refused(rules, state, "13-1>p1", "MT-1")
    refused(rules, state, "5-4>p1", "MT-8")  # the engine is 12-12
    refused(rules, state, "12-4>p4", "MT-2")
    refused(rules, state, "12-4>p2", "MT-8")  # p2's train has no marker
    play_all(rules, state, "12-4>p1")
    refused(rules, state, "12-4>mx", "MT-1")  # already on the table
    play_all(rules, state, "draw pass")  # p2 puts the marker out (MT-11)
    play_all(rules, state, "12-7>p2")  # p3 may use p2's marked train
    assert state.trains["p2"].marker  # others playing on it do not lift it (MT-12)
    play_all(rules, state, "4-1>p1 7-3>p2")
    assert not state.trains["p2"].marker  # the owner's own play lifts it


def test_must_play_is_enforced_when_hands_are_known():
    rules, state = scripted_round("mt", ["9-5 1-1", "9-3 2-2"], **SET9)
    error = refused(rules, state, "draw", "MT-10")
    assert "9-5" in error.sentence


def test_one_tile_announcement():
    rules, state = scripted_round("mt", ["9-5 1-1 2-2", "9-3 4-4 3-2"], **SET9)
    play_all(rules, state, "9-5>p1")
    refused(rules, state, "announce p1", "MT-13")
    play_all(rules, state, "9-3>p2")
    assert "p1" not in " ".join(rules.describe(state)["reminders"])


def test_first_turn_run_on_your_own_train():
    rules, state = scripted_round("mt", ["9-5 5-4 4-3 1-1", "9-3 2-2 7-7"], first_turn="run",
                                  **SET9)
    play_all(rules, state, "9-5>p1")
    assert state.current == 0 and state.phase == "run"
    refused(rules, state, "draw", "MT-9")
    play_all(rules, state, "5-4>p1 4-3>p1 done")
    assert state.current == 1 and state.trains["p1"].open_end == 3


def test_a_pass_proven_wrong_by_the_revealed_hand_is_flagged():
    rules = get_rules("mt")
    options = rules.resolve_options(2, {"set": "double-9"})
    state = rules.new_round(2, options, 0, mode=TABLE, starter=0, hand_sizes=[2, 2],
                            boneyard_count=0)
    play_all(rules, state, "9-4>p1 pass pass")  # p2 passed, but holds 9-3 (fits p2 and mx)
    result = rules.round_result(state, {0: parse_tiles("1-1"), 1: parse_tiles("9-3 2-2")})
    assert any("p2 passed at move 2 while holding 9-3" in p and "MT-10" in p
               for p in result.details["problems"])
    fair = rules.round_result(state, {0: parse_tiles("1-1"), 1: parse_tiles("5-3 2-2")})
    assert not any("passed" in p for p in fair.details["problems"])
